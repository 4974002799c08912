import Foundation

// MARK: - Paragraphs

/// One run of non-blank lines, with the number of blank lines before it.
struct WPAParagraph {
    /// The lines as read (trailing white space removed, indentation kept).
    let raw: [String]
    /// The lines with markup (`*x*`, `_x_`, `=x=`) removed and trimmed.
    let lines: [String]
    let gapBefore: Int
    /// 1-based line number of the first line in the volume.
    let lineNumber: Int
    /// The lines joined by spaces.
    let text: String
    /// A bracketed note such as `[TR: ...]` or `[HW: Dist. 6 ...]`.
    let isNote: Bool
    /// Running text rather than a heading, an address block or a list.
    let isProse: Bool
    /// An indented block of italic lines, the Missouri interview sub-header.
    let isItalicBlock: Bool

    init(raw: [String], gapBefore: Int, lineNumber: Int) {
        self.raw = raw
        self.gapBefore = gapBefore
        self.lineNumber = lineNumber
        let trimmed = raw.map { WPAText.trim($0) }
        let joined = trimmed.joined(separator: "\n")
        if joined.utf8.contains(where: { $0 == 42 || $0 == 95 || $0 == 61 }) {  // * _ =
            self.lines = WPAText.stripMarkup(joined).components(separatedBy: "\n").map { WPAText.trim($0) }
        } else {
            self.lines = trimmed
        }
        let text = lines.joined(separator: " ")
        self.text = text

        let first = lines.first ?? ""
        let last = lines.last ?? ""
        let isNote = first.hasPrefix("[") && (last.hasSuffix("]") || last.hasSuffix("].") || last.hasSuffix("])"))
        self.isNote = isNote

        let total = text.utf8.count - max(lines.count - 1, 0)
        if isNote {
            self.isProse = false
        } else if lines.count >= 2, first.utf8.count >= 60 {
            self.isProse = true
        } else if total >= 200, total / max(lines.count, 1) >= 40 {
            self.isProse = true
        } else {
            self.isProse = lines.count == 1 && total >= 100
        }
        self.isItalicBlock = zip(raw, trimmed).allSatisfy { line, trimmed in trimmed.hasPrefix("*") && line.hasPrefix(" ") }
    }

    var isIllustration: Bool { isNote && (lines.first ?? "").hasPrefix("[Illustration") }
}

// MARK: - Volume parser

/// One interview's paragraphs, before its metadata is read.
struct WPAChunk {
    var paragraphs: [WPAParagraph]
    /// The informant when the split already knows it.
    var forcedName: String?
    /// Header paragraphs shared with a preceding interview (two informants under one header).
    var sharedHeader: [WPAParagraph] = []
}

struct WPAVolumeParser {
    let fileName: String
    let lines: [String]
    let paragraphs: [WPAParagraph]
    let paragraphGap: Int
    let sectionGap: Int
    let state: String
    let volumeName: String

    init(text: String, fileName: String) {
        self.fileName = fileName
        let lines = WPAText.lines(of: text)
        self.lines = lines

        var paragraphs: [WPAParagraph] = []
        var current: [String] = []
        var start = 0
        var blanks = 0
        var gapBefore = 0
        for (index, line) in lines.enumerated() {
            if line.isEmpty {
                if !current.isEmpty {
                    paragraphs.append(WPAParagraph(raw: current, gapBefore: gapBefore, lineNumber: start + 1))
                    current = []
                    blanks = 0
                }
                blanks += 1
            } else {
                if current.isEmpty { start = index; gapBefore = blanks }
                current.append(line)
            }
        }
        if !current.isEmpty { paragraphs.append(WPAParagraph(raw: current, gapBefore: gapBefore, lineNumber: start + 1)) }
        self.paragraphs = paragraphs

        // The paragraph gap is the most common blank run; sections need three times as much
        // (8 against 2 in these copies, 4 against 1 in the usual Gutenberg layout).
        var counts: [Int: Int] = [:]
        for paragraph in paragraphs.dropFirst() where paragraph.gapBefore > 0 { counts[paragraph.gapBefore, default: 0] += 1 }
        let mode = counts.max { $0.value == $1.value ? $0.key > $1.key : $0.value < $1.value }?.key ?? 1
        self.paragraphGap = mode
        self.sectionGap = mode * 3

        let state = WPAVolumeParser.detectState(lines: lines, fileName: fileName)
        self.state = state
        self.volumeName = WPAVolumeParser.detectVolumeName(lines: lines, state: state)
    }

