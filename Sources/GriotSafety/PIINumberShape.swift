/// The layout of one number run ("+1 (412) 555-0187", "4539 1488 0343 6468", "10.0.0.1"):
/// its digit groups and what joins them. Classifying by layout, then checking the digits
/// (Luhn, SSN ranges, octets), is what keeps dates, versions, ISBNs and prices unmasked.
struct PIINumberShape {
    /// Bytes of the run, start and end, in the text's UTF-8.
    let bytes: UnsafeBufferPointer<UInt8>
    let range: Range<Int>
    private(set) var digitCount = 0
    private(set) var groupCount = 0
    /// Lengths of the first 16 groups.
    private(set) var groupLengths = SIMD16<UInt8>()
    private(set) var hasPlus = false
    private(set) var hasParenthesis = false
    private(set) var hasSpace = false
    private(set) var hasDot = false
    private(set) var hasDash = false
    /// A dot with a space either side ("10 . 0 . 0 . 42") or in brackets ("203.0.113[.]45").
    private(set) var hasSpacedOrBracketedDot = false
    /// Up to the first 8 digits as a number, for issuer prefixes and ranges.
    private(set) var leadingDigits = 0

    init(bytes: UnsafeBufferPointer<UInt8>, range: Range<Int>) {
        self.bytes = bytes
        self.range = range
        var inGroup = false
        for index in range {
            let byte = bytes[index]
            if byte >= 0x30 && byte <= 0x39 {
                if !inGroup {
                    inGroup = true
                    if groupCount < 16 { groupLengths[groupCount] = 0 }
                    groupCount += 1
                }
                if groupCount <= 16 { groupLengths[groupCount - 1] &+= 1 }
                if digitCount < 8 { leadingDigits = leadingDigits * 10 + Int(byte - 0x30) }
                digitCount += 1
            } else {
                inGroup = false
                switch byte {
                case UInt8(ascii: "+"): hasPlus = true
                case UInt8(ascii: "("), UInt8(ascii: ")"): hasParenthesis = true
                case UInt8(ascii: " "):
                    if bytes[index + 1] == UInt8(ascii: ".") || bytes[index - 1] == UInt8(ascii: ".") {
                        hasSpacedOrBracketedDot = true
                    } else {
                        hasSpace = true
                    }
                case UInt8(ascii: "["), UInt8(ascii: "]"): hasSpacedOrBracketedDot = true
                case UInt8(ascii: "."): hasDot = true
                default: hasDash = true
                }
            }
        }
    }

    func length(ofGroup index: Int) -> Int { index < 16 ? Int(groupLengths[index]) : 0 }
    var lastGroupLength: Int { length(ofGroup: groupCount - 1) }
    var shortestGroup: Int { (0..<min(groupCount, 16)).map(length(ofGroup:)).min() ?? 0 }

    /// The group lengths equal `lengths` exactly.
    func hasGroups(_ lengths: [Int]) -> Bool {
        guard groupCount == lengths.count else { return false }
        for (index, length) in lengths.enumerated() where self.length(ofGroup: index) != length { return false }
        return true
    }

    /// Only one kind of joiner (or none): "4539 1488 …" or "4539-1488-…", not "4539 1488-…".
    var hasOneSeparatorKind: Bool {
        !hasPlus && !hasParenthesis && [hasSpace, hasDot, hasDash].filter { $0 }.count <= 1
    }

    /// The first `count` digits as a number.
    func prefix(_ count: Int) -> Int {
        var value = leadingDigits
        var digits = min(digitCount, 8)
        while digits > count { value /= 10; digits -= 1 }
        return value
    }

    /// Each digit in order.
    func forEachDigit(_ body: (Int) -> Void) {
        for index in range where bytes[index] >= 0x30 && bytes[index] <= 0x39 { body(Int(bytes[index] - 0x30)) }
    }

    /// Values of the groups (for IPv4 octets and SSN parts); nil past 9 digits a group.
    func groupValues() -> [Int] {
        var values: [Int] = []
        var current = -1
        for index in range {
            let byte = bytes[index]
            if byte >= 0x30 && byte <= 0x39 {
                current = (current < 0 ? 0 : current) * 10 + Int(byte - 0x30)
                if current > 999_999_999 { current = 999_999_999 }
            } else if current >= 0 {
                values.append(current)
                current = -1
            }
        }
        if current >= 0 { values.append(current) }
        return values
    }

