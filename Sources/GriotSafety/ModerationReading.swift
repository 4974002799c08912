/// One pass over one message: finds the targets and signals sentence by sentence and turns them
/// into scores and reasons.
struct ModerationReading {
    private let lexicon = ModerationLexicon.shared
    private let words: [ModerationToken]
    private var sentences: [Range<Int>] = []
    private var scores = ModerationResult()
    private var reasons: [String] = []
    /// Whether any sentence names a protected group, so "they" and "you" elsewhere can refer to it.
    private var messageNamesGroup = false
    private var unquotedWords = 0
    /// Every word of the message, so a phrase whose first or last word is absent is ruled out at once.
    private let vocabulary: Set<String>
    /// Capitalised words inside sentences: likely names of people.
    private let names: Set<String>

    init(_ text: ModerationText) {
        words = text.tokens
        names = text.names
        var start = 0
        for index in words.indices where index + 1 == words.count || words[index + 1].sentence != words[index].sentence {
            sentences.append(start..<(index + 1))
            start = index + 1
        }
        unquotedWords = words.filter { !$0.quoted && !$0.isPunctuation }.count
        vocabulary = Set(words.map(\.text))
    }

    mutating func result() -> ModerationResult {
        let groups = sentences.map { groupMentions(in: $0) }
        messageNamesGroup = groups.contains { !$0.isEmpty }
        for (index, sentence) in sentences.enumerated() {
            scoreHate(in: sentence, naming: groups[index])
            scoreAddressed(in: sentence, namesGroup: !groups[index].isEmpty)
            scoreSelfHarm(in: sentence)
            scoreSexual(in: sentence)
        }
        var result = scores
        result.source = "local"
        var seen = Set<String>()
        result.reasons = reasons.filter { seen.insert($0).inserted }
        return result
    }

    // MARK: Reading helpers

    private func text(_ index: Int) -> String { index >= 0 && index < words.count ? words[index].text : "" }
    private func has(_ index: Int, _ cue: ModerationCue) -> Bool { index >= 0 && index < words.count && lexicon.has(words[index].text, cue) }
    private func isBreak(_ index: Int) -> Bool { words[index].isPunctuation || lexicon.has(words[index].text, .clauseBreak) }
    private func phrase(_ index: Int, _ parts: [String]) -> Bool {
        guard index >= 0, index + parts.count <= words.count else { return false }
        for offset in parts.indices where words[index + offset].text != parts[offset] { return false }
        return true
    }
    private func sentenceContains(_ range: Range<Int>, _ parts: [String]) -> Bool {
        guard let first = parts.first, let last = parts.last, vocabulary.contains(first), vocabulary.contains(last) else { return false }
        return range.contains { $0 + parts.count <= range.upperBound && phrase($0, parts) }
    }

    private static let adverbs: Set<String> = ["really", "just", "absolutely", "so", "truly", "seriously", "firmly", "honestly", "actually", "even", "still", "openly", "always", "simply", "all", "now", "clearly", "also"]
    private static let secondPerson: Set<String> = ["you", "your", "yours", "yourself", "yourselves", "u", "ya", "youre"]
    private static let groupPronouns: Set<String> = ["they", "them", "their", "theirs", "themselves", "these", "those", "you", "your", "yourselves", "kind"]
    private static let firstPerson: Set<String> = ["i", "me", "my", "myself", "we", "us", "our", "ourselves"]
    private static let personObjects: Set<String> = ["him", "her", "them", "you", "everyone", "everybody", "someone", "somebody", "people", "person", "man", "woman", "men", "women", "guy", "girl", "boy", "kids", "teacher", "coach", "boss", "neighbour", "neighbor", "wife", "husband", "son", "daughter", "brother", "sister", "mom", "mum", "dad", "family",
        "coworker", "colleague", "ex", "landlord", "landlady", "supervisor", "manager", "roommate", "flatmate", "cousin", "uncle", "aunt", "referee", "classmate", "teammate", "girlfriend", "boyfriend", "partner", "stepdad", "stepmom", "principal", "professor", "tutor", "client"]

    /// Protected groups named in the sentence, as token indexes.
    private func groupMentions(in range: Range<Int>) -> [Int] {
        var found: [Int] = []
        for index in range where !words[index].isPunctuation {
            let word = words[index].text
            if lexicon.has(word, .groupNoun) {
                // "disabled" alone is a group only as "the disabled"; "the feature is disabled" is not.
                if word == "disabled" || word == "handicapped" || word == "elderly" {
                    if text(index - 1) == "the" || has(index + 1, .personNoun) { found.append(index) }
                    continue
                }
                found.append(index)
            } else if lexicon.has(word, .groupAdjective) || lexicon.adjectiveRepairs[word] != nil {
                let next = index + 1
                if has(next, .personNoun) || has(next, .dehumanising) || has(next, .insult) || lexicon.slurs[text(next)] != nil {
                    if lexicon.has(word, .groupAdjective) || text(next) == "people" || text(next) == "person" { found.append(index) }
                } else if ["muslim", "jewish", "trans", "transgender", "lesbian", "bisexual"].contains(word), lexicon.has(word, .groupAdjective) {
                    found.append(index)
                } else if Self.demonyms.contains(word), Self.quantifiers.contains(text(index - 1)),
                          index + 1 >= range.upperBound || words[index + 1].isPunctuation || ModerationLexicon.functionWords.contains(text(index + 1)) {
                    // "every Mexican", "any Asian": a demonym used as a noun ("every Mexican restaurant" is not).
                    found.append(index)
                }
            } else if ["old", "older"].contains(word), ["people", "folks", "persons"].contains(text(index + 1)) {
                found.append(index)
            } else if let implied = Self.impliedGroups.first(where: { phrase(index, $0) }) {
                // "people like you", "your kind", "go back where they came from": a group named without its name.
                if implied == ["your", "kind"] || implied == ["their", "kind"],
                   !(index + 2 >= range.upperBound || words[index + 2].isPunctuation || Self.predicateStarts.contains(text(index + 2))) { continue }
                found.append(index)
            } else if ["deport", "deported", "deporting", "expel", "expelled", "ship", "shipped"].contains(word),
                      (index + 1..<min(range.upperBound, index + 4)).contains(where: { ["all", "every", "lot"].contains(text($0)) }) {
                // "deport all of them": a whole class of people, not one person.
                found.append(index)
            }
        }
        return found
    }

