import Foundation
import GriotChat
import GriotSafety
import GriotStore
import GriotStories
import GriotText

/// What operators may read of users' data, written once and applied wherever operators look
/// (`GET /api/ops/turns`, `GET /api/ops/turns/{id}`, `POST /api/ops/replay`, `griot turns`,
/// `griot replay`; any operators' page built later goes through here too). The table is `OperatorView.rules`, and the README's
/// "What operators may read" prints it.
///
/// - Questions and answers of the turns they review: yes, with personal details (phone numbers,
///   emails, addresses, ...) masked.
/// - Public stories: in full.
/// - Private and family-only stories: a masked excerpt (the story's people named `[PERSON]`,
///   personal details masked, at most `excerptWords` words), unless the story's owner gave a
///   support grant in force (`SupportGrant`): then in full. This covers citation quotes, titles
///   and the answer's sentences that cite or quote such a story.
/// - Every such read is audited on the story's owner (`story.read`, masked or granted).
/// - Deleted or edited messages: never (their text is removed from every snapshot when the
///   author deletes or edits; a replay of such a turn is refused).
/// - The events sent and the model's recorded reply are internal to replays and left out; a
///   turn's detail (`turn(_:)`) lists its events with their texts as above (deltas by length).
///
/// ```swift
/// let shown = try OperatorView(engine: engine).results(try await replayer.replay(id: id))
/// ```
public struct OperatorView: Sendable {
    public let engine: ChatEngine
    public let now: @Sendable () -> Date
    /// The longest excerpt of a story operators may not read in full.
    public static let excerptWords = 24

    /// The role table: each kind of data and what operators see of it.
    public static let rules: [(data: String, operators: String)] = [
        ("questions and answers of the turns they list or replay", "yes, with personal details masked ([PHONE], [EMAIL], [ADDRESS], ...)"),
        ("public stories (quotes, cited sentences)", "in full"),
        ("private and family-only stories (quotes, titles, the answer's sentences that cite or quote them)",
         "a masked excerpt of at most \(excerptWords) words (people as [PERSON], personal details masked); in full only under the owner's support grant in force"),
        ("a story deleted since the turn", "nothing: “[story removed]”"),
        ("messages their author deleted or edited", "never: the text is gone from every snapshot, and such a turn is not replayed"),
        ("the events sent and the model's recorded reply", "not shown (the replay uses them; operators see the texts above)"),
        ("every read of a private or family-only story", "audited on the story's owner (story.read: masked or granted, and the grant)"),
    ]

    public init(engine: ChatEngine, now: @escaping @Sendable () -> Date = Date.init) {
        self.engine = engine
        self.now = now
    }

    /// How an operator may read one story.
    enum Access: Equatable {
        case open
        case granted(grantID: String, owner: String)
        case masked(people: [String], owner: String?)
        case removed
    }

    /// Replay results as an operator may read them. Each private or family-only story they
    /// show leaves a `story.read` audit entry on its owner (once per story per call).
    public func results(_ results: [ReplayResult]) async throws -> [ReplayResult] {
        let stories = Set(results.flatMap { $0.original.citations.map(\.storyID) + $0.replayed.citations.map(\.storyID) })
        let access = try await self.access(stories)
        try await recordReads(access) { storyID in
            let turn = results.first { $0.original.citations.contains { $0.storyID == storyID } || $0.replayed.citations.contains { $0.storyID == storyID } }
            return (turn?.turnID, turn?.threadID)
        }
        // The texts of the cited passages of stories shown masked, read once for every turn.
        var passageTexts: [String: String] = [:]
        let masked = Set(access.compactMap { if case .masked = $0.value { return $0.key } else { return nil } })
        for citation in results.flatMap({ $0.original.citations + $0.replayed.citations }) where masked.contains(citation.storyID) {
            if passageTexts[citation.passageID] == nil { passageTexts[citation.passageID] = try await engine.archive.store.passage(id: citation.passageID)?.text }
        }
        return results.map { result in
            var shown = result
            shown.question = self.masked(result.question)
            shown.original = view(result.original, access, passageTexts: passageTexts)
            shown.replayed = view(result.replayed, access, passageTexts: passageTexts)
            let changed = result.diff.textChanged
            shown.diff = TurnDiff(shown.original, shown.replayed)
            // Whether the answer changed is about the whole text, masked parts included.
            shown.diff.textChanged = changed
            if changed, shown.diff.text.isEmpty { shown.diff.text = [.init(kind: .same, text: shown.replayed.text)] }
            return shown
        }
    }

