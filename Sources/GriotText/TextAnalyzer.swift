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
/// agree: words ➝ NFKC and case/diacritic folding ➝ English stop words ➝ Porter2 stems.
///
/// ```swift
/// let analyzer = TextAnalyzer()
/// analyzer.terms(in: "The Carters' kitchen in Bronzeville")   // ["carter", "kitchen", "bronzevill"]
/// ```
public struct TextAnalyzer: Sendable {
    public var removesStopWords: Bool
    public var stems: Bool
    private let stemmer = EnglishStemmer()

    public init(removesStopWords: Bool = true, stems: Bool = true) {
        self.removesStopWords = removesStopWords
        self.stems = stems
    }

    /// The index terms of a text, in order, stop words left out.
    public func terms(in text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var terms: [String] = []
        terms.reserveCapacity(scalars.count / 6)
        WordTokenizer.forEachSpan(in: scalars) { span in
            if let term = term(for: scalars[span.start..<span.end]) { terms.append(term) }
        }
        return terms
    }

    /// The index terms with their positions in the text, for highlighting.
    public func tokens(in text: String) -> [AnalyzedToken] {
        tokens(in: Array(text.unicodeScalars))
    }

    public func tokens(in scalars: [Unicode.Scalar]) -> [AnalyzedToken] {
        var tokens: [AnalyzedToken] = []
        WordTokenizer.forEachSpan(in: scalars) { span in
            if let term = term(for: scalars[span.start..<span.end]) {
                tokens.append(AnalyzedToken(term: term, span: span))
            }
        }
        return tokens
    }

    /// The index term of one word, or nil for a stop word.
    public func term(for word: ArraySlice<Unicode.Scalar>) -> String? {
        let normalized = TermNormalizer.normalize(word)
        if removesStopWords, StopWords.english.contains(normalized) { return nil }
        return stems ? stemmer.stem(normalized) : normalized
    }
}
