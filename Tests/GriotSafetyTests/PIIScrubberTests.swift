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
        let found = single("When Mirela moved overseas, we got \(number) to call.")
        #expect(found?.0 == .phone)
        #expect(found?.1 == number)
    }

    @Test func sevenDigitNumberNeedsAPhoneWord() {
        #expect(single("Call me at 555-0143 after church.")?.0 == .phone)
        #expect(single("Her number was 555-0143, I still know it.")?.0 == .phone)
        #expect(scrubber.matches(in: "The ledger shows lot 555-0143 sold to the co-op.").isEmpty)
    }

    @Test(arguments: ["ada.quill@example.org", "Tobias_Wren+letters@mail.example.co.uk", "h.okafor@river-bend.example"])
    func emails(address: String) {
        let found = single("Send the transcript to \(address).")
        #expect(found?.0 == .email)
        #expect(found?.1 == address)
    }

    @Test func addressOnOneLineWithUnitCityStateAndZip() {
        let address = "4821 Pelham Crossing Apt. 12B, Lower Tessaford, KY 40213-5521"
        #expect(single("We lived at \(address) until the flood.")?.1 == address)
        let spelledState = "77 Orchard Ave, New Callow, North Carolina 27514"
        #expect(single("The boarding house was at \(spelledState).")?.1 == spelledState)
    }

    @Test func addressAcrossALineBreakIsMaskedWhole() {
        let text = "Mail the photographs to:\n309 Linden Rd.\nEast Marlow, OH 43210\nThank you kindly."
        let (scrubbed, masked) = scrubber.scrub(text)
        #expect(masked.map(\.type) == [.address])
        #expect(masked.first?.value == "309 Linden Rd.\nEast Marlow, OH 43210")
        #expect(scrubbed == "Mail the photographs to:\n[ADDRESS]\nThank you kindly.")
    }

    @Test func streetWithoutCity() {
        #expect(single("Grandpa's farm was out at 1208 Harlan Ridge, past the feed store.")?.1 == "1208 Harlan Ridge")
        #expect(single("We bought the place on 55 Quarry St. for next to nothing.")?.1 == "55 Quarry St.")
    }

    @Test(arguments: ["219-44-7310", "219 44 7310", "219447310"])
    func ssnLayouts(ssn: String) {
        let found = single("The clerk typed \(ssn) into the computer and frowned.")
        #expect(found?.0 == .ssn)
        #expect(found?.1 == ssn)
    }

    @Test(arguments: ["666-12-3456", "000-12-3456", "912-34-5678", "219-00-7310", "219-44-0000"])
    func ssnOutsideIssuedRangesIsNotMasked(ssn: String) {
        #expect(scrubber.matches(in: "The form said \(ssn), which cannot be right.").isEmpty)
    }

    @Test(arguments: [
        "4539 1488 0343 6467", "4539-1488-0343-6467", "4539148803436467", "5425 2334 3010 9903",
        "2223 0000 4841 0010", "3714 496353 98431", "6011 1111 1111 1117", "3530 1113 3330 0000", "3056 930902 5904",
    ])
    func cardsWithIssuerPrefixAndLuhn(card: String) {
        let found = single("She kept \(card) on a slip of paper in the recipe box.")
        #expect(found?.0 == .creditCard)
        #expect(found?.1 == card)
    }

    @Test func luhnInvalidSixteenDigitsAreNotMasked() {
        #expect(scrubber.matches(in: "The tracking number was 4539 1488 0343 6468.").isEmpty)
        #expect(scrubber.matches(in: "The tracking number was 4539148803436468.").isEmpty)
    }

    @Test(arguments: ["10.0.0.1", "192.168.1.254", "172.16.40.3", "8.8.4.4", "203.0.113.77"])
    func ipv4(address: String) {
        let found = single("My nephew said the router was \(address).")
        #expect(found?.0 == .ipv4)
        #expect(found?.1 == address)
    }

    @Test func ipv4WithPortOrPrefixAndPhoneAfterTel() {
        #expect(single("The barn camera is at 10.0.0.12:8080 now.")?.1 == "10.0.0.12")
        #expect(single("The whole farm was on 10.0.0.0/8.")?.1 == "10.0.0.0")
        #expect(single("The card said tel:+1-412-555-0187 under the name.")?.1 == "+1-412-555-0187")
    }

    @Test(arguments: [
        "My grandson updated the tablet to version 2.1.0.4.", "The firmware was 10.3.2.1, whatever that means.",
        "It only runs on release 4.0.0.12.", "The octets 300.1.2.3 are not an address.",
    ])
    func versionsAndBadOctetsAreNotIPs(sentence: String) {
        #expect(scrubber.matches(in: sentence).isEmpty)
    }

    @Test(arguments: [
        "We came up north in 1957, right after the war.",
        "Mama passed March 4, 1971.", "Mama passed 03/04/1971.", "Mama passed 1971-03-04.", "It was 3-4-71.",
        "It was 04.03.1971.", "Mama passed the 4th of March, 1971.",
        "The odometer read 48213 miles when he sold it.", "We printed 22682 copies of the bulletin.",
        "They paid $4,249 for the organ.", "Bread was £2.44 a loaf.", "Candy was 13 cents.",
        "The train left at 7:30.", "The shift started at 14:05.", "Supper was at 6:45 p.m. sharp.",
        "We'd walk down Beale Street every Saturday.", "The parade went along Magnolia Crossing.",
        "The diner sat right off Highway 61.", "We drove Interstate 40 all the way to Amarillo.",
        "The tablet runs 17.4.1 now.", "Windows said 10.0.19045.", "The browser was 120.0.6099.109.",
        "Pastor always preached John 3:16.", "We memorized Genesis 1:1-35 in Sunday school.",
        "The census lists us under enumeration district 31-245.", "That was census tract 4021.02.",
        "The town had a population of 12,846.", "It was dwelling 162, family 199.",
        "The book's ISBN is 978-0-306-40615-7, if you want to order it.", "The ISBN is 0-306-40615-2.",
        "The old ISBN was 0-17-078133-X.", "We sang hymns 112 115 118 and 120 that morning.", "We didn't have 911 back then, you just called the operator.",
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