    private static let demonyms: Set<String> = ["mexican", "asian", "arab", "african", "hispanic", "latino", "latina", "indian", "chinese", "japanese", "korean", "filipino", "haitian", "syrian", "afghan", "nigerian", "jamaican", "somali", "pakistani", "immigrant", "migrant", "muslim", "christian", "hindu", "sikh", "buddhist", "mormon"]
    private static let quantifiers: Set<String> = ["every", "each", "any", "a", "an", "one", "last", "single"]
    private static let impliedGroups: [[String]] = [
        ["people", "like", "you"], ["people", "like", "them"], ["you", "people"], ["your", "kind"], ["their", "kind"], ["you", "lot"],
        ["those", "people"], ["these", "people"], ["where", "they", "came", "from"], ["where", "you", "came", "from"],
        ["back", "to", "their", "own", "country"], ["back", "to", "your", "own", "country"], ["back", "to", "their", "country"], ["back", "to", "your", "country"],
    ]
    private static let predicateStarts: Set<String> = ["are", "is", "should", "will", "must", "do", "does", "can", "never", "always", "have", "has", "belong", "deserve", "need", "and", "of", "were", "was"]

    /// Whether the word at `index` is negated: a negator shortly before it in the same clause,
    /// or (for values, "lives do not matter") shortly after it.
    private func negated(_ index: Int, in range: Range<Int>, lookAhead: Bool) -> Bool {
        var cursor = index - 1
        var steps = 0
        while cursor >= range.lowerBound, steps < 8, !isBreak(cursor) {
            if isNegator(cursor, in: range) { return true }
            cursor -= 1
            steps += 1
        }
        guard lookAhead else { return false }
        cursor = index + 1
        steps = 0
        while cursor < range.upperBound, steps < 3, !isBreak(cursor) {
            if isNegator(cursor, in: range) { return true }
            cursor += 1
            steps += 1
        }
        return false
    }

    private func isNegator(_ index: Int, in range: Range<Int>) -> Bool {
        guard has(index, .negator) else { return false }
        let next = text(index + 1)
        let word = text(index)
        // Comparisons that derogate rather than negate: "nothing but", "no better than", "nothing worse".
        if next == "but" || next == "better" || next == "worse" || next == "less" || next == "more" || next == "only" { return false }
        if word == "no" && (next == "one" || next == "other") && text(index + 2) == "else" { return false }
        if word == "nothing" && (next == "in" || next == "else") { return false }
        // "without a doubt", "without exception" assert.
        if word == "without" && ["a", "doubt", "exception", "question", "fail", "any"].contains(next) { return false }
        // "Isn't it obvious…", "Does this not show…": a rhetorical question asserts, it does not negate.
        if index - range.lowerBound <= 4, let first = range.first.map({ text($0) }),
           ["is", "isnt", "does", "do", "did", "can", "am", "how", "why", "would", "are", "was", "will", "should", "could"].contains(first) { return false }
        return true
    }

    // MARK: Hate and violence

