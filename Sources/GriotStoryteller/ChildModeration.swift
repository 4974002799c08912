import Foundation
import GriotSafety

/// The storyteller's strict output moderation: a story for a child may hold fairy-tale peril (the
/// wolf huffs and puffs, the dragon roars, the knight is brave), but not gore, the death or loss
/// of a parent, a weapon used on someone, a kidnapping, a monster that hurts a child, or a threat
/// meant to frighten, and less still for a small child.
///
/// Built on the service's moderation: the text is read through `LocalModerator`'s normalisation
/// (so "k!lled" and "s t a b" read as written words), its scores count too, and these rules add
/// what is no insult to an adult but is to a child. Each finding has a severity in [0, 1]; a
/// story is held back when one reaches its age band's limit.
///
/// ```swift
/// let verdict = ChildModeration().verdict(for: story, age: 5)
/// if verdict.blocks { … tell the parent `verdict.reason` and store nothing … }
/// ```
public struct ChildModeration: Sendable {
    /// Children's ages grouped by what a bedtime story may hold for them.
    public enum AgeBand: String, Sendable, Hashable, CaseIterable {
        /// 5 and under (and an age not given): nothing frightening at all.
        case little
        /// 6 to 8: spooky is fine, menace is not.
        case middle
        /// 9 and over: sadness (a pet that died) is fine; harm to people still is not.
        case older

        public init(age: Int?) {
            switch age {
            case .some(let age) where age >= 9: self = .older
            case .some(let age) where age >= 6: self = .middle
            default: self = .little
            }
        }

        /// The severity at which a story is held back for this band.
        public var limit: Double {
            switch self {
            case .little: 0.35
            case .middle: 0.6
            case .older: 0.85
            }
        }
    }

    public enum Rule: String, Sendable, Hashable, Codable {
        case gore, parentLoss = "parent_loss", death, harm, weapon, kidnapping, monsterHurts = "monster_hurts", menace, fright, moderation
    }

    /// One thing the rules found, in words for the parent.
    public struct Finding: Sendable, Hashable {
        public var rule: Rule
        public var severity: Double
        /// The sentence's number from 1.
        public var sentence: Int
        /// The words that fired.
        public var words: [String]
    }

    public struct Verdict: Sendable, Hashable {
        public var band: AgeBand
        public var findings: [Finding]
        /// The highest severity found (0 when nothing was).
        public var score: Double { findings.map(\.severity).max() ?? 0 }
        public var blocks: Bool { score >= band.limit }

        /// Why the story was held back, for the parent, with what to do; nil when it was not.
        public var reason: String? {
            guard blocks else { return nil }
            let over = findings.filter { $0.severity >= band.limit }
            let what = Array(Set(over.map(\.rule.description))).sorted().joined(separator: ", ")
            return "The story was held back because it had \(what) (sentence \(over.map { String($0.sentence) }.joined(separator: ", "))), which is not told to children \(band.description). Ask for the story again, or change the drawings' captions or the theme."
        }
    }

    public let base: LocalModerator

    public init(base: LocalModerator = LocalModerator()) {
        self.base = base
    }

    /// The verdict on a story (or one sentence of it) for a child of `age`.
    public func verdict(for text: String, age: Int?) -> Verdict {
        let band = AgeBand(age: age)
        var findings: [Finding] = []
        let names = Self.names(in: text)
        for (index, sentence) in Self.sentences(LocalModerator.reading(text)).enumerated() {
            findings += Self.findings(in: sentence, names: names).map { Finding(rule: $0.rule, severity: $0.severity, sentence: index + 1, words: $0.words) }
        }
        let general = base.classify(text)
        if general.toxicity >= 0.5 {
            findings.append(Finding(rule: .moderation, severity: min(1, general.toxicity + 0.2), sentence: 1, words: general.reasons))
        }
        return Verdict(band: band, findings: findings)
    }

    // MARK: The rules

    typealias Hit = (rule: Rule, severity: Double, words: [String])