    // MARK: Volume facts

    static func detectState(lines: [String], fileName: String) -> String {
        let head = lines.prefix(400).map { WPAText.stripMarkup(WPAText.trim($0)) }
        for line in head {
            let lower = line.lowercased()
            if lower.hasPrefix("for the state of ") {
                let name = WPAText.trimPunctuation(String(line.dropFirst("for the state of ".count)))
                if let state = WPAText.usState(named: name) { return state }
            }
        }
        for line in head where line.hasSuffix("NARRATIVES") || line.contains("NARRATIVES--") || line.contains("NARRATIVES,") {
            if let range = line.range(of: " NARRATIVES"), let state = WPAText.usState(named: String(line[..<range.lowerBound])) {
                return state
            }
        }
        for line in head where line.hasPrefix("Title:") {
            for state in WPAText.usStates where line.contains("\(state) Narratives") { return state }
        }
        let file = fileName.lowercased().replacingOccurrences(of: "_", with: " ").replacingOccurrences(of: "-", with: " ")
        for state in WPAText.usStates.sorted(by: { $0.count > $1.count }) where file.contains(state.lowercased()) { return state }
        return "United States"
    }

    static func detectVolumeName(lines: [String], state: String) -> String {
        for line in lines.prefix(60) where line.hasPrefix("Title:") {
            if let range = line.range(of: "Former Slaves, ") {
                let name = WPAText.trimPunctuation(String(line[range.upperBound...]))
                if !name.isEmpty { return name }
            }
        }
        return "\(state) Narratives"
    }

    // MARK: Splitting

    func stories() -> [Story] { parse().stories }

    /// The stories, and the titles of those whose informant name was only guessed.
    func parse() -> (stories: [Story], unresolvedNames: [String]) {
        let end = bodyEnd()
        let start = frontMatterEnd(before: end)
        guard start < end else { return ([], []) }
        var sections: [[WPAParagraph]] = []
        for paragraph in paragraphs[start..<end] {
            if sections.isEmpty || paragraph.gapBefore >= sectionGap {
                sections.append([paragraph])
            } else {
                sections[sections.count - 1].append(paragraph)
            }
        }
        var stories: [Story] = []
        var unresolved: [String] = []
        var used = Set<String>()
        for section in sections {
            for chunk in split(section: section) {
                guard let (found, resolved) = story(for: chunk) else { continue }
                var story = found
                story.artifactID = WPAText.uniqueID(story.artifactID, used: &used)
                stories.append(story)
                if !resolved { unresolved.append(story.title) }
            }
        }
        return (stories, unresolved)
    }

    /// Index of the first paragraph of the Gutenberg end matter (or the paragraph count).
    func bodyEnd() -> Int {
        for (index, paragraph) in paragraphs.enumerated() where paragraph.raw.contains(where: WPAText.isEndMarker) {
            return index
        }
        return paragraphs.count
    }

    /// Index of the first paragraph after the Gutenberg header, title page, transcriber's notes
    /// and informant lists: the last front-matter anchor before the first running text, plus the
    /// bracketed notes that follow it in the same section.
    func frontMatterEnd(before end: Int) -> Int {
        var lastFront = -1
        var insideNote = false
        var index = 0
        while index < end {
            let paragraph = paragraphs[index]
            defer { index += 1 }
            let joined = paragraph.lines.joined(separator: "\n")
            if insideNote {
                if index == lastFront + 1 { lastFront = index }
                if joined.contains("]") { insideNote = false }
                continue
            }
            if WPAText.isFrontAnchor(paragraph) {
                lastFront = index
                if let open = joined.lastIndex(of: "["), !joined[open...].contains("]") { insideNote = true }
                continue
            }
            if paragraph.isNote || paragraph.isIllustration {
                if index == lastFront + 1, paragraph.gapBefore < sectionGap { lastFront = index }
                continue
            }
            if paragraph.isProse { break }
        }
        return lastFront + 1
    }

