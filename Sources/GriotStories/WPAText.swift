import Foundation
import GriotText

// MARK: - Text helpers

enum WPAText {
    static let usStates = [
        "Alabama", "Alaska", "Arizona", "Arkansas", "California", "Colorado", "Connecticut", "Delaware", "Florida",
        "Georgia", "Hawaii", "Idaho", "Illinois", "Indiana", "Iowa", "Kansas", "Kentucky", "Louisiana", "Maine",
        "Maryland", "Massachusetts", "Michigan", "Minnesota", "Mississippi", "Missouri", "Montana", "Nebraska",
        "Nevada", "New Hampshire", "New Jersey", "New Mexico", "New York", "North Carolina", "North Dakota", "Ohio",
        "Oklahoma", "Oregon", "Pennsylvania", "Rhode Island", "South Carolina", "South Dakota", "Tennessee", "Texas",
        "Utah", "Vermont", "Virginia", "Washington", "West Virginia", "Wisconsin", "Wyoming",
    ]

    static let stateAliases: [String: [String]] = [
        "Alabama": ["Ala."], "Arkansas": ["Ark."], "Florida": ["Fla."], "Georgia": ["Ga."], "Indiana": ["Ind."],
        "Kentucky": ["Ky."], "Louisiana": ["La."], "Mississippi": ["Miss."], "Missouri": ["Missiouri", "Mo."],
        "North Carolina": ["N.C.", "N. C."], "Oklahoma": ["Okla."], "South Carolina": ["S.C.", "S. C."],
        "Tennessee": ["Tenn."], "Texas": ["Tex."], "Virginia": ["Va."],
    ]

    static func usState(named raw: String) -> String? {
        let key = raw.lowercased().trimmingCharacters(in: .whitespaces)
        return usStates.first { $0.lowercased() == key }
    }

    static func aliases(of state: String) -> [String] { [state, state.uppercased()] + (stateAliases[state] ?? []) }

    static func containsStateAlias(_ text: String, state: String) -> Bool {
        aliases(of: state).contains { text.contains($0) }
    }

    // MARK: Basic string work

    static func trim(_ s: String) -> String {
        let utf8 = s.utf8
        guard let first = utf8.first, let last = utf8.last else { return s }
        if first != 32, first != 9, last != 32, last != 9 { return s }
        var start = utf8.startIndex
        var end = utf8.endIndex
        while start < end, utf8[start] == 32 || utf8[start] == 9 { start = utf8.index(after: start) }
        while end > start, utf8[utf8.index(before: end)] == 32 || utf8[utf8.index(before: end)] == 9 { end = utf8.index(before: end) }
        return String(s[start..<end])
    }

    /// The lines of a text without BOM, with CRLF, CR or LF endings, trailing blanks removed.
    static func lines(of text: String) -> [String] {
        var text = text
        return text.withUTF8 { bytes -> [String] in
            var lines: [String] = []
            var index = 0
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
            var lineStart = index
            func finish(_ lineEnd: Int) {
                var end = lineEnd
                while end > lineStart, bytes[end - 1] == 32 || bytes[end - 1] == 9 { end -= 1 }
                lines.append(String(decoding: UnsafeBufferPointer(rebasing: bytes[lineStart..<end]), as: UTF8.self))
            }
            while index < bytes.count {
                let byte = bytes[index]
                if byte == 10 {
                    finish(index)
                    lineStart = index + 1
                } else if byte == 13 {
                    finish(index)
                    if index + 1 < bytes.count, bytes[index + 1] == 10 { index += 1 }
                    lineStart = index + 1
                }
                index += 1
            }
            if lineStart < bytes.count { finish(bytes.count) }
            return lines
        }
    }

    static func trimPunctuation(_ s: String) -> String {
        s.trimmingCharacters(in: CharacterSet(charactersIn: " \t.,;:*_=").union(.whitespaces))
    }

    static func isAllCaps(_ s: String) -> Bool {
        s.contains { $0.isLetter } && !s.contains { $0.isLowercase }
    }

    /// Removes `*italic*`, `_italic_` and `=bold=` wrappers, keeping the words.
    static func stripMarkup(_ text: String) -> String {
        guard text.contains(where: { $0 == "*" || $0 == "_" || $0 == "=" }) else { return text }
        var chars = Array(text)
        for marker: Character in ["_", "=", "*"] where chars.contains(marker) {
            chars = stripPairs(chars, marker: marker)
        }
        return String(chars)
    }

