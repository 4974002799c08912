import GriotText

/// Crisis, threat and insult phrases in French, German, Polish, Arabic and Chinese (issue 23), read
/// the way `ModerationSpanish` reads Spanish: on the normalised tokens (accents folded, "ł" read as
/// "l", "ß" as "ss", Arabic alef forms as bare alef), first or second person and present or future
/// only, so a grandmother's "les soldats ont fusillé son cousin", "die Soldaten erschossen seinen
/// Bruder" or "他的哥哥被打死了" stays allowed. Chinese is written without spaces, so its phrases are
/// looked for inside the text rather than as words. Quoted words are not read.
///
/// These lists are short: they catch the plain wordings of a wish to die, a plan, a threat to the
/// reader and an insult aimed at them. What they do not list, the remote moderator
/// (`GRIOT_MODERATION_URL`) reads; README "What the safety stages read" gives the measured figures.
enum ModerationOtherLanguages {
    struct Phrases {
        var crisis: [[String]]
        var threats: [[String]]
        /// Insults, counted when the message addresses the reader (one of `addressing`).
        var insults: Set<String>
        var addressing: Set<String>
        var language: String
    }

    static let french = Phrases(
        crisis: [
            ["je", "veux", "mourir"], ["je", "vais", "me", "tuer"], ["je", "veux", "me", "tuer"], ["me", "suicider"], ["je", "vais", "me", "suicider"],
            ["je", "ne", "veux", "plus", "vivre"], ["plus", "envie", "de", "vivre"], ["mettre", "fin", "a", "mes", "jours"], ["en", "finir", "avec", "la", "vie"],
            ["me", "faire", "du", "mal"], ["je", "me", "scarifie"], ["je", "me", "coupe"], ["prendre", "tous", "les", "medicaments"], ["avaler", "tous", "les"],
            ["j'ai", "prepare", "les", "medicaments"], ["j'ai", "prepare", "les", "cachets"], ["ma", "lettre", "d'adieu"],
            ["je", "veux", "en", "finir"], ["je", "vais", "en", "finir"], ["plus", "la", "force", "de", "vivre"], ["me", "pendre"],
            ["me", "jeter", "sous", "un", "train"], ["sauter", "du", "pont"], ["me", "jeter", "du", "pont"], ["me", "tirer", "une", "balle"],
        ],
        threats: [
            ["je", "vais", "te", "tuer"], ["je", "te", "tuerai"], ["je", "vais", "te", "buter"], ["je", "vais", "te", "frapper"], ["je", "vais", "te", "casser"],
            ["je", "vais", "te", "defoncer"], ["je", "sais", "ou", "tu", "habites"], ["tu", "vas", "le", "payer"], ["tu", "vas", "mourir"], ["je", "vais", "te", "trouver"],
            ["je", "vais", "te", "faire", "la", "peau"], ["je", "vais", "te", "retrouver"], ["je", "vais", "te", "planter"], ["bruler", "ta", "maison"], ["je", "vais", "t'egorger"],
        ],
        insults: ["ordure", "connard", "connasse", "salope", "pourriture", "abruti", "minable", "merde", "enfoire", "batard", "imbecile", "cretin", "debile", "nul", "nulle"],
        addressing: ["tu", "t'es", "sale", "espece", "toi", "te"], language: "French")

