// The English ("Porter2") stemmer of the Snowball project, written by hand from the
// published algorithm and matched against Snowball 3.x (`snowballstemmer` 3.1.1,
// stemmer "english"). It includes the 3.x refinements: the extra R1 prefixes
// (arsen, commun, emerg, gener, inter, later, organ, past, univers), the
// "-ying" → "-ie" rule for short words (dying, lying, tying), the invariant
// "-ing" words (inning, outing, canning, herring, earring, evening), the "-eed"
// exceptions (proceed, exceed, succeed), "-ogist" → "-og" and "past" as a short
// syllable.

/// The Snowball English (Porter2) stemmer.
///
/// ```swift
/// let stemmer = EnglishStemmer()
/// stemmer.stem("generously")  // "generous"
/// stemmer.stem("hopping")     // "hop"
/// ```
///
/// Input is expected to be lower-cased and diacritic-folded already. Characters other
/// than `a`–`z` (digits, other letters) count as consonants, as in Snowball. Words of
/// at most two characters are returned unchanged.
public struct EnglishStemmer: Sendable {
    public init() {}

    /// `word` is already lower-cased and diacritic-folded; returns the stem.
    public func stem(_ word: String) -> String {
        if word.utf8.count <= 2 { return word }
        if let fast = word.utf8.withContiguousStorageIfAvailable({ Self.stemASCII($0) }),
           let stemmed = fast {
            return stemmed
        }
        return Self.stemScalars(word)
    }

    // MARK: Entry points

    /// Stems an ASCII word given as UTF-8 bytes; returns nil if a byte is not ASCII.
    private static func stemASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
        let count = bytes.count
        var i = 0
        while i < count {
            if bytes[i] >= 0x80 { return nil }
            i += 1
        }
        if count <= 2 { return String(decoding: bytes, as: UTF8.self) }
        if count <= 6, let form = exceptionalForm(bytes) { return form }
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count + 1) { tmp in
            let base = tmp.baseAddress!
            for j in 0..<count { base[j] = UInt32(bytes[j]) }
            var word = Porter2Word(base, count)
            word.run()
            let w = word.w
            let m = word.n
            return String(unsafeUninitializedCapacity: m) { out in
                for j in 0..<m { out[j] = UInt8(truncatingIfNeeded: w[j]) }
                return m
            }
        }
    }

    /// General path: works on Unicode scalars (also used for non-contiguous strings).
    private static func stemScalars(_ word: String) -> String {
        let count = word.unicodeScalars.count
        if count <= 2 { return word }
        if word.utf8.count == count {
            let bytes = Array(word.utf8)
            if let stemmed = bytes.withUnsafeBufferPointer({ stemASCII($0) }) { return stemmed }
        }
        // Non-ASCII: the exceptional forms are all ASCII, so none can match.
        return withUnsafeTemporaryAllocation(of: UInt32.self, capacity: count + 1) { tmp in
            let base = tmp.baseAddress!
            var j = 0
            for scalar in word.unicodeScalars {
                base[j] = scalar.value
                j += 1
            }
            var stemmed = Porter2Word(base, count)
            stemmed.run()
            var view = String.UnicodeScalarView()
            for k in 0..<stemmed.n {
                if let scalar = Unicode.Scalar(stemmed.w[k]) { view.append(scalar) }
            }
            return String(view)
        }
    }

    /// Whole words that Snowball treats specially before any other processing.
    private static func exceptionalForm(_ b: UnsafeBufferPointer<UInt8>) -> String? {
        @inline(__always) func equals(_ s: StaticString) -> Bool {
            let len = s.utf8CodeUnitCount
            guard len == b.count else { return false }
            let p = s.utf8Start
            for i in 0..<len where p[i] != b[i] { return false }
            return true
        }
        switch b.count {
        case 3:
            if equals("sky") { return "sky" }
        case 4:
            switch b[0] {
            case 0x62: if equals("bias") { return "bias" }
            case 0x68: if equals("howe") { return "howe" }
            case 0x69: if equals("idly") { return "idl" }
            case 0x6E: if equals("news") { return "news" }
            case 0x6F: if equals("only") { return "onli" }
            case 0x73: if equals("skis") { return "ski" }
            case 0x75: if equals("ugly") { return "ugli" }
            default: break
            }
        case 5:
            switch b[0] {
            case 0x61:
                if equals("andes") { return "andes" }
                if equals("atlas") { return "atlas" }
            case 0x65: if equals("early") { return "earli" }
            case 0x73: if equals("skies") { return "sky" }
            default: break
            }
        case 6:
            switch b[0] {
            case 0x63: if equals("cosmos") { return "cosmos" }
            case 0x67: if equals("gently") { return "gentl" }
            case 0x73: if equals("singly") { return "singl" }
            default: break
            }
        default:
            break
        }
        return nil
    }
}

