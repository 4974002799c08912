import Foundation
import GriotText
import Testing

/// The normalised view every text check reads: disguises undone, real writing left alone, and
/// every span mapped back onto exactly what was written.
@Suite struct NormalizedTextTests {
    /// The original characters behind the first occurrence of `needle` in the view.
    func original(of needle: String, in view: NormalizedText) -> Substring? {
        guard let range = view.text.range(of: needle) else { return nil }
        return view.original[view.originalRange(of: range)]
    }

    @Test(arguments: [
        "Zofia Łukasiewicz mieszkała w Łodzi przy ulicy Piotrkowskiej.",
        "李秀英 在上海出生。一九五零年搬到北京。",
        "日本語のテキスト、カタカナ",
        "हिन्दी में लिखा है",
        "Tiếng Việt có dấu",
        "Москва — столица России. Рука, сор, рос, сухо, ох.",
        "Ήταν ένα όμορφο πρωί στην Αθήνα.",
        "وُلدت جدتي في القاهرة وعاشت هناك طويلاً.",
        "Noé and frère Dvořák visited Kraków and Zürich.",
        "שלום, קוראים לי דוד.",
        "Ida Mae's kitchen, 1,000 acres, $2.40 a day.",
    ])
    func writingInAnyScriptIsLeftAsWritten(text: String) {
        // Byte for byte: String's == would also accept a different but equivalent Unicode form.
        #expect(Array(NormalizedText(text, options: .standard).text.utf8) == Array(text.utf8))
        #expect(Array(NormalizedText(text, options: .pii).text.utf8) == Array(text.utf8))
        #expect(Array(NormalizedText(text, options: .moderation).text.utf8) == Array(text.utf8))
    }

    @Test func fullWidthPunctuationInChineseBecomesASCIIAndTheLettersStay() {
        // NFKC reads the full-width comma as ","; the ideographs are untouched.
        let view = NormalizedText("李秀英 在上海出生，一九五零年搬到北京。", options: .standard)
        #expect(Array(view.text.utf8) == Array("李秀英 在上海出生,一九五零年搬到北京。".utf8))
        #expect(original(of: ",", in: view) == "，")
    }

    @Test func fullWidthAndCompatibilityFormsBecomePlain() {
        let view = NormalizedText("Ｃａｌｌ ５５５－０１８７ ｎｏｗ ﬁne", options: .standard)
        #expect(view.text == "Call 555-0187 now fine")
        #expect(original(of: "555-0187", in: view) == "５５５－０１８７")
        #expect(original(of: "fine", in: view) == "ﬁne")
    }

    @Test func invisibleCharactersAreRemovedAndCoveredInsideASpan() {
        let text = "k\u{200B}i\u{00AD}l\u{2060}l \u{FEFF}555\u{200D}0187\u{200C} done"
        let view = NormalizedText(text, options: .standard)
        #expect(view.text == "kill 5550187 done")
        // Inside the span the invisible characters are covered; at its edges they are not.
        #expect(original(of: "kill", in: view) == "k\u{200B}i\u{00AD}l\u{2060}l")
        #expect(original(of: "5550187", in: view) == "555\u{200D}0187")
    }

    @Test func variationSelectorsAndDirectionMarksAreRemoved() {
        let view = NormalizedText("a\u{FE0F}b\u{200E}c\u{E0101}d", options: .standard)
        #expect(view.text == "abcd")
    }

    @Test(arguments: [
        ("٠١٢٣٤٥٦٧٨٩", "0123456789"),        // Arabic-Indic
        ("۰۱۲۳۴۵۶۷۸۹", "0123456789"),        // Extended Arabic-Indic (Persian, Urdu)
        ("०१२३४५६७८९", "0123456789"),        // Devanagari
        ("০১২৩", "0123"),                    // Bengali
        ("๐๑๒", "012"),                      // Thai
        ("𝟓𝟓𝟓", "555"),                      // mathematical bold
    ])
    func digitsOfAnyScriptAreReadAsDigits(digits: String, expected: String) {
        let view = NormalizedText("tel \(digits).", options: .standard)
        #expect(view.text == "tel \(expected).")
        #expect(original(of: expected, in: view) == Substring(digits))
    }

    @Test func chineseNumberWordsAreNotDigits() {
        // 五 is a number but not a decimal digit: Chinese text stays Chinese.
        let view = NormalizedText("五月五日", options: .standard)
        #expect(view.text == "五月五日")
    }

    @Test func dashesThatLookLikeHyphensAreRead() {
        let view = NormalizedText("412\u{2011}555\u{2013}0187 and 212\u{2212}555\u{2010}0199", options: .standard)
        #expect(view.text == "412-555-0187 and 212-555-0199")
        #expect(original(of: "412-555-0187", in: view) == "412\u{2011}555\u{2013}0187")
    }

    @Test func cyrillicLookalikesInsideALatinWordAreFolded() {
        // "kіll" with a Cyrillic і, "sехy" with Cyrillic е and х, "Аpple" with a Cyrillic А.
        let view = NormalizedText("I will k\u{0456}ll you, s\u{0435}\u{0445}y \u{0410}pple", options: .standard)
        #expect(view.text == "I will kill you, sexy Apple")
        #expect(original(of: "kill", in: view) == "k\u{0456}ll")
    }

    @Test func aWordMadeOnlyOfLookalikesIsFoldedInALatinText() {
        // "ѕсаm" in Cyrillic look-alikes (and one Latin m) and "рау" entirely Cyrillic.
        let view = NormalizedText("This is a \u{0455}\u{0441}\u{0430}m, please \u{0440}\u{0430}\u{0443} now", options: .standard)
        #expect(view.text == "This is a scam, please pay now")
    }

