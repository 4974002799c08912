import GriotText
import Testing

/// The analyzer's behaviour on words that oral-history transcripts and questions really contain.
@Suite struct TextAnalyzerTests {
    let analyzer = TextAnalyzer()

    @Test(arguments: [
        // Possessives and contractions: the apostrophe stays inside the word, the stemmer drops "'s".
        ("Mama's", ["mama"]),
        ("Ida Mae’s kitchen", ["ida", "mae", "kitchen"]),
        ("O'Brien", ["o'brien"]),
        ("don't go", ["go"]),
        ("the sisters' house", ["sister", "hous"]),
        ("'Twas runnin'", ["twas", "runnin"]),
        // Hyphens and dashes split, so each part can be found.
        ("twenty-one", ["twenti", "one"]),
        ("Jean-Baptiste", ["jean", "baptist"]),
        ("well—then", ["well"]),
        // Numbers keep their digit groups and decimals; a decade keeps its "s".
        ("1,000 acres", ["1000", "acr"]),
        ("3.5 miles", ["3.5", "mile"]),
        ("the 1930s", ["1930s"]),
        ("$2.40 a day", ["2.40", "day"]),
        // Unicode: NFKC, case and diacritic folding.
        ("Café", ["cafe"]),
        ("ﬁne", ["fine"]),
        ("Ｔｕｌｓａ", ["tulsa"]),
        ("Dvořák", ["dvorak"]),
        ("Noé and frère", ["noe", "frere"]),
        ("straße STRASSE", ["strass", "strass"]),
        // Stemming joins the forms of a word.
        ("Running flooded levees", ["run", "flood", "leve"]),
        ("generously", ["generous"]),
        ("The end.", ["end"]),
    ])
    func termsOfTrickyWords(text: String, expected: [String]) {
        #expect(analyzer.terms(in: text) == expected)
    }

    @Test func stopWordsAreDroppedOnlyWhenAsked() {
        #expect(analyzer.terms(in: "what was the name of the church") == ["name", "church"])
        #expect(TextAnalyzer(removesStopWords: false, stems: false).terms(in: "The Church") == ["the", "church"])
    }

    @Test func tokensPointBackIntoTheText() {
        let text = "Café on Fourth Avenue, 1957."
        let scalars = Array(text.unicodeScalars)
        let tokens = analyzer.tokens(in: text)
        #expect(tokens.map(\.term) == ["cafe", "fourth", "avenu", "1957"])
        let words = tokens.map { String(String.UnicodeScalarView(scalars[$0.span.start..<$0.span.end])) }
        #expect(words == ["Café", "Fourth", "Avenue", "1957"])
    }
}

@Suite struct SentenceSplitterTests {
    func sentences(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        return SentenceSplitter.sentences(in: scalars).map { String(String.UnicodeScalarView(scalars[$0.start..<$0.end])) }
    }

    @Test func abbreviationsAndInitialsDoNotEndASentence() {
        #expect(sentences("Rev. Amos Carter preached. We listened.") == ["Rev. Amos Carter preached.", "We listened."])
        #expect(sentences("J. C. Odom came home. Then it rained.") == ["J. C. Odom came home.", "Then it rained."])
        #expect(sentences("We lived on 47th St. near Evans.") == ["We lived on 47th St. near Evans."])
    }

    @Test func quotesQuestionsAndBlankLines() {
        #expect(sentences("She said, \"Go on.\" So I went! Did you?") == ["She said, \"Go on.\"", "So I went!", "Did you?"])
        #expect(sentences("First part\n\nSecond part") == ["First part", "Second part"])
        #expect(sentences("it cost $2.40 a day. in 1922 that was money") == ["it cost $2.40 a day. in 1922 that was money"])
    }
}
