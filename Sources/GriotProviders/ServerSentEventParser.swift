import NIOCore

/// Turns the bytes of a `text/event-stream` into events, however the bytes were cut into chunks.
///
/// ```swift
/// var parser = ServerSentEventParser()
/// for try await chunk in response.body { for event in parser.feed(chunk) { handle(event) } }
/// for event in parser.finish() { handle(event) }
/// ```
/// Lines are kept as bytes until their end is seen, so a chunk that ends inside a line, inside
/// a "\r\n" pair or inside a multi-byte UTF-8 character loses nothing. Lines end with "\n",
/// "\r\n" or "\r"; `data:` may or may not be followed by a space; lines starting with ":" are
/// comments (keep-alives); a blank line dispatches the event.
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    /// The last byte fed was "\r": a "\n" that follows it belongs to the same line end.
    private var afterCarriageReturn = false
    private var startOfStream = true
    private var data: [UInt8] = []
    private var hasData = false
    private var type: String?
    private var lastEventID: String?
    private var retryMilliseconds: Int?

    public init() {}

    /// Feeds the next bytes of the stream; returns the events they complete, in order.
    public mutating func feed(_ buffer: ByteBuffer) -> [ServerSentEvent] {
        buffer.withUnsafeReadableBytes { feed($0) }
    }

    /// Feeds the next bytes of the stream; returns the events they complete, in order.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) -> [ServerSentEvent] where Bytes.Element == UInt8 {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                if afterCarriageReturn {
                    afterCarriageReturn = false
                } else {
                    endLine(into: &events)
                }
            case UInt8(ascii: "\r"):
                endLine(into: &events)
                afterCarriageReturn = true
            default:
                afterCarriageReturn = false
                line.append(byte)
            }
        }
        return events
    }

    /// Ends the stream. Unlike the standard, which drops an event that no blank line closed,
    /// this dispatches it: some servers end with `data: [DONE]` and a bare close, and the
    /// last piece of a reply must not be lost to that.
    public mutating func finish() -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        if !line.isEmpty { endLine(into: &events) }
        dispatch(into: &events)
        afterCarriageReturn = false
        return events
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        if startOfStream {
            startOfStream = false
            // A UTF-8 byte order mark at the very start is not part of the first field name.
            if line.starts(with: [0xEF, 0xBB, 0xBF]) { line.removeFirst(3) }
        }
        if line.isEmpty {
            dispatch(into: &events)
            return
        }
        if line[0] == UInt8(ascii: ":") { return }
        let name: ArraySlice<UInt8>
        var value: ArraySlice<UInt8>
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = line[..<colon]
            value = line[(colon + 1)...]
            if value.first == UInt8(ascii: " ") { value = value.dropFirst() }
        } else {
            name = line[...]
            value = []
        }
        switch String(decoding: name, as: UTF8.self) {
        case "data":
            if hasData { data.append(UInt8(ascii: "\n")) }
            data.append(contentsOf: value)
            hasData = true
        case "event":
            type = String(decoding: value, as: UTF8.self)
        case "id":
            // The standard ignores an id that contains NUL, so that it cannot end a C string early.
            if !value.contains(0) { lastEventID = String(decoding: value, as: UTF8.self) }
        case "retry":
            if !value.isEmpty, value.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
                retryMilliseconds = Int(String(decoding: value, as: UTF8.self))
            }
        default:
            break
        }
    }

    private mutating func dispatch(into events: inout [ServerSentEvent]) {
        defer {
            data.removeAll(keepingCapacity: true)
            hasData = false
            type = nil
            retryMilliseconds = nil
        }
        // An event with no data lines is not dispatched (an `event:` line alone is not an event).
        guard hasData else { return }
        events.append(ServerSentEvent(
            type: (type?.isEmpty ?? true) ? nil : type,
            data: String(decoding: data, as: UTF8.self),
            id: lastEventID,
            retryMilliseconds: retryMilliseconds))
    }
}