    private static func stripPairs(_ chars: [Character], marker: Character) -> [Character] {
        var remove = Set<Int>()
        var i = 0
        let n = chars.count
        func isWordChar(_ c: Character) -> Bool { c.isLetter || c.isNumber }
        while i < n {
            if chars[i] == marker, i + 1 < n, !chars[i + 1].isWhitespace, chars[i + 1] != marker,
               i == 0 || (!isWordChar(chars[i - 1]) && chars[i - 1] != marker) {
                var j = i + 1
                var closed = -1
                while j < n {
                    if chars[j] == marker {
                        if !chars[j - 1].isWhitespace, chars[j - 1] != marker,
                           j + 1 == n || (!isWordChar(chars[j + 1]) && chars[j + 1] != marker) {
                            closed = j
                        }
                        break
                    }
                    j += 1
                }
                if closed > 0 {
                    remove.insert(i)
                    remove.insert(closed)
                    i = closed + 1
                    continue
                }
            }
            i += 1
        }
        guard !remove.isEmpty else { return chars }
        var result: [Character] = []
        result.reserveCapacity(n - remove.count)
        for (index, c) in chars.enumerated() where !remove.contains(index) { result.append(c) }
        return result
    }

    /// Lowercase a-z, 0-9 and single hyphens.
    static func slug(_ s: String) -> String {
        var out = ""
        var lastHyphen = true
        for scalar in s.lowercased().decomposedStringWithCanonicalMapping.unicodeScalars {
            if (scalar >= "a" && scalar <= "z") || (scalar >= "0" && scalar <= "9") {
                out.unicodeScalars.append(scalar)
                lastHyphen = false
            } else if scalar.properties.generalCategory == .nonspacingMark || scalar == "'" || scalar == "\u{2019}" {
                continue
            } else if !lastHyphen {
                out.append("-")
                lastHyphen = true
            }
        }
        while out.hasSuffix("-") { out.removeLast() }
        return out.isEmpty ? "unknown" : out
    }

    static func uniqueID(_ id: String, used: inout Set<String>) -> String {
        var candidate = id
        var number = 2
        while used.contains(candidate) {
            candidate = "\(id)-\(number)"
            number += 1
        }
        used.insert(candidate)
        return candidate
    }

    /// How often `word` occurs as a whole word (ASCII case-insensitive).
    static func countWord(_ word: String, in text: String) -> Int {
        let needle = Array(word.lowercased().utf8)
        guard !needle.isEmpty else { return 0 }
        var text = text
        return text.withUTF8 { hay -> Int in
            func lower(_ b: UInt8) -> UInt8 { b >= 65 && b <= 90 ? b + 32 : b }
            func isLetter(_ b: UInt8) -> Bool { (b >= 65 && b <= 90) || (b >= 97 && b <= 122) || b >= 128 }
            var count = 0
            var i = 0
            let n = hay.count, m = needle.count
            while i + m <= n {
                if lower(hay[i]) == needle[0] {
                    var j = 1
                    while j < m, lower(hay[i + j]) == needle[j] { j += 1 }
                    if j == m, i == 0 || !isLetter(hay[i - 1]), i + m == n || !isLetter(hay[i + m]) {
                        count += 1
                        i += m
                        continue
                    }
                }
                i += 1
            }
            return count
        }
    }

    // MARK: Front and end matter

    static func isEndMarker(_ line: String) -> Bool {
        let t = trim(line)
        guard let first = t.utf8.first, first == 42 || first == 69 || first == 101 else { return false }  // * E e
        return t.hasPrefix("*** END OF") || t.hasPrefix("***END OF") || t.hasPrefix("*** END:")
            || t.lowercased().hasPrefix("end of the project gutenberg") || t.lowercased().hasPrefix("end of project gutenberg")
    }

    static func isFrontAnchor(_ paragraph: WPAParagraph) -> Bool {
        let candidates = paragraph.lines + paragraph.raw.map(trim)
        var listLines = 0
        for line in candidates {
            if isFrontAnchorLine(line) { return true }
            if isListEntry(line) { listLines += 1 }
        }
        return listLines * 2 >= candidates.count * 1 && listLines >= 2
    }

