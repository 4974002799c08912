/// One way of saying "I am leaving, or getting ready to" without naming suicide: the words, in
/// order (fillers such as "even" may sit between them), and what must hold around them.
struct ModerationCrisisSign: Sendable {
    /// Whose words a crisis sign must be: the speaker's ("I won't be around much longer"), someone
    /// else's relief at the speaker's absence ("they'd be better off if I…"), or said with no
    /// person at all ("there's no reason to keep going").
    enum Speaker: Sendable { case me, others, anyone }

    var words: [String]
    var speaker: Speaker
    /// Signs that only mean it when negated: "no reason to keep going".
    var needsNegation = false
    /// Words that, right after the sign, make it an idiom: "I wish I wasn't here *at* this meeting".
    var notFollowedBy: Set<String> = []
    /// Continuations one of which must follow: "nobody would notice if I" + "disappeared".
    var then: [[String]] = []
}

/// The passive-ideation and preparation signs the local moderator routes to the crisis template;
/// `ModerationReading` checks the speaker and tense, so a relative's story and an idiom stay out.
enum ModerationCrisisSigns {
    private static let gone: [[String]] = [
        ["disappeared"], ["died"], ["vanished"], ["was", "gone"], ["were", "gone"], ["was", "dead"], ["were", "dead"],
        ["was", "not", "here"], ["were", "not", "here"], ["was", "not", "around"], ["were", "not", "around"],
        ["stopped", "existing"], ["did", "not", "wake", "up"], ["never", "woke", "up"], ["left", "forever"], ["am", "gone"],
        ["was", "not", "alive"], ["were", "not", "alive"], ["was", "never", "born"], ["had", "never", "been", "born"],
    ]
    private static let placeAfterHere: Set<String> = ["at", "in", "on", "for", "with", "right", "today", "tonight", "this", "during", "though"]
    private static let continuations: Set<String> = ["with", "on", "at", "in", "to", "down", "through", "after", "for", "today", "tonight"]

