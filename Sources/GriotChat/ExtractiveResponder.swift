import Foundation
import GriotEmbedding
import GriotProviders
import GriotSearch
import GriotText

/// The offline responder: answers from the retrieved passages alone, by choosing the sentences
/// that best answer the question, grouping them by story and citing each with its number. It
/// needs no network and no model, so it is the default when no API key is configured, and it
/// names itself (`griot-extractive-1`) so clients can show that no language model wrote the reply.
///
/// ```swift
/// let responder = ExtractiveResponder()
/// let text = responder.compose(request)   // "Here is what the family's stories say ... [1]"
/// ```
public struct ExtractiveResponder: ChatProvider {
    public static let model = "griot-extractive-1"
    public let name = "griot-extractive"
    public var defaultModel: String { Self.model }
    /// It composes from the grounding; the system prompt's prose is not read.
    public var readsInstructions: Bool { false }

    private let analyzer = TextAnalyzer()
    /// The sentence embedder (MiniLM, the one retrieval uses), batched; without it sentences are
    /// scored by their words alone.
    let embed: (@Sendable ([String]) -> [[Float]])?

    /// - Parameter embed: embeds texts as unit vectors; pass the archive's embedder so that a
    ///   paraphrased question still finds the sentence that answers it.
    public init(embed: (@Sendable ([String]) -> [[Float]])? = nil) {
        self.embed = embed
    }

    /// The responder scoring sentences with `embedder` (cached by sentence: the same passages
    /// come back turn after turn), or by their words alone when there is no model.
    public static func scoring(with embedder: SentenceEmbedder?) -> ExtractiveResponder {
        ExtractiveResponder(embed: SafetyTools.embedding(embedder))
    }