// MARK: - Character classes

private enum Ch {
    static let apostrophe: UInt32 = 0x27
    static let upperY: UInt32 = 0x59
    static let a: UInt32 = 0x61
    static let c: UInt32 = 0x63
    static let d: UInt32 = 0x64
    static let e: UInt32 = 0x65
    static let i: UInt32 = 0x69
    static let l: UInt32 = 0x6C
    static let m: UInt32 = 0x6D
    static let n: UInt32 = 0x6E
    static let o: UInt32 = 0x6F
    static let r: UInt32 = 0x72
    static let s: UInt32 = 0x73
    static let t: UInt32 = 0x74
    static let y: UInt32 = 0x79
}

/// Bit k stands for the letter `a` + k.
@inline(__always)
private func inLetterSet(_ c: UInt32, _ mask: UInt32) -> Bool {
    let k = c &- 0x61
    return k < 26 && (mask >> k) & 1 != 0
}

/// a e i o u y
@inline(__always)
private func isVowel(_ c: UInt32) -> Bool {
    inLetterSet(c, 1 << 0 | 1 << 4 | 1 << 8 | 1 << 14 | 1 << 20 | 1 << 24)
}

/// a e i o u y w x, and the marked consonant Y.
@inline(__always)
private func isVowelWXY(_ c: UInt32) -> Bool {
    c == Ch.upperY || inLetterSet(c, 1 << 0 | 1 << 4 | 1 << 8 | 1 << 14 | 1 << 20 | 1 << 24 | 1 << 22 | 1 << 23)
}

/// Letters before which a final "li" may be deleted: c d e g h k m n r t.
@inline(__always)
private func isValidLI(_ c: UInt32) -> Bool {
    inLetterSet(c, 1 << 2 | 1 << 3 | 1 << 4 | 1 << 6 | 1 << 7 | 1 << 10 | 1 << 12 | 1 << 13 | 1 << 17 | 1 << 19)
}

// MARK: - The algorithm

/// A word being stemmed, held as Unicode scalar values in a scratch buffer.
/// All edits after the prelude happen at the end of the word, so the region
/// boundaries `p1` and `p2` stay valid. No step makes the word longer than it was.
private struct Porter2Word {
    var w: UnsafeMutablePointer<UInt32>
    var n: Int
    var p1 = 0
    var p2 = 0
    var yFound = false

    init(_ w: UnsafeMutablePointer<UInt32>, _ n: Int) {
        self.w = w
        self.n = n
    }

    mutating func run() {
        prelude()
        markRegions()
        step1a()
        step1b()
        step1c()
        step2()
        step3()
        step4()
        step5()
        if yFound {
            for k in 0..<n where w[k] == Ch.upperY { w[k] = Ch.y }
        }
    }

    // MARK: Helpers

    @inline(__always)
    func ends(_ suffix: StaticString) -> Bool {
        let len = suffix.utf8CodeUnitCount
        if len > n { return false }
        let p = suffix.utf8Start
        var k = len - 1
        var j = n - 1
        while k >= 0 {
            if w[j] != UInt32(p[k]) { return false }
            k -= 1
            j -= 1
        }
        return true
    }

    @inline(__always)
    func starts(_ prefix: StaticString) -> Bool {
        let len = prefix.utf8CodeUnitCount
        if len > n { return false }
        let p = prefix.utf8Start
        for k in 0..<len where w[k] != UInt32(p[k]) { return false }
        return true
    }

    /// True when `w[0..<len]` is exactly `s`.
    @inline(__always)
    func stemIs(_ s: StaticString, length len: Int) -> Bool {
        guard s.utf8CodeUnitCount == len, len <= n else { return false }
        let p = s.utf8Start
        for k in 0..<len where w[k] != UInt32(p[k]) { return false }
        return true
    }

