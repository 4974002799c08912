@testable import GriotChat
import Testing

@Suite struct LanguageDetectorTests {
    /// Accuracy on the sample, and how often a confident guess (≥ 0.8, the level at which the
    /// reply is asked for in that language) is right.
    @Test func detectsTheLanguageOfTheMultilingualSample() {
        let detector = LanguageDetector()
        var correct = 0, confident = 0, confidentCorrect = 0
        var misses: [String] = []
        for (language, text) in languageSample {
            let guess = detector.detect(text)
            if guess.language == language { correct += 1 } else { misses.append("\(language)→\(guess.language) (\(guess.confidence)): \(text)") }
            if guess.confidence >= ChatEngine.languageConfidence {
                confident += 1
                if guess.language == language { confidentCorrect += 1 }
            }
        }
        let accuracy = Double(correct) / Double(languageSample.count)
        let precision = Double(confidentCorrect) / Double(max(confident, 1))
        print("language detector: \(correct)/\(languageSample.count) correct (\(accuracy)); confident ≥ 0.8 on \(confident), of which \(confidentCorrect) correct (\(precision)); misses: \(misses)")
        #expect(accuracy >= 0.9)
        #expect(precision >= 0.97, "a confident guess is almost never wrong")
        #expect(confident >= languageSample.count * 3 / 4, "most questions are confident enough to act on")
    }

    /// The offline responder answers in English, and says so in the asker's language: a note
    /// for every language the detector can name, each read by the detector as that language.
    @Test func theOfflineNoteIsInEveryLanguageTheDetectorNames() {
        let detector = LanguageDetector()
        #expect(LanguageDetector.languages.count == 26)
        for language in LanguageDetector.languages.sorted() where language != "en" {
            let note = ExtractiveResponder.languageNote(for: language)
            #expect(note != nil && note != ExtractiveResponder.englishNote, "no note in '\(language)'")
            guard let note else { continue }
            #expect(detector.detect(note).language == language, "the '\(language)' note reads as \(detector.detect(note)): \(note)")
        }
        #expect(ExtractiveResponder.languageNote(for: "en") == nil)
        #expect(ExtractiveResponder.languageNote(for: "xx") == ExtractiveResponder.englishNote)
    }

    @Test func anOfflineAnswerToAPolishQuestionSaysInPolishThatItIsInEnglish() async throws {
        let engine = try await makeEngine()
        for (question, language) in [("Co moja babcia gotowała na święta i gdzie mieszkała?", "pl"),
                                     ("¿Qué cocinaba mi abuela para las fiestas y dónde vivía?", "es")] {
            let events = await events(of: try engine.startTurn(TurnRequest(message: question, viewer: stranger)))
            #expect(events.meta?.language == language)
            let reply = events.deltas.joined()
            let note = try #require(ExtractiveResponder.languageNote(for: language))
            #expect(reply.hasPrefix(note), "\(reply.prefix(200))")
        }
    }

    @Test func shortOrAmbiguousTextIsNotConfident() {
        let detector = LanguageDetector()
        #expect(detector.detect("ok").confidence < ChatEngine.languageConfidence)
        #expect(detector.detect("Detroit 1967").confidence < ChatEngine.languageConfidence)
        #expect(detector.detect("").confidence == 0)
    }
}

@Suite struct SlashCommandTests {
    @Test func commandsAreParsedAtTheStartOnly() {
        #expect(SlashCommand.parse("/quiz")?.command == .quiz)
        #expect(SlashCommand.parse("  /Summary the flood")?.command == .summary)
        #expect(SlashCommand.parse("/summary the flood")?.rest == "the flood")
        #expect(SlashCommand.parse("/resources")?.rest == "")
        #expect(SlashCommand.parse("/quizzes") == nil)
        #expect(SlashCommand.parse("/etc/hosts?") == nil)
        #expect(SlashCommand.parse("what is /quiz") == nil)
    }
}
