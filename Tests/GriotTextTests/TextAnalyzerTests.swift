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

    /// Issue 23: text in any script gives terms a question in the same script can match.
    @Test(arguments: [
        // Scripts without spaces: overlapping character pairs; particles ("的") make none.
        ("李秀英的茶馆", ["李秀", "秀英", "茶馆"]),
        ("茶", ["茶"]),
        ("Chengdu成都", ["chengdu", "成都"]),
        ("とうきょう", ["とう", "うき", "きょ", "ょう"]),
        // Other languages' words are folded; French elision loses its article; an English
        // name or dialect spelling keeps its apostrophe.
        ("Zofia Łukasiewicz", ["zofia", "łukasiewicz"]),
        ("l'atelier", ["ateli"]),
        ("s'pose", ["s'pose"]),
        // Arabic: the article and clitics come off.
        ("والخبز بالمدينة", ["خبز", "مدينة"]),
    ])
    func anyScript(_ text: String, _ expected: [String]) {
        #expect(analyzer.terms(in: text) == expected)
    }

    /// A question in another language loses that language's function words too; English keeps
    /// the words that other languages use as function words ("de" is the WPA dialect's "the").
    @Test(arguments: [
        ("¿Qué horneaba mi abuela Josefina en Oaxaca?", ["horneaba", "abuela", "josefina", "oaxaca"]),
        ("Wohin wurde Gertrud nach der Sturmflut gebracht?", ["gertrud", "sturmflut", "gebracht"]),
        ("Qui était Mustapha Haddad ?", ["mustapha", "haddad"]),
        ("هل كان جدي في الإسكندرية", ["جدي", "اسكندرية"]),
    ])
    func otherLanguagesFunctionWords(_ text: String, _ expected: [String]) {
        #expect(TextAnalyzer(removesOtherLanguagesStopWords: true).terms(in: text) == expected)
        #expect(analyzer.terms(in: "the war and de ole house") == ["war", "de", "ole", "hous"])
    }

    @Test func wordCountsCountCharacterPairsAsWords() {
        #expect(WordTokenizer.wordCount("Grandma baked bread") == 3)
        #expect(WordTokenizer.wordCount("客人最喜欢喝的是茉莉花茶。") == 6)
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

    /// Issue 23: Chinese leaves no space after "。"; Arabic has no capitals; Spanish opens with "¿".
    @Test func sentencesOfOtherScripts() {
        #expect(sentences("我们家的茶馆开在锦江边上。客人最喜欢喝茉莉花茶！你呢？") == ["我们家的茶馆开在锦江边上。", "客人最喜欢喝茉莉花茶！", "你呢？"])
        #expect(sentences("وُلدت في حي الأنفوشي. كان البحر أمام بيتنا؟ نعم.") == ["وُلدت في حي الأنفوشي.", "كان البحر أمام بيتنا؟", "نعم."])
        #expect(sentences("Horneaba pan de yema. ¿Y tú? «Claro», dijo.") == ["Horneaba pan de yema.", "¿Y tú?", "«Claro», dijo."])
        #expect(sentences("Sie rief: „Komm her.“ Dann ging sie.") == ["Sie rief: „Komm her.“", "Dann ging sie."])
    }
}