    @inline(__always)
    func hasVowel(before end: Int) -> Bool {
        var k = 0
        while k < end {
            if isVowel(w[k]) { return true }
            k += 1
        }
        return false
    }

    /// Snowball's `shortv` tested at the end position `end`: the word part before
    /// `end` ends in non-vowel, vowel, non-vowel-other-than-w-x-Y; or is a vowel
    /// followed by a non-vowel at the start of the word; or ends in "past".
    @inline(__always)
    func endsShortSyllable(_ end: Int) -> Bool {
        if end >= 3 && !isVowelWXY(w[end - 1]) && isVowel(w[end - 2]) && !isVowel(w[end - 3]) {
            return true
        }
        if end == 2 && !isVowel(w[1]) && isVowel(w[0]) { return true }
        return end >= 4 && w[end - 4] == 0x70 && w[end - 3] == Ch.a && w[end - 2] == Ch.s && w[end - 1] == Ch.t
    }

    // MARK: Prelude and regions

    mutating func prelude() {
        if n > 0 && w[0] == Ch.apostrophe {
            w += 1
            n -= 1
        }
        if n > 0 && w[0] == Ch.y {
            w[0] = Ch.upperY
            yFound = true
        }
        var k = 0
        while k + 1 < n {
            if w[k + 1] == Ch.y && isVowel(w[k]) {
                w[k + 1] = Ch.upperY
                yFound = true
            }
            k += 1
        }
    }

    /// Position just after the first non-vowel that follows a vowel, searching from `start`.
    @inline(__always)
    func afterVowelThenConsonant(from start: Int) -> Int? {
        var k = start
        while k < n && !isVowel(w[k]) { k += 1 }
        if k >= n { return nil }
        k += 1
        while k < n && isVowel(w[k]) { k += 1 }
        if k >= n { return nil }
        return k + 1
    }

    func specialPrefixLength() -> Int? {
        guard n > 0 else { return nil }
        switch w[0] {
        case 0x61: return starts("arsen") ? 5 : nil
        case 0x63: return starts("commun") ? 6 : nil
        case 0x65: return starts("emerg") ? 5 : nil
        case 0x67: return starts("gener") ? 5 : nil
        case 0x69: return starts("inter") ? 5 : nil
        case 0x6C: return starts("later") ? 5 : nil
        case 0x6F: return starts("organ") ? 5 : nil
        case 0x70: return starts("past") ? 4 : nil
        case 0x75: return starts("univers") ? 7 : nil
        default: return nil
        }
    }

    mutating func markRegions() {
        p1 = n
        p2 = n
        let r1: Int
        if let k = specialPrefixLength() {
            r1 = k
        } else if let k = afterVowelThenConsonant(from: 0) {
            r1 = k
        } else {
            return
        }
        p1 = r1
        if let k = afterVowelThenConsonant(from: r1) { p2 = k }
    }

    // MARK: Step 1a: possessives and plurals

    mutating func step1a() {
        if ends("'s'") {
            n -= 3
        } else if ends("'s") {
            n -= 2
        } else if ends("'") {
            n -= 1
        }
        if ends("ies") || ends("ied") {
            // "i" after at least two letters, otherwise "ie" (ties → tie, cries → cri).
            n -= (n - 3 >= 2) ? 2 : 1
        } else if ends("sses") {
            n -= 2
        } else if ends("ss") || ends("us") {
            return
        } else if ends("s") {
            // Delete if a vowel occurs before the letter just before the s (gaps → gap, gas → gas).
            if n >= 3 && hasVowel(before: n - 2) { n -= 1 }
        }
    }

    // MARK: Step 1b: -eed, -ed, -ing

    mutating func step1b() {
        guard n >= 2 else { return }
        let last = w[n - 1]
        if last == 0x79 {  // y
            if ends("eedly") {
                eedSuffix(length: 5)
            } else if ends("edly") {
                removeVerbSuffix(length: 4)
            } else if ends("ingly") {
                removeVerbSuffix(length: 5)
            }
        } else if last == Ch.d {
            if ends("eed") {
                eedSuffix(length: 3)
            } else if ends("ed") {
                removeVerbSuffix(length: 2)
            }
        } else if last == 0x67 {  // g
            if ends("ing") { ingSuffix() }
        }
    }

