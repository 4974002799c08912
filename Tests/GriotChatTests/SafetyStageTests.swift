import Foundation
@testable import GriotChat
import GriotSafety
import GriotStore
import Synchronization
import Testing

extension [TurnEvent] {
    var flags: [SafetyFlag] { compactMap { if case .flag(let f) = $0 { f } else { nil } } }
}

/// The safety stages inside whole turns, with a scripted model: what is sent, what is stored,
/// and what the model was never asked.
@Suite struct SafetyStageTests {
    @Test func aToxicMessageIsBlockedStoredAndCountedWithoutCallingTheModel() async throws {
        let provider = ScriptedProvider(pieces: ["never sent"])
        let engine = try await makeEngine(provider: provider)
        let turn = try await engine.startTurn(TurnRequest(message: "Shut up, you idiot. You are worthless trash and everyone hates you.", viewer: stranger))
        let events = await events(of: turn)
        #expect(provider.requests.isEmpty)
        #expect(events.failure?.code == "message_blocked")
        #expect(events.failure?.message.hasPrefix("Message violates policy") == true)
        #expect(events.done?.status == .blocked)
        #expect(events.deltas.isEmpty)
        let asked = try #require(try await engine.chats.message(id: turn.userMessageID))
        #expect(asked.status == .blocked, "the message is kept, marked blocked, and never offered to a model as history")
        #expect(try await engine.chats.moderationWarnings(userID: "u-visitor") == 1)
        let verdicts = try await engine.chats.verdicts(turnID: turn.id)
        #expect(verdicts.map(\.stage) == ["moderation"])
        #expect(verdicts.first?.decision == "block")
        let audit = try await engine.chats.auditEntries(AuditFilter(messageID: turn.userMessageID))
        let moderated = try #require(audit.first { $0.action == .messageModerate })
        #expect(moderated.moderation?.contains("\"harassment\"") == true)
    }

    @Test func aVoiceTranscriptPassesTheSameFilter() async throws {
        let provider = ScriptedProvider(pieces: ["never sent"])
        let engine = try await makeEngine(provider: provider)
        let turn = try await engine.startTurn(TurnRequest(message: "shut up you idiot you are worthless trash", viewer: stranger, voice: true))
        let events = await events(of: turn)
        #expect(events.done?.status == .blocked)
        #expect(provider.requests.isEmpty)
        #expect(try await engine.chats.inputMode(messageID: turn.userMessageID) == "voice")
        #expect(try await engine.chats.verdicts(turnID: turn.id).first?.reason.hasPrefix("voice transcript") == true)
    }

    @Test func aSelfHarmMessageGetsTheCrisisTemplateAndAnEscalationFlag() async throws {
        let provider = ScriptedProvider(pieces: ["never sent"])
        let engine = try await makeEngine(provider: provider)
        let turn = try await engine.startTurn(TurnRequest(assistant: "coach", message: "Honestly I want to end it all. I can't do this anymore.",
                                                    viewer: stranger, courseID: "course-7", role: "client"))
        let events = await events(of: turn)
        #expect(provider.requests.isEmpty, "the model is not asked to improvise")
        let crisis = try #require(events.flags.first)
        #expect(crisis.kind == .crisis)
        #expect(crisis.escalate)
        let template = try shippedPrompts.template(for: "crisis").systemPrompt(role: nil, command: nil)
        #expect(events.done?.text == template)
        #expect(events.done?.status == .complete)
        #expect(events.done?.model == "template:crisis@1")
        #expect(try await engine.chats.verdicts(turnID: turn.id).map(\.stage) == ["moderation", "crisis"])
    }

    @Test func aPhoneNumberSplitAcrossPiecesNeverLeaksInADelta() async throws {
        let provider = ScriptedProvider(pieces: ["Her brother's number was 212-55", "5-01", "99 back then", ". He moved ", "to Memphis."])
        let engine = try await makeEngine(provider: provider)
        let turn = try await engine.startTurn(TurnRequest(message: "How did the family keep in touch?", viewer: carterFamily))
        let events = await events(of: turn)
        for delta in events.deltas {
            #expect(!delta.contains("212") && !delta.contains("0199"), "delta \(delta) holds part of the number")
        }
        #expect(events.done?.text == "Her brother's number was [PHONE] back then. He moved to Memphis.")
        let flagIndex = try #require(events.firstIndex { if case .flag(let f) = $0 { f.kind == .piiMasked } else { false } })
        let maskedIndex = try #require(events.firstIndex { if case .delta(let d) = $0 { d.contains("[PHONE]") } else { false } })
        #expect(flagIndex < maskedIndex, "the flag comes before the masked text")
        #expect(try await engine.chats.message(id: turn.replyMessageID)?.content == events.done?.text, "what is stored is what was sent")
        let pii = try #require(try await engine.chats.verdicts(turnID: turn.id).first { $0.stage == "pii" })
        #expect(pii.decision == "mask")
        #expect(pii.reason == "masked 1 PHONE")
    }

