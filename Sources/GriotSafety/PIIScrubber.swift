#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import GriotText

public enum PIIType: String, Codable, Sendable, CaseIterable {
    case phone = "PHONE", email = "EMAIL", address = "ADDRESS", ssn = "SSN", creditCard = "CREDIT_CARD", ipv4 = "IPV4", ipv6 = "IPV6"
}

/// One piece of personal data found in a text.
public struct PIIMatch: Sendable, Equatable {
    public var type: PIIType
    /// UTF-16 offsets into the text.
    public var range: Range<Int>
    public var value: String

    public init(type: PIIType, range: Range<Int>, value: String) {
        self.type = type
        self.range = range
        self.value = value
    }
}

/// Finds and masks phone numbers, emails, street addresses, SSNs, card numbers and IPv4
/// addresses in model output, leaving alone the values the user shared in the thread.
///
///     let scrubber = try PIIScrubber()
///     let shared = scrubber.sharedKeys(in: userMessages)
///     let (text, masked) = scrubber.scrub(sentence, keeping: shared)
///
/// Two PCRE2 patterns, JIT-compiled once and shared read-only across threads, find candidates
/// (one for everything that starts with a digit, "+" or "(", one anchored at each "@"); plain
/// Swift then decides what a number run is from its layout, its digits (Luhn, SSN ranges,
/// octets) and the words around it. Each call makes its own match data.
public final class PIIScrubber: @unchecked Sendable {
    private let numbers: PIIRegex
    private let addresses: [PIIRegex]
    private let email: PIIRegex
    private let worded: [PIIRegex]
    private let wordedCues: [[UInt8]]
    /// House names before a comma ("Cottage"), and "Lieu-dit ".
    private let houseNames: [[UInt8]]
    private let lieuDit = Array("Lieu-dit ".utf8)

    public init() throws {
        numbers = try PIIRegex(PIIPatterns.numberRun)
        addresses = try PIIPatterns.startingAddresses.map { try PIIRegex($0, anchored: true) }
        email = try PIIRegex(PIIPatterns.email)
        worded = try PIIPatterns.wordedAddresses.map { try PIIRegex($0) }
        wordedCues = PIIPatterns.wordedAddressCues.map { Array($0.lowercased().utf8) }
        houseNames = PIIPatterns.houseNames.map { Array($0.utf8) }
    }

    /// Every PII value in `text`, sorted by start, non-overlapping. The patterns read the text's
    /// normalised view (`NormalizedText.Options.pii`: full-width and Arabic-Indic digits, zero-width
    /// characters, "at … dot", spelled-out digits); ranges and values are the original's.
    public func matches(in text: String) -> [PIIMatch] {
        withUTF8(text) { bytes in
            let found = candidates(in: text, bytes: bytes)
            return Self.publicMatches(found, in: bytes)
        }
    }

    /// Candidates as byte ranges of `text` (whose UTF-8 is `bytes`), found on its normalised view.
    private func candidates(in text: String, bytes: UnsafeBufferPointer<UInt8>) -> [Candidate] {
        let view = NormalizedText(text, options: .pii)
        if view.isUnchanged { return scan(bytes) }
        return Self.original(withUTF8(view.text) { scan($0) }, of: view)
    }

    /// Candidates found on a view, moved back onto its original: a span touching a rewritten
    /// character covers all of it; spans that then touch are merged.
    private static func original(_ found: [Candidate], of view: NormalizedText) -> [Candidate] {
        var mapped: [Candidate] = []
        mapped.reserveCapacity(found.count)
        for candidate in found {
            var range = view.originalUTF8Range(of: candidate.range)
            if let last = mapped.last, last.range.upperBound > range.lowerBound {
                range = min(last.range.lowerBound, range.lowerBound)..<max(last.range.upperBound, range.upperBound)
                mapped[mapped.count - 1].range = range
                continue
            }
            mapped.append(Candidate(type: candidate.type, range: range))
        }
        return mapped
    }