    private mutating func scoreHate(in range: Range<Int>, naming groups: [Int]) {
        let slurUse = derogatorySlur(in: range)
        let pronounTarget = messageNamesGroup && range.contains { Self.groupPronouns.contains(words[$0].text) && !words[$0].isPunctuation }
        let targetsGroup = !groups.isEmpty || pronounTarget || slurUse != nil

        var derogation: String?
        var threat = false
        var violentActs = 0
        let intent = range.contains { has($0, .intent) && !words[$0].quoted && !desireOfSomeoneElse($0, in: range) } || range.first.map { text($0) == "death" || text($0) == "kill" } == true
            || sentenceContains(range, ["better", "off", "without"]) || sentenceContains(range, ["better", "off", "if"])
            || sentenceContains(range, ["put", "an", "end"])
            // Suggestions: "what if we…", "how about we…", "why don't we…".
            || sentenceContains(range, ["what", "if", "we"]) || sentenceContains(range, ["how", "about", "we"])
            || sentenceContains(range, ["why", "do", "not", "we"]) || sentenceContains(range, ["why", "not"])
        var firstSignal: Int?
        var deniedHarm = false
        var deniedWorth = false
        for index in range where !words[index].isPunctuation {
            var cue = lexicon.cue(words[index].text)
            if Self.violentPhrases.contains(where: { phrase(index, $0) }) || bodilyHarm(index, in: range) { cue.insert(.violentAct) }
            if Self.burdens.contains(words[index].text), isGroupPredicate(index, in: range) { cue.insert(.negativeAttribute) }
            if Self.illnesses.contains(words[index].text), literalIllness(index), !range.contains(where: { text($0) == "rather" }) { continue }
            if cue.isEmpty { continue }
            if cue.contains(.violentAct) && !lexicon.has(words[index].text, .positive) {
                if idiomaticViolence(index) { continue }
                // "…are getting murdered", "…being attacked": the group is the victim, not the target of a threat.
                if ["getting", "being", "got"].contains(text(index - 1)) { deniedHarm = true; continue }
                // "the lynching", "a shooting": an event being talked about, not an act being threatened.
                if Self.determiners.contains(text(index - 1)) && text(index) != "end" { violentActs += 1; continue }
                if negated(index, in: range, lookAhead: false) { deniedHarm = true; continue }
                violentActs += 1
                firstSignal = firstSignal ?? index
                if intent { threat = true; derogation = derogation ?? "threat of violence" }
                continue
            }
            if !cue.intersection([.negativeFeeling, .negativeAttribute, .dehumanising, .exclusion]).isEmpty {
                if negated(index, in: range, lookAhead: false) { deniedHarm = true; continue }
                if cue.contains(.negativeFeeling), reportedByThirdParty(index, in: range) { continue }
                firstSignal = firstSignal ?? index
                derogation = derogation ?? (cue.contains(.dehumanising) ? "dehumanising language" : cue.contains(.negativeFeeling) ? "hostile feeling" : "derogatory attribute")
            } else if cue.contains(.positive), text(index + 1) == "less" || text(index + 2) == "less" {
                // "worth less than", "like less than" derogate; "not worth any less than" does not.
                if negated(index, in: range, lookAhead: false) { deniedHarm = true } else { deniedWorth = true }
            } else if cue.contains(.positive), negated(index, in: range, lookAhead: true), !Self.personObjects.contains(words[index].text),
                      !(text(index) == "stand" && text(index + 1) == "by") {
                deniedWorth = true
            } else if cue.contains(.profanity) || cue.contains(.insult) {
                derogation = derogation ?? "abusive language"
            } else if cue.contains(.comparedThing), range.contains(where: { ["than", "like", "as"].contains(words[$0].text) }) {
                derogation = derogation ?? "comparison with animals or things"
            }
        }
        // "You'll regret it", "watch your back", "I know where your kids go to school": a threat
        // that names a consequence rather than an act, and carries its own intent.
        if let expelled = expulsion(in: range, naming: groups), !negated(expelled, in: range, lookAhead: false) {
            firstSignal = firstSignal.map { min($0, expelled) } ?? expelled
            derogation = derogation ?? "call to expel"
        }
        let menace = intimidation(in: range).flatMap { !words[$0].quoted && !negated($0, in: range, lookAhead: false) ? $0 : nil }
        if let menace {
            violentActs += 1
            threat = true
            firstSignal = firstSignal.map { min($0, menace) } ?? menace
            derogation = derogation ?? "threat of violence"
        }
        // "Lives are not worth protecting" derogates; "do not deserve to be tortured" defends.
        if deniedWorth && !deniedHarm { derogation = derogation ?? "denied worth or equality" }
        // "… should not be allowed to vote": rights denied to the group.
        if derogation == nil, sentenceContains(range, ["not", "be", "allowed"]) || sentenceContains(range, ["never", "be", "allowed"]),
           range.contains(where: { ["should", "must", "ought"].contains(text($0)) }) {
            derogation = "denied rights"
        }
        // "I don't like…", "can't stand…": a negated liking of the group is a feeling against it.
        if derogation == nil, range.contains(where: { text($0) == "not" && ["like", "stand", "trust"].contains(text($0 + 1)) && (groups.contains($0 + 2) || groups.contains($0 + 3)) }) {
            derogation = "hostile feeling"
        }

        let frame = speechFrame(in: range, signal: slurUse == nil ? firstSignal : nil)
        let narration = isNarration(range, intent: intent || menace != nil)

        if let slur = slurUse {
            var score = 0.95
            if let cap = frame.cap { score = min(score, cap) }
            raise(\.hate, score, "slur aimed at \(slur)" + frame.note)
            if frame.cap == nil { raise(\.harassment, 0.85, "slur used as an insult") }
        }
        if targetsGroup, let derogation {
            var score = threat ? 0.96 : 0.92
            if let cap = frame.cap { score = min(score, cap) }
            if narration { score = min(score, 0.6) }
            raise(\.hate, score, "\(derogation) about a protected group" + frame.note + (narration ? ", told as past events" : ""))
            if threat { raise(\.violence, score, "threat of violence against a protected group" + frame.note) }
        }
        if violentActs > 0 && !(targetsGroup && derogation != nil) {
            let addressed = range.contains { Self.secondPerson.contains(words[$0].text) }
            var person = addressed || range.contains { Self.personObjects.contains(words[$0].text) || has($0, .otherGroup) }
            // A third person is a threat's target when named after the act ("stab my coworker",
            // "smash Tariq's face in": a body names a person even when the name is unknown);
            // "if only someone would strangle those initiatives" has a person only as the doer.
            let act = range.first { has($0, .violentAct) || bodilyHarm($0, in: range) } ?? range.lowerBound
            let target = range.contains { $0 > act && (Self.personObjects.contains(words[$0].text) && words[$0].text != "someone" && words[$0].text != "somebody"
                || Self.bodyParts.contains(words[$0].text) || names.contains(words[$0].text)) }
            person = person || target
            if threat && person && !narration {
                // A threat against a third person blocks too (issue 14): HateCheck calls it
                // non-hateful, but in a coaching chat it is harm announced, not an opinion.
                // Exasperation stays below the line: "my manager is going to kill me if…" (the
                // speaker is the one "threatened"), "kill my brother for eating my cake".
                let exasperation = range.contains { has($0, .violentAct) && text($0 + 1) == "me" }
                    || range.contains { text($0) == "for" && text($0 + 1).hasSuffix("ing") }
                var score = addressed ? 0.9 : exasperation || !target ? 0.7 : 0.85
                if let cap = frame.cap { score = min(score, cap) }
                raise(\.violence, score, addressed ? "threat of violence against the reader" : "threat or wish of violence against a person")
                if addressed { raise(\.harassment, score, "threat against the reader") }
            } else {
                raise(\.violence, 0.3, "mentions violence")
            }
        }
    }

    private static let determiners: Set<String> = ["the", "a", "an", "this", "that", "his", "her", "their", "our", "my"]

    /// Words that derogate a group only as its predicate: "disabled people are a burden", not
    /// "caring for elderly parents can be a burden".
    private static let burdens: Set<String> = ["burden", "burdens", "drain", "drag", "weight", "millstone", "leech"]
    private static let copulas: Set<String> = ["are", "is", "was", "were", "be", "am", "being", "been"]
    private static let prepositions: Set<String> = ["for", "of", "with", "to", "about", "on", "at", "by", "from", "in", "into", "after", "without"]

    private func isGroupPredicate(_ index: Int, in range: Range<Int>) -> Bool {
        var cursor = index - 1
        while cursor >= range.lowerBound, index - cursor <= 5, !isBreak(cursor) || text(cursor - 1) == "nothing", !Self.copulas.contains(text(cursor)) { cursor -= 1 }
        guard cursor >= range.lowerBound, Self.copulas.contains(text(cursor)) else { return false }
        // The copula's subject must be the group itself, not the object of "caring for…".
        var subject = cursor - 1
        while subject >= range.lowerBound, !isBreak(subject) {
            if Self.prepositions.contains(text(subject)) || text(subject).hasSuffix("ing") { return false }
            subject -= 1
        }
        return true
    }

