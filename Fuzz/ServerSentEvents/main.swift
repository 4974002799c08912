// libFuzzer harness for what an upstream model server's bytes go through: the event-stream
// parser (with its cap on a line and on an event's data) and the chat-completions reader.
// Built and run by scripts/fuzz.sh; any trap is a finding.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The default cap, and one small enough for short inputs to reach it.
    for limit in [ServerSentEventParser.defaultLimit, 64] {
        let whole = parse(bytes, cuts: [], limit: limit)
        let pieces = parse(bytes, cuts: cuts(of: bytes), limit: limit)
        require(pieces.failure == whole.failure, "the cap was met in one chunking and not in another")
        if whole.failure == nil {
            require(pieces.events == whole.events, "events depend on how the bytes were cut")
        } else if bytes.count <= 65_536 {
            // A failing chunk drops the events it completed; fed a byte at a time, none are lost.
            let single = parse(bytes, cuts: Array(bytes.indices.dropFirst()), limit: limit)
            require(single.failure == whole.failure && single.events.starts(with: pieces.events), "events before the cap differ")
        }
        for event in whole.events + pieces.events {
            // Each byte decodes to at most one scalar (invalid UTF-8 to one U+FFFD).
            require(event.data.unicodeScalars.count <= limit, "data of \(event.data.unicodeScalars.count) scalars past the cap")
            require((event.type?.unicodeScalars.count ?? 0) <= limit && (event.id?.unicodeScalars.count ?? 0) <= limit, "a field past the cap")
        }
        if limit == ServerSentEventParser.defaultLimit { read(whole.events) }
    }
    return 0
}

func require(_ condition: Bool, _ message: @autoclosure () -> String) {
    if !condition { fatalError(message()) }
}

struct Outcome {
    var events: [ServerSentEvent] = []
    var failure: ServerSentEventParser.LimitExceeded?
}

func parse(_ bytes: [UInt8], cuts: [Int], limit: Int) -> Outcome {
    var parser = ServerSentEventParser(limit: limit)
    var outcome = Outcome()
    var start = 0
    do {
        for cut in cuts + [bytes.count] where cut >= start {
            outcome.events += try parser.feed(bytes[start..<cut])
            start = cut
        }
        outcome.events += try parser.finish()
    } catch {
        outcome.failure = error
    }
    return outcome
}

/// Cut points drawn from the bytes themselves, so that a crash replays.
func cuts(of bytes: [UInt8]) -> [Int] {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    for byte in bytes.prefix(64) { state = (state ^ UInt64(byte)) &* 0x100_0000_01B3 }
    var cuts: [Int] = []
    var position = 0
    while position < bytes.count {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        position += 1 + Int((state >> 33) % 17)
        if position < bytes.count { cuts.append(position) }
    }
    return cuts
}

/// The reader may refuse what it is given (a `ProviderError`), never trap.
func read(_ events: [ServerSentEvent]) {
    var reader = ChatCompletionStreamReader()
    for event in events {
        do {
            for output in try reader.read(event) {
                if case .text(let piece) = output { require(!piece.isEmpty && !piece.unicodeScalars.contains("\u{0}"), "an empty or NUL piece") }
            }
        } catch is ProviderError {
            return
        } catch {
            fatalError("the reader threw \(error), not a ProviderError")
        }
    }
    _ = try? reader.endOfStream()
}
