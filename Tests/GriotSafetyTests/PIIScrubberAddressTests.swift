import GriotSafety
import Testing

/// Addresses as people write them, country by country, and IP addresses in unusual forms
/// (issue 35): each is masked whole, and what only looks like one is left as written.
struct PIIScrubberAddressTests {
    let scrubber: PIIScrubber

    init() throws { scrubber = try PIIScrubber() }

    @Test(arguments: [
        (PIIType.address, "2318 S. Main St., Akron, OH 44301"),              // directions and abbreviations
        (.address, "55 Mt. Pleasant Ave., Wellsboro, PA 16901"),
        (.address, "3400 Cove Rd. NW, Roanoke, VA 24017"),
        (.address, "18 Magnolia St., Albany, Ga. 31701"),                      // AP-style states
        (.address, "22 Front St., Wilmington, N.C. 28401"),
        (.address, "310 Levee Rd., Greenville, Miss."),
        (.address, "600 Congress Ave., Ste. 1400, Austin, TX 78701"),      // units
        (.address, "15 Court St., Bldg. 2, Fl. 3, Utica, NY 13502"),
        (.address, "Apt. 5, 210 Lake St., Oak Park, IL 60302"),
        (.address, "P. O. Drawer 77, Tupelo, MS 38802"),                    // boxes and rural routes
        (.address, "Box 233, Cody, WY 82414"),
        (.address, "RR 4, Box 212, Storm Lake, IA 50588"),
        (.address, "HC 72 Box 330, Jordan, MT 59337"),
        (.address, "350 Bloor St. W, Toronto, ON M5S 1W7"),                     // Canada
        (.address, "1203-888 Hornby St., Vancouver, BC V6Z 1T6"),
        (.address, "1220 rue Sainte-Catherine, Montréal (Québec) H3B 1K1"),
        (.address, "Unit 2/41 Brunswick Street, Fitzroy VIC 3065"),               // Australia
        (.address, "9 Acacia Cres, Orange NSW 2800"),
        (.address, "Flat 6, 14 Redland Road, Bristol BS6 6AG"),                 // Britain
        (.address, "Ivy Cottage, Mill Lane, Great Bardfield, Essex CM7 4SD"),
        (.address, "Frankfurter Allee 31, 10247 Berlin"),                      // Germany
        (.address, "Unter den Eichen 87, 12203 Berlin"),
        (.address, "9, rue des Roses, 75018 Paris"),                        // France
        (.address, "BP 90, 97400 Saint-Denis"),
        (.ipv6, "2001:db8::42"), (.ipv6, "fe80::a00:27ff:fe4e:66a1"), (.ipv6, "::ffff:198.51.100.14"),
        (.ipv4, "10 . 0 . 0 . 42"), (.ipv4, "203.0.113[.]45"),
    ])
    func nationalFormatIsMaskedWhole(type: PIIType, value: String) {
        let text = "Grandma left a note: \(value) — keep it safe."
        let found = scrubber.matches(in: text)
        #expect(found.map(\.type) == [type])
        #expect(found.first?.value == value, "the mask must cover exactly what was written")
    }

    @Test(arguments: [
        "Her card read:\n88 Lincoln Ave.\nApt. 2\nCharleston, SC 29401",
        "The envelope said Flat 2\n6 Stoneygate Road\nLeicester\nLE2 2AB",
        "Write to:\n15 Elm Dr.\nGuelph, Ont.\nN1H 6J3",
        "The return address:\nRural Route 2\nBox 31\nPierre, SD 57501",
    ])
    func addressOverSeveralLinesIsOneMask(text: String) {
        let found = scrubber.matches(in: text)
        #expect(found.count == 1)
        #expect(found.first.map { text.hasSuffix($0.value) } == true, "the whole address, every line of it")
    }

    @Test(arguments: [
        "St. Louis Blues fans watched the St. Andrew's Day parade.",
        "She climbed Mt. Kilimanjaro in 1998 and Mt. Shasta twice.",
        "We took Route 1 up the coast; Highway 61 Revisited was on.",
        "The box office was closed at 10:30.",
        "Section 8 housing and Chapter 7 were discussed.",
        "Read pp. 33–41 and pages 90-102.",
        "Install version 3.1.4 before 12:15, or by 23:59:59.",
        "The code uses std::string and Bar::baz, and x::y::z in the loop.",
        "The M6 at junction 4 and then the A40.",
        "Act 3, Scene 1 was long; the letters are in box 7 of 20.",
        "They played Suite No. 3 and Symphony No. 5; sie landeten auf Platz 2.",
        "In 1927 the water rose over Front Street.",
    ])
    func lookAlikeIsLeftAlone(text: String) {
        #expect(scrubber.matches(in: text).isEmpty)
        #expect(scrubber.scrub(text).text == text)
    }

    @Test func namesInOtherScriptsAroundAnAddressSurviveExactly() {
        let text = "Zofia Łukasiewicz wrote to 李秀英 at 40 King's Gate, Aberdeen AB15 4EJ, then to Ολυμπία Παπαδοπούλου."
        #expect(scrubber.scrub(text).text == "Zofia Łukasiewicz wrote to 李秀英 at [ADDRESS], then to Ολυμπία Παπαδοπούλου.")
    }

    @Test func anIPv4AddressAfterAKeyOrInParenthesesIsMasked() {
        #expect(scrubber.scrub("ip=203.0.113.88 and (172.16.3.40)").text == "ip=[IPV4] and ([IPV4])")
    }
}
