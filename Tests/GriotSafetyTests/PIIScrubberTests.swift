import GriotSafety
import Testing

/// The PII stage's acceptance criteria, on invented oral-history sentences.
struct PIIScrubberTests {
    let scrubber: PIIScrubber

    init() throws { scrubber = try PIIScrubber() }

    /// The one match in `text`, with its type and exact value.
    func single(_ text: String) -> (PIIType, String)? {
        let found = scrubber.matches(in: text)
        guard found.count == 1 else { return nil }
        return (found[0].type, found[0].value)
    }

    @Test(arguments: [
        "(412) 555-0187", "412-555-0187", "412.555.0187", "+1 412 555 0187", "+1-412-555-0187",
        "1-412-555-0187", "4125550187", "(412)555-0187", "+1 (412) 555-0187", "1-800-555-0199",
    ])
    func northAmericanPhoneLayouts(number: String) {
        let found = single("Uncle Amos said to ring \(number) before the harvest supper.")
        #expect(found?.0 == .phone)
        #expect(found?.1 == number)
    }

    @Test(arguments: [
        "+44 20 7946 0958", "+44(0)29 2018 0411", "(01632) 960418", "+33 (0)4 72 10 33 81", "04 72 10 33 81",
        "+49 30 901820", "03069 12345", "+61-412-345-678", "(07)-5550-1234", "+61.2.5550.1234", "090-1234-5678",
        "+55 21 3456-7890", "+34 912 34 56 78", "+39 06 6982 1234", "+91 98765 43210",
    ])
    func internationalPhoneLayouts(number: String) {
        let found = single("Cousin Mirela wrote from abroad: reach her on \(number) any Sunday.")
        #expect(found?.0 == .phone)
        #expect(found?.1 == number)
    }

    /// Issue 23: numbers written the way Spain, Poland, China and Egypt write them, beside a
    /// telephone word in that language, and numbers written against Chinese or Arabic words.
    @Test(arguments: [
        ("Llama a la abuela al 915 62 48 03 después de misa.", "915 62 48 03"),
        ("Zadzwoń do cioci na komórkę 512 347 906 wieczorem.", "512 347 906"),
        ("Babcia miała telefon 42 631 28 75 w kuchni.", "42 631 28 75"),
        ("奶奶的手机号码是139 1027 4588，她住在上海。", "139 1027 4588"),
        ("有事就打电话：13610254789，晚上别打。", "13610254789"),
        ("رقم جوال خالي هو 010 2345 6789 منذ سنوات.", "010 2345 6789"),
    ])
    func nationalLayoutsBesideATelephoneWord(text: String, number: String) {
        let found = single(text)
        #expect(found?.0 == .phone, "\(scrubber.matches(in: text))")
        #expect(found?.1 == number)
    }

    @Test func anEmailsLocalPartMayHoldLettersOutsideASCII() {
        #expect(single("Pisz do mnie: zofia.łukasiewicz@poczta.example, odpiszę.")?.1 == "zofia.łukasiewicz@poczta.example")
        #expect(single("Escríbele a josé.muñoz@correo.example mañana.")?.1 == "josé.muñoz@correo.example")
        // Chinese written against the address is not part of it.
        #expect(single("她的邮箱是liwei@mail.example，常用。")?.1 == "liwei@mail.example")
    }

    @Test func nationalLayoutsWithoutATelephoneWordAreCounts() {
        #expect(scrubber.matches(in: "W 1980 roku stocznia miała 512 347 906 złotych długu.").isEmpty)
        #expect(scrubber.matches(in: "The lot number 00-1234-5678 is stamped on the jar.").isEmpty)
        #expect(scrubber.matches(in: "一九五八年，工厂有 139 102 745 个零件。").isEmpty)
    }

    @Test func sevenDigitNumberNeedsAPhoneWord() {
        #expect(single("Call me at 555-0143 after church.")?.0 == .phone)
        #expect(single("The switchboard number was 555-0143, Papa made us learn it.")?.0 == .phone)
        #expect(scrubber.matches(in: "The ledger shows lot 555-0143 sold to the co-op.").isEmpty)
    }