    static func isFrontAnchorLine(_ line: String) -> Bool {
        let lower = line.lowercased()
        if lower.contains("project gutenberg") || lower.contains("gutenberg.org") || lower.contains("pgdp.net") { return true }
        if line.hasPrefix("*** START") || line.hasPrefix("***START") || line.hasPrefix("Produced by") { return true }
        for prefix in ["title:", "author:", "release date:", "language:", "credits:", "most recently updated:",
                       "[transcriber's note", "[transcriber\u{2019}s note", "this ebook is for the use of anyone",
                       "from interviews with former slaves", "typewritten records", "for the state of "] where lower.hasPrefix(prefix) {
            return true
        }
        if lower.contains("a folk history of slavery") || lower.contains("illustrated with photographs") { return true }
        if line == "SLAVE NARRATIVES" || line == "INFORMANTS" || line == "CONTENTS" || line == "TABLE OF CONTENTS"
            || line == "ILLUSTRATIONS" || line == "LIST OF ILLUSTRATIONS" || lower == "the works progress administration" {
            return true
        }
        if line.hasPrefix("WASHINGTON 19"), line.count <= 16 { return true }
        if line.hasPrefix("Prepared by"), line == "Prepared by" || line.contains("Federal Writers") { return true }
        let words = line.split(separator: " ")
        if words.count == 2, words[0] == "VOLUME", words[1].allSatisfy({ "IVXLC".contains($0) }) { return true }
        if words.count == 2, words[0] == "PART", words[1].allSatisfy(\.isNumber) { return true }
        if isAllCaps(line), line.contains("NARRATIVES"), !line.contains(":"), line.count < 60 { return true }
        if line.hasPrefix("[TR:") || line.hasPrefix("[HW:") {
            let rest = line.dropFirst(4)
            if rest.hasPrefix("]") || rest.hasPrefix(" ***]") || rest.hasPrefix("***]") { return true }
        }
        return false
    }

    /// "Raines, Mary 1" or "Sparrow, Jessie 121, 125, 130": an index line.
    static func isListEntry(_ line: String) -> Bool {
        guard let comma = line.firstIndex(of: ","), line.first?.isUppercase == true else { return false }
        let surname = line[..<comma]
        guard !surname.contains(" "), surname.count <= 20 else { return false }
        let rest = trim(String(line[line.index(after: comma)...]))
        var sawDigit = false
        var seenSpaceBeforeDigits = false
        for c in rest.reversed() {
            if c.isNumber { sawDigit = true; continue }
            if c == "," || c == " " { if sawDigit { seenSpaceBeforeDigits = true }; continue }
            break
        }
        return sawDigit && seenSpaceBeforeDigits && rest.first?.isUppercase == true && rest.count < 60
    }

    /// The paragraphs of a heading: everything before the first running text, at most 14.
    static func headerZone(_ paragraphs: [WPAParagraph]) -> [WPAParagraph] {
        var zone: [WPAParagraph] = []
        for paragraph in paragraphs.prefix(14) {
            if paragraph.isProse { break }
            zone.append(paragraph)
        }
        return zone
    }

    // MARK: Names

    static let nameStopWords: Set<String> = [
        "THE", "A", "AN", "TO", "FROM", "FOR", "IN", "ON", "AT", "INTERVIEW", "INTERVIEWS", "SLAVE", "SLAVES", "SLAVERY",
        "EX-SLAVE", "EX-SLAVES", "STORY", "STORIES", "LIFE", "PLANTATION", "FOLKLORE", "FOLK", "FOLK-LORE", "STUFF",
        "PROJECT", "FEDERAL", "WRITERS'", "WRITERS", "CUSTOMS", "ANECDOTES", "FACTS", "COUNTY", "NEGRO", "GUIDE",
        "AMERICAN", "NARRATIVES", "REFERENCES", "DISTRICT", "DIST.", "EDITED", "WRITTEN", "APPROX.", "WORDS", "YEARS",
        "OLD", "AGE", "HARD", "TIME", "ALWAYS", "WAR", "CIVIL", "HERO", "SERVANT", "SUBJECT", "DAYS", "AFTER",
        "VOLUME", "PART", "NOTE", "SUPERVISOR", "EDITOR", "RESIDENCY", "WPA", "W.P.A.", "TOWN", "FORMER",
    ]

    static let leadingDescriptors: Set<String> = [
        "AS", "TOLD", "BY", "INTERVIEW", "WITH", "EX", "TOWN", "SLAVE", "EX-SLAVE", "MRS.", "MR.", "MISS", "MRS",
        "UNCLE", "AUNT", "AUNTY", "DR.", "OLD",
    ]

