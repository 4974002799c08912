import Foundation
import Testing
@testable import GriotProviders

@Suite struct ChatCompletionStreamReaderTests {
    @Test func dataIsReadWithTheWhitespaceAroundItTrimmedAsFoundationWould() throws {
        for data in ["{\"choices\":[]}", "  [DONE] ", "\t[DONE]", "\u{00A0}[DONE]\u{2003}", "[DONE]\u{3000}", "é", "", " "] {
            #expect(ChatCompletionStreamReader.trimmed(data) == data.trimmingCharacters(in: .whitespaces), "\(data.debugDescription)")
        }
        var reader = ChatCompletionStreamReader()
        #expect(try reader.read(ServerSentEvent(data: " [DONE]\u{00A0}")) == [.finished(reason: nil, usage: nil)])
    }

    @Test func aNulInTheModelsTextIsDroppedSoWhatIsStoredIsWhatIsSent() throws {
        var reader = ChatCompletionStreamReader()
        let chunk = #"{"choices":[{"index":0,"delta":{"content":"Bees\u0000 were kept."}}]}"#
        #expect(try reader.read(ServerSentEvent(data: chunk)) == [.text("Bees were kept.")])
        let nulOnly = #"{"choices":[{"index":0,"delta":{"content":"\u0000"}}]}"#
        #expect(try reader.read(ServerSentEvent(data: nulOnly)) == [])
    }

    /// json-c reads the usual chunks exactly as `JSONDecoder` does, and gives way to it on
    /// anything else (an error object, a value of another type, bytes after the object).
    @Test func jsonCReadsChunksAsJSONDecoderDoesOrGivesWay() throws {
        func described(_ chunk: ChatCompletionChunk) -> String {
            let choices = chunk.choices.map { $0.map { "\($0.index.map(String.init) ?? "-")|\($0.delta.map { $0.content.map { Array($0.utf8).description } ?? "nil" } ?? "no delta")|\($0.finishReason ?? "-")" } }
            return "\(chunk.model ?? "-") \(choices.map { $0.joined(separator: ",") } ?? "no choices") \(chunk.usage.map { "\($0.promptTokens)/\($0.completionTokens)" } ?? "-")"
        }
        let read = [
            #"{"id":"c1","object":"chat.completion.chunk","created":1,"model":"smollm2","choices":[{"index":0,"delta":{"role":"assistant","content":"Zofia Łukasiewicz"},"finish_reason":null}]}"#,
            #"{"choices":[{"index":0,"delta":{"content":"\u674e\u79c0\u82f1 \ud83d\ude00 \"q\" \\ \n"},"logprobs":null}]}"#,
            #"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":12,"completion_tokens":400,"total_tokens":412}}"#,
            #"{"choices":[{"delta":{"content":null}}],"model":null}"#,
            #"{"choices":[],"usage":null}"#,
            #"{"choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":"a"}}]}"#,
            #"{"choices":[{"index":0,"delta":{"content":"Bees\u0000 were kept."}}]}"#,
            #"{}"#,
        ]
        for data in read {
            let fast = try #require(ChatCompletionChunk.parsedWithJSONC(data), "\(data)")
            let slow = try JSONDecoder().decode(ChatCompletionChunk.self, from: Data(data.utf8))
            #expect(described(fast) == described(slow), "\(data)")
        }
        let givenWay = [
            #"{"error":{"message":"overloaded","type":"server_error"}}"#,
            #"{"choices":[{"index":"0","delta":{"content":"a"}}]}"#,
            #"{"choices":[{"index":0,"delta":{"content":7}}]}"#,
            #"{"choices":[{"index":0.5,"delta":{"content":"a"}}]}"#,
            #"{"choices":{"index":0}}"#,
            #"{"usage":{"prompt_tokens":1}}"#,
            #"{"choices":[]} trailing"#,
            #"{"choices":[{"index":0,"delta":{"content":"a"}}"#,
            #"[1,2]"#,
            #"not json"#,
        ]
        for data in givenWay {
            #expect(ChatCompletionChunk.parsedWithJSONC(data) == nil, "\(data)")
        }
        // What the reader makes of those is JSONDecoder's answer: an upstream error, or a malformed stream.
        var reader = ChatCompletionStreamReader()
        #expect(throws: ProviderError.self) { try reader.read(ServerSentEvent(data: givenWay[0])) }
        reader = ChatCompletionStreamReader()
        #expect(throws: ProviderError.self) { try reader.read(ServerSentEvent(data: givenWay[6])) }
    }
}
