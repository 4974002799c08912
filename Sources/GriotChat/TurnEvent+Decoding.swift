import Foundation
import GriotStore

extension TurnEvent {
    /// The event a stream sent as `content` (its SSE name and JSON data), read back: how a
    /// listener that needs the typed event (the OpenAI facade) follows a turn through the
    /// registry, which keeps events as sent. Nil for a name or data this build does not know.
    ///
    /// ```swift
    /// let event = TurnEvent.decode(streamed.content)   // .delta("Ida Mae sang …")
    /// ```
    public static func decode(_ content: StreamEventContent, decoder: JSONDecoder = .turnEvents()) -> TurnEvent? {
        struct Delta: Decodable { var text: String }
        let data = Data(content.data.utf8)
        switch content.name {
        case "meta": return (try? decoder.decode(TurnMeta.self, from: data)).map(TurnEvent.meta)
        case "delta": return (try? decoder.decode(Delta.self, from: data)).map { .delta($0.text) }
        case "citation": return (try? decoder.decode(Citation.self, from: data)).map(TurnEvent.citation)
        case "flag": return (try? decoder.decode(SafetyFlag.self, from: data)).map(TurnEvent.flag)
        case "chips": return (try? decoder.decode(Chips.self, from: data)).map(TurnEvent.chips)
        case "budget": return (try? decoder.decode(TokenLedger.self, from: data)).map(TurnEvent.budget)
        case "error": return (try? decoder.decode(TurnFailure.self, from: data)).map(TurnEvent.error)
        case "done": return (try? decoder.decode(TurnSummary.self, from: data)).map(TurnEvent.done)
        default: return nil
        }
    }
}

extension JSONDecoder {
    /// A decoder for the JSON of `TurnEvent.jsonData()` (snake-case keys, ISO 8601 dates).
    public static func turnEvents() -> JSONDecoder {
        let decoder = JSONDecoder.swiftSnakeCase()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}
