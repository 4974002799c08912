import GriotProviders
import NIOCore
import Testing

@Suite struct ServerSentEventParserTests {
    /// Feeds `bytes` cut at the given offsets and returns every event, the end of stream included.
    func parse(_ bytes: [UInt8], cutAt cuts: [Int] = []) -> [ServerSentEvent] {
        var parser = ServerSentEventParser()
        var events: [ServerSentEvent] = []
        var start = 0
        for cut in cuts + [bytes.count] {
            events += parser.feed(ByteBuffer(bytes: bytes[start..<cut]))
            start = cut
        }
        return events + parser.finish()
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

    @Test func eventsArriveAsSoonAsTheirBlankLineDoes() {
        var parser = ServerSentEventParser()
        #expect(parser.feed(Array("data: a\n".utf8)).isEmpty)
        #expect(parser.feed(Array("\ndata: b".utf8)) == [ServerSentEvent(data: "a")])
        #expect(parser.feed(Array("\n\n".utf8)) == [ServerSentEvent(data: "b")])
        #expect(parser.finish().isEmpty)
    }
}