    static let german = Phrases(
        crisis: [
            ["ich", "will", "sterben"], ["ich", "will", "nicht", "mehr", "leben"], ["ich", "mochte", "nicht", "mehr", "leben"], ["ich", "bringe", "mich", "um"],
            ["ich", "bring", "mich", "um"], ["mich", "umbringen"], ["mir", "das", "leben", "nehmen"], ["nehme", "ich", "alle", "tabletten"],
            ["ich", "nehme", "alle", "tabletten"], ["alle", "tabletten", "nehmen"], ["ich", "ritze", "mich"], ["mich", "ritzen"], ["mir", "etwas", "antun"], ["mir", "was", "antun"],
            ["ich", "will", "mich", "umbringen"], ["ich", "will", "tot", "sein"], ["ich", "ware", "lieber", "tot"], ["mich", "erhangen"],
            ["von", "der", "brucke", "springen"], ["vor", "den", "zug", "werfen"], ["mich", "vor", "einen", "zug"], ["will", "nicht", "mehr", "aufwachen"],
        ],
        threats: [
            ["ich", "bringe", "dich", "um"], ["ich", "bring", "dich", "um"], ["ich", "werde", "dich", "umbringen"], ["ich", "mach", "dich", "kalt"],
            ["ich", "weiss", "wo", "du", "wohnst"], ["das", "wirst", "du", "bereuen"], ["ich", "schlage", "dich", "tot"], ["ich", "schlag", "dich", "tot"],
            ["ich", "werde", "dich", "finden"], ["ich", "werde", "dich", "toten"], ["ich", "tote", "dich"], ["ich", "steche", "dich", "ab"], ["ich", "stech", "dich", "ab"],
            ["ich", "zunde", "dein", "haus", "an"], ["du", "bist", "ein", "toter", "mann"],
        ],
        insults: ["arschloch", "wichser", "hurensohn", "schlampe", "missgeburt", "abschaum", "drecksau", "idiot", "vollidiot", "versager", "dreckskerl", "penner"],
        addressing: ["du", "dich", "dir"], language: "German")

    static let polish = Phrases(
        crisis: [
            ["chce", "umrzec"], ["nie", "chce", "zyc"], ["nie", "chce", "juz", "zyc"], ["zabije", "sie"], ["chce", "sie", "zabic"], ["odebrac", "sobie", "zycie"],
            ["odbiore", "sobie", "zycie"], ["popelnie", "samobojstwo"], ["polkne", "wszystkie", "tabletki"], ["wezme", "wszystkie", "tabletki"],
            ["tne", "sie"], ["zrobie", "sobie", "krzywde"], ["nie", "mam", "po", "co", "zyc"], ["skocze", "z", "mostu"], ["powiesze", "sie"], ["mam", "dosc", "zycia"],
            ["skonczyc", "ze", "soba"], ["skoncze", "ze", "soba"], ["chce", "sie", "zabic"], ["nie", "chce", "sie", "obudzic"],
        ],
        threats: [
            ["zabije", "cie"], ["wiem", "gdzie", "mieszkasz"], ["pozalujesz"], ["dostaniesz", "wpierdol"], ["znajde", "cie"], ["rozwale", "ci"], ["pobije", "cie"],
            ["jestes", "trupem"], ["zatluke", "cie"], ["poderzne", "ci", "gardlo"], ["spale", "ci", "dom"], ["zabije", "was"],
        ],
        insults: ["kurwo", "smieciu", "idioto", "debilu", "szmato", "chuju", "frajerze", "gnoju", "nikim", "spierdalaj"],
        addressing: ["ty", "cie", "ci", "jestes"], language: "Polish")

    static let arabic = Phrases(
        crisis: [
            ["اريد", "ان", "اموت"], ["لا", "اريد", "ان", "اعيش"], ["ساقتل", "نفسي"], ["اقتل", "نفسي"], ["سانتحر"], ["ساابتلع", "كل"], ["سابتلع", "كل"],
            ["ابتلع", "كل", "الحبوب"], ["اؤذي", "نفسي"], ["اوذي", "نفسي"], ["انهي", "حياتي"], ["سانهي", "حياتي"],
            ["اريد", "الموت"], ["لا", "اريد", "العيش"], ["ساشنق", "نفسي"], ["سارمي", "نفسي"], ["اتمنى", "الموت"], ["لم", "اعد", "اريد", "الحياة"],
        ],
        threats: [["ساقتلك"], ["اقتلك"], ["ساذبحك"], ["اعرف", "اين", "تسكن"], ["ستندم"], ["ساكسر", "راسك"], ["ساجدك"], ["انت", "ميت"], ["ساحرق", "بيتك"],
                  ["ساضربك"], ["سانتقم", "منك"]],
        insults: ["حقير", "كلب", "حمار", "زبالة", "تافه", "وسخ", "غبي", "قذر"],
        addressing: ["يا", "انت", "انتي"], language: "Arabic")

