/// Harm said in plain words that the lexicon's phrases did not list (issue 14): ongoing
/// self-injury, medication stopped or hoarded on purpose, fatal-dose questions, belongings
/// left "since I won't need it"; veiled threats ("accidents happen to people who…"); and abuse
/// aimed at a person with no slur ("you are scum"). Read per sentence on the normalised
/// tokens, outside quotation, and never in a sentence that tells history or reports speech.
enum ModerationPlainHarm {
    private static let telling: Set<String> = [
        "said", "says", "told", "tells", "remembered", "remembers", "recalled", "recalls", "described", "describes", "recounted", "recounts",
        "interview", "interviewer", "narrative", "archive", "recording", "account", "story", "wrote", "history", "novel", "character",
        "call", "calling", "called", "saying",
        // Second round (issue 35): a family's documents quoted.
        "diary", "diaries", "journal", "memoir", "legend", "clipping", "newspaper", "transcript", "writes",
    ]
    private static let teaching: Set<String> = ["explain", "lesson", "class", "training", "students", "teachers", "workshop", "module", "prevention", "warning", "signs", "friend", "someone", "classmate"]
    private static let firstPerson: Set<String> = ["i", "me", "my", "myself", "im"]
    private static let thirdPerson: Set<String> = ["he", "she", "his", "her", "him", "they", "their", "them", "himself", "herself"]

    private static let injuring: Set<String> = ["punch", "punching", "cut", "cutting", "burn", "burning", "scratch", "scratching", "hit", "hitting", "carve", "carving", "bite", "biting", "pick", "picking", "opening"]
    private static let body: Set<String> = ["myself", "knuckles", "arm", "arms", "leg", "legs", "wrist", "wrists", "skin", "thigh", "thighs", "stomach", "hands", "hand", "body", "wounds", "scars"]
    private static let ongoing: Set<String> = ["keep", "still", "again", "every", "until", "purpose", "nights", "always", "deeper", "most", "bleeds", "bleed", "daily"]
    private static let medication: Set<String> = ["insulin", "medication", "medications", "meds", "medicine", "pills", "tablets", "prescription", "antidepressants", "painkillers", "paracetamol", "acetaminophen", "ibuprofen", "sleeping"]
    private static let stopping: Set<String> = ["stopped", "stop", "quit", "skipping", "skip", "skipped", "refilling", "refill", "taking", "taken", "take"]
    private static let onPurpose: Set<String> = ["purpose", "so", "die", "fade", "stops", "over", "end", "give", "gives"]
    private static let lethal: Set<String> = ["die", "lethal", "fatal", "deadly", "kill", "kills", "overdose", "breathing", "wake"]
    private static let leaving: Set<String> = ["leaving", "giving", "gave", "give", "leave", "have", "take", "look", "found", "after"]