    // MARK: - Checks on the digits

    /// The Luhn checksum every payment card number carries.
    var passesLuhn: Bool {
        var sum = 0
        var doubled = false
        for index in range.reversed() where bytes[index] >= 0x30 && bytes[index] <= 0x39 {
            let digit = Int(bytes[index] - 0x30)
            sum += doubled ? (digit > 4 ? digit * 2 - 9 : digit * 2) : digit
            doubled.toggle()
        }
        return sum % 10 == 0
    }

    /// An issuer's prefix fits this many digits: Visa, Mastercard (51–55 and 2221–2720), American
    /// Express, Discover, JCB, Diners Club, UnionPay.
    var hasCardIssuerPrefix: Bool {
        let n = digitCount
        let p1 = prefix(1), p2 = prefix(2), p3 = prefix(3), p4 = prefix(4), p6 = prefix(6)
        if p1 == 4 { return n == 13 || n == 16 || n == 19 }
        if (51...55).contains(p2) || (2221...2720).contains(p4) { return n == 16 }
        if p2 == 34 || p2 == 37 { return n == 15 }
        if p4 == 6011 || (644...649).contains(p3) || p2 == 65 || (622_126...622_925).contains(p6) {
            return (16...19).contains(n)
        }
        // JCB (3528–3589 in use; the whole 35 block is theirs).
        if p2 == 35 { return (16...19).contains(n) }
        if (300...305).contains(p3) || p4 == 3095 || p2 == 36 || p2 == 38 || p2 == 39 { return (14...19).contains(n) }
        if p2 == 62 { return (16...19).contains(n) }
        return false
    }

    /// Written the way cards are: all digits, or 4-4-4-4(-3), 4-6-5 (Amex), 4-6-4 (Diners), with
    /// spaces, dashes or dots ("4111.1111.1111.1111"), or one digit at a time.
    var hasCardLayout: Bool {
        guard (13...19).contains(digitCount), hasOneSeparatorKind else { return false }
        return groupCount == 1 || hasGroups([4, 4, 4, 4]) || hasGroups([4, 6, 5]) || hasGroups([4, 6, 4])
            || hasGroups([4, 4, 4, 4, 3]) || isDigitByDigit
    }

    /// One digit a group, seven or more of them ("4 1 5 5 5 5 0 1 3 2"): a number read out one
    /// digit at a time, judged as if it were written without separators.
    var isDigitByDigit: Bool { groupCount >= 7 && groupCount == digitCount && hasOneSeparatorKind }

    /// "00" and a country code in place of "+" ("0044 20 7946 0958", "00 353 1 555 0199"), with
    /// spaces or nothing between the groups (an order number "00-1234-5678" is not one).
    var hasInternationalPrefix: Bool {
        guard digitCount >= 10, prefix(2) == 0, prefix(3) != 0, !hasDash, !hasDot else { return false }
        return groupCount == 1 || length(ofGroup: 0) <= 5
    }

    /// 3-2-4 with dashes or spaces, or 9 plain digits (or read out one at a time).
    var hasSSNLayout: Bool {
        guard hasOneSeparatorKind, !hasDot else { return false }
        return hasGroups([3, 2, 4]) || ((groupCount == 1 || isDigitByDigit) && digitCount == 9)
    }

    /// Issued SSN ranges: area 001–899 but not 666, group 01–99, serial 0001–9999.
    var isValidSSN: Bool {
        guard digitCount == 9 else { return false }
        let area = leadingDigits / 100_000, group = leadingDigits / 1_000 % 100
        var serial = 0
        var seen = 0
        for index in range where bytes[index] >= 0x30 && bytes[index] <= 0x39 {
            seen += 1
            if seen > 5 { serial = serial * 10 + Int(bytes[index] - 0x30) }
        }
        return area != 0 && area != 666 && area < 900 && group != 0 && serial != 0
    }