    /// Chinese, looked for inside the text: a wish or plan to die, a threat, an insult at "you".
    static let chineseCrisis = ["不想活了", "不想活下去", "活不下去了", "我想死", "我要死", "我想自杀", "我要自杀", "把药全吃了", "把药都吃了", "吃光所有的药", "结束自己的生命", "我要跳楼", "我想跳楼", "我想割腕", "我不想活", "活着没意思", "我准备好了药", "我要了结自己", "想结束生命", "我想从楼上跳"]
    static let chineseThreats = ["杀了你", "弄死你", "打死你", "我知道你住在哪", "你会后悔的", "你等着瞧", "宰了你", "烧了你家", "我会找到你"]
    static let chineseInsults = ["你这个废物", "你这个垃圾", "你这个贱人", "你去死吧", "去死吧你", "你是个废物", "你这个蠢货", "傻逼", "你这个混蛋"]

    /// Scores for the phrases found; zero when none is.
    static func reading(_ text: ModerationText) -> ModerationResult {
        var result = ModerationResult()
        let words = text.tokens.filter { !$0.isPunctuation && !$0.quoted }.map { normalised($0.text) }
        guard !words.isEmpty else { return result }
        // A phrase is looked for only where its first word is: one hash of each word instead of
        // comparing every phrase at every position.
        let present = Set(words)
        let contains = { (phrase: [String]) in phrase.first.map(present.contains) == true && words.containsPhrase(phrase) }
        for phrases in [french, german, polish, arabic] {
            if phrases.crisis.contains(where: contains) {
                result.selfHarm = 0.9
                result.reasons.append("self-harm: first-person intent or act (\(phrases.language))")
            }
            if phrases.threats.contains(where: contains) {
                result.violence = 0.9
                result.harassment = max(result.harassment, 0.85)
                result.reasons.append("threat of violence (\(phrases.language))")
            }
            if !present.isDisjoint(with: phrases.addressing), !present.isDisjoint(with: phrases.insults) {
                result.harassment = max(result.harassment, 0.85)
                result.reasons.append("insult aimed at the reader (\(phrases.language))")
            }
        }
        // Every Chinese phrase is written in Han ideographs, which are written without spaces:
        // a message with no such letter has none of them.
        guard words.contains(where: { $0.unicodeScalars.contains(where: WordTokenizer.isSpaceless) }) else { return result }
        let joined = words.joined()
        if chineseCrisis.contains(where: joined.containsLiteral) {
            result.selfHarm = 0.9
            result.reasons.append("self-harm: first-person intent or act (Chinese)")
        }
        if chineseThreats.contains(where: joined.containsLiteral) {
            result.violence = 0.9
            result.harassment = max(result.harassment, 0.85)
            result.reasons.append("threat of violence (Chinese)")
        }
        if chineseInsults.contains(where: joined.containsLiteral) {
            result.harassment = max(result.harassment, 0.85)
            result.reasons.append("insult aimed at the reader (Chinese)")
        }
        return result
    }

    /// "ł" as "l", "ß" as "ss", Arabic hamza and madda forms of alef as bare alef and tatweel
    /// dropped: the tokens are already lowercased and folded of combining accents.
    static func normalised(_ word: String) -> String {
        guard !word.unicodeScalars.allSatisfy(\.isASCII) else { return word }
        var out = String.UnicodeScalarView()
        for scalar in word.unicodeScalars {
            switch scalar {
            case "ł": out.append("l")
            case "ß": out.append(contentsOf: "ss".unicodeScalars)
            case "\u{0640}": continue
            default:
                if scalar.properties.generalCategory == .nonspacingMark { continue }
                out.append(TextAnalyzer.bareAlef(scalar))
            }
        }
        return String(out)
    }
}

extension Array where Element == String {
    /// Whether the words hold `phrase` as a run of consecutive words.
    func containsPhrase(_ phrase: [String]) -> Bool {
        guard !phrase.isEmpty, phrase.count <= count else { return false }
        return (0...(count - phrase.count)).contains { start in phrase.indices.allSatisfy { self[start + $0] == phrase[$0] } }
    }
}