    /// The interviews of one section: usually one, more when the section clearly holds more.
    func split(section: [WPAParagraph]) -> [WPAChunk] {
        let content = section.filter { !$0.isIllustration }
        guard !content.isEmpty else { return [] }
        var cuts: [(index: Int, name: String?)] = []

        // Missouri: an indented italic "Interview with ..." block after running text.
        var seenProse = false
        for (index, paragraph) in content.enumerated() {
            if seenProse, paragraph.isItalicBlock {
                let text = paragraph.text
                if text.contains("Interview") || WPAText.containsStateAlias(text, state: state) {
                    cuts.append((index, nil))
                    seenProse = false
                    continue
                }
            }
            if paragraph.isProse { seenProse = true }
        }

        // Two informants filed under one header (Georgia: Alice Bradley and Kizzie Colquitt).
        let header = WPAText.headerZone(content)
        let headerNames = WPAText.uniqueNames(header.flatMap { $0.lines }.compactMap { WPAText.capsName(from: $0)?.name })
        if headerNames.count >= 2 {
            for name in headerNames.dropFirst() {
                let key = name.lowercased()
                if let index = content.indices.first(where: { index in
                    index >= header.count && content[index].lines.count == 1 && content[index].gapBefore > paragraphGap
                        && WPAText.cleanName(content[index].lines[0]).lowercased() == key
                }) {
                    cuts.append((index, name))
                }
            }
        }

        // Several informants written up one after another in one document, each under a heading
        // of their own name after a sub-section gap (Florida: Bolden Hall, then Charlotte Martin,
        // then Sarah Ross under one field worker's header; Titus Bynes, Della Bess Hilyard and
        // Taylor Gilbert under another). The text that follows names the new informant.
        var known = headerNames.map { $0.lowercased() }
        for index in content.indices where index > header.count && content[index].gapBefore >= paragraphGap * 2 {
            guard let name = informantHeading(content[index]), !known.contains(name.lowercased()),
                  let next = content[(index + 1)...].prefix(2).first(where: \.isProse),
                  WPAText.nameWords(name).contains(where: { WPAText.countWord($0, in: next.text) >= 1 })
            else { continue }
            if cuts.contains(where: { $0.index == index }) { continue }
            cuts.append((index, name))
            known.append(name.lowercased())
        }

        // South Carolina: a `Source:` closer followed by a further interview.
        for (index, paragraph) in content.enumerated() where index + 1 < content.count {
            guard paragraph.lines.contains(where: { $0.lowercased().hasPrefix("source:") }) else { continue }
            let rest = content[(index + 1)...]
            let prose = rest.filter(\.isProse)
            let restText = rest.reduce(0) { $0 + $1.text.count }
            if prose.count >= 2, restText > 800, !(rest.first?.text.hasPrefix("(") ?? true) {
                cuts.append((index + 1, nil))
            }
        }

        cuts.sort { $0.index < $1.index }
        var chunks: [WPAChunk] = []
        var begin = 0
        var pendingName: String? = headerNames.count >= 2 ? headerNames.first : nil
        var pendingShared: [WPAParagraph] = []
        for cut in cuts where cut.index > begin {
            chunks.append(WPAChunk(paragraphs: Array(content[begin..<cut.index]), forcedName: pendingName, sharedHeader: pendingShared))
            begin = cut.index
            pendingName = cut.name
            pendingShared = cut.name != nil ? header : []
        }
        chunks.append(WPAChunk(paragraphs: Array(content[begin...]), forcedName: pendingName, sharedHeader: pendingShared))
        return Self.distributeReferences(chunks, firstName: headerNames.first)
    }

    /// A lone name heading that starts an informant's part of a document: "Charlotte Martin",
    /// "Della Bess Hilyard ("Aunt Bess")", "TITUS I. BYNES"; not a title ("Harriett's
    /// Grandchildren", "Personal History of Informant", "Slavery Days And After", "WASHING and SOAP.").
    func informantHeading(_ paragraph: WPAParagraph) -> String? {
        guard paragraph.lines.count == 1, !paragraph.isNote, !paragraph.isProse, let line = paragraph.lines.first,
              !line.hasSuffix(".") else { return nil }
        let name: String?
        if WPAText.isAllCaps(line) {
            name = WPAText.capsName(from: line).flatMap { $0.rest.isEmpty ? $0.name : nil }
        } else if line.split(separator: " ").contains(where: { $0.filter(\.isLetter).count >= 3 && WPAText.isAllCaps(String($0)) }) {
            name = nil  // a word in capitals among lower-case ones: a topic heading, not a name
        } else {
            name = WPAText.titleName(from: line)
        }
        guard let name, !name.contains("'s"), !name.contains("\u{2019}s") else { return nil }
        return name
    }