    /// The reply of the composer the turn bound (`OfflineComposition.composer`), else the archive's answer.
    public func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        stream(request, composedBy: OfflineComposition.composer)
    }

    /// `composer`'s reply (given this responder's sentence embedder), or without one the
    /// archive's answer, streamed as a model's would be under the composer's model name.
    public func stream(_ request: ChatRequest, composedBy composer: (any OfflineComposer)?) -> AsyncThrowingStream<ProviderEvent, any Error> {
        let text = composer?.compose(request, embedding: embed) ?? compose(request)
        let model = composer?.modelName ?? Self.model
        return AsyncThrowingStream { continuation in
            let task = Task {
                continuation.yield(.model(model))
                // Word by word, as a model would stream, so that stop and delta grouping behave alike.
                var piece = ""
                for character in text {
                    piece.append(character)
                    if character == " " || character == "\n" {
                        try Task.checkCancellation()
                        continuation.yield(.text(piece))
                        piece = ""
                        await Task.yield()
                    }
                }
                if !piece.isEmpty { continuation.yield(.text(piece)) }
                continuation.yield(.finished(reason: "stop", usage: nil))
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    // MARK: Composing

    /// The whole reply for a request, from the archive's passages (Ask the Griot's answer; an
    /// assistant with its own `OfflineComposer` is answered by that, see `stream(_:composedBy:)`).
    public func compose(_ request: ChatRequest) -> String {
        let grounding = request.grounding
        let question = grounding.question
        let sentences = candidateSentences(grounding.passages)
        let asked = mentionedPeople(question: question, passages: grounding.passages)
        let evidence = AnswerEvidence(question: question, sentences: sentences, passages: grounding.passages, analyzer: analyzer,
                                      keyTerms: keyTerms(question), names: Set(asked.flatMap { Self.nameWords($0) }),
                                      embed: grounding.command == nil || grounding.command == "summary" ? embed : nil)
        let relevant = relevantPassages(question: question, passages: grounding.passages, evidence: evidence, language: grounding.language)
        var reply: String
        switch grounding.command {
        case "quiz" where !relevant.isEmpty: reply = quiz(sentences.filter { relevant.contains($0.passage.number) }, question: question)
        case "resources" where !relevant.isEmpty: reply = resources(grounding.passages.filter { relevant.contains($0.number) })
        case _ where relevant.isEmpty: reply = noContent(question: question, passages: grounding.passages)
        case _ where !Self.collection(grounding.passages.filter { relevant.contains($0.number) }).isArchive:
            reply = familyAnswer(question: question, sentences: sentences.filter { relevant.contains($0.passage.number) },
                                 passages: grounding.passages.filter { relevant.contains($0.number) }, summary: grounding.command == "summary",
                                 loose: Self.matchesLoosely(grounding.language))
        default: reply = answer(question: question, sentences: sentences.filter { relevant.contains($0.passage.number) },
                                passages: grounding.passages.filter { relevant.contains($0.number) },
                                summary: grounding.command == "summary", evidence: evidence)
        }
        if let language = grounding.language, let note = Self.languageNote(for: language) {
            reply = note + "\n\n" + reply
        }
        return reply
    }

    struct Sentence {
        var passage: GroundingPassage
        var text: String
        /// The sentence's place among all the sentences of its passage (headings and questions
        /// included), so that its neighbours are position ± 1.
        var index: Int = 0
        /// Said by the teller in their own words (a marked speaker turn, a quotation, or first
        /// person in an interview that quotes nobody), not the interviewer's prose about them.
        var ownWords = true
        var terms: Set<String>
        var position: Int
        /// Who says it, when the transcript names speakers.
        var speaker: String?
    }

    private func candidateSentences(_ passages: [GroundingPassage]) -> [Sentence] {
        var sentences: [Sentence] = []
        for passage in passages {
            let scalars = Array(passage.text.unicodeScalars)
            let quotesAnyone = passage.text.contains("\"") || passage.text.contains("“")
            // Quote marks before the sentence, counted as the sentences go (not by re-reading the
            // passage up to each one, which made a long passage quadratic).
            var counted = 0, straight = 0, opening = 0, closing = 0
            for (position, span) in SentenceSplitter.sentences(in: scalars).enumerated() {
                while counted < span.start {
                    switch scalars[counted] {
                    case "\"": straight += 1
                    case "“": opening += 1
                    case "”": closing += 1
                    default: break
                    }
                    counted += 1
                }
                let raw = String(String.UnicodeScalarView(scalars[span.start..<span.end]))
                // Header, source, birthplace and transcriber-note lines are not what anyone said.
                // (Archive interviews; a family's speaker-marked transcripts keep the reading their
                // answers are gated on in evals/demo.yaml.)
                let archive = passage.isArchive == true
                guard let kept = archive ? Self.withoutRecordLines(raw) : raw.trimmingCharacters(in: .whitespacesAndNewlines) else { continue }
                let text = archive ? Self.unquoted(kept) : kept
                let words = WordTokenizer.wordCount(text)
                // The interviewer's questions are not what the story says, nor are a transcript's
                // heading and signature blocks or a transcriber's bracketed notes.
                guard words >= 4, words <= 70, !Self.isQuestion(text), !Self.isHeadingBlock(text),
                      !(text.hasPrefix("[") && text.hasSuffix("]")) else { continue }
                let speaker = passage.speaker(at: span.start)
                if let speaker, !passage.interviewees.isEmpty, !passage.speakerRuns.isEmpty,
                   !passage.interviewees.contains(where: { Self.samePerson(speaker: speaker, interviewee: $0) }) { continue }
                var ownWords = true
                if archive, passage.speakerRuns.isEmpty {
                    let opened = straight % 2 == 1 || opening > closing
                    let quoted = opened || kept.hasPrefix("\"") || kept.hasPrefix("“")
                    ownWords = quoted || (!quotesAnyone && Self.firstPerson(text))
                }
                sentences.append(Sentence(passage: passage, text: text, index: position, ownWords: ownWords, terms: Set(analyzer.terms(in: text)),
                                          position: position, speaker: speaker ?? passage.interviewees.first))
            }
        }
        return sentences
    }

    /// Lines of a transcript's record rather than its speech: headings, "SOURCE:", "Interviewer:",
    /// "Interviewed by ...", birthplace and date lines, field-worker signatures, [TR:]/[HW:] notes.
    static func isRecordLine(_ line: String) -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty else { return true }
        if !text.contains(where: \.isLowercase) { return true }
        let lowered = text.lowercased()
        let openings = ["source:", "interviewer:", "interviewed by", "interview with", "(interviewed by", "federal writers", "american guide",
                        "field worker", "place of birth", "birthplace", "born:", "date of birth", "age:", "residence:", "address:", "[tr:", "[hw:",
                        "dist.", "district", "ex-slave #", "written by", "edited by", "editor", "reference:", "project ", "interviewed:"]
        if openings.contains(where: lowered.hasPrefix) { return true }
        if lowered.hasSuffix("field worker") || lowered.hasSuffix(", editor") { return true }
        // A date or a place and date alone ("August 18, 1936", "Griffin, Georgia").
        let words = text.split(separator: " ")
        if words.count <= 4, text.contains(where: \.isNumber) || text.hasSuffix(",") { return true }
        if text.hasPrefix("[") && text.hasSuffix("]") { return true }
        return false
    }

    /// A sentence without the record lines at its start and end; nil when what is left is not
    /// one run of speech (a record line in the middle).
    static func withoutRecordLines(_ sentence: String) -> String? {
        var lines = sentence.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        while let first = lines.first, isRecordLine(first) || first.split(separator: " ").count <= 4 && lines.count > 1 && isHeadingLike(first) { lines.removeFirst() }
        while let last = lines.last, isRecordLine(last) { lines.removeLast() }
        guard !lines.isEmpty, !lines.contains(where: { isRecordLine($0) && !$0.trimmingCharacters(in: .whitespaces).isEmpty }) else { return nil }
        return lines.joined(separator: "\n").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// A short line with no sentence punctuation: a name or title line ("Emmaline Cope").
    private static func isHeadingLike(_ line: String) -> Bool {
        !line.contains { ".!?\"“”".contains($0) }
    }

    /// A sentence as it can be quoted inside “…”: without the quotation marks that open or close
    /// it in the transcript (which would double up), inner curly quotes made straight so that the
    /// outer pair is the only one (the citation check reads straight and curly marks alike).
    static func unquoted(_ sentence: String) -> String {
        var text = sentence.trimmingCharacters(in: .whitespacesAndNewlines)
        let marks = CharacterSet(charactersIn: "\"“”")
        while let first = text.unicodeScalars.first, marks.contains(first) { text.removeFirst() }
        while let last = text.unicodeScalars.last, marks.contains(last) { text.removeLast() }
        return text.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "“", with: "\"").replacingOccurrences(of: "”", with: "\"")
    }

    private static let firstPersonWords: Set<String> = ["i", "me", "my", "we", "us", "our", "i'm", "i's", "i'se", "mine", "myself"]

    static func firstPerson(_ text: String) -> Bool {
        text.lowercased().split(whereSeparator: { !$0.isLetter && $0 != "'" }).contains { firstPersonWords.contains(String($0)) }
    }

    /// A title in capitals ("PLANTATION LIFE AS VIEWED BY EX-SLAVE"), or lines mostly too short to
    /// be speech ("GEORGIA BAKER, Age 87 / [ADDRESS] / Athens, Georgia").
    static func isHeadingBlock(_ text: String) -> Bool {
        // Capitals throughout; a script without case (Chinese, Arabic) has no headings to tell.
        if text.contains(where: \.isUppercase), !text.contains(where: \.isLowercase) { return true }
        let lines = text.split(whereSeparator: \.isNewline).filter { !$0.allSatisfy(\.isWhitespace) }
        guard lines.count >= 2 else { return false }
        return lines.filter { WordTokenizer.wordCount(String($0)) <= 4 }.count * 2 >= lines.count
    }

    /// Ends with a question mark of any script: "?", the full-width "？", the Arabic "؟".
    static func isQuestion(_ text: String) -> Bool {
        guard let last = text.unicodeScalars.last else { return false }
        return last == "?" || last == "\u{FF1F}" || last == "\u{061F}"
    }

    /// Words that say what kind of question it is rather than what it is about; a passage that
    /// matches only these is not evidence that the stories cover the question.
    private static let generic: Set<String> = {
        let words = """
            tell know story stories storyteller family families remember remembered happen happened say said says recall talk talked \
            anything something everything thing things life lived live living grandmother grandfather grandma grandpa granny mother father \
            mom dad mama papa aunt uncle cousin relative relatives ancestor ancestors people person anyone someone somebody kind like \
            describe explain share mention mentioned record recorded interview interviews find found give show us me family's \
            did does do was were is are be been have has had get got go went come came make made use used time times day days year years many much \
            abuela abuelo abuelita abuelito mama papa tia tio historia historias cuenta cuentame contar recuerda recordaba dijo familia \
            grand mere pere mamie papi tante oncle histoire raconte raconter souvient souvenir famille \
            oma opa großmutter großvater mutter vater onkel geschichte erzahl erzahlen erzahlte erinnert familie \
            babcia babci babcie dziadek dziadka dziadkowi mama tata ciocia wujek historia opowiedz pamieta rodzina \
            جدتي جدي جدة جد أمي أبي قصة حكاية عائلة العائلة تذكر أحد أي شخص \
            alguien quelqu jemand ktos
            """
        // Chinese question words and kin, as the character pairs the analyser makes of them.
        let pairs: Set<String> = ["什么", "怎么", "哪里", "哪儿", "为什", "多少", "奶奶", "爷爷", "外婆", "外公", "妈妈", "爸爸", "姥姥", "姥爷", "故事", "记得", "告诉", "讲讲", "时候"]
        return Set(TextAnalyzer(removesStopWords: false).terms(in: words)).union(pairs)
    }()

    /// The question's key terms. `loose` (a question in another language than English) also
    /// leaves out that language's function words ("mi", "en", "der").
    func keyTerms(_ question: String, loose: Bool = false) -> [String] {
        var seen = Set<String>()
        return (loose ? Self.otherLanguages : analyzer).terms(in: question).filter { !Self.generic.contains($0) && seen.insert($0).inserted }
    }

    /// Reads a question in another language than English: its function words are not key terms.
    static let otherLanguages = TextAnalyzer(removesOtherLanguagesStopWords: true)

    /// The numbers of the passages that speak to the question. A question of only generic words
    /// ("tell me a story") takes the retrieved passages as they are; one naming something no
    /// passage holds takes none of them, unless it asks about a person whose own interview was
    /// retrieved ("Union" in a question about what Alice Battle saw: her interview is the answer,
    /// in its own words). Whether an archive's passages answer at all is decided by the calibrated
    /// evidence (`AnswerEvidence.support` of the best passage), not by shared words: "watching
    /// television" shares "watching" with an interview, and half of two key terms was enough.
    /// Which passages then speak: those with half of the question's key terms, those whose support
    /// reaches the threshold, a place's stories and the asked person's own interview.
    ///
    /// In a script without spaces the key terms are character pairs, about half of which straddle
    /// two words ("英奶" in "李秀英奶奶") and are in no passage; there a third of them answers.
    /// `language` is the question's, as the detector read it: German capitalises every noun, so
    /// its capitals are not taken for names.
    func relevantPassages(question: String, passages: [GroundingPassage], evidence: AnswerEvidence? = nil, language: String? = nil) -> Set<Int> {
        // Named in full: "Alexander Stephens" is not Alexander Robertson, whose interview was retrieved.
        let asked = Self.words(question)
        let people = mentionedPeople(question: question, passages: passages).filter { Self.surname($0).map(asked.contains) ?? false }
        let ownInterviews = Set(passages.filter { passage in
            passage.isArchive == true && people.contains { person in
                passage.interviewees.contains { $0 == person || Self.samePerson(speaker: person, interviewee: $0) }
            }
        }.map(\.number))
        let loose = Self.matchesLoosely(language)
        guard !ownInterviews.isEmpty || language == "de" || absentNames(question: question, passages: passages, loose: loose).isEmpty else { return [] }
        let key = Self.matchKeys(keyTerms(question, loose: loose), loose: loose)
        guard !key.isEmpty else { return Set(passages.prefix(3).map(\.number)) }
        var relevant = ownInterviews
        // A question about a place stories are filed under is answered by those stories.
        if let place = placeNamed(in: question, passages: passages) {
            relevant.formUnion(passages.filter { $0.places.contains { PlaceMention.matches($0, named: place) } }.map(\.number))
        }
        if let evidence, evidence.hasVectors, relevant.isEmpty, !passages.isEmpty, passages.allSatisfy({ $0.isArchive == true }),
           !passages.contains(where: { evidence.support(of: $0.number) >= AnswerEvidence.relevanceThreshold }) {
            return []
        }
        for passage in passages {
            // Half of the question's key terms in the passage still answers; a paraphrase that
            // shares fewer words answers when the passage's calibrated support is high enough.
            let terms = Self.matchKeySet(analyzer.terms(in: Self.described(passage)), loose: loose)
            let coverage = Self.coverage(of: key, in: terms)
            if coverage >= 0.5 {
                relevant.insert(passage.number)
            } else if coverage >= 1.0 / 3, key.filter(terms.contains).count >= 2 {
                // Asked in another language than the passage's, only names, places and numbers
                // can be shared: two of them, and a third of the key terms, answer.
                let told = Self.detector.detect(passage.text)
                if told.confidence >= 0.8 && told.language != (language ?? "en") { relevant.insert(passage.number) }
            }
            if passage.isArchive == true, let evidence, evidence.hasVectors, evidence.support(of: passage.number) >= AnswerEvidence.relevanceThreshold {
                relevant.insert(passage.number)
            }
        }
        return relevant
    }

    static let detector = LanguageDetector()

    /// Whether words are matched on their first five letters: for a question in another language
    /// than English, which the English stemmer does not reach ("Tadeuszowi" is "Tadeusz", "strajku"
    /// is "strajk"), the usual language-neutral stand-in for a stemmer. English keeps its stems.
    static func matchesLoosely(_ language: String?) -> Bool {
        guard let language else { return false }
        return language != "en"
    }

    /// What terms are matched on: the terms themselves, or their first five letters when matching loosely
    /// (character pairs of a script without spaces stay whole).
    static func matchKeys(_ terms: [String], loose: Bool) -> [String] {
        guard loose else { return terms }
        var seen = Set<String>()
        return terms.map { matchKey($0, loose: true) }.filter { seen.insert($0).inserted }
    }

    static func matchKeySet(_ terms: [String], loose: Bool) -> Set<String> { Set(matchKeys(terms, loose: loose)) }

    static func matchKey(_ term: String, loose: Bool) -> String {
        guard loose, term.count > 5, let first = term.unicodeScalars.first, !WordTokenizer.isSpaceless(first) else { return term }
        return String(term.prefix(5))
    }

    /// The share of the key terms a passage holds, where a character pair of a script without
    /// spaces weighs a third of the way to a word: holding a third of the pairs counts as holding
    /// half of words. Exactly half of the words still answers, as before.
    static func coverage(of key: [String], in terms: Set<String>) -> Double {
        var held = 0.0, total = 0.0
        for term in key {
            let pair = term.unicodeScalars.first.map(WordTokenizer.isSpaceless) ?? false
            let weight = pair ? 1.5 : 1.0
            total += 1
            if terms.contains(term) { held += weight }
        }
        return total == 0 ? 0 : held / total
    }

    /// The names in the question that no passage holds: passages about the Civil War share "war"
    /// with "Did anyone serve in the Vietnam War?" but not "Vietnam", so they do not answer it. A
    /// name misspelt as retrieval forgives ("Chicaga") counts as held when a passage has a word
    /// within the same spelling distance of it.
    func absentNames(question: String, passages: [GroundingPassage], loose: Bool = false) -> [String] {
        let names = Self.names(in: question)
        guard !names.isEmpty else { return [] }
        var vocabulary: [String: Int] = [:]
        for passage in passages {
            for term in Set(analyzer.terms(in: Self.described(passage))) { vocabulary[term, default: 0] += 1 }
        }
        // Matching loosely, an inflected name ("Tadeuszowi") is held by its first five letters.
        let prefixes = loose ? Self.matchKeySet(Array(vocabulary.keys), loose: true) : []
        let unheld = names.map {
            analyzer.terms(in: $0).filter { !Self.generic.contains($0) && vocabulary[$0] == nil && !prefixes.contains(Self.matchKey($0, loose: loose)) }
        }
        guard unheld.contains(where: { !$0.isEmpty }) else { return [] }
        // Built only when a name is missing as written, the rare case.
        let spelling = SpellingExpander(vocabulary: vocabulary)
        return zip(names, unheld).filter { _, terms in terms.contains { spelling.expansions(of: $0, limit: 1).isEmpty } }.map(\.0)
    }

    /// Capitalised words that do not begin a sentence ("Vietnam", "War"); titles ("Aunt") and
    /// words in capitals throughout ("II", "ILWU") are not counted.
    static func names(in question: String) -> [String] {
        var names: [String] = []
        var beginsSentence = true
        for token in question.split(whereSeparator: \.isWhitespace) {
            let word = token.trimmingCharacters(in: .punctuationCharacters.union(.symbols))
            if !beginsSentence, let first = word.first, first.isUppercase, word.contains(where: \.isLowercase),
               !titles.contains(word.lowercased()) {
                names.append(word)
            }
            // After "Col." too: a word that may begin a sentence is not taken for a name.
            beginsSentence = token.last.map { ".?!:;".contains($0) } ?? false
        }
        return names
    }

    /// What a passage says and what it is about: its text, its story's title, people and places.
    static func described(_ passage: GroundingPassage) -> String {
        [passage.text, passage.storyTitle, passage.people.joined(separator: " "), passage.places.joined(separator: " ")].joined(separator: " ")
    }

    // MARK: Ask the Griot

    private func answer(question: String, sentences allSentences: [Sentence], passages: [GroundingPassage], summary: Bool,
                        evidence: AnswerEvidence) -> String {
        let collection = Self.collection(passages)
        let people = mentionedPeople(question: question, passages: passages)
        // Scores are kept by the sentence's text and passage, since the list is filtered below.
        var scoreOf: [String: Double] = [:]
        for (index, sentence) in allSentences.enumerated() { scoreOf["\(sentence.passage.number)|\(sentence.index)"] = evidence.score(index) }
        let (sentences, passages) = Self.withoutNamesakes(of: people, question: question, sentences: allSentences, passages: passages)

        let peopleWords = Set(people.flatMap { Self.nameWords($0) })
        let namedInQuestion = Self.names(in: question).map { $0.lowercased() }.filter { !peopleWords.contains($0) }
        func score(_ sentence: Sentence) -> Double {
            var total = scoreOf["\(sentence.passage.number)|\(sentence.index)"] ?? 0
            let lowered = sentence.text.lowercased()
            // In a person's own interview with no speakers marked, a sentence naming them is the
            // interviewer's prose about them ("Frank Range is a familiar figure ..."); their own
            // words say "I". Where speakers are marked, the interviewer's lines are already gone.
            let named = !sentence.passage.speakerRuns.isEmpty ? people : people.filter { person in
                !sentence.passage.interviewees.contains { $0 == person || Self.samePerson(speaker: person, interviewee: $0) }
            }
            if named.flatMap(Self.givenNames).contains(where: { Self.containsWord(lowered, $0) }) { total += 0.3 }
            // A place or thing the question names ("Ripley", "Pine Island") in the sentence: a
            // passage about runaways in general reads close to "runaway slaves who reached
            // Ripley", but the one naming Ripley answers it.
            if namedInQuestion.contains(where: { Self.containsWord(lowered, $0) }) { total += 0.2 }
            // Earlier passages ranked higher in retrieval.
            return total + 0.05 / Double(sentence.passage.number)
        }
        let ranked = sentences.map { (sentence: $0, score: score($0)) }.sorted { $0.score > $1.score }
        // A question about a person is led by a story that names them, when one was retrieved.
        let naming = ranked.filter { candidate in people.contains { Self.names(candidate.sentence.passage, $0) } }
        let personTerms = Set(analyzer.terms(in: people.joined(separator: " ")))
        guard let top = naming.first ?? ranked.first else { return noContent(question: question, passages: passages) }

        // Stories in the order of their best sentence, each with its picks.
        var storyOrder: [String] = []
        var chosen: [String: [Sentence]] = [:]
        func add(_ sentence: Sentence) {
            let story = sentence.passage.storyID
            if chosen[story] == nil { storyOrder.append(story) }
            guard !chosen.values.joined().contains(where: { $0.text == sentence.text }) else { return }
            chosen[story, default: []].append(sentence)
        }
        func neighbours(of sentence: Sentence) -> [Sentence] {
            sentences.filter { other in
                other.passage.number == sentence.passage.number && abs(other.index - sentence.index) == 1 && other.speaker == sentence.speaker
                    && other.ownWords == sentence.ownWords
            }
        }
        func best(of story: String) -> (sentence: Sentence, score: Double)? { ranked.first { $0.sentence.passage.storyID == story } }

        let place = placeNamed(in: question, passages: passages)
        if let place {
            // Every story filed under the place, grouped, each with its best sentence.
            let stories = Self.uniqueOrdered(passages.filter { $0.places.contains { PlaceMention.matches($0, named: place) } }.map(\.storyID))
            for story in stories {
                if let pick = best(of: story) { add(pick.sentence) } else if let opening = sentences.first(where: { $0.passage.storyID == story }) { add(opening) }
            }
        } else {
            // Lead with the best-supported sentence and its neighbours in the same speaker's turn.
            add(top.sentence)
            if !summary { for neighbour in neighbours(of: top.sentence) { add(neighbour) } }
            let broad = Self.asksAcrossStories(question) || summary
            // Up to two more facts of the best story, when well supported (a sentence elsewhere in
            // it that the lead's neighbours do not reach).
            if !summary {
                let more = ranked.filter { $0.sentence.passage.storyID == top.sentence.passage.storyID
                    && !(($0.sentence.passage.number == top.sentence.passage.number) && abs($0.sentence.index - top.sentence.index) <= 1)
                    && $0.score >= top.score * Self.leadStoryBar }
                for extra in more.prefix(3) { add(extra.sentence) }
            }
            let storyLimit = !people.isEmpty ? 4 : (broad ? 3 : 2)
            let otherStories = Self.uniqueOrdered(ranked.map(\.sentence.passage.storyID)).filter { $0 != top.sentence.passage.storyID }
            for story in otherStories where storyOrder.count < storyLimit {
                guard let pick = best(of: story) else { continue }
                // A question about one person or event stays with the best story unless another
                // tells something of nearly the same weight (about the same person, when one is asked about).
                // "Who was Octavia Batiste?" asks for nothing but the person: every story naming them adds.
                let onlyThePerson = !people.isEmpty && keyTerms(question).allSatisfy { personTerms.contains($0) }
                guard onlyThePerson || pick.score >= top.score * (broad ? Self.otherStoryBar.broad : Self.otherStoryBar.single) else { continue }
                if !people.isEmpty, !people.contains(where: { Self.names(pick.sentence.passage, $0) }) { continue }
                add(pick.sentence)
                // Its next best sentence too, when it is nearly as good (a second fact from that story).
                if !summary, let second = ranked.first(where: { $0.sentence.passage.storyID == story && $0.sentence.text != pick.sentence.text }),
                   second.score >= pick.score * 0.8 {
                    add(second.sentence)
                }
            }
        }
        // Passages chosen for their title or places alone still speak, with their opening sentence.
        if storyOrder.isEmpty, let passage = passages.first, let opening = sentences.first(where: { $0.passage.number == passage.number }) {
            add(opening)
        }

        var lines: [String] = []
        let subject = Self.subjectPhrase(question)
        if let place {
            lines.append("\(Self.capitalised(collection.these)) include \(storyOrder.count) \(storyOrder.count == 1 ? "interview" : "interviews") from \(place). Here is each, with a moment from it.")
        } else if let person = people.first {
            let display = Self.displayName(person)
            let naming = storyOrder.filter { story in chosen[story]?.first.map { Self.names($0.passage, person) } ?? false }.count
            lines.append(naming > 1
                ? "\(display) comes up in \(naming) of \(collection.name) that you can see. Here is what they tell, story by story."
                : "Here is what \(collection.name) tell about \(display).")
        } else if summary {
            lines.append("A short summary of what \(collection.name) say\(subject.map { " about \($0)" } ?? ""):")
        } else {
            lines.append("Here is what \(collection.name) say\(subject.map { " about \($0)" } ?? ""):")
        }
        for story in storyOrder {
            guard let picks = chosen[story], let first = picks.first else { continue }
            let passage = first.passage
            let teller = first.ownWords ? (first.speaker ?? passage.interviewees.first ?? passage.people.first) : nil
            let lead = teller.map { "In “\(passage.storyTitle)”, \(Self.displayName($0)) recalls:" } ?? "In “\(passage.storyTitle)”:"
            let quotes = picks.sorted { ($0.passage.number, $0.index) < ($1.passage.number, $1.index) }
                .map { "“\($0.text)” [\($0.passage.number)]" }
            lines.append((summary || place != nil ? "- " : "") + lead + " " + quotes.joined(separator: " "))
        }
        if storyOrder.count > 1 && !summary && place == nil {
            let tellers = Self.uniqueOrdered(storyOrder.compactMap { story in
                chosen[story]?.first.flatMap { $0.speaker ?? $0.passage.people.first }.map(Self.displayName)
            })
            if tellers.count > 1 {
                lines.append("Together these \(storyOrder.count) stories, told by \(Self.list(tellers)), give more than any one of them alone; each citation opens its story at the moment quoted.")
            } else {
                lines.append("These \(storyOrder.count) stories add to each other; each citation opens its story at the moment quoted.")
            }
        }
        return lines.joined(separator: "\n\n")
    }

    /// A story that matches only through another person of the same given name ("Big Walter"
    /// when the question is about Walter Pettiford) is about someone else: its passages and
    /// sentences are left out, unless every passage is such a story.
    private static func withoutNamesakes(of people: [String], question: String, sentences: [Sentence], passages: [GroundingPassage]) -> ([Sentence], [GroundingPassage]) {
        let others = passages.filter { passage in
            !people.isEmpty && people.allSatisfy { Self.passage(passage, meansSomeoneElseThan: $0, askedIn: question) }
        }
        guard !others.isEmpty, others.count < passages.count else { return (sentences, passages) }
        let numbers = Set(others.map(\.number))
        return (sentences.filter { !numbers.contains($0.passage.number) }, passages.filter { !numbers.contains($0.number) })
    }

    /// The answer from a family's speaker-marked transcripts: sentences scored by the question's
    /// words (rarer words count more), at most two from each of three stories (four for a
    /// person). Its choices are gated at 100% by evals/demo.yaml; the answer-first selection
    /// (`answer`) is for archives whose interviews mix the interviewer's prose with the teller's
    /// words, where this one quoted scene-setting sentences (issue 15).
    private func familyAnswer(question: String, sentences: [Sentence], passages: [GroundingPassage], summary: Bool, loose: Bool = false) -> String {
        let people = mentionedPeople(question: question, passages: passages)
        let (sentences, passages) = Self.withoutNamesakes(of: people, question: question, sentences: sentences, passages: passages)
        let questionTerms = Self.matchKeySet((loose ? Self.otherLanguages : analyzer).terms(in: question), loose: loose)
        let keys: [Set<String>] = sentences.map { loose ? Self.matchKeySet(Array($0.terms), loose: true) : $0.terms }
        var documentFrequency: [String: Int] = [:]
        for sentenceKeys in keys { for term in sentenceKeys { documentFrequency[term, default: 0] += 1 } }
        let count = Double(max(sentences.count, 1))

        /// The score of `sentences[index]`, whose match keys are `keys[index]`.
        func score(_ index: Int) -> Double {
            let sentence = sentences[index]
            var total = 0.0
            for term in keys[index] where questionTerms.contains(term) {
                total += log((count + 1) / (Double(documentFrequency[term] ?? 0) + 0.5))
            }
            let lowered = sentence.text.lowercased()
            // In a person's own interview with no speakers marked, a sentence naming them is the
            // interviewer's prose about them ("Frank Range is a familiar figure ..."); their own
            // words say "I". Where speakers are marked, the interviewer's lines are already gone.
            let named = !sentence.passage.speakerRuns.isEmpty ? people : people.filter { person in
                !sentence.passage.interviewees.contains { $0 == person || Self.samePerson(speaker: person, interviewee: $0) }
            }
            if named.flatMap(Self.givenNames).contains(where: { Self.containsWord(lowered, $0) }) { total += 2 }
            // Earlier passages ranked higher; earlier sentences tend to set the scene.
            return total + 0.6 / Double(sentence.passage.number) - 0.02 * Double(sentence.position)
        }

        let scored = sentences.indices.map { (sentence: sentences[$0], score: score($0)) }.sorted { $0.score > $1.score }
        // At most two sentences from each of at most three stories (four for a person, across stories).
        let storyLimit = people.isEmpty ? 3 : 4
        var chosen: [String: [(sentence: Sentence, score: Double)]] = [:]
        var storyOrder: [String] = []
        for candidate in scored {
            let story = candidate.sentence.passage.storyID
            if chosen[story] == nil {
                guard storyOrder.count < storyLimit else { continue }
                storyOrder.append(story)
            }
            guard chosen[story, default: []].count < (summary ? 1 : 2),
                  !chosen.values.joined().contains(where: { $0.sentence.text == candidate.sentence.text }) else { continue }
            if let first = chosen[story]?.first, candidate.score < first.score * 0.5 { continue }
            chosen[story, default: []].append(candidate)
        }
        // Passages chosen for their title or places alone still speak, with their opening sentence.
        if storyOrder.isEmpty, let passage = passages.first, let opening = sentences.first(where: { $0.passage.number == passage.number }) {
            storyOrder = [passage.storyID]
            chosen[passage.storyID] = [(opening, 0)]
        }

        var lines: [String] = []
        let subject = Self.subjectPhrase(question)
        if let person = people.first {
            let display = Self.displayName(person)
            let stories = storyOrder.count
            lines.append(stories > 1
                ? "\(display) comes up in \(stories) of the family's stories that you can see. Here is what they tell, story by story."
                : "Here is what the family's stories tell about \(display).")
        } else if summary {
            lines.append("A short summary of what the family's stories say\(subject.map { " about \($0)" } ?? ""):")
        } else {
            lines.append("Here is what the family's stories say\(subject.map { " about \($0)" } ?? ""):")
        }
        for story in storyOrder {
            guard let picks = chosen[story], let first = picks.first else { continue }
            let passage = first.sentence.passage
            let teller = first.sentence.speaker ?? passage.interviewees.first ?? passage.people.first
            let lead = teller.map { "In “\(passage.storyTitle)”, \(Self.displayName($0)) recalls:" } ?? "In “\(passage.storyTitle)”:"
            let quotes = picks.sorted { ($0.sentence.passage.number, $0.sentence.position) < ($1.sentence.passage.number, $1.sentence.position) }
                .map { "“\($0.sentence.text)” [\($0.sentence.passage.number)]" }
            lines.append((summary ? "- " : "") + lead + " " + quotes.joined(separator: " "))
        }
        if storyOrder.count > 1 && !summary {
            let tellers = Self.uniqueOrdered(storyOrder.compactMap { story in
                chosen[story]?.first.flatMap { $0.sentence.speaker ?? $0.sentence.passage.people.first }.map(Self.displayName)
            })
            if tellers.count > 1 {
                lines.append("Together these \(storyOrder.count) stories, told by \(Self.list(tellers)), give more than any one of them alone; each citation opens its story at the moment quoted.")
            } else {
                lines.append("These \(storyOrder.count) stories add to each other; each citation opens its story at the moment quoted.")
            }
        }
        return lines.joined(separator: "\n\n")
    }

    /// How close to the best sentence another story's best must come to be told too: for a question
    /// across stories, and for one about a single person or event. Tuned on the tune half of
    /// evals/wpa.yaml and on evals/demo.yaml.
    static let otherStoryBar = (broad: 0.5, single: 0.6)
    /// How close to the best sentence another sentence of the best story must come to be told too.
    static let leadStoryBar = 0.5

    /// What to call the stories: a family's own, or an archive's (the WPA narratives are public
    /// interviews, not the asker's family).
    static func collection(_ passages: [GroundingPassage]) -> (name: String, these: String, isArchive: Bool) {
        if !passages.isEmpty, passages.allSatisfy({ $0.isArchive == true }) { return ("the stories in the archive", "the archive's stories", true) }
        return ("the family's stories", "the family's stories", false)
    }

    static func capitalised(_ text: String) -> String { text.prefix(1).uppercased() + text.dropFirst() }

    /// A place the question names ("Columbus, Georgia") that some passage's story is filed under.
    func placeNamed(in question: String, passages: [GroundingPassage]) -> String? {
        for candidate in PlaceMention.candidates(in: question) {
            if let place = passages.lazy.flatMap(\.places).first(where: { PlaceMention.matches($0, named: candidate) }) { return place }
        }
        return nil
    }

    /// Whether a question asks across stories ("what did the narrators say", "which of them",
    /// "anyone") rather than about one person or event.
    static func asksAcrossStories(_ question: String) -> Bool {
        let words = Self.words(question)
        let cues: Set<String> = ["narrators", "they", "them", "their", "slaves", "people", "anyone", "anybody", "several", "interviews", "stories",
                                 "elders", "folks", "others", "many", "which", "who", "families", "children", "men", "women", "former", "narratives"]
        return !words.isDisjoint(with: cues) && !(words.contains("who") && words.count <= 6)
    }

    /// Whether a passage's story names a person: in its text, its title or its people.
    static func names(_ passage: GroundingPassage, _ person: String) -> Bool {
        if passage.people.contains(person) || passage.interviewees.contains(person) || passage.storyTitle.lowercased().contains(person.lowercased()) { return true }
        let text = words(passage.text)
        let name = nameWords(person)
        return !name.isEmpty && name.isSubset(of: text)
    }

    private func noContent(question: String, passages: [GroundingPassage] = []) -> String {
        let opening: String
        let collection = Self.collection(passages).name
        if let subject = Self.subjectPhrase(question) {
            opening = "\(Self.capitalised(collection)) that you can see do not cover \(subject) yet, so I would rather not guess."
        } else {
            let asked = question.trimmingCharacters(in: .whitespacesAndNewlines)
            opening = "I looked through \(collection) that you can see, and they do not answer “\(asked)” yet, so I would rather not guess."
        }
        return opening + "\n\n" + """
            If someone in the family remembers it, consider recording a story about it: who was there, when and where it happened, and what it meant to them. An elder's memory recorded now becomes the answer next time.
            """
    }

    private func quiz(_ sentences: [Sentence], question: String) -> String {
        var lines = ["Here is a short quiz from the family's stories. The answers follow each question."]
        var used = Set<String>()
        var number = 0
        for sentence in sentences where number < 3 {
            guard !used.contains(sentence.passage.storyID), let answer = Self.clozeWord(in: sentence.text) else { continue }
            used.insert(sentence.passage.storyID)
            number += 1
            let blanked = sentence.text.replacingOccurrences(of: answer, with: "_____")
            lines.append("\(number). In “\(sentence.passage.storyTitle)”, fill in the blank: “\(blanked)”\n   Answer: \(answer) [\(sentence.passage.number)]")
        }
        if number == 0 { return noContent(question: question, passages: sentences.map(\.passage)) }
        return lines.joined(separator: "\n\n")
    }

    private func resources(_ passages: [GroundingPassage]) -> String {
        var lines = ["These stories bear on your question; each citation opens the story at the passage:"]
        var seen = Set<String>()
        for passage in passages where seen.insert(passage.storyID).inserted {
            let teller = passage.interviewees.first ?? passage.speaker ?? passage.people.first
            lines.append("- “\(passage.storyTitle)”\(teller.map { ", told by \(Self.displayName($0))" } ?? "") [\(passage.number)]")
        }
        lines.append("To add to them, record a relative who was there telling the same events in their own words.")
        return lines.joined(separator: "\n")
    }

    // MARK: Words and names

    /// People named in the question by a given name or nickname (a surname alone names a family,
    /// not a person); when several are, those the question names most fully ("Walter Pettiford",
    /// not Walter Pinkney).
    private func mentionedPeople(question: String, passages: [GroundingPassage]) -> [String] {
        // "Columbus, Georgia" names a place, not a person called Georgia.
        var asked = question
        for place in PlaceMention.candidates(in: question) { asked = asked.replacingOccurrences(of: place, with: " ") }
        let words = Self.words(asked)
        var found: [(person: String, named: Int)] = []
        for person in Self.uniqueOrdered(passages.flatMap { $0.people + ($0.speaker.map { [$0] } ?? []) }) {
            if Self.givenNames(person).contains(where: words.contains) { found.append((person, Self.nameWords(person).intersection(words).count)) }
        }
        let most = found.map(\.named).max() ?? 0
        return found.filter { $0.named == most }.map(\.person)
    }

    /// Whether a passage matches the question's given name only through someone else: its story
    /// lists another person of that name (Walter Pinkney, when the question is about Walter
    /// Pettiford) and neither lists nor names in full the person asked about.
    static func passage(_ passage: GroundingPassage, meansSomeoneElseThan person: String, askedIn question: String) -> Bool {
        let asked = words(question)
        let listed = passage.people + (passage.speaker.map { [$0] } ?? [])
        if listed.contains(person) || nameWords(person).intersection(asked).isSubset(of: words(passage.text)) { return false }
        let given = Set(givenNames(person)).intersection(asked)
        return listed.contains { $0 != person && !given.isDisjoint(with: givenNames($0)) }
    }

    private static func words(_ text: String) -> Set<String> {
        Set(text.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init))
    }

    /// Titles, and the English days and months, which are capitalised without being names.
    private static let titles: Set<String> = ["rev", "reverend", "dr", "mr", "mrs", "ms", "miss", "aunt", "uncle", "sister", "brother", "deacon", "grandma", "grandpa", "jr", "sr",
                                              "col", "gen", "capt", "lt", "sgt", "maj", "gov", "st",
                                              "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
                                              "mondays", "tuesdays", "wednesdays", "thursdays", "fridays", "saturdays", "sundays",
                                              "january", "february", "march", "april", "june", "july", "august", "september", "october", "november", "december"]

    /// The lowercased given names and nicknames of a person ("Theodore \"Teddy\" Batiste" → theodore, teddy).
    static func givenNames(_ person: String) -> [String] {
        // Name by name, so that a double-barrelled surname ("André Batiste-Reyes") is dropped whole.
        let names = person.lowercased().split(separator: " ")
            .map { $0.split(whereSeparator: { !$0.isLetter }).map(String.init).filter { !titles.contains($0) } }
            .filter { !$0.isEmpty }
        // Initials ("A. Philip Randolph") and short words could match any question.
        return (names.count > 1 ? names.dropLast() : names).joined().filter { $0.count >= 3 && !StopWords.english.contains($0) }
    }

    /// Whether a transcript's speaker label names the interviewee, who may be listed in a fuller
    /// form: "Teddy Batiste" and "Teddy" both name `Theodore "Teddy" Batiste`. Every word of the
    /// label must be one of the interviewee's, and one of them a given name or nickname, so a
    /// surname alone ("Mrs. Batiste") or a relative sharing it ("Simone Batiste-Reyes") does not.
    static func samePerson(speaker: String, interviewee: String) -> Bool {
        if speaker == interviewee { return true }
        let spoken = nameWords(speaker)
        guard !spoken.isEmpty, spoken.isSubset(of: nameWords(interviewee)) else { return false }
        return !spoken.isDisjoint(with: givenNames(interviewee))
    }

    /// The last word of a name of two words or more, its titles left out ("Battle" of "Grandma
    /// Alice Battle"); nil for a single name.
    static func surname(_ person: String) -> String? {
        let names = person.lowercased().split(whereSeparator: { !$0.isLetter }).map(String.init).filter { !titles.contains($0) && $0.count >= 2 }
        return names.count > 1 ? names.last : nil
    }

    static func nameWords(_ person: String) -> Set<String> {
        words(person).subtracting(titles)
    }

    /// A name as it reads in a sentence: without the nickname's quotes ("Teddy Batiste").
    static func displayName(_ person: String) -> String {
        if let open = person.firstIndex(of: "\""), let close = person[person.index(after: open)...].firstIndex(of: "\"") {
            let nickname = person[person.index(after: open)..<close]
            let surname = person[person.index(after: close)...].trimmingCharacters(in: .whitespaces)
            return surname.isEmpty ? String(nickname) : "\(nickname) \(surname)"
        }
        return person
    }

    static func containsWord(_ text: String, _ word: String) -> Bool {
        var searchRange = text.startIndex..<text.endIndex
        while let range = text.range(of: word, range: searchRange) {
            let before = range.lowerBound == text.startIndex ? nil : text[text.index(before: range.lowerBound)]
            let after = range.upperBound == text.endIndex ? nil : text[range.upperBound]
            if !(before?.isLetter ?? false) && !(after?.isLetter ?? false) { return true }
            searchRange = range.upperBound..<text.endIndex
        }
        return false
    }

    /// What the question is about, in the asker's words: "the 1927 flood" from
    /// "What do the stories say about the 1927 flood?", "Aunt Lil" from "Who was Aunt Lil?".
    static func subjectPhrase(_ question: String) -> String? {
        var text = question.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "?.!")))
        let lowered = text.lowercased()
        if let about = lowered.range(of: " about ", options: .backwards) {
            text = String(text[about.upperBound...])
        } else {
            // Only openings after which the rest is a noun phrase ("who was | Aunt Lil").
            let openings = ["who was ", "who is ", "who were ", "what happened in ", "what happened at ", "what happened to ", "what happened during ",
                            "what was ", "what is ", "what were ", "tell me about "]
            guard let opening = openings.first(where: { lowered.hasPrefix($0) }) else { return nil }
            text = String(text.dropFirst(opening.count))
        }
        text = text.trimmingCharacters(in: .whitespaces)
        // "What was it like to ..." has no noun phrase to name.
        let pronouns: Set<String> = ["it", "that", "this", "there", "he", "she", "they", "you", "i", "we", "my", "your", "our"]
        guard let first = text.split(separator: " ").first, !pronouns.contains(first.lowercased()),
              text.split(separator: " ").count <= 10 else { return nil }
        return text
    }

    /// Words that follow a name ("135th Street") and make a poor quiz answer on their own.
    private static let placeWords: Set<String> = ["street", "avenue", "road", "boulevard", "drive", "park", "church", "station", "school",
                                                  "hospital", "county", "city", "river", "lake", "hall", "club", "company", "day", "sunday",
                                                  "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"]

    /// A word worth asking for in a quiz, not the first of the sentence: a year, else a name.
    static func clozeWord(in sentence: String) -> String? {
        let words = sentence.split(separator: " ").map { $0.trimmingCharacters(in: .punctuationCharacters.union(.symbols)) }.dropFirst()
        if let year = words.first(where: { $0.count == 4 && $0.allSatisfy(\.isNumber) && ($0.hasPrefix("18") || $0.hasPrefix("19") || $0.hasPrefix("20")) }) {
            return year
        }
        return words.first { word in
            word.count >= 3 && word.first?.isUppercase == true && word.dropFirst().allSatisfy({ $0.isLowercase })
                && !titles.contains(word.lowercased()) && !placeWords.contains(word.lowercased())
        }
    }

    static func uniqueOrdered(_ items: [String]) -> [String] {
        var seen = Set<String>()
        return items.filter { seen.insert($0).inserted }
    }

    static func list(_ items: [String]) -> String {
        switch items.count {
        case 0: return ""
        case 1: return items[0]
        case 2: return "\(items[0]) and \(items[1])"
        default: return items.dropLast().joined(separator: ", ") + " and " + items.last!
        }
    }
}