    /// The ways people say they are leaving, or getting ready to, without naming suicide; the
    /// speaker and tense are checked so a relative's story and an idiom stay out.
    static let all: [ModerationCrisisSign] = {
        var signs: [ModerationCrisisSign] = []
        func add(_ speaker: ModerationCrisisSign.Speaker, _ phrases: [[String]], needsNegation: Bool = false, notFollowedBy: Set<String> = [], then: [[String]] = []) {
            for words in phrases {
                signs.append(ModerationCrisisSign(words: words, speaker: speaker, needsNegation: needsNegation, notFollowedBy: notFollowedBy, then: then))
            }
        }
        // Others better off: "everyone would be better off if I…", "the world is better without me".
        add(.others, [["better", "without", "me"], ["better", "off", "with", "me", "gone"], ["happier", "without", "me"], ["easier", "without", "me"]])
        add(.others, [["better", "off", "if", "i"], ["better", "off", "when", "i"], ["better", "off", "once", "i"], ["happier", "if", "i"],
                      ["happier", "when", "i"], ["easier", "if", "i"], ["easier", "for", "everyone", "if", "i"], ["better", "if", "i"], ["better", "once", "i"]], then: gone)
        // Wishing not to be.
        add(.anyone, [["wish", "i", "was", "not", "here"], ["wish", "i", "were", "not", "here"]], notFollowedBy: placeAfterHere)
        add(.anyone, [["wish", "i", "was", "not", "alive"], ["wish", "i", "were", "not", "alive"], ["wish", "i", "was", "never", "born"],
                      ["wish", "i", "were", "never", "born"], ["wish", "i", "had", "never", "been", "born"], ["wish", "i", "could", "disappear"],
                      ["wish", "i", "would", "not", "wake", "up"], ["wish", "i", "could", "sleep", "forever"], ["hope", "i", "do", "not", "wake", "up"],
                      ["hope", "i", "never", "wake", "up"], ["sleep", "and", "never", "wake", "up"], ["sleep", "and", "not", "wake", "up"]])
        // "…disappear for good from social media", "tired of living in this flat": somewhere, not everywhere.
        add(.me, [["disappear", "for", "good"], ["disappear", "forever"], ["vanish", "forever"], ["vanish", "for", "good"],
                  ["tired", "of", "living"], ["sick", "of", "living"], ["done", "with", "living"], ["done", "with", "life"], ["done", "living"]],
            notFollowedBy: ["from", "off", "in", "with", "at", "like", "on", "under", "near", "here", "there", "admin", "paycheck"])
        add(.me, [["disappear", "from", "this", "world"], ["stop", "existing"], ["not", "want", "to", "exist"], ["tired", "of", "being", "alive"],
                  ["want", "it", "all", "to", "end"], ["want", "it", "all", "to", "stop"], ["want", "it", "all", "to", "be", "over"],
                  ["want", "everything", "to", "end"], ["want", "everything", "to", "stop"], ["want", "everything", "to", "be", "over"],
                  ["am", "a", "burden"], ["like", "a", "burden"]])
        // Not long for this world: "I won't be around much longer".
        add(.me, [["be", "around", "much", "longer"], ["be", "here", "much", "longer"], ["be", "around", "for", "much", "longer"],
                  ["be", "around", "for", "long"], ["be", "here", "for", "long"]], needsNegation: true,
            notFollowedBy: ["tonight", "today", "this", "at", "in", "on", "for", "because"])
        // Ending it: "I can finally end it", "I'm ready to end it" (but "end it with him" is a breakup).
        add(.me, [["finally", "end", "it"], ["ready", "to", "end", "it"], ["going", "to", "end", "it"], ["gonna", "end", "it"],
                  ["want", "to", "end", "it"], ["will", "end", "it"], ["plan", "to", "end", "it"], ["decided", "to", "end", "it"]],
            notFollowedBy: ["with", "between", "early", "here", "there", "at", "for"])
        // No reason left: "there's no reason to keep going", "nothing to live for".
        add(.anyone, [["reason", "to", "keep", "going"], ["reason", "to", "go", "on"], ["reason", "to", "carry", "on"],
                      ["point", "in", "going", "on"], ["point", "going", "on"], ["point", "to", "living"], ["point", "in", "being", "alive"],
                      ["reason", "to", "be", "alive"], ["reason", "to", "stay", "alive"], ["point", "in", "living"], ["point", "living"],
                      ["point", "in", "life"], ["reason", "to", "live"], ["reason", "for", "living"], ["point", "in", "trying"],
                      ["reason", "for", "me", "to", "be", "here"], ["reason", "for", "me", "to", "stay"], ["reason", "to", "stay"]],
            needsNegation: true, notFollowedBy: continuations)
        // Arrangements "in case I'm not around" (but "…around when the parcel comes" is an errand).
        add(.anyone, [["in", "case", "i", "am", "not", "around"], ["in", "case", "i", "am", "not", "here"], ["in", "case", "i", "do", "not", "make", "it"],
                      ["in", "case", "anything", "happens", "to", "me"]],
            notFollowedBy: ["when", "to", "for", "at", "on", "tomorrow", "today", "while", "during", "in"])
        add(.anyone, [["nothing", "to", "live", "for"], ["nothing", "left", "to", "live", "for"]])
        // Nobody would miss me.
        add(.anyone, [["no", "one", "would", "miss", "me"], ["nobody", "will", "miss", "me"], ["no", "one", "will", "miss", "me"],
                      ["would", "anyone", "miss", "me"], ["will", "anyone", "miss", "me"], ["nobody", "would", "care", "if", "i", "died"]])
        add(.anyone, [["notice", "if", "i"], ["care", "if", "i"], ["miss", "me", "if", "i"], ["notice", "when", "i"], ["miss", "me", "when", "i"]],
            then: gone)
        // Going for good: "before I go for good", "tonight I'm checking out for good" (but "leaving
        // London for good" is a move).
        add(.me, [["go", "for", "good"], ["checking", "out", "for", "good"], ["check", "out", "for", "good"], ["be", "gone", "for", "good"]],
            notFollowedBy: ["to", "from", "in", "abroad", "overseas"])
        // "I don't see why I should keep existing"; "I'm going to end everything this weekend".
        add(.me, [["keep", "existing"], ["go", "on", "existing"], ["continue", "existing"], ["keep", "on", "existing"]], needsNegation: true,
            notFollowedBy: ["in", "as", "like", "on", "at"])
        add(.me, [["going", "to", "end", "everything"], ["gonna", "end", "everything"], ["will", "end", "everything"], ["want", "to", "end", "everything"],
                  ["ready", "to", "end", "everything"]], notFollowedBy: ["with", "between", "at", "on"])
        // Preparation: goodbyes said and written.
        add(.me, [["said", "my", "goodbyes"], ["saying", "my", "goodbyes"], ["say", "my", "goodbyes"]])
        return signs
    }()

    /// The signs by their first word, so a sentence costs one look-up a word rather than one a sign.
    static let byFirstWord: [String: [ModerationCrisisSign]] = Dictionary(grouping: all) { $0.words[0] }
}