    /// Listed turns with personal details in their questions masked.
    public static func listing(_ turns: [TurnListing], scrubber: PIIScrubber?) -> [TurnListing] {
        turns.map { turn in
            var shown = turn
            shown.question = turn.question.map { scrubber?.scrub($0).text ?? $0 }
            return shown
        }
    }

    /// A `story.read` audit entry on the owner of each private or family-only story shown
    /// (masked or under a grant), naming the turn it was shown for.
    func recordReads(_ access: [String: Access], turn: (String) -> (turnID: String?, threadID: String?)) async throws {
        for (storyID, rule) in access.sorted(by: { $0.key < $1.key }) {
            let (turnID, threadID) = turn(storyID)
            var details: [String: AuditEntry.DetailValue] = ["story_id": .string(storyID), "turn_id": .string(turnID ?? "")]
            let owner: String?
            switch rule {
            case .open, .removed:
                continue
            case .granted(let grant, let by):
                owner = by
                details["access"] = "granted"
                details["grant_id"] = .string(grant)
            case .masked(_, let by):
                owner = by
                details["access"] = "masked"
            }
            try await engine.chats.recordAudit(AuditEntry(action: .storyRead, userID: owner, threadID: threadID, details: AuditEntry.details(details)))
        }
    }

    func access(_ storyIDs: Set<String>) async throws -> [String: Access] {
        var stories: [String: Story] = [:]
        for id in storyIDs { stories[id] = try await engine.archive.store.story(id: id) }
        let owners = Set(stories.values.filter { $0.privacy != .public }.compactMap(\.ownerUserID))
        let grants = try await engine.chats.activeSupportGrants(owners: owners, at: now())
        var access: [String: Access] = [:]
        for id in storyIDs {
            guard let story = stories[id] else {
                access[id] = .removed
                continue
            }
            if story.privacy == .public {
                access[id] = .open
            } else if let grant = grants.first(where: { $0.covers(storyID: id, owner: story.ownerUserID, at: now()) }) {
                access[id] = .granted(grantID: grant.id, owner: grant.ownerUserID)
            } else {
                access[id] = .masked(people: story.people + story.interviewees, owner: story.ownerUserID)
            }
        }
        return access
    }

    func view(_ snapshot: TurnSnapshot, _ access: [String: Access], passageTexts: [String: String]) -> TurnSnapshot {
        var shown = snapshot
        shown.events = nil
        shown.recording = nil
        shown.question = snapshot.question.map(masked)
        var restricted: [Int: [String]] = [:]
        var removed = Set<Int>()
        shown.citations = snapshot.citations.map { citation in
            var citation = citation
            switch access[citation.storyID] ?? .removed {
            case .open, .granted:
                break
            case .masked(let people, _):
                restricted[citation.number] = people
                citation.quote = excerpt(citation.quote, people: people)
                citation.title = Self.names(citation.title, people: people)
                citation.interviewee = citation.interviewee.map { _ in "[PERSON]" }
            case .removed:
                removed.insert(citation.number)
                citation.quote = "[story removed]"
                citation.title = "[story removed]"
                citation.interviewee = nil
            }
            return citation
        }
        let passages = Set(snapshot.citations.filter { restricted[$0.number] != nil }.map(\.passageID))
            .compactMap { passageTexts[$0] }
        shown.text = answer(snapshot.text, restricted: restricted, removed: removed, passages: passages)
        return shown
    }

