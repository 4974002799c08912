import GriotProviders
import NIOCore
import GriotTestSupport
import Testing

@Suite struct ServerSentEventParserTests {
    /// Feeds `bytes` cut at the given offsets and returns every event, the end of stream included.
    func parse(_ bytes: [UInt8], cutAt cuts: [Int] = []) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        var start = 0
        do {
            for cut in cuts + [bytes.count] {
                events += try parser.feed(ByteBuffer(bytes: bytes[start..<cut]))
                start = cut
            }
            return try events + parser.finish()
        } catch {
            Issue.record("\(error)")
            return events
        }
    }

    func parse(_ text: String) -> [ServerSentEvent] { parse(Array(text.utf8)) }

    @Test func dataWithAndWithoutTheSpaceAfterTheColon() {
        #expect(parse("data: one\n\ndata:two\n\ndata:  three\n\n").map(\.data) == ["one", "two", " three"])
    }

    @Test func everyLineEndingEndsALine() {
        for ending in ["\n", "\r\n", "\r"] {
            let text = "data: a\(ending)data: b\(ending)\(ending)data: c\(ending)\(ending)"
            #expect(parse(text).map(\.data) == ["a\nb", "c"], "line ending \(Array(ending.utf8))")
        }
        // Mixed in one stream, as a proxy that rewrites some lines might leave it.
        #expect(parse("data: a\r\n\ndata: b\r\rdata: c\n\r\n").map(\.data) == ["a", "b", "c"])
    }

    @Test func aStreamCutAtEveryByteGivesTheSameEvents() {
        // Multi-byte characters (é is 2 bytes, 🌊 is 4), CRLF pairs and comments, cut everywhere.
        let text = ": keep-alive\r\nevent: delta\r\nid: 7\r\ndata: café 🌊\r\n\r\ndata: line one\r\ndata: line two\r\n\r\n"
        let bytes = Array(text.utf8)
        let whole = parse(bytes)
        #expect(whole == [
            ServerSentEvent(type: "delta", data: "café 🌊", id: "7"),
            ServerSentEvent(data: "line one\nline two", id: "7"),
        ])
        for cut in 1..<bytes.count {
            #expect(parse(bytes, cutAt: [cut]) == whole, "cut at byte \(cut)")
        }
        // And one byte at a time.
        #expect(parse(bytes, cutAt: Array(1..<bytes.count)) == whole)
    }

    @Test func aCarriageReturnAtTheEndOfAChunkPairsWithTheNewlineThatStartsTheNext() {
        // Were the "\n" taken for a second line end, it would dispatch "a" early and split the event.
        #expect(parse(Array("data: a\r\ndata: b\r\n\r\n".utf8), cutAt: [8]) == [ServerSentEvent(data: "a\nb")])
    }

    @Test func commentsAndKeepAlivesAreNotEvents() {
        #expect(parse(": keep-alive\n\n:\n\ndata: x\n: in the middle\n\n: ping\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test func aBlankLineWithoutDataDispatchesNothing() {
        #expect(parse("event: ping\n\n\n\nid: 3\n\n").isEmpty)
    }

    @Test func theIDCarriesOverToLaterEvents() {
        #expect(parse("id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n").map(\.id) == ["1", "1", ""])
    }

    @Test func aFieldWithoutAColonHasAnEmptyValue() {
        #expect(parse("data\ndata\n\n") == [ServerSentEvent(data: "\n")])
    }

    @Test func unknownFieldsAreIgnoredAndRetryIsRead() {
        #expect(parse("foo: bar\nretry: 1500\ndata: x\n\n") == [ServerSentEvent(data: "x", retryMilliseconds: 1500)])
        #expect(parse("retry: soon\ndata: x\n\n") == [ServerSentEvent(data: "x")])
    }

    @Test func theLastEventIsDispatchedAtTheEndOfTheStreamWithoutABlankLine() {
        #expect(parse("data: first\n\ndata: [DONE]").map(\.data) == ["first", "[DONE]"])
        #expect(parse("data: first\n\ndata: [DONE]\n").map(\.data) == ["first", "[DONE]"])
    }

    @Test func aByteOrderMarkAtTheStartIsSkipped() {
        #expect(parse([0xEF, 0xBB, 0xBF] + Array("data: x\n\n".utf8), cutAt: [2]) == [ServerSentEvent(data: "x")])
    }

    @Test func eventsArriveAsSoonAsTheirBlankLineDoes() throws {
        var parser = ServerSentEventParser()
        #expect(try parser.feed(Array("data: a\n".utf8)).isEmpty)
        #expect(try parser.feed(Array("\ndata: b".utf8)) == [ServerSentEvent(data: "a")])
        #expect(try parser.feed(Array("\n\n".utf8)) == [ServerSentEvent(data: "b")])
        #expect(try parser.finish().isEmpty)
    }

    @Test func aTwoMegabyteLineIsRefusedAndSoIsEverythingAfterIt() {
        var parser = ServerSentEventParser()
        let line = Array("data: ".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 2 << 20)
        #expect(throws: ServerSentEventParser.LimitExceeded(part: .line, limit: 1 << 20)) { try parser.feed(line) }
        #expect(throws: ServerSentEventParser.LimitExceeded.self) { try parser.feed(Array("\n\ndata: b\n\n".utf8)) }
        #expect(throws: ServerSentEventParser.LimitExceeded.self) { try parser.finish() }
    }

    @Test func aLineOfExactlyTheCapIsRead() throws {
        var parser = ServerSentEventParser(limit: 16)
        let events = try parser.feed(Array("data: 0123456789\n\n".utf8))
        #expect(events == [ServerSentEvent(data: "0123456789")])
    }

    @Test func dataLinesThatTogetherPassTheCapAreRefused() {
        var parser = ServerSentEventParser(limit: 1_000)
        let lines = Array(String(repeating: "data: 0123456789\n", count: 100).utf8)
        #expect(throws: ServerSentEventParser.LimitExceeded(part: .data, limit: 1_000)) { try parser.feed(lines) }
    }

    /// Random streams of the pieces an event stream is made of (and bytes that are not UTF-8),
    /// cut at random places: the events, and where the cap is met, do not depend on the cuts.
    @Test func randomStreamsReadTheSameHoweverTheyAreCut() {
        let pieces = ["data: ", "data:", "event: x", "id: 7", "id: \u{0}", "retry: 99999999999999999999", ": ping", "\n", "\r", "\r\n",
                      "\n\n", "é", "[DONE]", "\u{FEFF}", "{\"choices\":[{\"delta\":{\"content\":\"\\ud800\"}}]}", "x", "0123456789"]
        var random = SplitMix64(seed: 25)
        for round in 0..<2_000 {
            var bytes = (0..<Int(random.next() % 40)).flatMap { _ in Array(pieces[Int(random.next() % UInt64(pieces.count))].utf8) }
            if random.next() % 8 == 0 { bytes.insert(0xFF, at: Int(random.next() % UInt64(bytes.count + 1))) }
            let cuts = (0..<Int(random.next() % 6)).map { _ in Int(random.next() % UInt64(bytes.count + 1)) }.sorted()
            for limit in [ServerSentEventParser.defaultLimit, 24] {
                let whole = Self.outcome(bytes, cuts: [], limit: limit)
                let cut = Self.outcome(bytes, cuts: cuts, limit: limit)
                #expect(cut.failure == whole.failure, "round \(round)")
                if whole.failure == nil { #expect(cut.events == whole.events, "round \(round)") }
                #expect((whole.events + cut.events).allSatisfy { $0.data.unicodeScalars.count <= limit })
            }
        }
    }

    static func outcome(_ bytes: [UInt8], cuts: [Int], limit: Int) -> (events: [ServerSentEvent], failure: ServerSentEventParser.LimitExceeded?) {
        var parser = ServerSentEventParser(limit: limit)
        var events: [ServerSentEvent] = []
        var start = 0
        do {
            for cut in cuts + [bytes.count] {
                events += try parser.feed(bytes[start..<cut])
                start = cut
            }
            events += try parser.finish()
            return (events, nil)
        } catch {
            return (events, error)
        }
    }
}

