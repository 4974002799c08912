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
}