    static let parents: Set<String> = ["mother", "mum", "mummy", "mom", "mommy", "mama", "mam", "father", "dad", "daddy", "papa", "parents", "parent"]
    static let children: Set<String> = ["boy", "boys", "girl", "girls", "child", "children", "kid", "kids", "baby", "babies", "toddler", "son", "daughter",
                                        "brother", "sister", "pigs", "piglet"]
    static let people: Set<String> = parents.union(children).union([
        "man", "men", "woman", "women", "person", "people", "family", "everyone", "everybody", "grandmother", "grandma", "granny", "grandfather",
        "grandpa", "prisoner", "prisoners", "guard", "guards", "soldier", "soldiers", "farmer", "shopkeeper", "neighbour", "neighbor", "king", "queen",
        "prince", "princess", "knight", "villagers", "friend", "friends", "him", "her", "them", "you", "me", "us", "himself", "herself", "stranger",
    ])
    static let animals: Set<String> = ["dog", "dogs", "puppy", "cat", "cats", "kitten", "deer", "fawn", "bear", "horse", "pony", "bird", "rabbit",
                                       "bunny", "fox", "pig", "cow", "lamb", "sheep", "goat", "duck", "hamster", "fish", "mouse", "owl"]
    static let monsters: Set<String> = ["monster", "monsters", "creature", "witch", "ogre", "giant", "wolf", "troll", "dragon", "ghost", "zombie",
                                        "clown", "thing", "beast", "skeleton", "demon", "vampire", "werewolf", "shark", "crocodile", "goblin"]
    static let eating: Set<String> = ["ate", "eat", "eats", "eaten", "eating", "gobbled", "swallowed", "devoured", "devour", "cooked", "cook", "roasted",
                                      "roast", "chopped", "munched"]
    static let harming: Set<String> = ["killed", "kill", "kills", "killing", "murdered", "murder", "murders", "slaughtered", "massacred", "stabbed",
                                       "stab", "stabbing", "strangled", "strangle", "choked", "hanged", "beheaded", "decapitated", "shot", "shoot",
                                       "shoots", "poisoned", "drowned", "drown", "beat", "beaten", "punched", "kicked", "bit", "bitten", "tore",
                                       "ripped", "crushed", "burned", "burnt", "tortured", "whipped", "smashed", "slit", "slashed", "scratched", "hit"]
    static let dying: Set<String> = ["died", "die", "dies", "dying", "dead", "death", "killed", "funeral", "coffin", "grave", "graves", "buried"]
    static let weapons: Set<String> = ["gun", "guns", "pistol", "rifle", "shotgun", "knife", "knives", "dagger", "axe", "ax", "spear", "sword",
                                       "bomb", "grenade", "bullet", "bullets", "arrow", "arrows"]
    static let weaponUse: Set<String> = ["pointed", "aimed", "fired", "trigger", "sharpened"]
    static let goreWords: Set<String> = ["guts", "entrails", "intestines", "maggots", "corpse", "corpses", "rotting", "decapitated", "beheaded",
                                         "severed", "bled", "bleeding", "skinned"]
    static let taking: Set<String> = ["grabbed", "dragged", "snatched", "lured", "took", "carried", "stole"]
    static let takenTo: Set<String> = ["van", "car", "away", "basement", "cellar", "trunk", "cage", "drove"]
    static let confining: Set<String> = ["locked", "kept", "hid", "tied", "taped", "trapped", "imprisoned"]
    static let frights: [String: Double] = ["screamed": 0.6, "scream": 0.6, "screaming": 0.6, "terrified": 0.4, "nightmare": 0.4,
                                            "nightmares": 0.4, "creepy": 0.4, "haunted": 0.3]