    /// Replaces every match whose key is not in `shared` with "[PHONE]", "[EMAIL]", ... ; returns
    /// the new text and what was masked.
    public func scrub(_ text: String, keeping shared: Set<String> = []) -> (text: String, masked: [PIIMatch]) {
        withUTF8(text) { bytes in
            let found = candidates(in: text, bytes: bytes)
            if found.isEmpty { return (text, []) }
            let all = Self.publicMatches(found, in: bytes)
            var masked: [PIIMatch] = []
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            var cursor = 0
            for (candidate, match) in zip(found, all) where shared.isEmpty || !shared.contains(Self.key(match)) {
                output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[cursor..<candidate.range.lowerBound]))
                output.append(contentsOf: "[\(match.type.rawValue)]".utf8)
                cursor = candidate.range.upperBound
                masked.append(match)
            }
            if masked.isEmpty { return (text, []) }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[cursor...]))
            return (String(decoding: output, as: UTF8.self), masked)
        }
    }

    /// A normalised key for a value (digits only for phone/SSN/card, with a leading US "1"
    /// dropped for 11-digit NANP; lowercased email; address lowercased with runs of
    /// spaces/commas/newlines collapsed), so the same number written another way matches. The
    /// key is taken from the value's normalised view, so "５５５‑０１８７" and "555-0187" are one value.
    public static func key(_ match: PIIMatch) -> String {
        let value = NormalizedText(match.value, options: .pii).text
        switch match.type {
        case .phone, .ssn, .creditCard:
            var digits = value.unicodeScalars.filter { $0.properties.numericType == .decimal && $0.isASCII }
            if match.type == .phone && digits.count == 11 && digits.first == "1" { digits.removeFirst() }
            return String(String.UnicodeScalarView(digits))
        case .email, .ipv4, .ipv6:
            return value.lowercased()
        case .address:
            var key = ""
            var pendingSpace = false
            for character in value.lowercased() {
                if character == " " || character == "," || character.isNewline || character == "\t" {
                    pendingSpace = !key.isEmpty
                } else {
                    if pendingSpace { key.append(" ") }
                    pendingSpace = false
                    key.append(character)
                }
            }
            return key
        }
    }

    /// Keys of every PII value in `text` (what the user wrote in this thread), to pass as `keeping`.
    public func sharedKeys(in text: String) -> Set<String> {
        Set(matches(in: text).map(Self.key))
    }

    // MARK: - Scanning

    struct Candidate {
        var type: PIIType
        var range: Range<Int>  // UTF-8 byte offsets
    }

    private func withUTF8<R>(_ text: String, _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if let result = text.utf8.withContiguousStorageIfAvailable(body) { return result }
        var copy = text
        return copy.withUTF8(body)
    }

    /// Finds every match as byte ranges, sorted and non-overlapping.
    func scan(_ bytes: UnsafeBufferPointer<UInt8>) -> [Candidate] {
        var found: [Candidate] = []
        scanNumeric(bytes, into: &found)
        let beforeEmails = found.count
        scanEmails(bytes, into: &found)
        scanWordedAddresses(bytes, into: &found)
        scanIPv6(bytes, into: &found)
        // Emails, worded addresses and IPv6 are appended after the numbers, each list in text
        // order: with two or more lists it is the merge that restores the text's order. Values
        // that overlap are one value ("Unit 3, " before a street the numeric pattern found,
        // "::ffff:" before an IPv4 address), of the longer one's type.
        if found.count > beforeEmails && found.count > 1 {
            found.sort { $0.range.lowerBound < $1.range.lowerBound }
            var kept: [Candidate] = []
            for candidate in found {
                guard let last = kept.last, last.range.upperBound > candidate.range.lowerBound else {
                    kept.append(candidate)
                    continue
                }
                let union = last.range.lowerBound..<max(last.range.upperBound, candidate.range.upperBound)
                let type = candidate.range.count > last.range.count ? candidate.type : last.type
                kept[kept.count - 1] = Candidate(type: type, range: union)
            }
            found = kept
        }
        return found
    }

    /// IPv6 addresses ("2001:db8::1", "fe80::1ff:fe23:4567:890a", "::ffff:192.0.2.128"): each run
    /// of hex digits, colons and dots around a colon, standing alone as a word, that the C
    /// library parses as one. "12:30:45", "std::vector" and a MAC address do not parse or do
    /// not stand alone.
    private func scanIPv6(_ bytes: UnsafeBufferPointer<UInt8>, into found: inout [Candidate]) {
        guard let base = bytes.baseAddress else { return }
        var offset = 0
        var address = in6_addr()
        while offset < bytes.count, let colon = memchr(base + offset, Int32(UInt8(ascii: ":")), bytes.count - offset) {
            let at = base.distance(to: colon.assumingMemoryBound(to: UInt8.self))
            var start = at, end = at + 1
            while start > 0 && Self.isIPv6Byte(bytes[start - 1]) { start -= 1 }
            while end < bytes.count && Self.isIPv6Byte(bytes[end]) { end += 1 }
            offset = end
            while end > start && bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
            guard end - start >= 3, end - start <= 45,
                  start == 0 || !Self.isWordByte(bytes[start - 1]),
                  end == bytes.count || !Self.isWordByte(bytes[end]) else { continue }
            var colons = 0
            for index in start..<end where bytes[index] == UInt8(ascii: ":") { colons += 1 }
            guard colons >= 2 else { continue }
            var text = [CChar](repeating: 0, count: end - start + 1)
            for index in start..<end { text[index - start] = CChar(bitPattern: bytes[index]) }
            if inet_pton(AF_INET6, text, &address) == 1 { found.append(Candidate(type: .ipv6, range: start..<end)) }
        }
    }

    private static func isIPv6Byte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x3A) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x66) || byte == UInt8(ascii: ".")
    }

    /// Post office boxes and German streets: they start with a word, so their pattern runs only
    /// on text where a number follows a word that may end such a street (`hasWordedAddressCue`).
    private func scanWordedAddresses(_ bytes: UnsafeBufferPointer<UInt8>, into found: inout [Candidate]) {
        // The patterns in `PIIPatterns.wordedAddresses`' order: the cued ones, a unit before the
        // street, a house name before it; each run only where its cue is.
        let cued = Self.hasWordedAddressCue(bytes, cues: wordedCues) || Self.contains(lieuDit, in: bytes)
        let named = Self.hasWordBeforeComma(houseNames, in: bytes)
        for (index, pattern) in worded.enumerated() where index == 2 ? named : cued {
            let data = pattern.makeMatchData()
            var offset = 0
            while offset < bytes.count, let (range, _) = pattern.firstMatch(in: bytes, from: offset, data: data) {
                offset = max(range.upperBound, range.lowerBound + 1)
                if range.lowerBound == 0 || !Self.isWordByte(bytes[range.lowerBound - 1]) {
                    found.append(Candidate(type: .address, range: range))
                }
            }
        }
    }

    /// Whether one of `words` stands just before a comma ("Rose Cottage, Church Lane").
    static func hasWordBeforeComma(_ words: [[UInt8]], in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        var offset = 0
        while offset < bytes.count, let hit = memchr(base + offset, Int32(UInt8(ascii: ",")), bytes.count - offset) {
            let comma = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            offset = comma + 1
            for word in words where word.count <= comma {
                var equal = true
                for (index, byte) in word.enumerated() where bytes[comma - word.count + index] != byte { equal = false; break }
                if equal { return true }
            }
        }
        return false
    }

    /// Whether `mark` occurs in the text.
    static func contains(_ mark: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, let first = mark.first else { return false }
        var offset = 0
        while offset + mark.count <= bytes.count,
              let hit = memchr(base + offset, Int32(first), bytes.count - offset - mark.count + 1) {
            let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var equal = true
            for index in 1..<mark.count where bytes[at + index] != mark[index] { equal = false; break }
            if equal { return true }
            offset = at + 1
        }
        return false
    }

    /// A number after a word ending in one of `cues` ("Box 1187", "Lindenstraße 12", "Am
    /// Marktplatz 3"), or after a capitalised word that follows "Am", "Im", "Zum" ... ("Am Markt 3").
    static func hasWordedAddressCue(_ bytes: UnsafeBufferPointer<UInt8>, cues: [[UInt8]]) -> Bool {
        var index = 1
        while index < bytes.count {
            defer { index += 1 }
            guard bytes[index] &- 0x30 < 10, bytes[index - 1] == 0x20 else { continue }
            // The word before the space.
            let end = index - 1
            var start = end
            while start > 0, isWordByte(bytes[start - 1]) || bytes[start - 1] == UInt8(ascii: ".") { start -= 1 }
            guard end > start else { continue }
            for cue in cues where cue.count <= end - start {
                var equal = true
                for (offset, expected) in cue.enumerated() {
                    let byte = bytes[end - cue.count + offset]
                    if (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte) != expected { equal = false; break }
                }
                if equal { return true }
            }
            // "Am Markt 3": a German preposition two words back.
            if bytes[start] >= 0x41 && bytes[start] <= 0x5A, start >= 4, bytes[start - 1] == 0x20 {
                var previous = start - 1
                while previous > 0, isWordByte(bytes[previous - 1]) { previous -= 1 }
                let word = String(decoding: UnsafeBufferPointer(rebasing: bytes[previous..<start - 1]), as: UTF8.self)
                if ["Am", "Im", "Zum", "Zur", "der", "dem", "den"].contains(word) { return true }
            }
        }
        return false
    }

    private func scanNumeric(_ bytes: UnsafeBufferPointer<UInt8>, into found: inout [Candidate]) {
        // Most sentences of a reply hold no digit: skip them without making match data.
        guard var offset = bytes.firstIndex(where: { ($0 &- 0x30) < 10 }) else { return }
        if offset > 0 && (bytes[offset - 1] == UInt8(ascii: "+") || bytes[offset - 1] == UInt8(ascii: "(")) { offset -= 1 }
        var data: PIIRegex.MatchData?
        var addressData: [PIIRegex.MatchData?] = []
        runs: while offset < bytes.count {
            let matchData = data ?? numbers.makeMatchData()
            data = matchData
            guard let (range, _) = numbers.firstMatch(in: bytes, from: offset, data: matchData) else { break }
            // An address starts at the run's first digit ("(" and "+" start only numbers).
            var digit = range.lowerBound
            while digit < range.upperBound && bytes[digit] &- 0x30 >= 10 { digit += 1 }
            for (index, pattern) in addresses.enumerated() where Self.mayStartAddress(at: digit, in: bytes) {
                if addressData.isEmpty { addressData = Array(repeating: nil, count: addresses.count) }
                let patternData = addressData[index] ?? pattern.makeMatchData()
                addressData[index] = patternData
                guard let (address, _) = pattern.firstMatch(in: bytes, from: digit, anchored: true, data: patternData),
                      address.lowerBound == digit else { continue }
                offset = max(address.upperBound, range.lowerBound + 1)
                if let candidate = judge(address, isAddress: true, in: bytes) { found.append(candidate) }
                continue runs
            }
            offset = max(range.upperBound, range.lowerBound + 1)
            if let candidate = judge(range, isAddress: false, in: bytes) { found.append(candidate) }
        }
    }

    /// Whether a street may start at this digit: the house number ("12", "221B", "305-1120",
    /// "8,") is followed by a space and a letter. Card, phone and ID runs go on with a digit and
    /// skip the address patterns.
    private static func mayStartAddress(at digit: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = digit
        func skipDigits() { while index < bytes.count && bytes[index] &- 0x30 < 10 { index += 1 } }
        skipDigits()
        if index + 1 < bytes.count, bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "/"),
           bytes[index + 1] &- 0x30 < 10 {
            index += 1
            skipDigits()
        }
        if index < bytes.count, bytes[index] | 0x20 &- 0x61 < 26 { index += 1 }
        if index < bytes.count, bytes[index] == UInt8(ascii: ",") { index += 1 }
        guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: " ") else { return false }
        let next = bytes[index + 1]
        return next | 0x20 &- 0x61 < 26 || next >= 0x80
    }

    /// Decides one candidate of the numeric pattern: an address (its group 1) or a number run.
    private func judge(_ range: Range<Int>, isAddress: Bool, in bytes: UnsafeBufferPointer<UInt8>) -> Candidate? {
        if isAddress {
            guard Self.startsCleanly(range.lowerBound, in: bytes) else { return nil }
            return Self.isYearPhrase(range.lowerBound, in: bytes) ? nil : Candidate(type: .address, range: range)
        }
        // "(172.16.3.40)": the parenthesis the run took in opens an aside, not an area code.
        if bytes[range.lowerBound] == UInt8(ascii: "("), range.count > 1,
           !bytes[range].contains(UInt8(ascii: ")")) {
            return judge(range.lowerBound + 1..<range.upperBound, isAddress: false, in: bytes)
        }
        let shape = PIINumberShape(bytes: bytes, range: range)
        // "ip=198.51.100.77": a key and "=" before an IPv4 address, as in a log line.
        guard Self.startsCleanly(range.lowerBound, in: bytes)
            || bytes[range.lowerBound - 1] == UInt8(ascii: "=") && shape.isIPv4Layout else { return nil }
        if shape.isIPv4WithPrefixLength, Self.endsCleanly(range.upperBound, in: bytes) {
            // "10.0.0.0/8": the address is masked, the prefix length stays.
            let slash = bytes[range].lastIndex(of: UInt8(ascii: "/"))!
            return Candidate(type: .ipv4, range: range.lowerBound..<slash)
        }
        // An IPv4 address may carry a port, a prefix length or a path ("10.0.0.1:8080",
        // "10.0.0.0/8", "http://10.0.0.1/admin").
        guard Self.endsCleanly(range.upperBound, in: bytes) || shape.isIPv4Layout && Self.endsAddressInURL(range.upperBound, in: bytes),
              let type = classify(shape) else { return nil }
        return Candidate(type: type, range: range)
    }

    /// The same decisions on candidates another regex engine found with `PIIPatterns` (the
    /// benchmark's NSRegularExpression peer): `numeric` are successive matches of
    /// `PIIPatterns.numeric` and `emails` anchored matches of `PIIPatterns.email`, as UTF-8
    /// byte ranges of `text`.
    /// The ranges are of `view.text` (the peer runs on the same normalised view); the matches
    /// are the original's.
    @_spi(Benchmark)
    public func matches(in view: NormalizedText, numeric: [(range: Range<Int>, isAddress: Bool)],
                        emails: [Range<Int>]) -> [PIIMatch] {
        let kept = withUTF8(view.text) { bytes in
            var found = numeric.compactMap { judge($0.range, isAddress: $0.isAddress, in: bytes) }
            found += emails.map { Candidate(type: .email, range: $0) }
            found.sort { $0.range.lowerBound < $1.range.lowerBound }
            var kept: [Candidate] = []
            for candidate in found where kept.last.map({ $0.range.upperBound <= candidate.range.lowerBound }) ?? true {
                kept.append(candidate)
            }
            return kept
        }
        let original = view.isUnchanged ? kept : Self.original(kept, of: view)
        return withUTF8(view.original) { Self.publicMatches(original, in: $0) }
    }

    /// Where the local part of an email ending just before the "@" at `atIndex` starts, or nil.
    /// Both engines walk back from each "@" the same way.
    @_spi(Benchmark)
    public static func emailStart(before atIndex: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        var start = atIndex
        while start > 0 && isLocalPartByte(bytes[start - 1]) {
            // A letter outside ASCII belongs to the local part when it is one of a cased script
            // ("łukasiewicz"); Chinese or Arabic words written against the address do not.
            if bytes[start - 1] >= 0x80 {
                var lead = start - 1
                while lead > 0 && bytes[lead] & 0xC0 == 0x80 && start - lead < 4 { lead -= 1 }
                guard isCasedLetter(startingAt: lead, in: bytes) else { break }
                start = lead
                continue
            }
            start -= 1
        }
        while start < atIndex && bytes[start] == UInt8(ascii: ".") { start += 1 }
        return start < atIndex ? start : nil
    }

    private func scanEmails(_ bytes: UnsafeBufferPointer<UInt8>, into found: inout [Candidate]) {
        guard let base = bytes.baseAddress else { return }
        var data: PIIRegex.MatchData?
        var offset = 0
        while offset < bytes.count, let at = memchr(base + offset, Int32(UInt8(ascii: "@")), bytes.count - offset) {
            let atIndex = base.distance(to: at.assumingMemoryBound(to: UInt8.self))
            offset = atIndex + 1
            guard let start = Self.emailStart(before: atIndex, in: bytes) else { continue }
            let matchData = data ?? email.makeMatchData()
            data = matchData
            if let (range, _) = email.firstMatch(in: bytes, from: start, anchored: true, data: matchData) {
                found.append(Candidate(type: .email, range: range))
                offset = range.upperBound
            }
        }
    }

    /// What a number run is, from its layout, its digits and the words around it; nil when it
    /// is none of ours (a date, version, ISBN, price or count) or fails its check.
    func classify(_ shape: PIINumberShape) -> PIIType? {
        // Read out ("10 . 0 . 0 . 42") or defanged ("203.0.113[.]45"): only an IPv4 address is
        // written so.
        if shape.hasSpacedOrBracketedDot { return shape.isIPv4Layout ? .ipv4 : nil }
        if shape.isIPv4WithPrefixLength { return .ipv4 }
        if shape.isIPv4Layout {
            return Self.hasVersionCue(before: shape.range.lowerBound, in: shape.bytes) ? nil : .ipv4
        }
        if shape.hasCardLayout {
            // A card-shaped number that fails its issuer or Luhn check is a tracking or account
            // number, not a shorter phone number.
            return shape.hasCardIssuerPrefix && shape.passesLuhn ? .creditCard : nil
        }
        if shape.hasSSNLayout {
            if shape.isValidSSN { return .ssn }
            if shape.groupCount > 1 { return nil }
        }
        if shape.hasNANPLayout && !shape.hasDot { return .phone }
        if shape.hasLocalLayout {
            return Self.hasPhoneCue(around: shape.range, in: shape.bytes) ? .phone : nil
        }
        // Spanish, Polish, Chinese and Egyptian numbers have no trunk "0" ("912 34 56 78",
        // "601-234-567", "22 123 45 67", "138 0013 8000"): phones where the words around say so.
        if shape.hasCuedNationalLayout, Self.hasPhoneCue(around: shape.range, in: shape.bytes) { return .phone }
        if shape.hasInternationalLayout {
            if shape.hasDot && !shape.hasPlus && Self.hasVersionCue(before: shape.range.lowerBound, in: shape.bytes) { return nil }
            return .phone
        }
        return nil
    }

    // MARK: - Context

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte | 0x20 >= 0x61 && byte | 0x20 <= 0x7A) || byte == 0x5F || byte >= 0x80
    }

    private static func isLocalPartByte(_ byte: UInt8) -> Bool {
        isWordByte(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "%")
            || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }

    /// A candidate must not begin inside a word, a price ("$40", "£3"), a time or verse ("8:15",
    /// "23:4"), a date ("06/09"), a version ("v1.2"), a thousands group ("8,412") or an email.
    private static func startsCleanly(_ start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard start > 0 else { return true }
        let previous = bytes[start - 1]
        if previous >= 0x80 { return !isCasedLetter(endingAt: start, in: bytes) }
        if isWordByte(previous) { return false }
        let afterDigit = start > 1 && bytes[start - 2] >= 0x30 && bytes[start - 2] <= 0x39
        switch previous {
        case UInt8(ascii: "."), UInt8(ascii: "$"), UInt8(ascii: "-"), UInt8(ascii: "@"), UInt8(ascii: "#"),
             UInt8(ascii: "+"), UInt8(ascii: "="):
            return false
        case UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "/"):
            // "8,412", "23:4", "06/09/1968"; but "tel:" or "and/or" may well precede a number.
            return !afterDigit
        default:
            return true
        }
    }

    /// A number run must not continue into a word, a time, a fraction or date ("06/09"), a
    /// thousands group, a percentage or an ISBN's check letter ("…-X").
    private static func endsCleanly(_ end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard end < bytes.count else { return true }
        let next = bytes[end]
        if next >= 0x80 { return !isCasedLetter(startingAt: end, in: bytes) }
        if isWordByte(next) { return false }
        switch next {
        case UInt8(ascii: "/"), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "%"):
            return false
        case UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: ","):
            // "8,412" or "v1.2-beta" go on; a Chinese full stop or comma ("。", "，", read as "."
            // and ",") before the next Chinese word ends the number.
            guard end + 1 < bytes.count else { return true }
            let after = bytes[end + 1]
            return after >= 0x80 ? !isCasedLetter(startingAt: end + 1, in: bytes) : !isWordByte(after)
        default:
            return true
        }
    }

    /// Whether the character before `end` (or from `start`) is a letter of a script with case
    /// (Latin, Greek, Cyrillic): "é1234" is one word. Chinese, Japanese and Arabic write numbers
    /// against their words ("电话13800138000", "رقمي٠١٠…"), and full-width punctuation ("：")
    /// is punctuation, so those are boundaries.
    private static func isCasedLetter(endingAt end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var start = end - 1
        while start > 0 && bytes[start] & 0xC0 == 0x80 && end - start < 4 { start -= 1 }
        return isCasedLetter(startingAt: start, in: bytes)
    }

    private static func isCasedLetter(startingAt start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let lead = bytes[start]
        let length = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC0 ? 2 : 1
        guard start + length <= bytes.count, length > 1 else { return true }
        var value = UInt32(lead) & (length == 2 ? 0x1F : length == 3 ? 0x0F : 0x07)
        for index in (start + 1)..<(start + length) { value = value << 6 | UInt32(bytes[index] & 0x3F) }
        guard let scalar = Unicode.Scalar(value) else { return true }
        return scalar.properties.isAlphabetic && scalar.properties.changesWhenCaseMapped
    }

    /// After an IPv4 address: a port or prefix length, or a URL's path ("/admin", "/").
    private static func endsAddressInURL(_ end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        if hasPortOrPrefix(at: end, in: bytes) { return true }
        return end < bytes.count && bytes[end] == UInt8(ascii: "/") && (end + 1 == bytes.count || !(bytes[end + 1] >= 0x30 && bytes[end + 1] <= 0x39))
    }

    private static func hasPortOrPrefix(at end: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard end + 1 < bytes.count, bytes[end] == UInt8(ascii: ":") || bytes[end] == UInt8(ascii: "/") else { return false }
        var index = end + 1
        while index < bytes.count && bytes[index] >= 0x30 && bytes[index] <= 0x39 { index += 1 }
        return index > end + 1 && (index == bytes.count || !isWordByte(bytes[index]))
    }

    /// "in 1948 Main Street flooded": a year after "in", "of" or "since" is not a house number.
    private static func isYearPhrase(_ start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard start + 4 < bytes.count, bytes[start + 4] == UInt8(ascii: " ") else { return false }
        var year = 0
        for index in start..<start + 4 { year = year * 10 + Int(bytes[index]) - 0x30 }
        guard (1700...2099).contains(year) else { return false }
        return hasAnyWord(["in", "of", "since"], in: bytes,
                          window: max(0, start - 7)..<start, wholeWord: true)
    }

    static let versionCues = ["version", "firmware", "release", "build", "update", "upgrade", "patch"]
    /// In English, and in the languages of issue 23's measurement (Spanish, French, German,
    /// Polish, Chinese, Arabic): a prefix of the word is enough ("telefon" finds "telefonu").
    static let phoneCues = ["call", "dial", "number", "phone", "cell", "text", "ring", "reach", "tel", "fax",
                            "mobile", "contact", "extension",
                            "teléfono", "telefono", "llam", "móvil", "movil", "celular", "número", "numero", "whatsapp",
                            "téléphone", "portable", "numéro", "appel", "joindre",
                            "telefon", "handy", "nummer", "ruf", "anruf", "erreich",
                            "komórk", "komork", "numer", "zadzwo", "dzwo",
                            "电话", "手机", "号码", "打给", "联系",
                            "هاتف", "رقم", "اتصل", "جوال", "موبايل", "تلفون"]

    /// Software words just before a dotted number, in the same sentence: "version 3.2.0.7" is
    /// not an IP address.
    static func hasVersionCue(before start: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var windowStart = start
        while windowStart > max(0, start - 32) {
            let byte = bytes[windowStart - 1]
            if byte == UInt8(ascii: ".") || byte == UInt8(ascii: "!") || byte == UInt8(ascii: "?")
                || byte == UInt8(ascii: ";") || byte == UInt8(ascii: "\n") { break }
            windowStart -= 1
        }
        return hasAnyWord(versionCues, in: bytes, window: windowStart..<start, wholeWord: false)
    }

    /// Telephone words near a seven-digit number: "call me at 555-0187", "her number was …".
    static func hasPhoneCue(around range: Range<Int>, in bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        hasAnyWord(phoneCues, in: bytes, window: max(0, range.lowerBound - 48)..<range.lowerBound, wholeWord: false)
            || hasAnyWord(phoneCues, in: bytes, window: range.upperBound..<min(bytes.count, range.upperBound + 48),
                          wholeWord: false)
    }

    /// Whether any of `words` (lowercase ASCII) starts a word inside `window`, case-insensitively.
    private static func hasAnyWord(_ words: [String], in bytes: UnsafeBufferPointer<UInt8>, window: Range<Int>,
                                   wholeWord: Bool) -> Bool {
        for word in words {
            let pattern = Array(word.utf8)
            guard pattern.count <= window.count else { continue }
            var start = window.lowerBound
            while start + pattern.count <= window.upperBound {
                defer { start += 1 }
                if start > 0 && isWordByte(bytes[start - 1]) && bytes[start - 1] < 0x80 { continue }
                var equal = true
                for (offset, expected) in pattern.enumerated() {
                    let byte = bytes[start + offset]
                    let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
                    if lower != expected { equal = false; break }
                }
                guard equal else { continue }
                let end = start + pattern.count
                if !wholeWord || end >= bytes.count || !isWordByte(bytes[end]) { return true }
            }
        }
        return false
    }

    // MARK: - Offsets

    /// Turns byte ranges into UTF-16 ranges and values in one walk over the text.
    private static func publicMatches(_ found: [Candidate], in bytes: UnsafeBufferPointer<UInt8>) -> [PIIMatch] {
        var result: [PIIMatch] = []
        result.reserveCapacity(found.count)
        var byteOffset = 0
        var utf16Offset = 0
        func advance(to target: Int) {
            while byteOffset < target {
                let byte = bytes[byteOffset]
                if byte < 0x80 || byte >= 0xC0 { utf16Offset += byte >= 0xF0 ? 2 : 1 }
                byteOffset += 1
            }
        }
        for candidate in found {
            advance(to: candidate.range.lowerBound)
            let start = utf16Offset
            advance(to: candidate.range.upperBound)
            let value = String(decoding: UnsafeBufferPointer(rebasing: bytes[candidate.range]), as: UTF8.self)
            result.append(PIIMatch(type: candidate.type, range: start..<utf16Offset, value: value))
        }
        return result
    }
}