    /// An IPv4 address with a prefix length, "10.0.0.0/8" (the run takes the "/8" in).
    var isIPv4WithPrefixLength: Bool {
        guard hasDot, hasDash, !hasSpace, !hasPlus, !hasParenthesis, groupCount == 5, (0..<4).allSatisfy({ length(ofGroup: $0) <= 3 })
        else { return false }
        var slash = range.upperBound - 1
        while slash > range.lowerBound && bytes[slash] != UInt8(ascii: "/") { slash -= 1 }
        let values = groupValues()
        return bytes[slash] == UInt8(ascii: "/") && slash > range.lowerBound && values.prefix(4).allSatisfy { $0 <= 255 }
            && values[4] <= 32 && bytes[range.lowerBound..<slash].allSatisfy { $0 == UInt8(ascii: ".") || ($0 >= 0x30 && $0 <= 0x39) }
    }

    /// Four dotted groups of 1–3 digits, each at most 255.
    var isIPv4Layout: Bool {
        guard hasDot, !hasSpace, !hasDash, !hasPlus, !hasParenthesis, groupCount == 4, digitCount <= 12 else { return false }
        return (0..<4).allSatisfy { length(ofGroup: $0) <= 3 } && groupValues().allSatisfy { $0 <= 255 }
    }

    /// North American layouts: (412) 555-0187, 412-555-0187, 412.555.0187, +1 412 555 0187,
    /// 1-800-555-0187, 4125550187, 14125550187.
    var hasNANPLayout: Bool {
        if groupCount == 1 || isDigitByDigit { return !hasPlus && (digitCount == 10 || (digitCount == 11 && prefix(1) == 1)) }
        if hasGroups([3, 3, 4]) { return !hasPlus }
        if hasGroups([1, 3, 3, 4]) { return prefix(1) == 1 }
        return false
    }

    /// Seven digits, 555-0187: a phone number only where the words around say so.
    var hasLocalLayout: Bool { hasGroups([3, 4]) && hasDash && !hasSpace && !hasDot && !hasPlus && !hasParenthesis }

    /// National layouts with no trunk "0" and no country code, nine to eleven digits in the
    /// groups those countries write: 3-3-3 and 3-2-2-2 (Spain, Poland's mobiles), 2-3-2-2
    /// (Polish landlines), 3-4-4 (Chinese mobiles), 2-4-4 and 3-3-4, or one run. The scrubber
    /// takes them only beside a telephone word, since a list of counts can look the same.
    var hasCuedNationalLayout: Bool {
        // "00" begins an international number or a lot number ("00-1234-5678"), never these.
        guard (9...11).contains(digitCount), hasOneSeparatorKind, !hasDot || groupCount == 1, prefix(2) != 0 else { return false }
        return groupCount == 1 || hasGroups([3, 3, 3]) || hasGroups([3, 2, 2, 2]) || hasGroups([2, 3, 2, 2])
            || hasGroups([3, 4, 4]) || hasGroups([2, 4, 4]) || hasGroups([3, 3, 4])
    }

    /// International (+ and 8–15 digits) and national layouts (9–12 digits, every group at least
    /// two digits, as in "03069 12345", "(02)55501234", "04 72 10 33 81", "52-5550-1234").
    var hasInternationalLayout: Bool {
        if hasPlus { return (8...15).contains(digitCount) && lastGroupLength >= 2 }
        if hasInternationalPrefix { return (10...17).contains(digitCount) && lastGroupLength >= 2 }
        if hasDot {
            // "412.555.0187"-like, or the French "01.42.68.53.00".
            return groupCount == 3 && shortestGroup >= 2 && (9...11).contains(digitCount)
                || hasGroups([2, 2, 2, 2, 2]) && prefix(1) == 0
        }
        guard (9...12).contains(digitCount) && shortestGroup >= 2 else { return false }
        // "00" starts an international number ("0044 …", taken above), never a national one:
        // "00-1234-5678" is a lot or order number.
        if prefix(2) == 0 { return false }
        // Without a trunk "0" or an area code in parentheses, only a short layout ending in four
        // or more digits ("21 3456-7890"), so a list like "112 115 118" stays a list.
        let first = bytes[range.lowerBound]
        return first == UInt8(ascii: "0") || first == UInt8(ascii: "(") || groupCount == 1
            || (groupCount <= 3 && lastGroupLength >= 4)
    }
}