    static func findings(in words: [String], names: Set<String>) -> [Hit] {
        var hits: [Hit] = []
        let set = Set(words)
        func any(_ group: Set<String>) -> [String] { words.filter(group.contains) }
        func phrase(_ text: String) -> Bool {
            let parts = text.split(separator: " ").map(String.init)
            guard parts.count <= words.count else { return false }
            return (0...(words.count - parts.count)).contains { Array(words[$0..<($0 + parts.count)]) == parts }
        }
        let living = people.union(animals).union(names)
        // The one acted on: a living word in the verb's own clause, within a few words of it
        // ("tore, and his mum helped" is not tearing the mum).
        func target(after group: Set<String>) -> (verb: String, target: String)? {
            for (index, word) in words.enumerated() where group.contains(word) {
                let clause = words[(index + 1)...].prefix(5).prefix(while: { $0 != "," && $0 != "and" && $0 != "but" })
                if let found = clause.first(where: living.contains) { return (word, found) }
            }
            return nil
        }
        let human = people.union(names)

        // Gore.
        let gore = any(goreWords)
        if !gore.isEmpty { hits.append((.gore, 1.0, gore)) }
        if set.contains("blood") {
            let heavy = set.intersection(["poured", "pooled", "sprayed", "spurted", "gushed", "dripping", "everywhere", "covered", "pool"])
            hits.append((.gore, heavy.isEmpty ? 0.5 : 1.0, ["blood"] + heavy.sorted()))
        }
        // A limb torn, ripped or cut off.
        if !set.intersection(["tore", "torn", "ripped", "cut", "chopped", "bit", "bitten"]).isEmpty, set.contains("off"),
           !set.intersection(["arm", "arms", "leg", "legs", "head", "hand", "hands", "ear", "ears", "finger", "fingers", "foot", "feet"]).isEmpty {
            hits.append((.gore, 1.0, ["a limb torn off"]))
        }
        if set.contains("flesh") || (set.contains("bones") && !set.intersection(["cracked", "crunched", "snapped", "broke"]).isEmpty)
            || phrase("skin came off") || phrase("dead body") || phrase("bodies lay") || phrase("cut off") && !set.intersection(["head", "arm", "leg", "hand"]).isEmpty {
            hits.append((.gore, 1.0, ["flesh or bones"]))
        }

        // Death and the loss of a parent.
        let deaths = any(dying) + (phrase("passed away") ? ["passed away"] : [])
            + (phrase("never coming home") || phrase("never coming back") ? ["never coming home"] : [])
            + (phrase("went away forever") ? ["went away forever"] : [])
            + (phrase("never saw him again") || phrase("never saw her again") ? ["never saw again"] : [])
        if !deaths.isEmpty {
            if !set.intersection(parents).isEmpty { hits.append((.parentLoss, 1.0, deaths + set.intersection(parents).sorted())) }
            else if !set.intersection(human).isEmpty { hits.append((.death, 0.9, deaths)) }
            else if !set.intersection(animals).isEmpty { hits.append((.death, 0.5, deaths)) }
        }

        // Harm done to someone, and a monster hurting a child.
        if let (verb, victim) = target(after: harming) {
            hits.append((.harm, human.contains(victim) ? 1.0 : 0.8, [verb, victim]))
        }
        if let (verb, victim) = target(after: eating) {
            hits.append((.monsterHurts, 1.0, [verb, victim]))
        }
        if phrase("was eaten") || phrase("were eaten") { hits.append((.monsterHurts, 1.0, ["eaten"])) }

        // Weapons used on someone.
        if !set.intersection(weapons).isEmpty, let (verb, victim) = target(after: weaponUse) {
            hits.append((.weapon, 1.0, [verb, victim]))
        }
        if phrase("opened fire") || set.contains("gunman") || set.contains("bomb") && set.contains("exploded") {
            hits.append((.weapon, 1.0, ["opened fire or bomb"]))
        }

        // Kidnapping.
        let kidnap = words.filter { $0.hasPrefix("kidnap") || $0.hasPrefix("abduct") || $0 == "ransom" }
        if !kidnap.isEmpty { hits.append((.kidnapping, 1.0, kidnap)) }
        if let (verb, victim) = target(after: taking), human.contains(victim), !set.intersection(takenTo).isEmpty {
            hits.append((.kidnapping, 1.0, [verb, victim]))
        }
        if let (verb, victim) = target(after: confining), human.contains(victim),
           !set.intersection(["cage", "cellar", "basement", "trunk", "up"]).isEmpty {
            hits.append((.kidnapping, 1.0, [verb, victim]))
        }
        if set.contains("stranger"), !set.intersection(["took", "offered", "lured", "grabbed", "snatched", "drove", "car", "van"]).isEmpty {
            hits.append((.kidnapping, 1.0, ["stranger"]))
        }

        // Menace meant to frighten, and plain fright.
        let menace = ["get you", "get her", "get him", "get me", "take her away", "take him away", "take you away", "her soul", "your soul",
                      "his soul", "watching her sleep", "watching you sleep", "watching him sleep", "would die", "will die", "no one believed"]
            .filter(phrase)
        if !menace.isEmpty { hits.append((.menace, 0.9, menace)) }
        if phrase("every night"), !set.intersection(["bed", "window", "door", "dark"]).isEmpty {
            hits.append((.menace, 0.9, ["every night"]))
        }
        for word in words { if let severity = frights[word] { hits.append((.fright, severity, [word])) } }
        return hits
    }