    @Test(arguments: ["ada.quill@example.org", "Tobias_Wren+letters@mail.example.co.uk", "h.okafor@river-bend.example"])
    func emails(address: String) {
        let found = single("Aunt Lorna reads her letters at \(address) now.")
        #expect(found?.0 == .email)
        #expect(found?.1 == address)
    }

    @Test func addressOnOneLineWithUnitCityStateAndZip() {
        let address = "4821 Pelham Crossing Apt. 12B, Lower Tessaford, KY 40213-5521"
        #expect(single("The Okafors rented rooms at \(address) after the mill shut.")?.1 == address)
        let spelledState = "77 Orchard Ave, New Callow, North Carolina 27514"
        #expect(single("Our first church stood at \(spelledState) for forty years.")?.1 == spelledState)
    }

    @Test func addressAcrossALineBreakIsMaskedWhole() {
        let text = "Please send the tintypes here:\n309 Linden Rd.\nEast Marlow, OH 43210\nWith thanks from Hattie."
        let (scrubbed, masked) = scrubber.scrub(text)
        #expect(masked.map(\.type) == [.address])
        #expect(masked.first?.value == "309 Linden Rd.\nEast Marlow, OH 43210")
        #expect(scrubbed == "Please send the tintypes here:\n[ADDRESS]\nWith thanks from Hattie.")
    }

    @Test func streetWithoutCity() {
        #expect(single("The smokehouse sat behind 1208 Harlan Ridge, near the creek.")?.1 == "1208 Harlan Ridge")
        #expect(single("Mother ran a bakery at 55 Quarry St. through the war years.")?.1 == "55 Quarry St.")
    }

    @Test(arguments: ["219-44-7310", "219 44 7310", "219447310"])
    func ssnLayouts(ssn: String) {
        let found = single("The pension lady copied \(ssn) onto the yellow form.")
        #expect(found?.0 == .ssn)
        #expect(found?.1 == ssn)
    }

    @Test(arguments: ["666-12-3456", "000-12-3456", "912-34-5678", "219-00-7310", "219-44-0000"])
    func ssnOutsideIssuedRangesIsNotMasked(ssn: String) {
        #expect(scrubber.matches(in: "The old paper showed \(ssn), which nobody could explain.").isEmpty)
    }

    @Test(arguments: [
        "4539 1488 0343 6467", "4539-1488-0343-6467", "4539148803436467", "5425 2334 3010 9903",
        "2223 0000 4841 0010", "3714 496353 98431", "6011 1111 1111 1117", "3530 1113 3330 0000", "3056 930902 5904",
    ])
    func cardsWithIssuerPrefixAndLuhn(card: String) {
        let found = single("Daddy tucked \(card) inside the family Bible, of all places.")
        #expect(found?.0 == .creditCard)
        #expect(found?.1 == card)
    }

    @Test func luhnInvalidSixteenDigitsAreNotMasked() {
        #expect(scrubber.matches(in: "The parcel slip read 4539 1488 0343 6468 in blue ink.").isEmpty)
        #expect(scrubber.matches(in: "The parcel slip read 4539148803436468 in blue ink.").isEmpty)
    }

    @Test(arguments: ["10.0.0.1", "192.168.1.254", "172.16.40.3", "8.8.4.4", "203.0.113.77"])
    func ipv4(address: String) {
        let found = single("Little Theo set the parlor computer to \(address) for us.")
        #expect(found?.0 == .ipv4)
        #expect(found?.1 == address)
    }

    @Test func ipv4WithPortOrPrefixAndPhoneAfterTel() {
        #expect(single("The barn camera is at 10.0.0.12:8080 now.")?.1 == "10.0.0.12")
        #expect(single("The whole farm was on 10.0.0.0/8.")?.1 == "10.0.0.0")
        #expect(single("The card said tel:+1-412-555-0187 under the name.")?.1 == "+1-412-555-0187")
    }