    @Test func aNumberTheUserSharedInTheThreadIsLeftAsWritten() async throws {
        let provider = ScriptedProvider(pieces: ["I'll note your number, ", "(415) 555-0132, for the reunion list."])
        let engine = try await makeEngine(provider: provider)
        let first = try await engine.startTurn(TurnRequest(message: "You can call me at 415-555-0132 about the reunion.", viewer: carterFamily))
        let events = await events(of: first)
        #expect(events.done?.text == "I'll note your number, (415) 555-0132, for the reunion list.")
        #expect(!events.flags.contains { $0.kind == .piiMasked })
        // Later in the same thread it is still theirs.
        let again = try await engine.startTurn(TurnRequest(message: "Read it back to me", viewer: carterFamily, threadID: first.threadID))
        #expect(await GriotChatTests.events(of: again).done?.text.contains("(415) 555-0132") == true)
    }

    @Test func aSentenceWithAFabricatedQuoteIsWithheldAndAMarkerOutsideThePassagesIsMarked() async throws {
        let provider = ScriptedProvider(pieces: [
            "Ida Mae said “we carried the piano up to the attic on our backs” [1]. ",
            "The water reached the porch [2]. ",
            "Her cousin kept the ledger [9].",
        ])
        let engine = try await makeEngine(provider: provider)
        let turn = try await engine.startTurn(TurnRequest(message: "What happened to the Carter house in the 1927 flood?", viewer: carterFamily))
        let events = await events(of: turn)
        #expect(!events.citations.contains { $0.number == 1 }, "the invented quote's citation is left out")
        #expect(events.citations.contains { $0.number == 2 })
        let text = try #require(events.done?.text)
        #expect(!text.contains("piano"), "the sentence with the invented quote is not sent")
        #expect(text.hasPrefix("[A sentence was left out: the words it quotes are not in the story it cites.] The water reached the porch [2]."))
        #expect(text.hasSuffix("Her cousin kept the ledger [unverified]."))
        #expect(events.deltas.joined() == text)
        #expect(try await engine.chats.message(id: turn.replyMessageID)?.content == text, "what is stored is what was sent")
        let kinds = events.flags.map(\.kind)
        #expect(kinds.contains(.citationDropped))
        #expect(kinds.contains(.citationOutOfRange))
        #expect(kinds.contains(.lowGroundedness), "any cited sentence without support gives the turn \"AI may be inaccurate\"")
        let citations = try #require(try await engine.chats.verdicts(turnID: turn.id).first { $0.stage == "citations" })
        #expect(citations.decision == "drop")
        #expect(citations.reason.contains("dropped [1]"))
        #expect(citations.reason.contains("[9]"))
    }

    /// The reply is written from the passage the model was given that holds the Lamont place, so
    /// the test does not depend on where retrieval ranks it.
    func claimTurn(_ sentence: @escaping @Sendable (Int) -> String) async throws -> (events: [TurnEvent], number: Int) {
        let provider = ScriptedProvider(pieces: [])
        let number = Mutex(0)
        provider.onStart = { [provider] request in
            let cited = request.grounding.passages.first { $0.text.contains("Lamont place") }?.number ?? 1
            number.withLock { $0 = cited }
            provider.pieces = [sentence(cited)]
        }
        let engine = try await makeEngine(provider: provider)
        let turn = try await engine.startTurn(TurnRequest(message: "Where were Ida Mae and Amos living when the levee broke in 1927?", viewer: carterFamily))
        return (await events(of: turn), number.withLock { $0 })
    }

    @Test func aSupportedCitedSentenceQuotesThePassageSentenceThatBacksIt() async throws {
        let (events, number) = try await claimTurn { "Ida Mae and Amos lived on the Lamont place, about six miles east of Greenville [\($0)]." }
        let citation = try #require(events.citations.first { $0.number == number })
        #expect(citation.quote == "We were out on the Lamont place, about six miles east of Greenville off the Leland road.")
        #expect(citation.unsupported == nil)
        #expect(events.flags.isEmpty, "\(events.flags.map(\.message))")
    }