    private static let veiled: [[String]] = [
        ["accidents", "happen", "to"], ["tend", "to", "have", "accidents"], ["be", "a", "shame", "if", "something"], ["shame", "if", "something", "happened"], ["sleep", "with", "one", "eye", "open"], ["watch", "what", "happens"], ["see", "what", "happens", "to"], ["you", "will", "not", "see", "me", "coming"], ["your", "last", "one"], ["i", "know", "what", "car", "you", "drive"], ["i", "know", "your", "schedule"], ["been", "watching", "your"], ["i", "am", "watching", "you"], ["will", "pay", "for", "what", "you", "did"], ["hope", "i", "never", "find", "out", "where", "you", "live"], ["end", "up", "in", "the", "river"], ["end", "up", "dead"], ["end", "up", "in", "a", "ditch"], ["end", "up", "in", "the", "hospital"], ["end", "up", "missing"], ["go", "die"], ["kill", "yourself"], ["you", "never", "walk", "again"], ["never", "walk", "again"], ["you", "will", "never", "see", "again"], ["put", "you", "in", "the", "hospital"], ["put", "you", "in", "hospital"], ["put", "you", "in", "the", "ground"], ["put", "you", "in", "a", "wheelchair"], ["with", "a", "broken", "neck"], ["with", "a", "broken", "jaw"], ["with", "broken", "legs"], ["knows", "where", "you", "live"], ["know", "where", "you", "live"], ["hope", "you", "die"], ["you", "will", "die", "alone"], ["waiting", "outside", "your"],
        // Issue 35: threats that name no act.
        ["your", "days", "are", "numbered"], ["watch", "your", "back"], ["careful", "walking", "to", "your"], ["i", "know", "where", "your"], ["coming", "for", "you"], ["you", "never", "know", "who", "is", "waiting"],
        // Second round (issue 35): what is foretold for the reader, with no act named.
        ["you", "will", "regret", "this"], ["you", "will", "be", "sorry"], ["you", "are", "going", "to", "be", "sorry"], ["you", "are", "going", "to", "regret"], ["you", "are", "going", "to", "wish"], ["you", "will", "wish", "you"], ["while", "you", "still", "can"], ["might", "be", "your", "last"], ["could", "be", "your", "last"], ["will", "be", "your", "last"], ["enjoy", "your", "last"], ["count", "your", "days"], ["your", "time", "is", "running", "out"], ["your", "time", "is", "up"], ["last", "warning"], ["final", "warning"], ["pity", "if", "something"], ["pity", "if", "your"], ["pity", "if", "it"], ["shame", "if", "it"], ["lock", "my", "doors", "tonight", "if", "i", "were", "you"], ["lock", "your", "doors"], ["checking", "under", "it"], ["check", "under", "your", "car"], ["people", "who", "cross", "me"], ["crossing", "me"], ["tend", "to", "disappear"], ["planning", "a", "funeral"], ["plan", "your", "funeral"], ["who", "you", "are", "dealing", "with"], ["you", "will", "find", "out", "soon"], ["when", "i", "find", "you"], ["when", "they", "see", "what", "i", "do"], ["what", "happens", "to", "snitches"], ["snitches", "get"], ["get", "what", "is", "coming"], ["what", "is", "coming", "to", "you"], ["you", "like", "hospitals"], ["stop", "asking", "nicely"], ["pay", "you", "a", "visit"], ["pay", "her", "a", "visit"], ["pay", "him", "a", "visit"], ["be", "so", "brave", "when"], ["see", "how", "that", "works", "out", "for", "your"], ["ugly", "for", "you"], ["you", "will", "get", "yours"], ["luck", "is", "about", "to", "run", "out"], ["luck", "is", "running", "out"], ["remember", "that", "when", "you"], ["i", "will", "be", "right", "there"], ["turn", "around", "and", "i"], ["who", "you", "make", "enemies"], ["people", "who", "talk", "too", "much"], ["think", "twice", "before", "leaving"], ["leaving", "the", "house", "this", "week", "if", "i", "were", "you"], ["stay", "inside", "if", "i", "were", "you"],
    ]
    /// Threats whose negation is the threat ("you won't see the next birthday", "you won't be
    /// around to…", "a shame if your kids didn't come home"): a "not" or "never" in the sentence
    /// does not cancel them, as it does the veiled phrases above.
    private static let negatedThreats: [[String]] = [
        ["never", "see", "the", "next"], ["will", "not", "see", "the", "next"], ["you", "will", "never", "speak", "again"], ["better", "hope", "we", "never", "meet"], ["hope", "we", "never", "meet"], ["not", "so", "brave", "when"], ["wish", "you", "had", "never", "met", "me"], ["have", "no", "idea", "what", "is", "coming"], ["nobody", "is", "around", "to", "help", "you"], ["no", "one", "is", "around", "to", "help", "you"], ["worst", "thing", "that", "happens", "to", "you"], ["this", "is", "not", "over"], ["you", "will", "not", "be", "around", "to"], ["shame", "if", "your"],
    ]
    /// An attack on a crowd, said with intent.
    private static let crowdAttacks: [[String]] = [
        ["shoot", "up"], ["shooting", "up"], ["gun", "down"], ["start", "shooting"], ["open", "fire"], ["kill", "as", "many"], ["take", "out", "as", "many"], ["finish", "every", "one"], ["finish", "all", "of", "them"], ["into", "the", "crowd"], ["chain", "the"], ["lock", "the", "doors"], ["with", "them", "inside"], ["pipe", "bombs"], ["pipe", "bomb"], ["a", "bomb"], ["make", "it", "a", "massacre"], ["make", "it", "a", "bloodbath"], ["deal", "with", "the", "whole"], ["through", "the", "crowd"], ["die", "with", "the", "rest"], ["carrying", "bodies"], ["with", "bullets"], ["showed", "up", "armed"], ["show", "up", "armed"], ["full", "of", "explosives"], ["loaded", "the", "magazines"], ["is", "going", "to", "die"], ["are", "going", "to", "die"], ["going", "to", "be", "a", "massacre"],
    ]
    /// A public gathering, where an attack would be on everyone in the room.
    private static let gatherings: Set<String> = ["meeting", "council", "hearing", "forum", "rally", "session", "assembly", "courthouse", "committee", "commissioners", "pta", "hoa",
        "parade", "crowd", "congregation", "ceremony", "graduation", "concert", "festival", "protest", "march", "vigil", "mass", "service", "sermon", "hall", "stadium",
        "market", "mall", "convention", "association", "board", "union", "parish", "synagogue", "mosque", "church", "temple", "town",
        "commencement", "jury", "chamber", "prayers", "audience", "fair", "carnival", "rodeo"]
    /// Where a named person's habits are said to be known: "every morning", "his schedule".
    private static let routine: Set<String> = ["every", "schedule", "routine", "always", "alone", "tracking", "followed", "memorised", "memorized", "learned", "watching",
        "watched", "clocked", "shift", "dawn", "midnight", "usually", "each", "same", "route", "week", "whole", "hours",
        // What a person does at a time and place: "when she leaves the school", "drops the twins at daycare".
        "leaves", "uses", "takes", "walks", "drives", "parks", "opens", "closes", "locks", "jogs", "drops", "arrives", "finishes", "commutes"]
    private static let abuse: Set<String> = [
        "scum", "leech", "coward", "trash", "garbage", "vermin", "parasite", "subhuman", "cockroach", "rat", "pig", "worm", "brainless",
        "spineless", "stain", "maggot", "waste", "pathetic", "worthless", "useless", "disgusting", "repulsive", "moron", "idiot", "loser", "animal", "filth", "filthy", "dumbest",
    ]