    /// An ALL-CAPS informant name in a heading line, and what follows it on the line.
    static func capsName(from rawLine: String) -> (name: String, rest: String)? {
        var s = trim(rawLine)
        if s.hasPrefix("["), s.hasSuffix("]") {
            s = String(s.dropFirst().dropLast())
            for prefix in ["HW:", "TR:"] where s.hasPrefix(prefix) { s = trim(String(s.dropFirst(prefix.count))) }
        }
        for token in ["(MRS.)", "(MR.)", "(MISS)"] { s = s.replacingOccurrences(of: token, with: " ") }
        s = trim(s)
        // A quoted nickname: drop it when a name remains, else unquote ("MAMA DUCK").
        if s.contains("\"") {
            let withoutQuoted = removeQuoted(s)
            let remaining = withoutQuoted.split(separator: " ").filter { $0.count > 1 || $0.first?.isLetter == true }
            s = remaining.count >= 2 ? withoutQuoted : s.replacingOccurrences(of: "\"", with: "")
            s = trim(s)
        }
        var cut = s.endIndex
        for marker in [",", "--", "(", "[", " EX-SLAVE", " EX SLAVE", " Ex-Slave", " FORMER SLAVE", " OF "] {
            if let range = s.range(of: marker), range.lowerBound < cut { cut = range.lowerBound }
        }
        let head = String(s[..<cut])
        let rest = String(s[cut...])
        var words = head.split(separator: " ").map(String.init)
        while let first = words.first, leadingDescriptors.contains(first.uppercased()) { words.removeFirst() }
        guard words.count >= 2, words.count <= 5 else { return nil }
        var hasRealWord = false
        for word in words {
            if nameStopWords.contains(word) { return nil }
            guard word.first?.isUppercase == true, !word.contains(where: { $0.isLowercase || $0.isNumber }) else {
                if word == "and" { continue }
                return nil
            }
            guard word.allSatisfy({ $0.isLetter || $0 == "." || $0 == "'" || $0 == "-" || $0 == "\u{2019}" }) else { return nil }
            if word.filter(\.isLetter).count >= 3 { hasRealWord = true }
        }
        guard hasRealWord, let last = words.last, last.filter(\.isLetter).count >= 2, !last.hasSuffix(".") else { return nil }
        // A state or place heading ("SOUTH CAROLINA"), not a person.
        if usState(named: words.joined(separator: " ")) != nil { return nil }
        return (words.map(titleCaseWord).joined(separator: " "), rest)
    }

    static func removeQuoted(_ s: String) -> String {
        var out = ""
        var inside = false
        for c in s {
            if c == "\"" { inside.toggle(); continue }
            if !inside { out.append(c) }
        }
        return out.split(separator: " ").joined(separator: " ")
    }

    /// "RACHEL" -> "Rachel", "MCRAY" -> "McRay", "W.B." -> "W.B.", "AND" -> "and".
    static func titleCaseWord(_ word: String) -> String {
        if word.uppercased() == "AND" { return "and" }
        let letters = word.filter(\.isLetter)
        if word.contains("."), letters.count <= 2 || word.split(separator: ".").allSatisfy({ $0.count <= 1 }) {
            // Initials (W.B.) stay upper case; "REV." becomes "Rev.".
            if letters.count >= 3 { return word.prefix(1).uppercased() + word.dropFirst().lowercased() }
            return word.count <= 2 ? word.prefix(1).uppercased() + word.dropFirst().lowercased() : word
        }
        var result = ""
        var capitalizeNext = true
        for c in word {
            if c.isLetter {
                result += capitalizeNext ? String(c).uppercased() : String(c).lowercased()
                capitalizeNext = false
            } else {
                result.append(c)
                capitalizeNext = c == "-" || c == "'" || c == "\u{2019}" || c == "."
            }
        }
        if result.hasPrefix("Mc"), result.count > 3 {
            let third = result.index(result.startIndex, offsetBy: 2)
            result = "Mc" + result[third...].prefix(1).uppercased() + result[result.index(after: third)...]
        }
        return result
    }

    /// A Title Case name standing alone on a line: "Hagar Lewis", "W.C. Parson Allen".
    static func titleName(from line: String) -> String? {
        let s = cleanName(line)
        let words = s.split(separator: " ").map(String.init)
        guard words.count >= 2, words.count <= 6, !isAllCaps(s) else { return nil }
        for word in words {
            if ["de", "la", "van", "von", "du", "and"].contains(word) { continue }
            guard word.first?.isUppercase == true,
                  word.allSatisfy({ $0.isLetter || $0 == "." || $0 == "'" || $0 == "-" || $0 == "\u{2019}" }) else { return nil }
            if nameStopWords.contains(word.uppercased()) { return nil }
        }
        return s
    }