    /// A document's closing REFERENCES list ("1. Personal interview with Bolden Hall, living
    /// near ...") follows its last informant; an entry that names an earlier informant of the
    /// same document goes with that informant's interview, under its own REFERENCES heading.
    static func distributeReferences(_ chunks: [WPAChunk], firstName: String?) -> [WPAChunk] {
        guard chunks.count >= 2, var last = chunks.last,
              let heading = last.paragraphs.lastIndex(where: { $0.lines.count == 1 && $0.text.uppercased().hasPrefix("REFERENCE") })
        else { return chunks }
        var result = chunks
        var kept: [WPAParagraph] = []
        var moved = false
        for entry in last.paragraphs[(heading + 1)...] {
            let owner = result.indices.dropLast().first { index in
                guard let name = index == 0 ? (result[0].forcedName ?? firstName) : result[index].forcedName else { return false }
                return entry.text.contains(name)
            }
            if let owner {
                if !result[owner].paragraphs.contains(where: { $0.lineNumber == last.paragraphs[heading].lineNumber }) {
                    result[owner].paragraphs.append(last.paragraphs[heading])
                }
                result[owner].paragraphs.append(entry)
                moved = true
            } else {
                kept.append(entry)
            }
        }
        guard moved else { return chunks }
        last.paragraphs = Array(last.paragraphs[..<heading]) + (kept.isEmpty ? [] : [last.paragraphs[heading]] + kept)
        result[result.count - 1] = last
        return result
    }

    // MARK: One interview

    func story(for chunk: WPAChunk) -> (story: Story, nameResolved: Bool)? {
        let paragraphs = chunk.paragraphs
        guard !paragraphs.isEmpty else { return nil }
        let ownHeader = WPAText.headerZone(paragraphs)
        let header = chunk.sharedHeader + ownHeader
        let closer = Array(paragraphs.suffix(3))
        let source = WPAText.sourceCloser(in: closer, state: state)

        // The informant.
        var nameLine: String?
        var name = chunk.forcedName
        if name == nil {
            let found = detectName(header: ownHeader, paragraphs: paragraphs, source: source)
            name = found?.name
            nameLine = found?.line
        }
        var resolved = true
        if name == nil || name!.isEmpty {
            resolved = false
            name = WPAText.cleanName(paragraphs.first?.lines.first ?? fileName)
            if name!.isEmpty { name = "Unknown informant" }
        }
        let informant = name!

        // Where, who and when.
        let place = detectTown(header: header, paragraphs: paragraphs, name: informant, nameLine: nameLine, source: source)
        let creator = source?.interviewer ?? detectCreator(header: header, nameLine: nameLine)
        let date = source?.date ?? WPAText.detectDate(header.flatMap { $0.lines })
        let interviewees = WPAText.interviewees(from: informant)

        let placeName: String
        var places = [state]
        if let place {
            placeName = "\(place.town), \(place.state)"
            places.append(placeName)
        } else {
            placeName = state
        }
        var people = interviewees
        if let creator, !people.contains(creator) { people.append(creator) }

        let transcript = WPAText.transcript(paragraphs)
        guard !transcript.isEmpty else { return nil }
        let id = "wpa-\(WPAText.slug(state))-\(WPAText.slug(informant))"
        let story = Story(
            artifactID: id,
            title: informant,
            description: "Interview with \(informant), \(placeName), from the WPA slave narratives (\(volumeName)).",
            creator: creator,
            creationDate: date?.text ?? "1936-1938",
            interviewees: interviewees,
            people: people,
            tags: ["WPA slave narratives"],
            subject: ["Slavery in the United States", "Oral history"],
            language: ["en"],
            aiMetadata: StoryTags(people: interviewees, places: places),
            historicalContext: [HistoricalContext(year: date?.year, location: Place(name: placeName, coordinates: nil))],
            privacy: .public,
            ownerUserID: nil,
            transcript: Transcript(text: transcript),
            source: "wpa:\(fileName)",
            // Works of the U.S. federal government (SOURCE.md): quoting them is no copying to review.
            publicDomain: true
        )
        return (story, resolved)
    }