    /// The answer with personal details masked, and each sentence drawn from a story operators
    /// may not read in full cut to a masked excerpt. A sentence is drawn from such a story when
    /// it cites it (its markers, or the markers that follow it before the next sentence, as in
    /// `…hollow.” [1]`) or when it shares a run of `sharedRun` words with its passage (a quote
    /// left uncited, a long quote's first sentences).
    func answer(_ text: String, restricted: [Int: [String]], removed: Set<Int>, passages: [String]) -> String {
        guard !restricted.isEmpty || !removed.isEmpty else { return masked(text) }
        let scalars = Array(text.unicodeScalars)
        let spans = SentenceSplitter.sentences(in: scalars)
        let runs = Set(passages.flatMap { Self.runs(of: $0) })
        let people = Array(Set(restricted.values.flatMap { $0 }))
        func string(_ range: Range<Int>) -> String { String(String.UnicodeScalarView(scalars[range])) }
        var output = ""
        var position = 0
        for (index, span) in spans.enumerated() {
            output += string(position..<span.start)
            let sentence = string(span.start..<span.end)
            // The markers after the sentence, up to the next one with words in it.
            var cited = Self.markers(in: sentence)
            let next = index + 1 < spans.count ? spans[index + 1] : nil
            cited.formUnion(Self.markers(in: string(span.end..<(next?.start ?? scalars.count))))
            if let next, !string(next.start..<next.end).contains(where: \.isLetter) { cited.formUnion(Self.markers(in: string(next.start..<next.end))) }
            if cited.contains(where: removed.contains) {
                output += "[from a story since removed]"
            } else if cited.contains(where: { restricted[$0] != nil }) || !runs.isDisjoint(with: Self.runs(of: sentence)) {
                output += excerpt(sentence, people: people)
            } else {
                output += sentence
            }
            position = span.end
        }
        output += string(position..<scalars.count)
        return masked(output)
    }

    /// Runs of words two texts must share for one to be taken as quoting the other.
    static let sharedRun = 5

    /// The text's runs of `sharedRun` consecutive words, lowercased; in scripts written without
    /// spaces (Han, kana, Thai) each character counts as a word.
    static func runs(of text: String) -> Set<String> {
        let words = text.lowercased().split { !$0.isLetter && !$0.isNumber }.flatMap { word -> [Substring] in
            guard let first = word.unicodeScalars.first, WordTokenizer.isSpaceless(first) else { return [word] }
            return word.indices.map { word[$0...$0] }
        }
        guard words.count >= sharedRun else { return [] }
        return Set((0...(words.count - sharedRun)).map { words[$0..<($0 + sharedRun)].joined(separator: " ") })
    }

    /// The numbers of the citation markers in a text ("[2]", "[1, 3]"), read as the pipeline reads them.
    static func markers(in text: String) -> Set<Int> {
        Set(CitationMarkerScanner.markers(in: text).flatMap(\.numbers))
    }

    /// Personal details masked, the people named `[PERSON]`, and at most `excerptWords` words.
    func excerpt(_ text: String, people: [String]) -> String {
        let words = Self.names(masked(text), people: people).split(whereSeparator: \.isWhitespace)
        guard words.count > Self.excerptWords else { return words.joined(separator: " ") }
        return words.prefix(Self.excerptWords).joined(separator: " ") + " …"
    }

    func masked(_ text: String) -> String {
        engine.safety.scrubber?.scrub(text).text ?? text
    }

    /// `text` with each person's full name, then each part of it of three letters or more, as
    /// a whole word, replaced by `[PERSON]`.
    static func names(_ text: String, people: [String]) -> String {
        let parts = people.flatMap { name in [name] + name.split(whereSeparator: \.isWhitespace).map(String.init).filter { $0.count >= 3 } }
        var result = text
        for name in Set(parts).sorted(by: { $0.count > $1.count }) where !name.isEmpty {
            result = replacingWord(name, in: result, with: "[PERSON]")
        }
        return result
    }

    /// Replaces `word` where it is not part of a longer word (no letter or digit either side).
    static func replacingWord(_ word: String, in text: String, with replacement: String) -> String {
        var result = ""
        var rest = text[...]
        while let range = rest.range(of: word) {
            let before = range.lowerBound > rest.startIndex ? rest[rest.index(before: range.lowerBound)] : nil
            let after = range.upperBound < rest.endIndex ? rest[range.upperBound] : nil
            let inWord = { (character: Character?) in character.map { $0.isLetter || $0.isNumber } ?? false }
            // Words without spaces between them (Han, kana, Thai) have no boundary to find: the name is replaced where it stands.
            let spaceless = word.unicodeScalars.first.map { WordTokenizer.isSpaceless($0) } ?? false
            result += rest[..<range.lowerBound]
            if spaceless || (!inWord(before) && !inWord(after)) {
                result += replacement
            } else {
                result += rest[range]
            }
            rest = rest[range.upperBound...]
        }
        return result + rest
    }
}