    /// Illness words are metaphors for a group only when not had, died of or treated ("I'd rather
    /// have cancer than…" is a comparison, so the caller keeps it).
    private static let illnesses: Set<String> = ["cancer", "plague", "disease", "virus", "tumour", "tumor", "pestilence"]
    private static let illnessContext: Set<String> = ["of", "from", "with", "have", "has", "had", "got", "survived", "diagnosed", "beat", "breast", "lung", "skin", "treat", "treated", "cure", "bubonic", "heart", "fought", "fighting", "getting"]
    private static let illnessAfter: Set<String> = ["patients", "patient", "research", "treatment", "screening", "rates", "survivors", "survivor", "ward", "cells", "diagnosis", "spread", "killed", "took", "came", "swept", "hit"]

    private func literalIllness(_ index: Int) -> Bool {
        Self.illnessContext.contains(text(index - 1)) || Self.illnessContext.contains(text(index - 2)) && text(index - 1) != "a"
            || Self.illnessAfter.contains(text(index + 1))
    }

    private static let expelling: Set<String> = ["drive", "driven", "drove", "driving", "kick", "kicked", "kicking", "throw", "thrown", "threw", "throwing", "run", "ship", "shipped", "shipping", "send", "sent", "sending", "round", "rounded", "rounding", "chase", "chased", "chasing", "push", "pushed", "boot", "booted", "force", "forced", "get", "got"]
    private static let outward: Set<String> = ["out", "back", "home", "away"]
    private static let removing: Set<String> = ["deport", "deported", "deporting", "deportation", "expel", "expelled", "expelling", "banish", "banished", "exile", "exiled", "rid"]
    private static let removedPeople: Set<String> = ["them", "those", "these", "you", "everyone", "everybody", "lot", "yourselves", "themselves"]

    /// A call to remove a group: "round up every…", "ship them back", "should be driven out",
    /// "get rid of them". The removed must be the group or a pronoun for it, so "immigrants send
    /// money back home" is no call to expel.
    private func expulsion(in range: Range<Int>, naming groups: [Int]) -> Int? {
        for verb in range {
            let word = text(verb)
            let particleVerb = Self.expelling.contains(word)
            guard particleVerb || Self.removing.contains(word) else { continue }
            if word == "rid", !["get", "got", "getting", "be", "rid"].contains(text(verb - 1)) { continue }
            var end = verb + 1
            if particleVerb {
                let wanted: Set<String> = ["round", "rounded", "rounding"].contains(word) ? ["up"] : Self.outward
                guard let particle = (verb + 1..<min(range.upperBound, verb + 8)).first(where: { isBreak($0) || wanted.contains(text($0)) }),
                      !isBreak(particle) else { continue }
                end = particle + 1
            }
            let passive = Self.copulas.contains(text(verb - 1)) || ["get", "got"].contains(text(verb - 1))
            let objectSpan = (verb + 1)..<min(range.upperBound, end + 3)
            // "every one of them", "all the…"; but "every month" is no one.
            let objectIsGroup = objectSpan.contains { groups.contains($0) || Self.removedPeople.contains(text($0))
                || ["all", "every"].contains(text($0)) && (["of", "one", "last", "single"].contains(text($0 + 1)) || groups.contains($0 + 1) || groups.contains($0 + 2)) }
            if (passive && !groups.isEmpty) || objectIsGroup { return verb }
        }
        return nil
    }

    private static let breaking: Set<String> = ["break", "breaking", "smash", "smashing", "snap", "snapping", "crack", "cracking", "bust", "busting", "shatter", "cave"]
    private static let bodyParts: Set<String> = ["legs", "leg", "arms", "arm", "bones", "bone", "neck", "jaw", "face", "skull", "teeth", "fingers", "knees", "kneecaps", "nose", "ribs", "head", "hands", "spine"]

    /// "break your legs", "smash his face in", "break every bone in…": harm to someone else's body
    /// ("I broke my leg skiing" is an accident, not a threat).
    /// A violent verb in a fixed phrase that names no violence: "shoot for Wednesday", "shoot me
    /// an email", "kill time", "killing it on stage".
    func idiomaticViolence(_ index: Int) -> Bool {
        let verb = text(index), next = text(index + 1)
        if verb.hasPrefix("shoot") || verb == "shot" {
            return next == "for" || ["me", "us", "him", "her", "them", "you"].contains(next) && ["a", "an", "the", "over"].contains(text(index + 2))
                || next == "a" && ["message", "text", "note", "email", "line", "quick"].contains(text(index + 2))
        }
        if verb.hasPrefix("kill") { return next == "time" || verb == "killing" && next == "it" }
        return false
    }

    private func bodilyHarm(_ index: Int, in range: Range<Int>) -> Bool {
        guard Self.breaking.contains(text(index)) else { return false }
        var cursor = index + 1
        while cursor < min(range.upperBound, index + 4), !Self.bodyParts.contains(text(cursor)) {
            if ["my", "myself", "the", "a"].contains(text(cursor)) || isBreak(cursor) { return false }
            cursor += 1
        }
        return cursor < range.upperBound && Self.bodyParts.contains(text(cursor))
    }

    /// Threats that name a consequence: "make you regret", "you'll be sorry", "watch your back".
    private static let menaces: [(words: [String], notFollowedBy: Set<String>)] = [
        (["make", "you", "regret"], []), (["make", "sure", "you", "regret"], []), (["make", "you", "pay"], []), (["make", "you", "suffer"], []), (["make", "your", "life", "hell"], []),
        (["you", "will", "regret", "it"], []), (["you", "will", "regret", "this"], []), (["you", "will", "regret", "that"], ["you", "i"]),
        (["you", "will", "be", "sorry"], ["you", "that", "to", "for", "about"]), (["you", "will", "pay", "for", "this"], []), (["you", "will", "pay", "for", "that"], []),
        (["watch", "your", "back"], []), (["watch", "his", "back"], []), (["watch", "her", "back"], []), (["watch", "their", "back"], []),
        (["coming", "for", "you"], []), (["will", "find", "you"], []), (["going", "to", "find", "you"], []), (["gonna", "find", "you"], []),
        (["hunt", "you", "down"], []), (["track", "you", "down"], []), (["you", "are", "dead"], ["tired", "wrong", "right", "serious", "on"]), (["you", "are", "next"], ["in", "on", "to", "up", "after"]),
        (["you", "are", "a", "dead", "man"], []), (["sleep", "with", "one", "eye", "open"], []), (["you", "have", "been", "warned"], []),
        (["ruin", "your", "life"], []), (["teach", "you", "a", "lesson"], []), (["put", "you", "in", "the", "hospital"], []), (["put", "you", "in", "the", "ground"], []),
        (["see", "what", "happens", "to", "you"], []), (["what", "happens", "to", "people", "who"], []),
    ]
    private static let menacesByFirstWord: [String: [(words: [String], notFollowedBy: Set<String>)]] = Dictionary(grouping: menaces) { $0.words[0] }
    private static let finding: Set<String> = ["know", "knows", "found", "find", "figured", "tracked", "learned", "got", "traced"]
    private static let whereabouts: Set<String> = ["live", "lives", "sleep", "sleeps", "work", "works", "go", "goes", "stay", "stays", "park", "parks", "walk", "walks"]