    /// The informant's name and the heading line it came from.
    func detectName(header: [WPAParagraph], paragraphs: [WPAParagraph], source: WPASource?) -> (name: String, line: String)? {
        let bodyText = paragraphs.map(\.text).joined(separator: " ")
        let sourceName = source?.name

        // 1. An ALL-CAPS name in the heading (Georgia, Florida, South Carolina), confirmed by the text.
        var capsCandidates: [(name: String, line: String)] = []
        for line in header.flatMap(\.lines) {
            if let found = WPAText.capsName(from: line) { capsCandidates.append((found.name, line)) }
        }
        let confirmed = capsCandidates.first { candidate in
            guard let surname = candidate.name.split(separator: " ").last else { return false }
            return WPAText.countWord(String(surname), in: bodyText) >= 2
        } ?? capsCandidates.first
        if let confirmed {
            if let sourceName, WPAText.surname(sourceName) != WPAText.surname(confirmed.name) {
                return (sourceName, confirmed.line)
            }
            return confirmed
        }

        // 2. A Title Case name on its own line (Missouri, Texas), or an Uncle/Aunt heading.
        for (index, paragraph) in header.enumerated() {
            guard let line = paragraph.lines.first else { continue }
            let isFirst = index == 0 && paragraph.lines.count == 1
            let honorific = line.hasPrefix("Uncle ") || line.hasPrefix("Aunt ") || line.hasPrefix("\"Aunt") || line.hasPrefix("\"Uncle")
            guard isFirst || honorific || paragraph.isItalicBlock else { continue }
            if let name = WPAText.titleName(from: line) {
                let following = paragraphs.dropFirst(index + 1).prefix(3).map(\.text).joined(separator: " ")
                let surname = WPAText.surname(name)
                if paragraph.isItalicBlock || honorific || WPAText.countWord(surname, in: following) >= 1 {
                    return (name, line)
                }
            }
        }

        // 3. "Interview with <name>," in a sub-header.
        for paragraph in header {
            for (offset, line) in paragraph.lines.enumerated() where line.hasPrefix("Interview with") {
                var rest = WPAText.trim(String(line.dropFirst("Interview with".count)))
                if rest.isEmpty, offset + 1 < paragraph.lines.count { rest = paragraph.lines[offset + 1] }
                if let name = WPAText.personName(in: rest, wholeLine: false) { return (WPAText.cleanName(name), line) }
            }
        }

        // 4. The South Carolina closer: "Source: Sam Rawls (84), Newberry, S.C."
        if let sourceName { return (sourceName, "") }

        // 5. The first sentence: "Martha Richardson, who tells this story, lives at ..."
        if let prose = paragraphs.first(where: \.isProse), let name = WPAText.leadingName(prose.text) {
            return (name, "")
        }
        return nil
    }

    func detectTown(header: [WPAParagraph], paragraphs: [WPAParagraph], name: String, nameLine: String?,
                    source: WPASource?) -> (town: String, state: String)? {
        if let town = source?.town { return (town, state) }
        // The remainder of the name line: "NANCY BOUDRY, THOMSON, GEORGIA".
        if let nameLine, let rest = WPAText.capsName(from: nameLine)?.rest {
            if let town = WPAText.town(in: rest, state: state, allowCaps: true) { return (town, state) }
            // "ARRIE BINNS OF WASHINGTON-WILKES"
            if rest.hasPrefix(" OF "), let town = WPAText.townName(String(rest.dropFirst(4)), allowCaps: true) { return (town, state) }
        }
        // Lines of the heading, the informant's own address block first.
        var ordered: [[String]] = []
        let key = name.uppercased()
        if let block = header.first(where: { $0.lines.contains { $0.uppercased().contains(key) } }) { ordered.append(block.lines) }
        ordered.append(header.flatMap(\.lines))
        for lines in ordered {
            if let found = WPAText.townInHeading(lines, state: state) { return found }
        }
        // Texas: an italic introduction, "Hagar Lewis ... lives at 4313 Rosa St., El Paso, Texas."
        if let intro = paragraphs.first(where: \.isProse), intro.raw.first.map({ WPAText.trim($0).hasPrefix("*") }) == true,
           let town = WPAText.townInIntroduction(intro.text, state: state) {
            return (town, state)
        }
        return nil
    }