    @Test(arguments: [
        "The church projector needed version 3.2.0.7 before it would play the slides.", "Theo flashed the firmware to 10.3.2.1 on the radio.",
        "The hymn program wants release 4.0.0.12 or newer.", "The octets 300.1.2.3 are not an address.",
    ])
    func versionsAndBadOctetsAreNotIPs(sentence: String) {
        #expect(scrubber.matches(in: sentence).isEmpty)
    }

    @Test(arguments: [
        "Papa bought the truck in 1952, the year the levee held.",
        "Grandma died June 9, 1968.", "Grandma died 06/09/1968.", "Grandma died 1968-06-09.", "It was 6-9-68.",
        "It was 09.06.1968.", "Grandma died the 9th of June, 1968.",
        "The mule cart logged 31574 trips by his count.", "The press ran 46190 leaflets that fall.",
        "Aunt Bea spent $3,715 on the piano.", "Tea was £1.85 a tin.", "Stamps were 4 cents.",
        "The bus came at 8:15.", "Evening milking began at 17:40.", "Prayer meeting was 7:05 p.m. on Wednesdays.",
        "We strolled along Dauphine Street on Sundays.", "The fish fry was out on Willow Crossing.",
        "The motel faced Highway 49.", "Uncle Cy drove Interstate 55 clear to Memphis.",
        "The phone got 16.2.3 last week.", "The laptop said 10.0.22631.", "Chrome reported 118.0.5993.88.",
        "Grandpa loved Psalm 23:4.", "The children learned Exodus 3:1-14 by heart.",
        "The ledger names enumeration district 52-118.", "Our block was census tract 3107.04.",
        "The parish counted a population of 8,412.", "She was listed at dwelling 87, family 93.",
        "The songbook's ISBN is 978-0-306-40615-7, it's still in print.", "Its older ISBN is 0-306-40615-2.",
        "The hymnal ISBN was 0-8044-2957-X.", "We sang hymns 112 115 118 and 120 that morning.",
        "Nobody had 911 out there, you rang the exchange.",
    ])
    func hardNegativesAreNotMasked(sentence: String) {
        #expect(scrubber.matches(in: sentence).isEmpty, "\(scrubber.matches(in: sentence))")
    }

    @Test func keepingLeavesASharedValueWrittenAnotherWay() {
        let shared = scrubber.sharedKeys(in: "You can reach me on (412) 555-0187 or ADA.QUILL@example.org.")
        let reply = "I'll note 412.555.0187 and ada.quill@example.org, and your other line 412-555-0190."
        let (text, masked) = scrubber.scrub(reply, keeping: shared)
        #expect(text == "I'll note 412.555.0187 and ada.quill@example.org, and your other line [PHONE].")
        #expect(masked.map(\.value) == ["412-555-0190"])
    }

    @Test func keysNormaliseLayouts() {
        let phone = PIIMatch(type: .phone, range: 0..<15, value: "+1 (412) 555-0187")
        #expect(PIIScrubber.key(phone) == "4125550187")
        let address = PIIMatch(type: .address, range: 0..<10, value: "309 Linden Rd.,\nEast  Marlow, OH 43210")
        #expect(PIIScrubber.key(address) == "309 linden rd. east marlow oh 43210")
        #expect(PIIScrubber.key(PIIMatch(type: .ssn, range: 0..<11, value: "219 44 7310")) == "219447310")
    }

    @Test func scrubMasksEachTypeAndReportsUTF16Offsets() {
        let text = "£3 then call 412-555-0187, mail ada@example.org, IP 10.0.0.7."
        let found = scrubber.matches(in: text)
        #expect(found.map(\.type) == [.phone, .email, .ipv4])
        let utf16 = Array(text.utf16)
        for match in found {
            #expect(String(decoding: utf16[match.range], as: UTF16.self) == match.value)
        }
        #expect(scrubber.scrub(text).text == "£3 then call [PHONE], mail [EMAIL], IP [IPV4].")
    }

    @Test func textWithoutDigitsOrAtComesBackUnchanged() {
        let text = "Those were hard years, and nobody locked their doors."
        let (scrubbed, masked) = scrubber.scrub(text)
        #expect(scrubbed == text)
        #expect(masked.isEmpty)
    }
}
