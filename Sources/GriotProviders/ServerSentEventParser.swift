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
///
/// The stream comes from another server, so what it may make this parser hold is capped: a line,
/// and an event's data, of more than `limit` bytes (1 MiB unless told) is refused with
/// `LimitExceeded`, and so is everything after it, instead of being gathered until memory runs out.
///
/// This file uses the standard library alone (the `ByteBuffer` overload is in
/// `ServerSentEventParser+ByteBuffer.swift`), so that the fuzz harness can compile it by itself.
public struct ServerSentEventParser: Sendable {
    /// A line or an event's data was longer than the parser's limit.
    public struct LimitExceeded: Error, Sendable, Hashable, CustomStringConvertible {
        public enum Part: String, Sendable { case line, data }
        public var part: Part
        public var limit: Int

        public init(part: Part, limit: Int) {
            self.part = part
            self.limit = limit
        }

        public var description: String {
            "an event-stream \(part == .line ? "line" : "event's data") is longer than \(limit) bytes"
        }
    }

    public static let defaultLimit = 1 << 20
    /// The most bytes a line, or an event's data lines joined, may have.
    public let limit: Int
    /// Set once the limit is exceeded: the stream is broken, and the parser reads no more of it.
    private var exceeded: LimitExceeded?
    private var line: [UInt8] = []
    /// The last byte fed was "\r": a "\n" that follows it belongs to the same line end.
    private var afterCarriageReturn = false
    private var startOfStream = true
    private var data: [UInt8] = []
    private var hasData = false
    private var type: String?
    private var lastEventID: String?
    private var retryMilliseconds: Int?

    public init(limit: Int = ServerSentEventParser.defaultLimit) {
        self.limit = max(1, limit)
    }

    /// Feeds the next bytes of the stream; returns the events they complete, in order.
    /// - Throws: `LimitExceeded` when a line or an event's data passes `limit` (the events
    ///   completed earlier in these bytes are dropped with the stream), and on every call after.
    public mutating func feed<Bytes: Sequence>(_ bytes: Bytes) throws(LimitExceeded) -> [ServerSentEvent] where Bytes.Element == UInt8 {
        if let exceeded { throw exceeded }
        var events: [ServerSentEvent] = []
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\n"):
                if afterCarriageReturn {
                    afterCarriageReturn = false
                } else {
                    try endLine(into: &events)
                }
            case UInt8(ascii: "\r"):
                try endLine(into: &events)
                afterCarriageReturn = true
            default:
                afterCarriageReturn = false
                guard line.count < limit else { throw fail(.line) }
                line.append(byte)
            }
        }
        return events
    }

    /// Ends the stream. Unlike the standard, which drops an event that no blank line closed,
    /// this dispatches it: some servers end with `data: [DONE]` and a bare close, and the
    /// last piece of a reply must not be lost to that.
    /// - Throws: `LimitExceeded` if the stream had passed the limit, or the last line does.
    public mutating func finish() throws(LimitExceeded) -> [ServerSentEvent] {
        if let exceeded { throw exceeded }
        var events: [ServerSentEvent] = []
        if !line.isEmpty { try endLine(into: &events) }
        dispatch(into: &events)
        afterCarriageReturn = false
        return events
    }

    private mutating func fail(_ part: LimitExceeded.Part) -> LimitExceeded {
        let error = LimitExceeded(part: part, limit: limit)
        exceeded = error
        line = []
        data = []
        return error
    }

    private mutating func endLine(into events: inout [ServerSentEvent]) throws(LimitExceeded) {
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
            guard data.count + (hasData ? 1 : 0) + value.count <= limit else { throw fail(.data) }
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