    func detectCreator(header: [WPAParagraph], nameLine: String?) -> String? {
        let lines = header.flatMap(\.lines)
        let clean: (String?) -> String? = { raw in
            guard let raw, let name = WPAText.personName(in: raw, wholeLine: false) else { return nil }
            return WPAText.stripHonorifics(name)
        }
        // Explicit interviewer notes.
        for line in lines {
            for label in ["Interviewed by:", "Interviewed By:", "Interviewed by", "Interviewed By", "Interviewer:"] {
                if let range = line.range(of: label), let name = clean(String(line[range.upperBound...])) { return name }
            }
            if let range = line.range(of: "(interviewer)") {
                let before = String(line[..<range.lowerBound]).replacingOccurrences(of: "[TR:", with: "")
                if let name = clean(before) { return name }
            }
        }
        // "Written by:" / "by" / "By X" / "X, Field Worker".
        for (index, line) in lines.enumerated() {
            let bare = WPAText.trim(line.replacingOccurrences(of: "[TR:", with: "").replacingOccurrences(of: "(", with: ""))
            let lower = bare.lowercased()
            if lower == "written by:" || lower == "written by" || lower == "by" || lower == "by:" {
                if index + 1 < lines.count, let name = clean(lines[index + 1]) { return name }
            }
            if lower.hasPrefix("written by ") { if let name = clean(String(bare.dropFirst("written by ".count))) { return name } }
            if lower.hasPrefix("by ") { if let name = clean(String(bare.dropFirst(3))) { return name } }
            for suffix in [", Field Worker", ", Secretary"] where line.hasSuffix(suffix) {
                if let name = clean(String(line.dropLast(suffix.count))) { return name }
            }
            if let range = line.range(of: "Research:"), let name = clean(String(line[range.upperBound...])) { return name }
        }
        // A bare person's name in the heading before the informant's name (not an editor).
        var afterEditLabel = false
        for line in lines {
            if let nameLine, !nameLine.isEmpty, line == nameLine { break }
            let lower = line.lowercased()
            if lower.hasPrefix("edited by") { afterEditLabel = true; continue }
            if afterEditLabel { afterEditLabel = false; continue }
            if line.hasSuffix(", Editor") { continue }
            var candidate = line
            if candidate.hasSuffix(",") { candidate.removeLast() }
            if WPAText.isAllCaps(candidate) { continue }
            if let name = WPAText.personName(in: candidate, wholeLine: true) { return WPAText.stripHonorifics(name) }
        }
        // Georgia district notes ending in a surname: "[HW: Dist. 5 / Ex Slave #1 / Ross]".
        for paragraph in header where paragraph.isNote && paragraph.text.contains("Dist") && paragraph.lines.count >= 2 {
            let last = WPAText.trimPunctuation(paragraph.lines.last!.replacingOccurrences(of: "]", with: ""))
            if last.count >= 3, !last.contains(" "), last.first!.isUppercase, last.dropFirst().allSatisfy(\.isLowercase), !last.hasSuffix("ed") {
                return last
            }
        }
        return nil
    }
}

// MARK: - South Carolina closers

/// `Source: Sam Rawls (84), Newberry, S.C.` with an optional `Interviewer: ...` line.
struct WPASource {
    var name: String?
    var town: String?
    var interviewer: String?
    var date: (text: String, year: Int)?
}

extension WPAText {
    static func sourceCloser(in paragraphs: [WPAParagraph], state: String) -> WPASource? {
        for paragraph in paragraphs.reversed() {
            guard let start = paragraph.lines.firstIndex(where: { $0.lowercased().hasPrefix("source:") }) else { continue }
            let text = paragraph.lines[start...].joined(separator: " ")
            var body = trim(String(text.dropFirst("source:".count)))
            var result = WPASource()
            // The interviewer part.
            var interviewerText: String?
            for label in ["Interviewer:", "Interviewed by:", "; by "] {
                if let range = body.range(of: label) {
                    interviewerText = String(body[range.upperBound...])
                    body = String(body[..<range.lowerBound])
                    break
                }
            }
            if let interviewerText, let name = personName(in: interviewerText, wholeLine: false) {
                result.interviewer = stripHonorifics(name)
            }
            if body.hasPrefix("Interview with ") { body = String(body.dropFirst("Interview with ".count)) }
            if let name = personName(in: body, wholeLine: false) { result.name = cleanName(name) }
            result.town = town(in: body, state: state, allowCaps: false)
            result.date = detectDate([text], anyYearInInterviewLine: true)
            return result
        }
        return nil
    }
}