    /// "…since I won't need it", "I won't be needing them anymore": something given up for
    /// good, not for a while ("…won't need them after the move").
    private static func neededNoLonger(_ words: [String]) -> Bool {
        for index in words.indices where index + 3 < words.count && words[index] == "will" && words[index + 1] == "not" {
            var cursor = index + 2
            if words[cursor] == "be" { cursor += 1 }
            guard cursor < words.count, ["need", "needing", "using", "use"].contains(words[cursor]) else { continue }
            cursor += 1
            if cursor < words.count, ["it", "them", "this", "that", "those", "these", "any", "my", "one"].contains(words[cursor]) { cursor += 1 }
            if cursor < words.count, words[cursor] == "of" { cursor += 2 }
            if cursor >= words.count { return true }
            let next = words[cursor]
            if ["anymore", "again", "where", "soon", "now", "much", "when", "once"].contains(next) { return true }
            if next == "after", cursor + 1 < words.count, ["this", "tonight", "today", "tomorrow", "friday", "saturday", "sunday", "monday", "that", "i"].contains(words[cursor + 1]) { return true }
        }
        return false
    }

    static func reading(_ text: ModerationText) -> ModerationResult {
        var result = ModerationResult()
        let sentences = text.unquotedSentences
        let message = Set(sentences.joined())
        for words in sentences {
            let present = Set(words)
            if !present.isDisjoint(with: telling) { continue }
            func has(_ phrase: [String]) -> Bool {
                guard phrase.count <= words.count else { return false }
                return (0...(words.count - phrase.count)).contains { start in phrase.indices.allSatisfy { words[start + $0] == phrase[$0] } }
            }
            let me = !present.isDisjoint(with: firstPerson)
            let others = !present.isDisjoint(with: thirdPerson)
            let lesson = !present.isDisjoint(with: teaching)
            var selfHarm: String?
            if me, !lesson {
                if words.indices.contains(where: { injuring.contains(words[$0]) && (words[$0 + 1..<min(words.count, $0 + 4)]).contains(where: body.contains) }),
                   !present.isDisjoint(with: ongoing) {
                    selfHarm = "ongoing self-injury, said in the first person"
                } else if !present.isDisjoint(with: stopping), ["insulin", "medication", "meds", "medicine"].contains(where: present.contains), !present.isDisjoint(with: onPurpose) {
                    selfHarm = "medication stopped on purpose"
                } else if (neededNoLonger(words) || has(["will", "not", "be", "around"]) || has(["will", "not", "be", "here"])),
                          !message.isDisjoint(with: leaving) {
                    selfHarm = "belongings left because they will not be needed"
                } else if words.indices.contains(where: { ["punch", "punching", "hit", "hitting", "bang", "banging"].contains(words[$0]) && words[$0 + 1..<min(words.count, $0 + 4)].contains { ["wall", "walls", "head"].contains($0) } }),
                          !present.isDisjoint(with: ongoing) {
                    selfHarm = "ongoing self-injury, said in the first person"
                } else if ["tracks", "train", "bridge", "cliff", "rooftop", "ledge"].contains(where: present.contains),
                          has(["how", "quick"]) || has(["how", "fast"]) || has(["how", "easy"]) || has(["be", "over"]) {
                    selfHarm = "a method weighed, said in the first person"
                } else if ["cliff", "cliffs", "bridge", "river", "sea", "ocean", "lake", "tracks", "quarry", "woods", "edge"].contains(where: present.contains),
                          has(["not", "coming", "back"]) || has(["not", "driving", "back"]) || has(["never", "coming", "back"]) || has(["not", "walking", "back"]) {
                    selfHarm = "going somewhere dangerous and not coming back"
                } else if !present.isDisjoint(with: ["lethal", "fatal", "deadly"]), present.contains("dose") || !present.isDisjoint(with: medication),
                          present.contains("my") || has(["need", "more"]) || has(["enough", "to"]) {
                    selfHarm = "a fatal dose weighed, said in the first person"
                } else if has(["walk", "into", "the"]), ["sea", "ocean", "river", "lake"].contains(where: present.contains) {
                    selfHarm = "walking into water, said in the first person"
                } else if has(["final", "letters"]) || has(["final", "letter"]) || has(["suicide", "note"]) || has(["last", "letters"]) {
                    selfHarm = "final letters written"
                } else if (has(["whole", "bottle"]) || has(["handful", "of"])), !present.isDisjoint(with: medication) || present.contains("bleach") {
                    selfHarm = "an overdose taken"
                } else if ["hidden", "hid", "counted", "stash", "drawer"].contains(where: present.contains), !present.isDisjoint(with: medication),
                          ["tonight", "friday", "midnight", "tomorrow", "weekend", "taking", "take"].contains(where: present.contains) {
                    selfHarm = "medication gathered for a time"
                } else if has(["jump", "off"]) || has(["jump", "from"]), ["bridge", "overpass", "roof", "building", "cliff", "cliffs", "balcony", "garage"].contains(where: present.contains) {
                    selfHarm = "a jump from a height, said in the first person"
                } else if let jump = words.indices.first(where: { words[$0] == "jump" && $0 >= 2 && words[$0 - 2] == "going" }),
                          jump + 1 == words.count || ["off", "from", "into", "in", "out", "tonight", "today", "tomorrow"].contains(words[jump + 1]) {
                    selfHarm = "a jump, said in the first person"
                } else if has(["drive", "my", "car", "into"]) || has(["crash", "my", "car"]) || has(["drive", "off", "a"]) {
                    selfHarm = "a crash on purpose, said in the first person"
                } else if (has(["written", "the", "note"]) || has(["wrote", "the", "note"])) && (has(["picked", "the", "date"]) || has(["chosen", "the", "day"]) || has(["picked", "the", "day"])) {
                    selfHarm = "a date chosen and a note written"
                }
            }
            let goodbye = words.indices.contains { words[$0] == "goodbye" && $0 >= 2 && words[$0 - 2] == "this" && words[$0 - 1] == "is" && ($0 + 1 == words.count || !["to", "for"].contains(words[$0 + 1])) }
            if selfHarm == nil, goodbye || has(["do", "not", "blame", "yourselves"]) || has(["my", "last", "message"]) || has(["this", "is", "my", "last"])
                || has(["nice", "knowing", "you"]) || has(["goodbye", "everyone"]) || has(["goodbye", "everybody"]) {
                selfHarm = "a farewell"
            }
            // "someone's breathing" in a dose question is the asker's own, not a lesson's someone.
            let lessonProper = !present.isDisjoint(with: teaching.subtracting(["someone"]))
            if selfHarm == nil, !lessonProper, !others || me {
                if (has(["how", "many"]) || has(["how", "much"]) || has(["what", "dose"]) || has(["what", "amount"]) || has(["which"])),
                   !present.isDisjoint(with: medication) || present.contains("dose"), !present.isDisjoint(with: lethal) {
                    selfHarm = "a question about a fatal dose"
                } else if present.contains("suicide"), ["plan", "option", "considering", "tonight", "decided"].contains(where: present.contains) || has(["only", "way"]) {
                    selfHarm = "suicide considered as a plan"
                }
            }
            if let selfHarm {
                result.selfHarm = max(result.selfHarm, 0.85)
                result.reasons.append("self-harm: \(selfHarm)")
            }
            let denied = present.contains("not") && !has(["will", "not", "see", "me", "coming"]) || present.contains("never") && !has(["hope", "i", "never"]) && !has(["never", "walk", "again"]) && !has(["you", "will", "never", "see"])
            // "I'll set your car on fire", "burn down his house": harm to what a person owns.
            let arson = (has(["on", "fire"]) && ["set", "setting", "light"].contains(where: present.contains) || has(["burn", "down"]))
                && ["your", "his", "her", "their"].contains(where: present.contains)
            // "When I catch that neighbour alone, he's dead"; "I'm going to put my landlord in the
            // hospital"; "my cousin has a gun and knows where Dana lives".
            let caught = (has(["when", "i", "catch"]) || has(["if", "i", "catch"]) || has(["when", "i", "find"]) || has(["when", "i", "get", "my", "hands", "on"]))
                && (present.contains("dead") || has(["is", "done"]) || has(["are", "done"]))
            let intent = ["going", "gonna", "will", "am", "i", "plan", "planning"].contains(where: present.contains)
            let hospitalised = intent && words.indices.contains { index in
                words[index] == "put" && words[index + 1..<min(words.count, index + 5)].contains("in")
                    && words[index + 1..<min(words.count, index + 7)].contains { ["hospital", "ground", "wheelchair", "grave", "coma", "icu"].contains($0) }
                    && !words[max(0, index - 3)..<index].contains { ["had", "have", "we", "they", "doctors"].contains($0) }
            }
            let armedAndWatching = ["gun", "knife", "rifle", "weapon", "machete"].contains(where: present.contains)
                && words.indices.contains { ["know", "knows", "found"].contains(words[$0]) && words[$0 + 1..<min(words.count, $0 + 5)].contains("where")
                    && words[$0 + 1..<min(words.count, $0 + 7)].contains { ["lives", "live", "works", "sleeps", "parks"].contains($0) } }
            // "I'm bringing my rifle to the council meeting", "nobody at the board meeting is
            // leaving alive": an attack on a public gathering.
            let armed = ["gun", "guns", "rifle", "bomb", "explosives", "ammo"].contains(where: present.contains)
                && ["bringing", "bring", "holding", "carrying", "ready", "planning", "going"].contains(where: present.contains)
            let attack = has(["open", "fire"]) || ["shoot", "bomb", "massacre", "bloodbath", "explosives", "grenade", "grenades", "bullets"].contains(where: present.contains)
                || armed || crowdAttacks.contains(where: has)
            let nobodyLeaves = (present.contains("nobody") || has(["no", "one"]) || present.contains("everybody") || present.contains("everyone"))
                && (has(["leaving", "alive"]) || has(["walking", "out"]) || has(["going", "to", "die"]))
            let massViolence = !present.isDisjoint(with: gatherings) && (attack && intent || nobodyLeaves)
            if !denied && (arson || caught || hospitalised || armedAndWatching || massViolence || veiled.contains(where: has)) || negatedThreats.contains(where: has) {
                result.violence = max(result.violence, 0.85)
                result.harassment = max(result.harassment, 0.85)
                result.reasons.append("veiled threat against a person")
            }
            let addressed = has(["you", "are"]) || words.first == "you" || has(["shut", "up"])
            // "Marta is a filthy animal": a person called an abusive noun; "this is a waste of time" is not.
            let called = words.indices.contains { index in
                words[index] == "is" && index + 1 < words.count && ["a", "an", "such"].contains(words[index + 1])
                    && words[index + 1..<min(words.count, index + 4)].contains { abuse.contains($0) && $0 != "waste" && $0 != "pathetic" }
            }
            let abusive = words.indices.contains { abuse.contains(words[$0]) && (words[$0] != "waste" || (words.count > $0 + 2 && ["space", "oxygen", "air", "skin"].contains(words[$0 + 2]))) }
            if addressed || called, !present.contains("not"), abusive {
                result.harassment = max(result.harassment, 0.85)
                result.reasons.append("abuse aimed at a person")
            }
        }
        // "I know Derek takes the 7:15 train every morning. He won't be taking it much longer":
        // a named person's routine, and harm foretold, in the same message.
        let all = sentences.joined().map { $0 }
        func said(_ phrase: [String]) -> Bool {
            guard phrase.count <= all.count else { return false }
            return (0...(all.count - phrase.count)).contains { start in phrase.indices.allSatisfy { all[start + $0] == phrase[$0] } }
        }
        // A clock time ("at 8:10", "at six") is a routine known too.
        let clockTime = all.indices.contains { all[$0] == "at" && $0 + 1 < all.count
            && (all[$0 + 1].allSatisfy(\.isNumber) || ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve", "noon", "midnight", "dawn", "dusk"].contains(all[$0 + 1])) }
        // The person is named ("Sandra") or, when the disguise hid the capital ("S a n d r a"),
        // spoken of as he or she.
        let person = !text.names.isDisjoint(with: message) || !message.isDisjoint(with: ["he", "she", "his", "her", "him"])
        let namedRoutine = person && (!message.isDisjoint(with: routine) || clockTime) && message.isDisjoint(with: telling)
        let foretold = said(["see", "it", "coming"]) || said(["get", "hurt"]) || said(["that", "is", "where", "it", "happens"]) || said(["much", "longer"])
            || said(["going", "to", "regret"]) || said(["will", "regret"]) || said(["pay", "for"]) || said(["make", "it", "home"]) || said(["is", "done"])
            || said(["what", "is", "coming"]) || said(["end", "this"]) || said(["settle", "this"]) || said(["i", "will", "be", "waiting"]) || said(["when", "the", "lights", "go"])
            // Second round (issue 35): what is foretold for them, with no act named.
            || said(["not", "coming", "back"]) || said(["will", "not", "come", "back"]) || said(["not", "drive", "home"]) || said(["will", "not", "make", "it"]) || said(["not", "getting", "away"])
            || said(["last", "night", "doing"]) || said(["get", "what"]) || said(["make", "him", "pay"]) || said(["make", "her", "pay"]) || said(["nobody", "will", "hear"])
            || said(["no", "one", "will", "hear"]) || said(["bad", "day"]) || said(["end", "her"]) || said(["end", "him"]) || said(["find", "out", "what", "happens"])
            || said(["while", "he", "can"]) || said(["while", "she", "can"]) || said(["while", "they", "can"]) || said(["accidents", "happen"]) || said(["will", "be", "there"])
            || said(["be", "waiting"]) || said(["not", "forget"]) || said(["regret"]) || said(["visit"]) || said(["should", "stop", "talking"]) || said(["drop", "the"])
        // Second round (issue 35): the harm foretold as what happens to them next, in a sentence
        // about him or her in the future ("she'll never hear me", "he's going to pay", "that's when
        // I'll settle things"), or a demand made through them ("tell Chidi to withdraw…").
        let aboutThem = sentences.contains { words in
            let present = Set(words)
            let them = !present.isDisjoint(with: ["he", "she", "they", "him", "her", "them"])
            let future = words.containsPhrase(["going", "to"]) || !present.isDisjoint(with: ["will", "gonna", "tonight", "tomorrow", "soon", "next"])
            let consequence = !present.isDisjoint(with: ["pay", "regret", "sorry", "hear", "surprise", "learn", "lesson", "mistake", "wrong", "suffer", "hurt", "last", "settle", "forget", "away"])
            return them && future && consequence || words.containsPhrase(["that", "is", "when", "i", "will"]) || words.containsPhrase(["that", "is", "where", "i", "will"])
        }
        let demand = all.indices.contains { index in
            all[index] == "tell" && index + 2 < all.count && text.names.contains(all[index + 1]) && all[index + 2] == "to"
        }
        if namedRoutine && (foretold || aboutThem || demand) {
            result.violence = max(result.violence, 0.85)
            result.harassment = max(result.harassment, 0.85)
            result.reasons.append("threat against a named person whose routine is known")
        }
        return result
    }
}