    /// The index of a threat phrased as a consequence or as knowing where someone lives, or nil.
    private func intimidation(in range: Range<Int>) -> Int? {
        for start in range {
            guard let candidates = Self.menacesByFirstWord[text(start)] else { continue }
            for menace in candidates where phrase(start, menace.words) {
                let end = start + menace.words.count
                if end < range.upperBound, menace.notFollowedBy.contains(text(end)) { continue }
                return start
            }
        }
        // "I know where you live", "found out where your kids go to school".
        guard vocabulary.contains("where") else { return nil }
        for index in range where text(index) == "where" {
            var before = index - 1
            if ["out", "exactly", "just"].contains(text(before)) { before -= 1 }
            guard before >= range.lowerBound, Self.finding.contains(text(before)) else { continue }
            let owner = text(index + 1)
            if owner == "you", Self.whereabouts.contains(text(index + 2)) { return before }
            if ["your", "his", "her", "their"].contains(owner),
               (index + 2...index + 4).contains(where: { $0 < range.upperBound && Self.whereabouts.contains(text($0)) }) { return before }
        }
        return nil
    }
    private static let violentPhrases: [[String]] = [["get", "rid"], ["end", "to"], ["wipe", "out"], ["end", "every"], ["end", "all"], ["end", "their"], ["end", "his"], ["end", "her"], ["end", "your"]]

    private static let desires: Set<String> = ["want", "wanna", "wish", "hope", "love"]
    private static let auxiliaries: Set<String> = ["ever", "really", "just", "even", "still", "truly", "so", "would", "do", "did", "does", "always", "also", "not", "never", "only", "can"]

    /// "Did you ever want to die?" asks about someone's own wish; "I want…", "we wish…" are the speaker's.
    private func desireOfSomeoneElse(_ index: Int, in range: Range<Int>) -> Bool {
        guard Self.desires.contains(text(index)) else { return false }
        var cursor = index - 1
        while cursor >= range.lowerBound, Self.auxiliaries.contains(text(cursor)) { cursor -= 1 }
        guard cursor >= range.lowerBound, !words[cursor].isPunctuation else { return false }
        return ["you", "he", "she", "they", "u"].contains(text(cursor))
    }

    /// How the sentence's words stand to its speaker: quoted, reported, or condemned rather than said.
    /// Only a report that comes before `signal` frames it: "if you say that again" after a threat does not.
    private func speechFrame(in range: Range<Int>, signal: Int? = nil) -> (cap: Double?, note: String) {
        let quoted = unquotedWords >= 3 && range.contains { words[$0].quoted && !words[$0].isPunctuation }
        let condemned = range.contains { has($0, .condemnation) && !words[$0].quoted }
            || sentenceContains(range, ["has", "to", "stop"]) || sentenceContains(range, ["call", "out"])
            || sentenceContains(range, ["says", "a", "lot"]) || sentenceContains(range, ["not", "count"])
            || sentenceContains(range, ["not", "expect"]) || sentenceContains(range, ["lost", "all"])
        var reported = false
        for index in range where has(index, .report) && !words[index].quoted && index < (signal ?? range.upperBound) {
            // "a word said by…" is a passive, not a report; "…tell that I am disgusted" is the speaker's own feeling.
            if text(index + 1) == "by" { continue }
            // "If you post that again…": the reader's next act, not someone's words reported.
            if text(index - 1) == "you", ["if", "when", "unless", "ever"].contains(text(index - 2)) || (text(index - 2) == "ever" && text(index - 3) == "you") { continue }
            if let signal, (max(index, signal - 3)..<signal).contains(where: { ["i", "we"].contains(text($0)) }) { continue }
            if Self.reportNouns.contains(text(index)) && !["like", "that", "about", "calling", "saying"].contains(text(index + 1)) { continue }
            if endorsedByFirstPerson(index, in: range) { continue }
            reported = true
        }
        let nominalised = range.contains { ["your", "the", "open"].contains(text($0)) && has($0 + 1, .negativeFeeling) || ["your", "the", "open", "obvious"].contains(text($0)) && has($0 + 2, .negativeFeeling) }
        if quoted { return (0.45, ", inside a quotation") }
        if reported && condemned { return (0.35, ", reported and condemned") }
        if nominalised && condemned { return (0.35, ", condemned") }
        if reported { return (0.55, ", reported speech") }
        return (nil, "")
    }

    /// "I think…", "I believe…" say it; "you said…", "I never said…", "saying that…" report it.
    private func endorsedByFirstPerson(_ index: Int, in range: Range<Int>) -> Bool {
        if Self.reportNouns.contains(text(index)) { return false }
        var cursor = index - 1
        while cursor >= range.lowerBound, Self.adverbs.contains(text(cursor)) || ["do", "did", "would", "will", "must", "can", "to"].contains(text(cursor)) { cursor -= 1 }
        guard cursor >= range.lowerBound else { return false }
        if ["i", "we"].contains(text(cursor)) { return !negated(index, in: range, lookAhead: false) }
        return false
    }

    private static let reportNouns: Set<String> = ["words", "stuff", "things", "statements", "statement", "comments", "comment", "posts", "post", "messages", "message", "remarks", "remark", "threats", "insults", "slurs", "slur"]