    static func removeBracketed(_ s: String) -> String {
        var out = ""
        var depth = 0
        for c in s {
            if c == "[" || c == "(" { depth += 1; continue }
            if c == "]" || c == ")" { depth = max(0, depth - 1); continue }
            if depth == 0 { out.append(c) }
        }
        return out.split(separator: " ").joined(separator: " ")
    }

    static let honorifics: Set<String> = ["Mrs.", "Mr.", "Miss", "Mrs", "Mr", "Uncle", "Aunt", "Aunty", "Ms."]

    static func stripHonorifics(_ name: String) -> String {
        var words = name.split(separator: " ").map(String.init)
        while words.count > 2, let first = words.first, honorifics.contains(first) { words.removeFirst() }
        return words.joined(separator: " ")
    }

    /// The informant's name in normal form: no brackets, no nickname quotes, no Mrs./Uncle/Aunt, Title Case.
    static func cleanName(_ raw: String) -> String {
        var s = removeBracketed(raw)
        if s.contains("\"") {
            let withoutQuoted = removeQuoted(s)
            s = withoutQuoted.split(separator: " ").count >= 2 ? withoutQuoted : s.replacingOccurrences(of: "\"", with: "")
        }
        s = trimPunctuation(s)
        if isAllCaps(s) { s = s.split(separator: " ").map { titleCaseWord(String($0)) }.joined(separator: " ") }
        return stripHonorifics(s)
    }

    /// The words of a name that the text about the person would use: "Sarah Ross" ->
    /// ["Sarah", "Ross"]; initials and "and" left out.
    static func nameWords(_ name: String) -> [String] {
        name.split(separator: " ").map(String.init).filter { $0.filter(\.isLetter).count >= 3 && !$0.contains(".") && $0 != "and" }
    }

    static func surname(_ name: String) -> String {
        String(name.split(separator: " ").last ?? "").lowercased()
    }

    static func uniqueNames(_ names: [String]) -> [String] {
        var seen = Set<String>()
        return names.filter { seen.insert($0.lowercased()).inserted }
    }

    /// "Sam and Louisa Everett" -> ["Sam Everett", "Louisa Everett"]; otherwise [name].
    static func interviewees(from name: String) -> [String] {
        let words = name.split(separator: " ").map(String.init)
        if let and = words.firstIndex(of: "and"), and == 1, words.count == 4 {
            return ["\(words[0]) \(words[3])", "\(words[2]) \(words[3])"]
        }
        return [name]
    }

    static let personStopWords: Set<String> = [
        "County", "Co.", "District", "Dist.", "Street", "St.", "Avenue", "Ave", "Ave.", "Rt.", "Route", "Box", "RFD",
        "Project", "Residency", "Residencies", "Supervisor", "Editor", "Guide", "Unit", "Writers'", "Federal", "Negro",
        "Approx.", "Folklore", "Slave", "Ex-Slave", "Interview", "Subject", "Place", "Born", "Present", "Res.",
        "Field", "Worker", "Plantation", "Life", "Edited", "Written", "Beach", "Island", "Springs", "City",
    ]

    /// The leading run of name tokens ("J. Tom Miles", "G.L. Summer", "Barragan-Harris" is one token).
    /// With `wholeLine`, the whole line must be the name.
    static func personName(in raw: String, wholeLine: Bool) -> String? {
        var s = trim(raw)
        var cut = s.endIndex
        for marker in [",", "--", "(", ")", ";", "[", "]", ":"] {
            if let range = s.range(of: marker), range.lowerBound < cut { cut = range.lowerBound }
        }
        if wholeLine {
            let rest = trim(String(s[cut...]))
            if !rest.isEmpty { return nil }
        }
        s = String(s[..<cut])
        let tokens = s.split(separator: " ").map(String.init)
        var taken: [String] = []
        for token in tokens {
            if isNameToken(token), !personStopWords.contains(token), !usStates.contains(token) {
                taken.append(token)
            } else {
                if wholeLine { return nil }
                break
            }
        }
        while let first = taken.first, honorifics.contains(first) || first == "Rev." { taken.removeFirst() }
        if var last = taken.last, last.hasSuffix("."), last.filter(\.isLetter).count > 2 {
            last.removeLast()
            taken[taken.count - 1] = last
        }
        guard taken.count >= 2, let last = taken.last, last.filter(\.isLetter).count >= 3, !last.hasSuffix(".") else { return nil }
        if taken.allSatisfy({ isAllCaps($0) && $0.filter(\.isLetter).count > 2 }) { return nil }
        return taken.joined(separator: " ")
    }

