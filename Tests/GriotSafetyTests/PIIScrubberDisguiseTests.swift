import GriotSafety
import Testing

/// Values dressed to slip past the scrubber: the normalised view reads them, and the mask lands on
/// exactly the characters that were written (full-width digits, invisible characters and all).
struct PIIScrubberDisguiseTests {
    let scrubber: PIIScrubber

    init() throws { scrubber = try PIIScrubber() }

    @Test(arguments: [
        (PIIType.phone, "412\u{2013}555\u{2013}0187"),           // en dashes
        (.phone, "412\u{2011}555\u{2011}0187"),                   // non-breaking hyphens
        (.phone, "412/555/0187"),                                 // slashes
        (.phone, "(412)\u{00A0}555\u{00A0}0187"),                 // non-breaking spaces
        (.phone, "4 1 2 5 5 5 0 1 8 7"),                          // one digit at a time
        (.phone, "４１２－５５５－０１８７"),                          // full-width
        (.phone, "٤١٢-٥٥٥-٠١٨٧"),                                 // Arabic-Indic digits
        (.phone, "412\u{200B}555\u{200B}0187"),                   // zero-width spaces
        (.phone, "four one two, five five five, oh one eight seven"),
        (.phone, "0044 20 7946 0958"), (.phone, "00 353 1 555 0199"),
        (.phone, "0113 496 0732"), (.phone, "030/12345678"), (.phone, "01.42.68.53.00"),
        (.email, "ida.mae at example dot com"), (.email, "ida [at] example [dot] org"), (.email, "ida＠example.com"),
        (.ssn, "５３２－４８－１９０７"), (.ssn, "219\u{200B}-44\u{200B}-7761"),
        (.creditCard, "４５３９ １４８８ ０３４３ ６４６７"), (.creditCard, "4111.1111.1111.1111"),
        (.creditCard, "5500\u{200B}0055\u{200B}5555\u{200B}5559"),
        (.address, "P.O. Box 1187, Tulsa, OK 74101"), (.address, "742 evergreen terrace springfield il 62704"),
        (.address, "Lindenstraße 12, 10115 Berlin"), (.address, "12 rue de la Paix, 75002 Paris"),
        (.address, "221B Baker Street, London NW1 6XE"), (.address, "12 Oak Rd. Apt. 4, Springfield, IL 62704"),
    ])
    func disguisedValueIsMaskedWhole(type: PIIType, value: String) {
        let text = "Grandma left a note: \(value) — keep it safe."
        let found = scrubber.matches(in: text)
        #expect(found.count == 1)
        #expect(found.first?.type == type)
        #expect(found.first?.value == value, "the mask must cover exactly what was written")
        let masked = scrubber.scrub(text).text
        #expect(masked == "Grandma left a note: [\(type.rawValue)] — keep it safe.")
    }

    @Test func anIPv4AddressInsideAURLIsMaskedAndThePathStays() {
        let (text, masked) = scrubber.scrub("The scans are at http://203.0.113.45/admin/scans tonight.")
        #expect(text == "The scans are at http://[IPV4]/admin/scans tonight.")
        #expect(masked.map(\.type) == [.ipv4])
    }

    @Test(arguments: [
        "Order 00-1234-5678 shipped on 2024-03-05.",
        "She was born in １９４８ and married in ١٩٦٩.",
        "The score was 3–1 and pages 112–118 list the mules.",
        "We looked at the dot on the map, dot by dot.",
        "She had five brothers, two sisters and one aunt.",
        "Москва, улица Тверская: Зофия Лукасевич писала письма.",
        "李秀英 在上海出生，一九五零年搬到北京。",
    ])
    func lookalikesAndOtherScriptsStayAsWritten(text: String) {
        #expect(scrubber.matches(in: text).isEmpty)
        #expect(scrubber.scrub(text).text == text)
    }

    @Test func aValueSharedInOneDressIsKeptInAnother() {
        // The user wrote it with full-width digits; the model repeats it plainly.
        let shared = scrubber.sharedKeys(in: "my cell is ４１２－５５５－０１８７")
        let (text, masked) = scrubber.scrub("I will text 412-555-0187 tomorrow.", keeping: shared)
        #expect(text == "I will text 412-555-0187 tomorrow.")
        #expect(masked.isEmpty)
    }

    /// A worded address before an email, with no other number in the text: the matches come
    /// back in the order of the text, and each mask lands on its own value.
    @Test func aPOBoxBeforeAnEmailIsMaskedWhereItStands() {
        let text = "Write to P.O. Box 1187, Tulsa, OK 74101 or ida.carter@example.com instead."
        let found = scrubber.matches(in: text)
        #expect(found.map(\.range.lowerBound) == found.map(\.range.lowerBound).sorted(), "\(found)")
        let utf16 = Array(text.utf16)
        for match in found {
            #expect(String(decoding: utf16[match.range], as: UTF16.self) == match.value, "\(match)")
        }
        let (scrubbed, _) = scrubber.scrub(text)
        #expect(!scrubbed.contains("ida.carter@example.com") && !scrubbed.contains("1187"), "\(scrubbed)")
    }
}