    /// -eed, -eedly → -ee in R1, except for proceed, exceed, succeed.
    mutating func eedSuffix(length: Int) {
        let s = n - length
        guard s >= p1 else { return }
        if stemIs("succ", length: s) || stemIs("proc", length: s) || stemIs("exc", length: s) {
            return
        }
        n = s + 2
    }

    mutating func ingSuffix() {
        let s = n - 3
        if s == 2 && w[1] == Ch.y && !isVowel(w[0]) {
            // dying → die, lying → lie, tying → tie
            w[1] = Ch.i
            w[2] = Ch.e
            n = 3
            return
        }
        switch s {
        case 3:
            if stemIs("inn", length: 3) || stemIs("out", length: 3) { return }
        case 4:
            if stemIs("cann", length: 4) || stemIs("herr", length: 4)
                || stemIs("earr", length: 4) || stemIs("even", length: 4) { return }
        default:
            break
        }
        removeVerbSuffix(length: 3)
    }

    /// Deletes -ed, -edly, -ing, -ingly when the preceding part contains a vowel,
    /// then tidies the end of the stem.
    mutating func removeVerbSuffix(length: Int) {
        let s = n - length
        guard hasVowel(before: s) else { return }
        n = s
        guard n >= 2 else {
            if n == p1 && endsShortSyllable(n) { appendE() }
            return
        }
        let a = w[n - 2]
        let b = w[n - 1]
        // at → ate, bl → ble, iz → ize
        if (a == Ch.a && b == Ch.t) || (a == 0x62 && b == Ch.l) || (a == Ch.i && b == 0x7A) {
            appendE()
            return
        }
        // Double consonant: bb dd ff gg mm nn pp rr tt
        if a == b {
            switch b {
            case 0x62, Ch.d, 0x66, 0x67, Ch.m, Ch.n, 0x70, Ch.r, Ch.t:
                // Keep the double in three-letter words starting a/e/o (added → add, egged → egg).
                if n == 3 && (w[0] == Ch.a || w[0] == Ch.e || w[0] == Ch.o) { return }
                n -= 1
                return
            default:
                break
            }
        }
        // A short word gets an e back (hoped → hope).
        if n == p1 && endsShortSyllable(n) { appendE() }
    }

    @inline(__always)
    mutating func appendE() {
        w[n] = Ch.e
        n += 1
    }

    // MARK: Step 1c: y → i

    mutating func step1c() {
        guard n >= 3 else { return }
        let last = w[n - 1]
        if (last == Ch.y || last == Ch.upperY) && !isVowel(w[n - 2]) {
            w[n - 1] = Ch.i
        }
    }

    // MARK: Step 2

    mutating func step2() {
        guard n >= 3 else { return }
        switch w[n - 1] {
        case Ch.i:
            if w[n - 2] == Ch.l {
                if ends("lessli") { r1Replace(6, keep: 4) }                   // lessli → less
                else if ends("fulli") { r1Replace(5, keep: 3) }               // fulli → ful
                else if ends("ousli") { r1Replace(5, keep: 3) }               // ousli → ous
                else if ends("entli") { r1Replace(5, keep: 3) }               // entli → ent
                else if ends("abli") { r1Replace(4, keep: 3, thenE: true) }   // abli → able
                else if ends("alli") { r1Replace(4, keep: 2) }                // alli → al
                else if ends("bli") { r1Replace(3, keep: 2, thenE: true) }    // bli → ble
                else {
                    // li: delete after c d e g h k m n r t
                    let s = n - 2
                    if s >= p1 && s > 0 && isValidLI(w[s - 1]) { n = s }
                }
            } else if ends("biliti") {                                      // biliti → ble
                let s = n - 6
                if s >= p1 {
                    w[s + 1] = Ch.l
                    w[s + 2] = Ch.e
                    n = s + 3
                }
            } else if ends("aliti") { r1Replace(5, keep: 2) }               // aliti → al
            else if ends("iviti") { r1Replace(5, keep: 2, thenE: true) }    // iviti → ive
            else if ends("anci") || ends("enci") { r1Replace(4, keep: 3, thenE: true) }  // → ance, ence
            else if ends("ogi") {                                           // logi → log
                let s = n - 3
                if s >= p1 && s > 0 && w[s - 1] == Ch.l { n = s + 2 }
            }
        case Ch.l:
            if ends("ational") { r1Replace(7, keep: 2, thenE: true) }       // ational → ate
            else if ends("tional") { r1Replace(6, keep: 4) }                // tional → tion
        case Ch.m:
            if ends("alism") { r1Replace(5, keep: 2) }                      // alism → al
        case Ch.n:
            if ends("ization") { r1Replace(7, keep: 2, thenE: true) }       // ization → ize
            else if ends("ation") { r1Replace(5, keep: 2, thenE: true) }    // ation → ate
        case Ch.r:
            if ends("izer") { r1Replace(4, keep: 3) }                       // izer → ize
            else if ends("ator") { r1Replace(4, keep: 2, thenE: true) }     // ator → ate
        case Ch.s:
            if ends("iveness") { r1Replace(7, keep: 2, thenE: true) }       // iveness → ive
            else if ends("fulness") { r1Replace(7, keep: 3) }               // fulness → ful
            else if ends("ousness") { r1Replace(7, keep: 3) }               // ousness → ous
        case Ch.t:
            if ends("ogist") { r1Replace(5, keep: 2) }                      // ogist → og
        default:
            break
        }
    }