    static func isNameToken(_ token: String) -> Bool {
        guard let first = token.first, first.isUppercase else { return false }
        if token.allSatisfy({ $0.isUppercase || $0 == "." }), token.contains("."), token.filter(\.isLetter).count <= 3 {
            return true  // initials: "W.W.", "G.", "J.R."
        }
        let body = token.hasSuffix(".") ? String(token.dropLast()) : token
        guard body.allSatisfy({ $0.isLetter || $0 == "-" || $0 == "'" }) else { return false }
        return body.dropFirst().contains(where: \.isLowercase) || body.count == 1
    }

    /// "Martha Richardson, who tells this story, ..." -> "Martha Richardson".
    static func leadingName(_ text: String) -> String? {
        var s = trim(text)
        for prefix in ["\"", "Aunt ", "Uncle ", "Mrs. ", "Mr. "] where s.hasPrefix(prefix) { s = String(s.dropFirst(prefix.count)) }
        let words = s.split(separator: " ", maxSplits: 6).map(String.init)
        var taken: [String] = []
        for word in words {
            let bare = word.hasSuffix(",") ? String(word.dropLast()) : word
            guard isNameToken(bare), !personStopWords.contains(bare) else { break }
            taken.append(bare)
            if word.hasSuffix(",") { break }
        }
        guard taken.count >= 2, taken.count <= 4 else { return nil }
        let next = words.count > taken.count ? words[taken.count] : ""
        let endsWithComma = words[taken.count - 1].hasSuffix(",")
        guard endsWithComma || ["who", "lives", "is", "was", "has"].contains(next) else { return nil }
        return taken.joined(separator: " ")
    }

    // MARK: Places

    /// The town just before the state in "..., Newberry, S.C." or "Athens, Georgia".
    static func town(in text: String, state: String, allowCaps: Bool) -> String? {
        for alias in aliases(of: state) {
            var searchStart = text.startIndex
            while let range = text.range(of: alias, range: searchStart..<text.endIndex) {
                searchStart = range.upperBound
                let after = range.upperBound == text.endIndex ? " " : text[range.upperBound]
                guard !after.isLetter else { continue }
                let before = text[..<range.lowerBound]
                guard before.hasSuffix(", ") || before.hasSuffix(",") else { continue }
                var segment = String(before.dropLast(before.hasSuffix(", ") ? 2 : 1))
                if let comma = segment.lastIndex(of: ",") { segment = String(segment[segment.index(after: comma)...]) }
                if let town = townName(segment, allowCaps: allowCaps) { return town }
            }
        }
        return nil
    }

    /// The trailing run of capitalised words of a comma segment, if it names a town.
    static func townName(_ segment: String, allowCaps: Bool) -> String? {
        let words = trim(segment).split(separator: " ").map(String.init)
        var run: [String] = []
        for word in words.reversed() {
            let letters = word.filter(\.isLetter)
            guard let first = word.first, first.isUppercase, !letters.isEmpty,
                  word.allSatisfy({ $0.isLetter || $0 == "." || $0 == "-" || $0 == "'" }) else { break }
            run.insert(word, at: 0)
        }
        guard !run.isEmpty, run.count <= 3 else { return nil }
        let joined = run.joined(separator: " ")
        let last = run.last!
        if ["Co.", "County", "Parish", "Co", "RFD", "R.F.D.", "Dist.", "District", "St.", "Street", "Ave.", "Avenue"].contains(last) { return nil }
        if run.contains(where: { ["Street", "Avenue", "Road", "Place", "Route", "Box", "The"].contains($0) }) { return nil }
        if usStates.contains(joined) { return nil }
        if isAllCaps(joined) {
            guard allowCaps else { return nil }
            return run.map(titleCaseWord).joined(separator: " ")
        }
        guard last.filter(\.isLetter).count >= 3 else { return nil }
        return joined
    }

