import Foundation

/// Guesses the language of a user's message, so the reply can be asked for in it.
///
/// ```swift
/// let guess = LanguageDetector().detect("¿Dónde nació mi abuela?")
/// guess.language      // "es"
/// guess.confidence    // 0.9...1.0
/// ```
/// Scripts other than Latin decide at once (kana is Japanese, Hangul Korean, ...). Within the Latin
/// script, each language's most frequent function words and its own letters vote; the confidence is
/// the winner's share of the votes, lowered for messages with only a word or two of evidence.
public struct LanguageDetector: Sendable {
    public struct Guess: Sendable, Hashable, Codable {
        public var language: String
        public var confidence: Double
    }

    public init() {}

    public func detect(_ text: String) -> Guess {
        if let byScript = detectByScript(text) { return byScript }

        var votes: [String: Double] = [:]
        let lowered = text.lowercased()
        var words = 0
        for word in lowered.split(whereSeparator: { !$0.isLetter && $0 != "'" && $0 != "’" }) {
            let word = word.replacingOccurrences(of: "’", with: "'")
            words += 1
            // A word several languages share is split between them.
            if let languages = Self.functionWords[word] {
                for language in languages { votes[language, default: 0] += 1 / Double(languages.count) }
            }
            if let apostrophe = word.firstIndex(of: "'"), let languages = Self.functionWords[String(word[...apostrophe])] {
                // French and Italian elision (l'histoire, dell'anno).
                for language in languages { votes[language, default: 0] += 1 / Double(languages.count) }
            }
        }
        for scalar in lowered.unicodeScalars {
            if let languages = Self.letters[scalar] {
                for language in languages { votes[language, default: 0] += 0.5 / Double(languages.count) }
            }
        }
        let ranked = votes.sorted { $0.value > $1.value || ($0.value == $1.value && $0.key < $1.key) }
        guard let best = ranked.first, best.value > 0, words > 0 else { return Guess(language: "en", confidence: 0) }
        // A softmax over the languages' votes, every known language taking part (those without
        // votes at 0), so that thin evidence cannot look certain: two words give about 0.6, four
        // exclusive ones about 0.97.
        let sharpness = 1.5
        let silent = Double(Self.latinLanguages - ranked.count)
        let mass = ranked.reduce(silent * exp(-sharpness * best.value)) { $0 + exp(sharpness * ($1.value - best.value)) }
        let confidence = 1 / mass
        return Guess(language: best.key, confidence: (confidence * 100).rounded() / 100)
    }

    /// Languages the Latin-script vote knows.
    static let latinLanguages = 15

    /// Every language `detect` can name: those of the Latin-script vote and those of other scripts.
    static let languages: Set<String> = Set(functionWords.values.joined())
        .union(["ja", "ko", "zh", "ar", "he", "ru", "uk", "el", "hi", "th", "am"])

    private func detectByScript(_ text: String) -> Guess? {
        var counts: [String: Int] = [:]
        var letters = 0
        for scalar in text.unicodeScalars where scalar.properties.isAlphabetic {
            letters += 1
            let value = scalar.value
            let script: String
            switch value {
            case 0x3040...0x30FF: script = "ja"
            case 0xAC00...0xD7AF, 0x1100...0x11FF, 0x3130...0x318F: script = "ko"
            case 0x4E00...0x9FFF, 0x3400...0x4DBF: script = "han"
            case 0x0600...0x06FF, 0x0750...0x077F: script = "ar"
            case 0x0590...0x05FF: script = "he"
            case 0x0400...0x04FF: script = "cyrillic"
            case 0x0370...0x03FF: script = "el"
            case 0x0900...0x097F: script = "hi"
            case 0x0E00...0x0E7F: script = "th"
            case 0x1200...0x137F: script = "am"
            default: script = "latin"
            }
            counts[script, default: 0] += 1
        }
        guard letters > 0, let (script, count) = counts.max(by: { $0.value < $1.value }), script != "latin" else { return nil }
        let share = Double(count) / Double(letters)
        var language = script
        if script == "han" { language = (counts["ja"] ?? 0) > 0 ? "ja" : "zh" }
        if script == "cyrillic" {
            let ukrainian = text.unicodeScalars.contains { "іїєґІЇЄҐ".unicodeScalars.contains($0) }
            language = ukrainian ? "uk" : "ru"
        }
        let evidence = min(1, Double(count) / 4)
        return Guess(language: language, confidence: (share * evidence * 100).rounded() / 100)
    }