    /// "He hates women" reports a feeling; "I hate…" or "These … disgust me" has it.
    private func reportedByThirdParty(_ index: Int, in range: Range<Int>) -> Bool {
        guard text(index).hasSuffix("s") || text(index).hasSuffix("ed") else { return false }
        var cursor = index - 1
        while cursor >= range.lowerBound, Self.adverbs.contains(text(cursor)) { cursor -= 1 }
        return cursor >= range.lowerBound && ["he", "she", "klan", "grandfather", "grandmother", "man", "woman", "sheriff", "mayor", "neighbour", "neighbor"].contains(text(cursor))
    }

    /// A story told in the past tense with no present claim and no wish: a grandmother's
    /// account of what the Klan did is history, not a threat.
    private func isNarration(_ range: Range<Int>, intent: Bool) -> Bool {
        if intent { return false }
        // "back" tells of the past only as "back then", "back in 1958"; "send them back" is no story.
        let past = range.contains { (has($0, .past) && text($0 + 1) != "by" && (text($0) != "back" || ["then", "in", "when"].contains(text($0 + 1)))) || (words[$0].text.count == 4 && (1500...2030).contains(Int(words[$0].text) ?? 0)) }
        let present = range.contains { ["are", "is", "am"].contains(text($0)) }
        return past && !present
    }

    /// A slur used to derogate, named by the group it targets, or nil when the slur is absent,
    /// reclaimed, a homonym in context, or only mentioned ("the word …").
    private func derogatorySlur(in range: Range<Int>) -> String? {
        for index in range where !words[index].isPunctuation {
            guard let slur = lexicon.slurs[words[index].text] else { continue }
            if text(index - 1) == "word" || text(index - 1) == "term" { continue }
            if homonymContext(slur.homonymContext, in: range) { continue }
            if slur.kind == .reclaimable && reclaimed(index, in: range) { continue }
            if slur.kind == .strong || insultingFrame(index, in: range) { return slur.group }
        }
        return nil
    }

    private static let homonymWords: [String: Set<String>] = [
        "food": ["ate", "eat", "dinner", "meatball", "meatballs", "butcher", "cooked", "cook", "sticks", "bundle", "fuel", "fried", "pan", "delicious", "gravy"],
        "cigarette": ["smoke", "smoked", "smoking", "cigarette", "cigarettes", "packet", "lungs", "mouth", "lighter", "ashtray"],
        "embankment": ["beach", "water", "flooding", "flood", "embankment", "embankments", "walls", "wall", "marsh", "marshland", "river", "rivers", "built", "building", "sea", "dam", "walk"],
        "garden": ["garden", "tool", "tools", "shed", "weeds", "vegetable", "field", "shovel", "soil", "hoeing"],
        "dog": ["dog", "dogs", "puppies", "puppy", "labrador", "vet", "barking", "canines", "canine", "walks", "litter", "breed", "kennel"],
        "odd": ["feeling", "odd", "strange", "notion", "seemed", "bit", "rather", "slightly"],
        "animal": ["raccoon", "raccoons", "hound", "hunting", "hunt"],
    ]

    private func homonymContext(_ key: String, in range: Range<Int>) -> Bool {
        guard let context = Self.homonymWords[key] else { return false }
        return range.contains { context.contains(words[$0].text) }
    }

    private static let praise: Set<String> = ["bad", "baddest", "boss", "pretty", "prettiest", "hot", "hottest", "cutest", "realest", "freshest", "proud", "fellow", "happily", "best"]

    /// "My …", "us …", "I'm a proud …", "… like me": the group's own word for itself.
    private func reclaimed(_ index: Int, in range: Range<Int>) -> Bool {
        let before = max(range.lowerBound, index - 5)..<index
        if before.contains(where: { ["my", "myself", "us", "our", "ourselves", "fellow", "proud", "am"].contains(words[$0].text) || Self.praise.contains(words[$0].text) }) { return true }
        if before.contains(where: { text($0) == "we" && text($0 + 1) == "are" }) { return true }
        if text(index + 1) == "like" && ["me", "us"].contains(text(index + 2)) { return true }
        if range.contains(where: { text($0) == "proud" }) { return true }
        return false
    }

    private static let insultLead: Set<String> = ["typical", "another", "those", "these", "filthy", "dirty", "stupid", "damn", "fucking", "bunch", "many", "common", "lowly", "disgusting", "ugly", "fat", "lazy", "you"]

    /// "You are just a …", "typical … behaviour", "too many …", "… like you", "… just can't help themselves".
    private func insultingFrame(_ index: Int, in range: Range<Int>) -> Bool {
        if Self.insultLead.contains(text(index - 1)) || (text(index - 1) == "of" && text(index - 2) == "bunch") { return true }
        if text(index + 1) == "like" && ["you", "them", "him", "her"].contains(text(index + 2)) { return true }
        if ["behaviour", "behavior"].contains(text(index + 1)) { return true }
        var cursor = index - 1
        let filler: Set<String> = ["just", "nothing", "but", "a", "an", "such", "total", "complete", "only", "the", "all", "real", "little", "big", "fucking", "another", "common", "no", "more", "than"]
        while cursor >= range.lowerBound, filler.contains(text(cursor)) { cursor -= 1 }
        if cursor >= range.lowerBound, ["are", "is", "am", "be"].contains(text(cursor)), cursor - 1 >= range.lowerBound,
           ["you", "he", "she", "they", "u", "it"].contains(text(cursor - 1)) { return true }
        if index == range.lowerBound || text(index - 1) == "," {
            if ["just", "can", "always", "never", "should", "are", "ruin", "will", "must", "need"].contains(text(index + 1)) { return true }
        }
        return false
    }

    // MARK: Harassment of the reader

    private mutating func scoreAddressed(in range: Range<Int>, namesGroup: Bool) {
        guard !namesGroup else { return }
        let quoted = unquotedWords >= 3
        var insults = 0
        var profanity = 0
        for index in range where !words[index].isPunctuation && !(quoted && words[index].quoted) {
            if has(index, .insult) && !negated(index, in: range, lookAhead: false) { insults += 1 }
            else if has(index, .profanity) { profanity += 1 }
        }
        guard insults + profanity > 0 else { return }
        let addressed = range.contains { Self.secondPerson.contains(words[$0].text) }
        let selfDirected = range.contains { ["i", "me", "myself", "my"].contains(words[$0].text) } && !addressed
        if addressed && !selfDirected && speechFrame(in: range).cap == nil {
            let directFuck = range.contains { text($0) == "fuck" && ["you", "yourself", "yourselves", "off"].contains(text($0 + 1)) }
            let score = insults >= 2 || (insults >= 1 && profanity >= 1) ? 0.85 : directFuck || insults == 1 ? 0.7 : 0.3
            raise(\.harassment, score, score >= 0.7 ? "insult aimed at the reader" : "swearing")
        } else {
            raise(\.harassment, 0.2, "swearing or insult not aimed at anyone here")
        }
    }

