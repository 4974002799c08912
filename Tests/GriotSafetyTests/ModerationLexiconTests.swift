import Foundation
@testable import GriotSafety
import Testing

struct ModerationLexiconTests {
    static let sourcesDirectory = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/GriotSafety")

    /// The repository must not display a slur: the lexicon holds them ROT13-encoded only.
    @Test func noSlurAppearsInPlainTextInTheSources() throws {
        let slurs = Set(ModerationLexiconSlurs.encoded.map { ModerationLexiconSlurs.rot13($0.0) })
        #expect(slurs.count > 20)
        let files = try FileManager.default.contentsOfDirectory(at: Self.sourcesDirectory, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "swift" }
        #expect(!files.isEmpty)
        for file in files {
            let words = Set(try String(contentsOf: file, encoding: .utf8).lowercased()
                .split(whereSeparator: { !$0.isLetter }).map(String.init))
            let shown = words.intersection(slurs)
            #expect(shown.isEmpty, "\(file.lastPathComponent) shows \(shown.count) slur(s) in plain text")
        }
    }

    /// Every real word that a repair would change must be in the known-words list, or a plain
    /// English word would be read as a lexicon word ("rash" as "trash").
    @Test func repairsLeaveRealEnglishWordsAlone() throws {
        let path = "/usr/share/dict/american-english-large"
        guard let dictionary = try? String(contentsOfFile: path, encoding: .utf8) else { return }
        let lexicon = ModerationLexicon.shared
        var changed: [String] = []
        for entry in dictionary.split(separator: "\n") {
            let word = entry.lowercased()
            guard word.count >= 3, word.allSatisfy({ ("a"..."z").contains($0) }) else { continue }
            if lexicon.repaired(word) != [word] { changed.append(word) }
        }
        #expect(changed.isEmpty, "add to ModerationLexiconKnownWords: \(changed.sorted().joined(separator: " "))")
    }

    @Test func normalisationUndoesSpellingTricks() {
        func words(_ text: String) -> [String] { ModerationText(text).tokens.filter { !$0.isPunctuation }.map(\.text) }
        #expect(words("I h4te th3m") == ["i", "hate", "them"])
        #expect(words("I h a t e them") == ["i", "hate", "them"])
        #expect(words("I haaaate them") == ["i", "hate", "them"])
        #expect(words("Ihate them") == ["i", "hate", "them"])
        #expect(words("So much hatrd") == ["so", "much", "hatred"])
        #expect(words("They can't stay") == ["they", "can", "not", "stay"])
        #expect(words("The year 1931") == ["the", "year", "1931"])
    }

    @Test func quotationMarksAreRemembered() {
        let tokens = ModerationText("He said \"go home\" to me").tokens
        #expect(tokens.filter(\.quoted).map(\.text) == ["go", "home"])
    }
}