    /// A town in heading lines, skipping birth places and the staff part of the heading.
    static func townInHeading(_ lines: [String], state: String) -> (town: String, state: String)? {
        for (index, line) in lines.enumerated() {
            let lower = line.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "([ "))
            if lower.hasPrefix("written by") || lower.hasPrefix("edited by") || lower == "by" || lower.hasPrefix("by ") { break }
            if lower.hasPrefix("place of birth") || lower.hasPrefix("born") || lower.hasPrefix("date of birth") || line.hasPrefix("[") {
                continue
            }
            if let town = town(in: line, state: state, allowCaps: false) { return (town, state) }
            // A town on one line and a state (possibly another one) on the next.
            if index + 1 < lines.count, let other = usState(named: trimPunctuation(lines[index + 1])),
               let town = townName(line, allowCaps: false), !line.contains(",") {
                return (town, other)
            }
        }
        return nil
    }

    /// Texas introductions: where the informant lives now, else the first sentence's "Town, Texas".
    static func townInIntroduction(_ text: String, state: String) -> String? {
        let sentences = splitSentences(text)
        for sentence in sentences {
            guard let range = sentence.range(of: " lives") ?? sentence.range(of: " lived ") ?? sentence.range(of: " living") else { continue }
            let tail = String(sentence[range.lowerBound...])
            if let town = town(in: tail, state: state, allowCaps: false) { return town }
            // "... at 2718 Ennis Ave., Fort Worth, about a block ..."
            let parts = tail.components(separatedBy: ", ")
            for (index, part) in parts.enumerated() where index + 1 < parts.count {
                if part.contains(where: \.isNumber), ["St.", "Ave.", "Street", "Avenue", "Blvd."].contains(where: { part.hasSuffix($0) }),
                   let town = townName(parts[index + 1], allowCaps: false), parts[index + 1].split(separator: " ").count <= 2 {
                    return town
                }
            }
            // "He now lives in Beaumont." / "near Beaumont"
            let words = tail.split(separator: " ").map(String.init)
            for (index, word) in words.enumerated() where ["in", "near", "at"].contains(word) && index + 1 < words.count {
                var run: [String] = []
                for next in words[(index + 1)...] {
                    let bare = trimPunctuation(next)
                    guard bare.first?.isUppercase == true, bare.allSatisfy({ $0.isLetter || $0 == "." }) else { break }
                    run.append(bare)
                    if next.hasSuffix(",") || next.hasSuffix(".") { break }
                }
                if !run.isEmpty, let town = townName(run.joined(separator: " "), allowCaps: false) { return town }
            }
        }
        if let first = sentences.first { return town(in: first, state: state, allowCaps: false) }
        return nil
    }

    static func splitSentences(_ text: String) -> [String] {
        let scalars = Array(text.unicodeScalars)
        return SentenceSplitter.sentences(in: scalars).map { String(String.UnicodeScalarView(scalars[$0.start..<$0.end])) }
    }

    // MARK: Dates

    static let months: [(String, Int)] = [
        ("January", 1), ("February", 2), ("March", 3), ("April", 4), ("May", 5), ("June", 6), ("July", 7),
        ("August", 8), ("September", 9), ("October", 10), ("November", 11), ("December", 12),
        ("Jan.", 1), ("Feb.", 2), ("Mar.", 3), ("Apr.", 4), ("Aug.", 8), ("Sept.", 9), ("Sep.", 9), ("Oct.", 10),
        ("Nov.", 11), ("Dec.", 12),
    ]

    /// The interview date in heading or closer lines: "October 27, 1936", "6/9/37", "1-25-37";
    /// stamps in brackets and birth dates are skipped, and only 1934-1941 is accepted.
    static func detectDate(_ lines: [String], anyYearInInterviewLine: Bool = false) -> (text: String, year: Int)? {
        for line in lines {
            let lower = line.lowercased()
            if line.hasPrefix("[") || lower.hasPrefix("born") || lower.contains("date of birth") || lower.contains("place of birth") { continue }
            let cleaned = removeStamps(line)
            if let found = monthDate(in: cleaned) ?? numericDate(in: cleaned) { return found }
            if anyYearInInterviewLine || lower.contains("interview") {
                if let year = bareYear(in: cleaned) { return (String(year), year) }
            }
        }
        return nil
    }

    static func removeStamps(_ line: String) -> String {
        var out = ""
        var depth = 0
        for c in line {
            if c == "[" { depth += 1; continue }
            if c == "]" { depth = max(0, depth - 1); continue }
            if depth == 0 { out.append(c) }
        }
        return out
    }

    static func monthDate(in line: String) -> (text: String, year: Int)? {
        for (month, _) in months {
            var searchStart = line.startIndex
            while let range = line.range(of: month, range: searchStart..<line.endIndex) {
                searchStart = range.upperBound
                if range.lowerBound > line.startIndex, line[line.index(before: range.lowerBound)].isLetter { continue }
                let rest = line[range.upperBound...]
                // " 27, 1936" / " 27 1936" / " 17th, 1937"
                var i = rest.startIndex
                func skip(_ predicate: (Character) -> Bool) -> Int {
                    var n = 0
                    while i < rest.endIndex, predicate(rest[i]) { i = rest.index(after: i); n += 1 }
                    return n
                }
                guard skip({ $0 == " " }) >= 1 else { continue }
                let dayDigits = skip(\.isNumber)
                guard dayDigits >= 1, dayDigits <= 2 else { continue }
                _ = skip(\.isLetter)
                _ = skip({ $0 == "," || $0 == " " || $0 == "-" })
                let yearStart = i
                guard skip(\.isNumber) == 4, let year = Int(rest[yearStart..<i]), (1934...1941).contains(year) else { continue }
                return (String(line[range.lowerBound..<i]), year)
            }
        }
        return nil
    }

    static func numericDate(in line: String) -> (text: String, year: Int)? {
        let chars = Array(line)
        var i = 0
        while i < chars.count {
            guard chars[i].isNumber, i == 0 || !(chars[i - 1].isNumber || chars[i - 1] == "-" || chars[i - 1] == "/") else { i += 1; continue }
            var j = i
            var groups: [String] = [""]
            var separator: Character?
            while j < chars.count {
                let c = chars[j]
                if c.isNumber {
                    groups[groups.count - 1].append(c)
                } else if (c == "/" || c == "-"), separator == nil || separator == c, groups.count < 3, j + 1 < chars.count, chars[j + 1].isNumber {
                    separator = c
                    groups.append("")
                } else {
                    break
                }
                j += 1
            }
            if groups.count == 3, let month = Int(groups[0]), let day = Int(groups[1]), let rawYear = Int(groups[2]),
               (1...12).contains(month), (1...31).contains(day), groups[2].count == 2 || groups[2].count == 4 {
                let year = groups[2].count == 2 ? 1900 + rawYear : rawYear
                if (1934...1941).contains(year) { return (String(chars[i..<j]), year) }
            }
            i = max(j, i + 1)
        }
        return nil
    }

    static func bareYear(in line: String) -> Int? {
        let chars = Array(line)
        var i = 0
        while i + 4 <= chars.count {
            if (i == 0 || !chars[i - 1].isNumber), chars[i..<(i + 4)].allSatisfy(\.isNumber),
               i + 4 == chars.count || !chars[i + 4].isNumber, let year = Int(String(chars[i..<(i + 4)])), (1934...1941).contains(year) {
                return year
            }
            i += 1
        }
        return nil
    }

    // MARK: Transcript

    /// The interview text: hard-wrapped lines joined, one blank line between paragraphs,
    /// illustrations left out. Headings, lists and verse keep their own lines.
    static func transcript(_ paragraphs: [WPAParagraph]) -> String {
        var out: [String] = []
        for paragraph in paragraphs where !paragraph.isIllustration {
            var text = ""
            for (index, line) in paragraph.lines.enumerated() where !line.isEmpty {
                if text.isEmpty { text = line; continue }
                let previous = paragraph.lines[index - 1]
                let indent = paragraph.raw[index].prefix { $0 == " " }.count
                if previous.count >= 50, indent < 4, !startsWithLabel(line) {
                    if text.hasSuffix("-") {
                        text += line  // "slave-\nholder" and "blue--\nblue" join without a space
                    } else {
                        text += " " + line
                    }
                } else {
                    text += "\n" + line
                }
            }
            if !text.isEmpty { out.append(text) }
        }
        return out.joined(separator: "\n\n")
    }

    static func startsWithLabel(_ line: String) -> Bool {
        guard let first = line.utf8.first, first >= 65, first <= 90 else { return false }
        guard let colon = line.utf8.prefix(26).firstIndex(of: 58) else { return false }
        let label = line[..<colon]
        return label.first?.isUppercase == true && label.count <= 24 && label.split(separator: " ").count <= 3
            && label.allSatisfy { $0.isLetter || $0 == " " }
    }
}