    /// Each lie is checked against the passage cited, not against everything the model was given.
    @Test(arguments: [
        ("a swapped year", "The levee broke at Mounds Landing in April 1931 [N]."),
        ("a swapped place", "Ida Mae and Amos lived on the Lamont place, about six miles east of Vicksburg Junction [N]."),
        ("a swapped number", "Amos stacked sandbags on the levee forty days running [N]."),
        ("a swapped kinship word", "Ida Mae said her nephew Amos came running into the yard with no hat on [N]."),
        ("a negation", "They paid Amos in money for the levee work [N]."),
        ("a name no passage has", "Ida Mae and Thaddeus Pruitt lived on the Lamont place east of Greenville [N]."),
    ])
    func anUnsupportedCitedSentenceGetsNoQuoteAndTheInaccuracyFlag(_ lie: String, _ sentence: String) async throws {
        let (events, number) = try await claimTurn { sentence.replacingOccurrences(of: "[N]", with: "[\($0)]") }
        let citation = try #require(events.citations.first { $0.number == number }, "\(lie)")
        #expect(citation.unsupported == true, "\(lie): \(citation.quote)")
        #expect(citation.quote.isEmpty, "\(lie): no sentence of the passage is offered as backing it")
        let kinds = events.flags.map(\.kind)
        #expect(kinds.contains(.citationUnsupported), "\(lie)")
        #expect(kinds.contains(.lowGroundedness), "\(lie)")
    }

    @Test func anAnswerTheStoriesDoNotSupportCarriesTheInaccuracyFlag() async throws {
        let provider = ScriptedProvider(pieces: ["Napoleon Bonaparte crowned Ida Mae queen of Paris in 1804, ",
                                                 "and she sailed home with 900 gold coins."])
        let engine = try await makeEngine(provider: provider)
        let turn = try await engine.startTurn(TurnRequest(message: "What happened to the Carter house in the 1927 flood?", viewer: carterFamily))
        let events = await events(of: turn)
        let flag = try #require(events.flags.first { $0.kind == .lowGroundedness })
        #expect(flag.message == "AI may be inaccurate")
        #expect((events.done?.groundedness ?? 1) < 0.4)
        let stages = await Set(try engine.chats.verdicts(turnID: turn.id).map(\.stage))
        #expect(stages == ["moderation", "pii", "output_moderation", "prompt_echo", "citations", "groundedness", "copyright"])
    }

    /// Every citation the offline responder emits across the demo questions carries a quote that
    /// is verbatim in its passage, and none is dropped or judged unsupported (its sentences are
    /// the passages' own, quiz answers included).
    @Test func everyCitationOverTheDemoQuestionsVerifies() async throws {
        let engine = try await makeEngine()
        var checked = 0
        for question in demoQuestions {
            let turn = try await engine.startTurn(TurnRequest(message: question, viewer: carterFamily))
            let events = await events(of: turn)
            #expect(!events.flags.contains { [.citationDropped, .citationOutOfRange, .citationUnsupported].contains($0.kind) },
                    "\(question): \(events.flags.map(\.message))")
            for citation in events.citations {
                let story = try #require(try await demoArchive.store.story(id: citation.storyID))
                let transcript = Array(story.transcript.text.unicodeScalars)
                let quoted = String(String.UnicodeScalarView(transcript[citation.quoteStart..<citation.quoteEnd]))
                #expect(quoted == citation.quote, "\(question): [\(citation.number)] offsets point at the quote")
                checked += 1
            }
        }
        #expect(checked >= 20)
    }

    let demoQuestions = [
        "Who was Ida Mae Carter?", "What happened in the 1927 flood?", "What was it like to work as a Pullman porter?",
        "What happened in Kelly Ingram Park?", "Who was Octavia Batiste?", "Tell me about the trumpet in the Seventh Ward",
        "What did the family cook on Sundays?", "Who kept bees?", "How did the family get through the Depression?",
        "What did grandmother say about school?", "Tell me about church on Sundays", "Who worked on the railroad?",
        "/quiz Octavia's gumbo", "/quiz the 1927 flood", "/resources church", "/summary Ida Mae Carter",
    ]
}