    // MARK: Self-harm

    private static let intentPhrases: [[String]] = [
        ["kill", "myself"], ["killing", "myself"], ["end", "my", "life"], ["ending", "my", "life"], ["end", "it", "all"],
        ["take", "my", "own", "life"], ["taking", "my", "own", "life"], ["want", "to", "die"], ["wanna", "die"],
        ["wish", "i", "was", "dead"], ["wish", "i", "were", "dead"], ["better", "off", "dead"], ["better", "off", "without", "me"],
        ["cutting", "myself"], ["been", "cutting"], ["hurt", "myself"], ["hurting", "myself"], ["harm", "myself"],
        ["harming", "myself"], ["self", "harming"], ["self", "harm"], ["am", "suicidal"], ["feel", "suicidal"], ["feeling", "suicidal"],
        ["suicidal", "thoughts"], ["thinking", "about", "suicide"], ["thinking", "of", "suicide"], ["thoughts", "of", "suicide"],
        ["no", "reason", "to", "live"], ["not", "want", "to", "live"], ["not", "want", "to", "be", "alive"],
        ["not", "want", "to", "be", "here", "anymore"], ["not", "want", "to", "wake", "up"], ["overdose"], ["swallow", "all", "my"], ["took", "all", "my", "pills"], ["took", "a", "bunch", "of", "pills"],
        ["end", "things"], ["commit", "suicide"], ["plan", "to", "die"], ["goodbye", "forever"],
        ["not", "see", "the", "point", "in", "living"], ["no", "point", "in", "living"], ["can", "not", "go", "on"], ["nobody", "would", "miss", "me"],
    ]
    private static let children: Set<String> = ["daughter", "son", "child", "kid", "kids", "children", "teen", "teenager", "student", "students", "friend", "old", "boy", "girl"]
    private static let conversation: Set<String> = ["talk", "ask", "explain", "support", "conversation", "signs", "follow", "bring", "say", "help", "approach", "discuss"]

    /// A parent's question about a child: "my" before a child, and a word of talking with them.
    private func parentAsking(in range: Range<Int>) -> Bool {
        range.contains { text($0) == "my" && (Self.children.contains(text($0 + 1)) || text($0 + 2) == "year" || Self.children.contains(text($0 + 2))) }
            && range.contains { Self.conversation.contains(words[$0].text) }
    }

    private static let hyperbole: Set<String> = ["laughing", "laughter", "embarrassment", "boredom", "cringe"]
    private static let mentionPhrases: [[String]] = [
        ["took", "his", "own", "life"], ["took", "her", "own", "life"], ["killed", "himself"], ["killed", "herself"],
        ["suicide"], ["hanged", "himself"], ["hanged", "herself"], ["take", "his", "own", "life"], ["kill", "himself"],
    ]

    private mutating func scoreSelfHarm(in range: Range<Int>) {
        let firstPerson = range.contains { ["i", "me", "my", "myself", "im"].contains(words[$0].text) }
        for pattern in Self.intentPhrases where sentenceContains(range, pattern) {
            guard firstPerson else { continue }
            // "How do I talk to my daughter about self-harm?": a parent asking about a child's,
            // when the phrase itself ("self harm", not "harm myself") names no one.
            if pattern.allSatisfy({ !Self.firstPerson.contains($0) && $0 != "am" }), parentAsking(in: range) {
                raise(\.selfHarm, 0.15, "self-harm asked about by a parent")
                return
            }
            // "I'd rather die than…", "die of embarrassment", "killing myself laughing": hyperbole.
            guard !sentenceContains(range, ["rather", "die"]),
                  !range.contains(where: { Self.hyperbole.contains(words[$0].text) }) else { continue }
            let start = range.first { phrase($0, pattern) } ?? range.lowerBound
            if (start - 2..<start).contains(where: { $0 >= range.lowerBound && ["not", "never"].contains(text($0)) }) && pattern.first != "not" {
                raise(\.selfHarm, 0.3, "self-harm named and denied")
            } else {
                raise(\.selfHarm, 0.92, "self-harm: first-person intent or act")
            }
            return
        }
        if let sign = passiveSign(in: range) {
            raise(\.selfHarm, 0.85, "self-harm: \(sign)")
            return
        }
        for pattern in Self.mentionPhrases where sentenceContains(range, pattern) {
            raise(\.selfHarm, 0.15, "suicide mentioned in the third person or as history")
            return
        }
    }

    // MARK: Passive ideation and preparation

    /// Fillers that may sit between the words of a sign: "nobody would *even* miss me".
    private static let signFillers: Set<String> = ["even", "really", "just", "ever", "actually", "honestly", "probably", "all", "truly", "so", "finally", "simply", "such", "already", "definitely", "totally", "seriously", "kind", "of"]

    /// The index just past `parts` matched from `start`, allowing up to two fillers between words.
    private func looseMatch(_ start: Int, _ parts: [String], in range: Range<Int>) -> Int? {
        var cursor = start
        for (offset, part) in parts.enumerated() {
            var skipped = 0
            while offset > 0, cursor < range.upperBound, text(cursor) != part, skipped < 2, Self.signFillers.contains(text(cursor)) {
                cursor += 1
                skipped += 1
            }
            guard cursor < range.upperBound, text(cursor) == part else { return nil }
            cursor += 1
        }
        return cursor
    }

    private static let subjectAuxiliaries: Set<String> = [
        "am", "will", "would", "have", "has", "been", "be", "do", "not", "going", "gonna", "to", "can", "could", "just", "really",
        "finally", "want", "wanna", "wish", "need", "like", "hope", "plan", "planning", "might", "may", "probably", "honestly", "so",
        "already", "almost", "never", "ready", "decided", "about", "soon", "think", "feel", "feeling", "getting", "been", "definitely", "seriously",
        "started", "begun", "began", "starting", "ve",
    ]