    /// If the suffix of `length` letters starts in R1, keeps its first `keep` letters,
    /// optionally followed by an "e".
    @inline(__always)
    mutating func r1Replace(_ length: Int, keep: Int, thenE: Bool = false) {
        let s = n - length
        guard s >= p1 else { return }
        n = s + keep
        if thenE { appendE() }
    }

    // MARK: Step 3

    mutating func step3() {
        guard n >= 3 else { return }
        switch w[n - 1] {
        case Ch.e:
            if ends("icate") { r1Replace(5, keep: 2) }                      // icate → ic
            else if ends("alize") { r1Replace(5, keep: 2) }                 // alize → al
            else if ends("ative") {                                         // ative → (R2) delete
                let s = n - 5
                if s >= p1 && s >= p2 { n = s }
            }
        case Ch.i:
            if ends("iciti") { r1Replace(5, keep: 2) }                      // iciti → ic
        case Ch.l:
            if ends("ational") { r1Replace(7, keep: 2, thenE: true) }       // ational → ate
            else if ends("tional") { r1Replace(6, keep: 4) }                // tional → tion
            else if ends("ical") { r1Replace(4, keep: 2) }                  // ical → ic
            else if ends("ful") { r1Replace(3, keep: 0) }                   // ful → delete
        case Ch.s:
            if ends("ness") { r1Replace(4, keep: 0) }                       // ness → delete
        default:
            break
        }
    }

    // MARK: Step 4

    mutating func step4() {
        guard n >= 2 else { return }
        var length = 0
        switch w[n - 1] {
        case Ch.c:
            if ends("ic") { length = 2 }
        case Ch.e:
            if ends("ance") || ends("ence") || ends("able") || ends("ible") { length = 4 }
            else if ends("ate") || ends("ive") || ends("ize") { length = 3 }
        case Ch.i:
            if ends("iti") { length = 3 }
        case Ch.l:
            if ends("al") { length = 2 }
        case Ch.m:
            if ends("ism") { length = 3 }
        case Ch.n:
            if ends("ion") {
                let s = n - 3
                if s >= p2 && s > 0 && (w[s - 1] == Ch.s || w[s - 1] == Ch.t) { n = s }
                return
            }
        case Ch.r:
            if ends("er") { length = 2 }
        case Ch.s:
            if ends("ous") { length = 3 }
        case Ch.t:
            if ends("ement") { length = 5 }
            else if ends("ment") { length = 4 }
            else if ends("ent") || ends("ant") { length = 3 }
        default:
            break
        }
        if length > 0 && n - length >= p2 { n -= length }
    }

    // MARK: Step 5

    mutating func step5() {
        guard n >= 1 else { return }
        let s = n - 1
        switch w[s] {
        case Ch.e:
            if s >= p2 || (s >= p1 && !endsShortSyllable(s)) { n = s }
        case Ch.l:
            if s >= p2 && s > 0 && w[s - 1] == Ch.l { n = s }
        default:
            break
        }
    }
}