    /// Letters that occur in few languages.
    static let letters: [Unicode.Scalar: [String]] = {
        var table: [Unicode.Scalar: [String]] = [:]
        let groups: [(String, String)] = [
            ("ñ¿¡", "es"), ("çœèêëîôùûÿ", "fr"), ("ßäöü", "de"), ("ãõ", "pt"), ("å", "sv"),
            ("łąęśźżćń", "pl"), ("ğşıüöç", "tr"), ("ươđ", "vi"), ("ì", "it"), ("ò", "it"),
        ]
        for (characters, language) in groups {
            for scalar in characters.unicodeScalars { table[scalar, default: []].append(language) }
        }
        return table
    }()

    /// The most frequent short words of each language (articles, pronouns, prepositions,
    /// conjunctions, common verbs), which carry most of the signal in a short question.
    static let functionWords: [String: [String]] = {
        let lists: [String: String] = [
            "en": "the a an and or of to in on at for with from by is are was were be been have has had do does did not what who whom when where why how which this that these those it he she they we you i my your his her their our me him them there here about tell can could would should will my grandmother grandfather mother father story stories family",
            "es": "el la los las un una unos y o de del al en con por para es son era fue ser estar está están que qué quién quien cuándo dónde donde cómo por porque mi mis tu su sus nuestro nuestra se lo le les me nos muy más sobre abuela abuelo madre padre historia familia cuéntame había",
            "fr": "le la les un une des et ou de du au aux en dans avec pour par est sont était été être avoir a ont que qui quoi quand où comment pourquoi mon ma mes ton ta tes son sa ses notre nos leur il elle ils elles nous vous je ne pas plus sur l' d' qu' grand-mère grand-père mère père histoire famille raconte",
            "de": "der die das den dem des ein eine einen einem und oder von zu im in an auf mit für bei ist sind war waren sein haben hat hatte wer was wann wo wie warum welche mein meine dein sein ihr unser nicht auch über sich ich du er sie es wir großmutter großvater mutter vater geschichte familie erzähl",
            "it": "il lo la i gli le un una uno e o di del della dei in con per da su è sono era erano essere avere ha hanno che chi cosa quando dove come perché mio mia miei tuo suo sua nostro non più anche ci si mi l' dell' nonna nonno madre padre storia famiglia raccontami",
            "pt": "o a os as um uma uns e ou de do da dos das em no na nos nas com por para é são era foi ser estar está que quem quando onde como porque meu minha meus seu sua nosso nossa não mais sobre se me avó avô mãe pai história família conte",
            "nl": "de het een en of van in op aan met voor door is zijn was waren hebben heeft had wie wat wanneer waar hoe waarom welke mijn jouw zijn haar ons onze niet ook over ik je hij zij wij er dat deze die oma opa moeder vader verhaal familie vertel",
            "sv": "en ett och eller av i på till med för från är var varit har hade vem vad när var hur varför vilken min mitt mina din hans hennes vår inte också om jag du han hon vi det den som mormor farmor morfar farfar mor far berättelse familj berätta",
            "pl": "i w na z do od o się nie to jest był była było są co kto kiedy gdzie jak dlaczego który moja mój moje twój jego jej nasz ale czy tak już ja ty on ona my babcia dziadek matka ojciec historia rodzina opowiedz",
            "tr": "ve bir bu şu o da de ile için gibi çok ne kim nerede ne zaman nasıl neden hangi benim senin onun bizim değil var yok mi mı mu mü ben sen biz büyükannem büyükbabam annem babam hikaye aile anlat",
            "sw": "na ya wa la kwa katika ni si au za cha vya hii huyo nani nini lini wapi vipi kwa nini yangu yako yake yetu bibi babu mama baba hadithi familia niambie alikuwa walikuwa",
            "id": "dan atau dari di ke dengan untuk oleh adalah ini itu yang apa siapa kapan mana bagaimana mengapa saya kamu dia kami kita mereka tidak juga tentang nenek kakek ibu ayah cerita keluarga ceritakan",
            "vi": "và hoặc của trong với cho là có không này đó ai gì khi nào ở đâu thế nào tại sao tôi bạn anh chị em bà ông mẹ cha câu chuyện gia đình kể",
            "tl": "ang ng mga sa at o ay na si ni kay ano sino kailan saan paano bakit ko mo niya namin natin hindi rin lola lolo nanay tatay kuwento pamilya",
            "ht": "la yo ak nan pou sou se te ap pa ki kisa kilès kilè kote kijan poukisa mwen ou li nou yo manman papa grann granpapa istwa fanmi rakonte",
        ]
        var table: [String: [String]] = [:]
        for (language, words) in lists {
            for word in Set(words.split(separator: " ")) { table[String(word), default: []].append(language) }
        }
        return table
    }()
}