    /// The reading's words per sentence, possessives cut to their noun ("girl's" → "girl"), with
    /// "," marking where a clause ends.
    static func sentences(_ reading: String) -> [[String]] {
        var sentences: [[String]] = [[]]
        for token in reading.split(separator: " ") {
            if token == "." || token == "!" || token == "?" {
                if !(sentences.last?.isEmpty ?? true) { sentences.append([]) }
                continue
            }
            if token == "," || token == ";" || token == ":" {
                sentences[sentences.count - 1].append(",")
                continue
            }
            guard token.first?.isLetter == true || token.first?.isNumber == true else { continue }
            var word = String(token)
            if word.hasSuffix("'s") { word.removeLast(2) }
            sentences[sentences.count - 1].append(word)
        }
        return sentences.filter { $0.contains { $0 != "," } }
    }

    /// Words written with a capital inside a sentence: most likely someone's name (a person the
    /// rules cannot list), lower-cased and folded as the reading is.
    static func names(in text: String) -> Set<String> {
        var names: Set<String> = []
        var sentenceStart = true
        for word in text.split(whereSeparator: { $0.isWhitespace }) {
            let letters = word.drop(while: { !$0.isLetter })
            if let first = letters.first, first.isUppercase, !sentenceStart, letters != "I" {
                let name = letters.prefix(while: { $0.isLetter }).lowercased().folding(options: .diacriticInsensitive, locale: nil)
                if name.count > 1 { names.insert(name) }
            }
            if let last = word.last(where: { !"\"'”’)".contains($0) }) { sentenceStart = ".!?".contains(last) }
            else { sentenceStart = false }
        }
        return names
    }
}

extension ChildModeration.Rule: CustomStringConvertible {
    public var description: String {
        switch self {
        case .gore: "gore"
        case .parentLoss: "the death or loss of a parent"
        case .death: "someone's death"
        case .harm: "someone being hurt"
        case .weapon: "a weapon used on someone"
        case .kidnapping: "a kidnapping"
        case .monsterHurts: "a monster hurting someone"
        case .menace: "a threat meant to frighten"
        case .fright: "frightening words"
        case .moderation: "content the service's moderation refuses"
        }
    }
}

extension ChildModeration.AgeBand: CustomStringConvertible {
    public var description: String {
        switch self {
        case .little: "of 5 and under"
        case .middle: "of 6 to 8"
        case .older: "of 9 and over"
        }
    }
}

/// The child rules as the pipeline's output moderation reads them: a finding at or over the age
/// band's limit scores as violence above the block threshold, with its reason.
///
/// ```swift
/// let moderator: any Moderator = ChildModerator(age: 6)
/// ```
public struct ChildModerator: Moderator {
    public var age: Int?
    public var rules: ChildModeration

    public init(age: Int?, rules: ChildModeration = ChildModeration()) {
        self.age = age
        self.rules = rules
    }

    public func moderate(_ text: String) async -> ModerationResult {
        var result = rules.base.classify(text)
        let verdict = rules.verdict(for: text, age: age)
        if verdict.blocks, let reason = verdict.reason {
            result.violence = max(result.violence, 0.95)
            result.reasons.append(reason)
        }
        return result
    }
}
