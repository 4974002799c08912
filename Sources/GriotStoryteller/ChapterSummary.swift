import Foundation
import GriotChat

/// Earlier chapters shortened to fit the token budget of a "continue story" turn: an extractive
/// summary that keeps a chapter's first and last sentences and, before any other, the sentences
/// that name its characters and places (the words written with a capital inside a sentence), so
/// the next chapter keeps the names chapter 1 gave them.
///
/// ```swift
/// let chapters = ChapterSummary.fit([(1, first), (2, second)], tokens: 3000, counter: counter)
/// // chapter 2 whole when it fits, chapter 1 as its summary
/// let context = StoryPassages.context(child: child, drawings: drawings, chapters: chapters, images: images)
/// ```
public enum ChapterSummary {
    /// The chapters to show the model, oldest first, together under `tokens`: all whole when
    /// they fit; otherwise the newest chapters stay whole while they fit in half the budget, and
    /// the older ones are summarised, each under an equal share of what is left.
    public static func fit(_ chapters: [(number: Int, text: String)], tokens: Int, counter: any TokenCounter) -> [StoryPassages.Chapter] {
        let costs = chapters.map { counter.count($0.text) }
        if costs.reduce(0, +) <= tokens {
            return chapters.map { StoryPassages.Chapter(number: $0.number, text: $0.text) }
        }
        let names = characterNames(in: chapters.map(\.text))
        var whole = 0, spent = 0
        for cost in costs.reversed() where spent + cost <= tokens / 2 && whole < chapters.count - 1 {
            spent += cost
            whole += 1
        }
        let summarised = chapters.count - whole
        let share = max(16, (tokens - spent) / max(1, summarised))
        var result: [StoryPassages.Chapter] = []
        for (index, chapter) in chapters.enumerated() {
            if index >= summarised {
                result.append(StoryPassages.Chapter(number: chapter.number, text: chapter.text))
            } else {
                result.append(StoryPassages.Chapter(number: chapter.number, text: summary(of: chapter.text, tokens: share, counter: counter, names: names),
                                                    summarised: true))
            }
        }
        return result
    }

    /// An extractive summary of `text` under `tokens`: the first and last sentences, then the
    /// sentences that name the most of `names` not yet kept, in the order they were written.
    /// A text that fits is returned whole.
    public static func summary(of text: String, tokens: Int, counter: any TokenCounter, names: Set<String>? = nil) -> String {
        guard counter.count(text) > tokens else { return text }
        let sentences = Self.sentences(in: text)
        guard sentences.count > 1 else { return shortened(text, tokens: tokens, counter: counter) }
        let names = names ?? characterNames(in: [text])
        let named = sentences.map { sentence in names.filter { Self.mentions(sentence, $0) } }
        var kept: Set<Int> = []
        var used = 0
        func keep(_ index: Int) -> Bool {
            let cost = counter.count(sentences[index]) + 1
            guard used + cost <= tokens else { return false }
            kept.insert(index)
            used += cost
            return true
        }
        _ = keep(0)
        // The names first (a character forgotten is worse than an ending cut short), then the end.
        var covered = named[0]
        while true {
            let candidates = sentences.indices.filter { !kept.contains($0) && !named[$0].subtracting(covered).isEmpty }
            guard let best = candidates.max(by: { named[$0].subtracting(covered).count < named[$1].subtracting(covered).count || (named[$0].subtracting(covered).count == named[$1].subtracting(covered).count && $0 > $1) }) else { break }
            // Kept or too long for what is left, its names are settled either way.
            _ = keep(best)
            covered.formUnion(named[best])
        }
        _ = keep(sentences.count - 1)
        // What room is left goes to the other sentences that name someone, in order.
        for index in sentences.indices where !kept.contains(index) && !named[index].isEmpty { _ = keep(index) }
        if kept.isEmpty { return shortened(sentences[0], tokens: tokens, counter: counter) }
        return kept.sorted().map { sentences[$0] }.joined(separator: " ")
    }

    /// The names of characters and places: words with a capital letter inside a sentence (not its
    /// first word), in any script that has capitals; a sentence's first word counts when it is
    /// written with a capital inside a sentence elsewhere.
    public static func characterNames(in texts: [String]) -> Set<String> {
        var inside: Set<String> = []
        for text in texts {
            for sentence in sentences(in: text) {
                let words = sentence.split(whereSeparator: { $0.isWhitespace }).map { $0.filter { $0.isLetter || $0 == "-" || $0 == "'" } }
                for word in words.dropFirst() where word.first?.isUppercase == true && word.count > 1 {
                    inside.insert(String(word.hasSuffix("'s") ? word.dropLast(2) : word[...]))
                }
            }
        }
        return inside
    }

    static func mentions(_ sentence: String, _ name: String) -> Bool {
        var rest = sentence[...]
        while let range = rest.range(of: name) {
            let before = range.lowerBound == sentence.startIndex ? nil : sentence[sentence.index(before: range.lowerBound)]
            let after = range.upperBound == sentence.endIndex ? nil : sentence[range.upperBound]
            if !(before?.isLetter ?? false) && !(after?.isLetter ?? false) { return true }
            rest = sentence[range.upperBound...]
        }
        return false
    }

    /// Sentences, ending at . ! ? … (and 。！？) or at a paragraph's end, trimmed.
    static func sentences(in text: String) -> [String] {
        var sentences: [String] = []
        var current = ""
        let characters = Array(text)
        for (index, character) in characters.enumerated() {
            if character.isNewline {
                if index + 1 < characters.count, characters[index + 1].isNewline || current.last.map({ ".!?…。！？".contains($0) }) == true {
                    flush()
                } else {
                    current.append(" ")
                }
                continue
            }
            current.append(character)
            if "。！？".contains(character) { flush() }
            else if ".!?…".contains(character), index + 1 == characters.count || characters[index + 1].isWhitespace || "\"”’'".contains(characters[index + 1]) {
                // A closing quotation mark belongs to the sentence it closes.
                var next = index + 1
                while next < characters.count, "\"”’'".contains(characters[next]) { next += 1 }
                if next == index + 1 { flush() }
            } else if "\"”’'".contains(character), let previous = current.dropLast().last, ".!?…".contains(previous),
                      index + 1 == characters.count || characters[index + 1].isWhitespace {
                flush()
            }
        }
        flush()
        return sentences

        func flush() {
            let sentence = current.trimmingCharacters(in: .whitespaces)
            if !sentence.isEmpty { sentences.append(sentence) }
            current = ""
        }
    }

    /// The longest prefix under `tokens`, cut at a space, with an ellipsis.
    static func shortened(_ text: String, tokens: Int, counter: any TokenCounter) -> String {
        let words = text.split(separator: " ")
        var low = 0, high = words.count
        while low < high {
            let middle = (low + high + 1) / 2
            if counter.count(words[..<middle].joined(separator: " ") + " …") <= tokens { low = middle } else { high = middle - 1 }
        }
        return low == 0 ? "" : words[..<low].joined(separator: " ") + " …"
    }
}