    @Test func russianWordsMadeOfLookalikesStayRussian() {
        // "рука", "сор", "рос" use only letters that look Latin; the text around them is Russian.
        let text = "Моя рука болит, на полу сор, он рос быстро."
        #expect(Array(NormalizedText(text, options: .standard).text.utf8) == Array(text.utf8))
    }

    @Test func greekCapitalsLookingLikeLatinInALatinWordAreFolded() {
        let view = NormalizedText("\u{039A}\u{0399}LL them", options: .standard)  // Greek Κ and Ι
        #expect(view.text == "KILL them")
    }

    @Test func combiningMarksComposeAndMapBackWhole() {
        let view = NormalizedText("Cafe\u{0301} Noe\u{0308}l", options: .standard)
        #expect(Array(view.text.utf8) == Array("Caf\u{E9} No\u{EB}l".utf8))
        #expect(original(of: "\u{E9}", in: view).map { Array($0.utf8) } == Array("e\u{0301}".utf8))
    }

    @Test func spelledDigitsAreReadForPII() {
        let view = NormalizedText("Call four one two, five five five, oh one eight seven tonight", options: .pii)
        #expect(view.text == "Call 412 555 0187 tonight")
        #expect(original(of: "412 555 0187", in: view) == "four one two, five five five, oh one eight seven")
        let mixed = NormalizedText("ring 412 five five five 0187", options: .pii)
        #expect(mixed.text == "ring 412 555 0187")
    }

    @Test(arguments: [
        "one or two of them came",
        "Oh, one more thing",
        "She had five children and two dogs",
        "at one, two and three o'clock",
    ])
    func numberWordsInProseStayWords(text: String) {
        #expect(NormalizedText(text, options: .pii).text == text)
    }

    @Test(arguments: [
        ("write to ida.mae at gmail dot com today", "write to ida.mae@gmail.com today"),
        ("ida [at] example [dot] org", "ida@example.org"),
        ("ida(at)example(dot)co(dot)uk", "ida@example.co.uk"),
        ("ida {at} mail.example.net", "ida@mail.example.net"),
        ("ida @ example . com", "ida@example.com"),
        ("mail ida at example.com.", "mail ida@example.com."),
        ("ida＠example．com", "ida@example.com"),
    ])
    func emailsWrittenOutAreRead(text: String, expected: String) {
        #expect(NormalizedText(text, options: .pii).text == expected)
    }

    @Test(arguments: [
        "look at it dot by dot",
        "We met at the station and had a dot of jam.",
        "She was at home. Then she left.",
    ])
    func atAndDotInProseStayProse(text: String) {
        #expect(NormalizedText(text, options: .pii).text == text)
    }

    @Test func spacedLettersAreJoinedForModeration() {
        let view = NormalizedText("I will k i l l you and k.i.l.l them", options: .moderation)
        #expect(view.text == "I will kill you and kill them")
        #expect(original(of: "kill", in: view) == "k i l l")
    }

    @Test(arguments: [
        ("you f@g", "you fag"),
        ("sh!t happens", "shit happens"),
        ("$hit", "shit"),
        ("I will k1ll you", "I will kill you"),
        ("h4te", "hate"),
        ("k*ll", "k*ll"),
        ("f#ck", "f*ck"),
        ("f__k", "f**k"),
    ])
    func symbolsForLettersAreReadForModeration(text: String, expected: String) {
        #expect(NormalizedText(text, options: .moderation).text == expected)
    }

    @Test(arguments: [
        "Help! Why? I was born on the 4th, in 1948, and paid $40.",
        "mp3 files and covid19 and b2b",
        "Email ida@example.com about it.",
    ])
    func ordinaryTextIsNotUncensored(text: String) {
        #expect(NormalizedText(text, options: .moderation).text == text)
    }

    @Test func utf16RangesMapBackForClientsThatCountUTF16() {
        // An emoji (two UTF-16 units) before the value shifts every offset after it.
        let text = "😀 ☎ ５５５\u{200B}－０１８７"
        let view = NormalizedText(text, options: .pii)
        #expect(view.text == "😀 ☎ 555-0187")
        let start = view.text.utf8.count - "555-0187".utf8.count
        let ranges = view.originalUTF16Ranges(of: [start..<view.text.utf8.count])
        #expect(ranges == [5..<14])
        #expect(text.utf16Slice(ranges[0]) == "５５５\u{200B}－０１８７")
    }

    @Test func everySpanOfAMixedTextMapsBackInsideTheOriginal() {
        let text = "Ｔｅｌ: ٠٧٧٠٠ ٩٠٠١٢٣, k\u{0456}ll, four five six seven, a\u{200B}t ida [at] x [dot] com 李秀英 Łódź"
        for options in [NormalizedText.Options.standard, .pii, .moderation] {
            let view = NormalizedText(text, options: options)
            let count = view.text.utf8.count
            for lower in 0...count {
                for upper in lower...count {
                    let mapped = view.originalUTF8Range(of: lower..<upper)
                    #expect(mapped.lowerBound >= 0 && mapped.upperBound <= text.utf8.count && mapped.lowerBound <= mapped.upperBound)
                }
            }
            #expect(view.originalUTF8Range(of: 0..<count) == 0..<text.utf8.count)
        }
    }
}

private extension String {
    func utf16Slice(_ range: Range<Int>) -> String {
        let start = utf16.index(utf16.startIndex, offsetBy: range.lowerBound)
        let end = utf16.index(utf16.startIndex, offsetBy: range.upperBound)
        return String(self[start..<end])
    }
}