    /// Whether the clause's subject, reading back from `index` over auxiliaries and wishes, is "I".
    private func spokenByMe(_ index: Int, in range: Range<Int>) -> Bool {
        var cursor = index - 1
        // Adverbs in -ly ("quietly", "secretly") sit between the subject and the verb too.
        while cursor >= range.lowerBound, Self.subjectAuxiliaries.contains(text(cursor)) || text(cursor).hasSuffix("ly") { cursor -= 1 }
        // "I have written my will and said my goodbyes": the subject of the first verb carries over.
        if cursor >= range.lowerBound, text(cursor) == "and" {
            return (max(range.lowerBound, cursor - 6)..<cursor).contains { ["i", "im"].contains(text($0)) } && !(max(range.lowerBound, cursor - 6)..<cursor).contains { words[$0].isPunctuation }
        }
        return cursor >= range.lowerBound && ["i", "im"].contains(text(cursor))
    }

    private static let thirdPersons: Set<String> = ["he", "she", "his", "her", "him", "they", "their", "them", "hers", "himself", "herself"]
    private static let hoarding: Set<String> = ["saving", "saved", "save", "stockpiling", "stockpiled", "stockpile", "hoarding", "hoarded", "hoard", "collecting", "collected", "stashing", "stashed", "stash", "storing", "stored", "keeping", "kept"]
    private static let pills: Set<String> = ["pills", "pill", "tablets", "meds", "medication", "medications", "painkillers", "prescriptions", "opioids", "sedatives", "sleepers"]
    private static let givingAway: Set<String> = ["giving", "gave", "given", "give"]
    private static let belongings: Set<String> = ["things", "stuff", "belongings", "possessions", "everything"]
    private static let writing: Set<String> = ["wrote", "written", "writing", "write", "left", "leaving", "leave", "finished", "drafted", "drafting"]
    private static let farewells: Set<String> = ["goodbye", "farewell", "suicide"]
    private static let letters: Set<String> = ["letter", "letters", "note", "notes", "message", "messages", "video", "videos"]

    /// A first-person sign of passive suicidal ideation or preparation, named in words, or nil.
    private func passiveSign(in range: Range<Int>) -> String? {
        let thirdPerson = range.contains { Self.thirdPersons.contains(words[$0].text) }
        for start in range {
            guard let candidates = ModerationCrisisSigns.byFirstWord[text(start)] else { continue }
            for sign in candidates {
                guard let first = sign.words.first, let end = looseMatch(start, sign.words, in: range) else { continue }
                if end < range.upperBound, sign.notFollowedBy.contains(text(end)) { continue }
                var next = end
                while next < range.upperBound, Self.signFillers.contains(text(next)) { next += 1 }
                if !sign.then.isEmpty, !sign.then.contains(where: { looseMatch(next, $0, in: range) != nil }) { continue }
                let negatedBefore = (max(range.lowerBound, start - 4)..<start).contains { has($0, .negator) || text($0) == "any" && has($0 - 1, .negator) }
                if sign.needsNegation && !negatedBefore { continue }
                // "I would never give up": a sign denied by its speaker.
                if !sign.needsNegation, (max(range.lowerBound, start - 2)..<start).contains(where: { ["not", "never"].contains(text($0)) }), first != "not" { continue }
                switch sign.speaker {
                case .me: if !spokenByMe(start, in: range) { continue }
                case .others:
                    var cursor = start - 1
                    while cursor >= range.lowerBound, ["be", "would", "all", "so", "much", "probably", "really", "be", "is", "are", "will", "just", "way", "a", "lot", "far"].contains(text(cursor)) { cursor -= 1 }
                    if cursor >= range.lowerBound, ["i", "im", "we"].contains(text(cursor)) { continue }
                case .anyone: if thirdPerson { continue }
                }
                return "passive wish not to live or to go on"
            }
        }
        // Preparation: pills saved up, belongings given away, goodbye letters written.
        for index in range where spokenByMe(index, in: range) || (index > range.lowerBound && ["i", "im"].contains(text(index - 1))) {
            let word = text(index)
            let ahead = (index + 1)..<min(range.upperBound, index + 6)
            if Self.hoarding.contains(word), ahead.contains(where: { Self.pills.contains(text($0)) }) {
                return "stockpiling medication, said in the first person"
            }
            if Self.givingAway.contains(word), ahead.contains(where: { text($0) == "away" }),
               ahead.contains(where: { Self.belongings.contains(text($0)) && ["my", "all", "of"].contains(text($0 - 1)) }) {
                return "giving belongings away, said in the first person"
            }
            if Self.writing.contains(word), ahead.contains(where: { Self.farewells.contains(text($0)) && Self.letters.contains(text($0 + 1)) }) {
                return "goodbye letters written, said in the first person"
            }
        }
        return nil
    }

    // MARK: Sexual

    private static let explicit: Set<String> = ["nude", "nudes", "porn", "porno", "pornography", "horny", "orgasm", "masturbate", "masturbating", "blowjob", "genitals", "penis", "vagina", "boobs", "tits", "cock", "pussy", "xxx", "nsfw", "erotic"]

    private mutating func scoreSexual(in range: Range<Int>) {
        let sexual = range.filter { has($0, .sexual) && !words[$0].quoted }
        guard !sexual.isEmpty else { return }
        let explicit = sexual.contains { Self.explicit.contains(words[$0].text) }
        if explicit && range.contains(where: { has($0, .minor) }) {
            raise(\.sexual, 1.0, "sexual content involving a minor")
        } else if explicit && (range.contains { ["send", "show", "want", "wanna"].contains(words[$0].text) } || sexual.count >= 2) {
            raise(\.sexual, 0.85, "explicit sexual request")
        } else {
            raise(\.sexual, explicit ? 0.6 : 0.35, "sexual content")
        }
    }

    private mutating func raise(_ category: WritableKeyPath<ModerationResult, Double>, _ score: Double, _ reason: String) {
        if score > scores[keyPath: category] { scores[keyPath: category] = score }
        if score >= 0.3 { reasons.append(reason) }
    }
}
