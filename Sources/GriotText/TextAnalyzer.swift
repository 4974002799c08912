/// A word of a text after analysis: its index term and where it stands in the text.
public struct AnalyzedToken: Sendable, Hashable {
    /// The normalised, stemmed term, as the index stores it.
    public var term: String
    /// Unicode scalar offsets of the word in the analysed text.
    public var span: WordSpan

    public init(term: String, span: WordSpan) {
        self.term = term
        self.span = span
    }
}

/// The one text pipeline that the index and the queries share, so that both sides always
/// agree: words ➝ NFKC and case/diacritic folding ➝ stop words ➝ Porter2 stems.
///
/// It reads any script. Stop words are English, and on request the function words of the other
/// languages the detector names most often (`StopWords.other`); French and Italian elisions lose their
/// article ("l'atelier" ➝ "atelier"), Arabic words their article and clitic ("والخبز" ➝ "خبز").
/// A run of a script written without spaces (Chinese, Japanese, Thai) is cut into overlapping
/// character pairs ("成都茶馆" ➝ "成都", "都茶", "茶馆"), the usual language-neutral stand-in
/// for words: a two-character word always matches itself, and a question shares pairs with the
/// passage that answers it without any dictionary. The English stemmer leaves words it has no
/// suffix rule for as they are, so other languages match on their folded forms.
///
/// ```swift
/// let analyzer = TextAnalyzer()
/// analyzer.terms(in: "The Carters' kitchen in Bronzeville")   // ["carter", "kitchen", "bronzevill"]
/// analyzer.terms(in: "李秀英的茶馆")                              // ["李秀", "秀英", "茶馆"]
/// ```
public struct TextAnalyzer: Sendable {
    public var removesStopWords: Bool
    public var stems: Bool
    /// Also drop the function words of other languages (`StopWords.other`). Off for the index
    /// and for English, where "de", "dem" and "po" are words of the WPA narratives' dialect
    /// spellings; on for reading a question the detector placed in another language.
    public var removesOtherLanguagesStopWords: Bool
    private let stemmer = EnglishStemmer()

    public init(removesStopWords: Bool = true, stems: Bool = true, removesOtherLanguagesStopWords: Bool = false) {
        self.removesStopWords = removesStopWords
        self.stems = stems
        self.removesOtherLanguagesStopWords = removesOtherLanguagesStopWords
    }

    /// The index terms of a text, in order, stop words left out.
    public func terms(in text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var terms: [String] = []
        terms.reserveCapacity(scalars.count / 6)
        forEachTerm(in: scalars) { term, _ in terms.append(term) }
        return terms
    }

    /// The index terms with their positions in the text, for highlighting. A character pair's
    /// span is its two characters, so pairs overlap.
    public func tokens(in text: String) -> [AnalyzedToken] {
        tokens(in: Array(text.unicodeScalars))
    }

    public func tokens(in scalars: [Unicode.Scalar]) -> [AnalyzedToken] {
        var tokens: [AnalyzedToken] = []
        forEachTerm(in: scalars) { term, span in tokens.append(AnalyzedToken(term: term, span: span)) }
        return tokens
    }

    /// Calls `body` with each term and where it stands: a word's term, or the character pairs of
    /// a run without spaces (a lone character is a term of its own).
    public func forEachTerm(in scalars: [Unicode.Scalar], _ body: (String, WordSpan) -> Void) {
        WordTokenizer.forEachSpan(in: scalars) { span in
            if WordTokenizer.isSpaceless(scalars[span.start]) {
                if span.end - span.start == 1 {
                    if !removesStopWords || !StopWords.isParticle(scalars[span.start]) {
                        body(TermNormalizer.normalize(scalars[span.start..<span.end]), span)
                    }
                    return
                }
                for first in span.start..<(span.end - 1) {
                    if removesStopWords, StopWords.isParticle(scalars[first]) || StopWords.isParticle(scalars[first + 1]) { continue }
                    body(TermNormalizer.normalize(scalars[first...(first + 1)]), WordSpan(start: first, end: first + 2))
                }
            } else if let term = term(for: scalars[span.start..<span.end]) {
                body(term, span)
            }
        }
    }

    /// The index term of one word, or nil for a stop word.
    public func term(for word: ArraySlice<Unicode.Scalar>) -> String? {
        var normalized = TermNormalizer.normalize(word)
        // Looked for in the UTF-8 bytes: this is the indexer's hot path, and a search by
        // Character would break every word into graphemes first.
        if let first = word.first, !first.isASCII {
            normalized = Self.withoutClitics(normalized)
        } else if normalized.utf8.contains(UInt8(ascii: "'")) {
            normalized = Self.withoutElision(normalized)
        }
        if removesStopWords, StopWords.english.contains(normalized) || (removesOtherLanguagesStopWords && StopWords.other.contains(normalized)) {
            return nil
        }
        return stems ? stemmer.stem(normalized) : normalized
    }

    /// French and Italian elided articles and pronouns: "l'atelier", "d'oranges", "qu'elle",
    /// "dell'acqua". English names keep theirs ("o'brien").
    static func withoutElision(_ word: String) -> String {
        guard let apostrophe = word.firstIndex(of: "'") else { return word }
        let head = word[..<apostrophe]
        let tail = word[word.index(after: apostrophe)...]
        guard tail.count >= 2, Self.elisions.contains(String(head)) else { return word }
        return String(tail)
    }

    /// Not "s'" or "t'": English dialect spellings write "s'pose" and "t'other".
    static let elisions: Set<String> = ["l", "d", "j", "qu", "n", "c", "m", "dell", "all", "dall", "nell", "sull", "un", "quell"]

    /// An Arabic word's article and the conjunction or preposition written onto it ("والخبز",
    /// "بالمدينة", "للعائلة") come off when at least three letters stay, and its alefs are
    /// folded; French elisions otherwise.
    static func withoutClitics(_ word: String) -> String {
        let scalars = Array(word.unicodeScalars)
        guard let first = scalars.first, first.value >= 0x0600, first.value <= 0x06FF else {
            return word.utf8.contains(UInt8(ascii: "'")) ? withoutElision(word) : word
        }
        // Alef with hamza or madda is written as bare alef as often as not: "إسكندرية", "اسكندرية".
        let folded = scalars.map(Self.bareAlef)
        var start = 0
        for prefix in arabicPrefixes where folded.count - prefix.count >= 3 && folded.starts(with: prefix) {
            start = prefix.count
            break
        }
        var rest = String.UnicodeScalarView()
        rest.append(contentsOf: folded[start...])
        return String(rest)
    }

    /// Alef with madda or hamza above or below (آ أ إ) as bare alef (ا); any other scalar as it is.
    public static func bareAlef(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        switch scalar {
        case "\u{0622}", "\u{0623}", "\u{0625}": "\u{0627}"
        default: scalar
        }
    }

    /// Longest first: wa+al, bi+al, fa+al, ka+al, li+l, al.
    static let arabicPrefixes: [[Unicode.Scalar]] = ["وال", "بال", "فال", "كال", "لل", "ال"].map { Array($0.unicodeScalars) }
}
