import Foundation
import Testing
@testable import GriotStories

// MARK: - Locating the data

/// `GRIOT_SHARED_DATA` when set, else `<package root>/../shared/data` (the package root is
/// three levels above this file: Tests/GriotStoriesTests/WPAImporterTests.swift).
private let sharedDataFolder: URL = {
    if let path = ProcessInfo.processInfo.environment["GRIOT_SHARED_DATA"], !path.isEmpty {
        return URL(fileURLWithPath: path, isDirectory: true)
    }
    let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()  // GriotStoriesTests
        .deletingLastPathComponent()  // Tests
        .deletingLastPathComponent()  // package root
    return packageRoot.appendingPathComponent("../shared/data", isDirectory: true).standardizedFileURL
}()

private let wpaFolder = sharedDataFolder.appendingPathComponent("wpa-narratives", isDirectory: true)

/// Imported once for all tests.
private let wpaImport: Result<[Story], any Error> = Result { try WPAImporter().stories(inDirectory: wpaFolder) }

/// The imported stories; fails the calling test (never skips it) when the data is missing.
private func importedStories() throws -> [Story] {
    var isDirectory: ObjCBool = false
    let exists = FileManager.default.fileExists(atPath: wpaFolder.path, isDirectory: &isDirectory) && isDirectory.boolValue
    try #require(exists, "WPA narratives not found: looked in \(wpaFolder.path). Set GRIOT_SHARED_DATA to the shared data folder (the one holding wpa-narratives/), or put it at <package root>/../shared/data.")
    return try wpaImport.get()
}

private let volumeFiles = ["florida.txt", "georgia-part1.txt", "missouri.txt", "south-carolina-part4.txt", "texas-part3.txt"]

private func story(titled title: String, in stories: [Story]) throws -> Story {
    try #require(stories.first { $0.title == title }, "no interview titled \(title)")
}

// MARK: - The real volumes

@Suite("WPA importer on the five volumes")
struct WPAImporterVolumeTests {
    @Test("at least 150 interviews")
    func interviewCount() throws {
        let stories = try importedStories()
        #expect(stories.count >= 150, "only \(stories.count) interviews")
    }

    /// The informants as each volume's headings name them, in the volume's order, read from the
    /// files (an ALL-CAPS or Title Case name line, an italic "Interview with" block, a `Source:`
    /// closer), one entry per interview: two documents about one person count twice, and a
    /// document that writes up several informants one after another counts each of them.
    static let headings: [String: [String]] = [
        "florida.txt": [
            "Josephine Anderson", "Samuel Simeon Andrews", "Bill Austin", "Frank Berry", "Mary Minus Biddie", "Rev. Eli Boyd",
            "Rivana Boynton", "Matilda Brooks", "Titus I. Bynes", "Della Bess Hilyard", "Taylor Gilbert", "Patience Campbell",
            "Florida Clayton", "Charles Coates", "Irene Coates", "Neil Coker", "Young Winston Davis", "Douglas Dorsey",
            "Ambrose Douglass", "Mama Duck", "Mama Duck", "Willis Dukes", "Sam and Louisa Everett", "Duncan Gaines",
            "Clayborn Gantling", "Arnold Gragston", "Harriett Gresham", "Bolden Hall", "Charlotte Martin", "Sarah Ross",
            "Rebecca Hooks", "Rev. Squires Jackson", "John Henry Kemp", "Cindy Kinsey", "Randall Lee",
        ],
        "georgia-part1.txt": [
            "Rachel Adams", "Washington Allen", "Rev. W.B. Allen", "Jack Atkinson", "Hannah Austin", "Celestia Avery",
            "Celestia Avery", "Emmaline Heard", "Georgia Baker", "Alice Battle", "Jasper Battle", "Arrie Binns", "Henry Bland",
            "Rias Body", "James Bolton", "Alec Bostwick", "Nancy Boudry", "Alice Bradley", "Kizzie Colquitt", "Della Briscoe",
            "George Brooks", "Easter Brown", "Julia Brown", "Julia Bunch", "Marshal Butler", "Sarah Byrd", "Mariah Callaway",
            "Susan Castle",
        ],
        "missouri.txt": [
            "James Monroe Abbot", "Betty Abernathy", "Hannah Allen", "Hannah Allen", "W.C. Parson Allen", "Charles Gabriel Anderson",
            "Jane Baker", "Mary A. Bell", "William Black", "George Bollinger", "George Bollinger", "Annie Bridges", "Betty Brown",
            "Steve Brown", "Richard Bruner", "Robert Bryant", "Alex Bufford", "Harriet Casey", "Joe Casey", "Lula Chambers",
            "Emmaline Cope", "Peter Corn", "Ed Craddock", "Isabelle Daniel", "Henry Dant", "Lucy Davis", "Mary Divine",
            "Mary Douthit", "John Estell", "Smoky Eulenberg", "Ann Ulrich Evans", "James Goings", "Rachael Goings",
            "Sarah Frances Shaw Graves", "Sarah Frances Shaw Graves", "Emily Camster Green", "Lou Griffin", "Louis Hamilton",
            "Fil Hancock", "Dave Harper", "Clara McNeely Harrell", "Joe Higgerson", "Delia Hill", "Louis Hill", "Louis Hill",
            "Rhody Holsell", "Rhody Holsell", "Henry Johnson", "Hannah Jones", "Emma Knight",
        ],
        "south-carolina-part4.txt": [
            "Mary Raines", "Frank Range", "Sam Rawls", "Sam Rawls", "Ellen Renwick", "Anne Rice", "Jesse Rice", "Phillip Rice",
            "Martha Richardson", "Mamie Riley", "Susie Riser", "Isom Roberts", "Alexander Robertson", "Charlie Robinson",
            "Al Rosboro", "Tom Rosboro", "Reuben Rosborough", "William Rose", "Benjamin Russell", "Joe Rutherford",
            "Lila Rutherford", "Sabe Rutledge", "Sabe Rutledge", "Henry Ryan", "Henry Ryan", "Emoline Satterwhite",
            "Alexander Scaife", "Eliza Scantling",
        ],
        "texas-part3.txt": [
            "Cinto Lewis", "Hagar Lewis", "Henry Lewis", "Lucy Lewis", "Amos Lincoln", "Annie Little", "Abe Livingston", "John Love",
            "Louis Love", "John McCoy", "Hap McQueen", "Bill McRay", "C.B. McRay", "Julia Malone", "Adeline Marshall", "Isaac Martin",
            "James Martin", "Louise Mathews", "William Mathews", "Hiram Mayes", "Susan Merritt", "Josh Miles", "Anna Miller",
            "Mintie Maria Miller", "Tom Mills", "La San Mire", "Charley Mitchell",
        ],
    ]

    /// Where a volume marks every interview with one kind of line, the headings counted line by
    /// line, without the importer's paragraphs and sections: Texas opens each with an italic
    /// introduction at the margin, Missouri with an indented italic block, South Carolina with a
    /// `=Project ...=` line.
    static func headingLineCount(file: String, text: String) -> Int? {
        let lines = WPAText.lines(of: text)
        switch file {
        case "texas-part3.txt":
            return lines.filter { $0.hasPrefix("*") && $0.dropFirst().first?.isUppercase == true }.count
        case "missouri.txt":
            let italic = lines.map { $0.hasPrefix(" ") && WPAText.trim($0).hasPrefix("*") }
            return italic.indices.filter { italic[$0] && ($0 == 0 || !italic[$0 - 1]) }.count
        case "south-carolina-part4.txt":
            return lines.filter { $0.contains("=Project") }.count
        default:
            return nil
        }
    }

    @Test("one interview per heading in each volume", arguments: volumeFiles)
    func interviewsAgainstHeadings(file: String) throws {
        let stories = try importedStories().filter { $0.source == "wpa:\(file)" }
        let expected = try #require(Self.headings[file])
        #expect(stories.count == expected.count, "\(file): \(stories.count) interviews, \(expected.count) headings")
        #expect(stories.map(\.title) == expected, "\(file): \(stories.map(\.title))")
        let text = try String(contentsOf: wpaFolder.appendingPathComponent(file), encoding: .utf8)
        if let counted = Self.headingLineCount(file: file, text: text) {
            #expect(counted == expected.count, "\(file): \(counted) heading lines, \(expected.count) headings listed")
        }
    }

    @Test("informants written up one after another in one document each get their own interview", arguments: [
        ["Bolden Hall", "Charlotte Martin", "Sarah Ross"],
        ["Titus I. Bynes", "Della Bess Hilyard", "Taylor Gilbert"],
    ])
    func severalInformantsInOneDocument(names: [String]) throws {
        let stories = try importedStories()
        let found = try names.map { try story(titled: $0, in: stories) }
        for (story, name) in zip(found, names) {
            #expect(story.interviewees == [name], "\(name): \(story.interviewees)")
            #expect(story.transcript.text.contains(String(name.split(separator: " ").last!)))
            // Nobody else's part of the document, nor the reference naming them.
            for other in names where other != name {
                #expect(!story.transcript.text.contains(other), "\(name) holds the part about \(other)")
            }
            // The document's header is shared: its field worker, place and date hold for each.
            #expect(story.creator == found[0].creator && story.creator != nil, "\(name): \(story.creator ?? "no creator")")
            #expect(story.historicalContext == found[0].historicalContext)
            #expect(story.creationDate == found[0].creationDate)
        }
        // A later informant's part starts at their own heading and keeps its opening line.
        #expect(found[1].transcript.text.hasPrefix("\(names[1])"))
        #expect(found[2].transcript.text.hasPrefix("\(names[2])\n\n"))
    }

    @Test("the Bolden Hall document: Charlotte Martin and Sarah Ross are no longer inside Bolden Hall's story")
    func boldenHallDocument() throws {
        let stories = try importedStories()
        let hall = try story(titled: "Bolden Hall", in: stories)
        let martin = try story(titled: "Charlotte Martin", in: stories)
        let ross = try story(titled: "Sarah Ross", in: stories)
        #expect(!hall.transcript.text.contains("Charlotte Mitchell Martin") && !hall.transcript.text.contains("Sarah relates"))
        #expect(martin.transcript.text.hasPrefix("Charlotte Martin\n\nCharlotte Mitchell Martin, one of twenty children"))
        #expect(martin.transcript.text.contains("her herb remedies can't cure her!"))
        #expect(ross.transcript.text.hasPrefix("Sarah Ross\n\nBorn in Benton County, Mississippi nearly eighty years ago"))
        // Each reference goes with the interview it names.
        #expect(hall.transcript.text.hasSuffix("REFERENCES\n\n1. Personal interview with Bolden Hall, living near the Masonic Hall, in the Eastern section of Live Oak, Florida"))
        #expect(martin.transcript.text.contains("2. Personal interview with Charlotte Martin"))
        #expect(ross.transcript.text.contains("3. Sarah Ross, living near Greater Bethel"))
        #expect(!ross.transcript.text.contains("Bolden Hall") && !ross.transcript.text.contains("Charlotte Martin"))
        #expect(martin.creator == "Alfred Farrell")
        #expect(stories.filter { $0.interviewees.contains("Charlotte Martin") }.map(\.title) == ["Charlotte Martin"])
    }

    @Test("every interview names its informant")
    func intervieweesNonEmpty() throws {
        let stories = try importedStories()
        for story in stories {
            #expect(!story.interviewees.isEmpty, "\(story.artifactID) has no interviewee")
            #expect(story.interviewees.allSatisfy { !$0.trimmingCharacters(in: .whitespaces).isEmpty }, "\(story.artifactID)")
            #expect(!story.title.isEmpty && story.title != story.title.uppercased(), "\(story.artifactID): title \(story.title)")
            #expect(story.aiMetadata.people == story.interviewees)
        }
        // No name was only guessed from a heading line.
        for file in volumeFiles {
            let text = try String(contentsOf: wpaFolder.appendingPathComponent(file), encoding: .utf8)
            let unresolved = WPAVolumeParser(text: text, fileName: file).parse().unresolvedNames
            #expect(unresolved.isEmpty, "\(file): informant names not found for \(unresolved)")
        }
    }

    @Test("artifact ids are unique and well formed")
    func uniqueIDs() throws {
        let stories = try importedStories()
        let ids = stories.map(\.artifactID)
        #expect(Set(ids).count == ids.count, "duplicate ids: \(Dictionary(grouping: ids, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted())")
        for id in ids {
            #expect(id.hasPrefix("wpa-") && id.allSatisfy { ($0.isASCII && ($0.isLowercase || $0.isNumber)) || $0 == "-" }, "bad id \(id)")
        }
        // A name that repeats gets -2.
        #expect(ids.contains("wpa-florida-mama-duck") && ids.contains("wpa-florida-mama-duck-2"))
    }

    @Test("known informants are found across the volumes", arguments: [
        ("Josephine Anderson", "florida.txt"),
        ("Samuel Simeon Andrews", "florida.txt"),
        ("Rachel Adams", "georgia-part1.txt"),
        ("Kizzie Colquitt", "georgia-part1.txt"),
        ("James Monroe Abbot", "missouri.txt"),
        ("Emma Knight", "missouri.txt"),
        ("Hagar Lewis", "texas-part3.txt"),
        ("Charley Mitchell", "texas-part3.txt"),
        ("Mary Raines", "south-carolina-part4.txt"),
        ("Sam Rawls", "south-carolina-part4.txt"),
    ])
    func knownInformant(name: String, file: String) throws {
        let stories = try importedStories()
        let found = stories.filter { $0.interviewees.contains(name) }
        #expect(!found.isEmpty, "\(name) not found")
        #expect(found.allSatisfy { $0.source == "wpa:\(file)" }, "\(name) expected in \(file)")
        #expect(found.allSatisfy { $0.transcript.text.contains(name.split(separator: " ").last.map(String.init) ?? name) })
    }

    @Test("no transcript holds Gutenberg header, licence, informant list or front matter")
    func noFrontOrEndMatter() throws {
        let stories = try importedStories()
        let forbidden = [
            "Project Gutenberg", "PROJECT GUTENBERG", "START OF THIS PROJECT", "START OF THE PROJECT", "END OF THE PROJECT",
            "INFORMANTS", "Raines, Mary 1", "Sparrow, Jessie", "Produced by", "pgdp.net", "TYPEWRITTEN RECORDS PREPARED BY",
            "This ebook is for the use of anyone",
        ]
        for story in stories {
            for text in forbidden {
                #expect(!story.transcript.text.contains(text), "\(story.artifactID) contains \"\(text)\"")
            }
        }
    }

    @Test("transcripts are cleaned: LF only, one blank line between paragraphs, no markup wrappers")
    func transcriptCleaning() throws {
        let stories = try importedStories()
        for story in stories {
            let text = story.transcript.text
            #expect(!text.isEmpty)
            #expect(!text.contains("\r") && !text.contains("\u{FEFF}"), "\(story.artifactID)")
            #expect(!text.contains("\n\n\n"), "\(story.artifactID) has more than one blank line between paragraphs")
            #expect(text == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(story.artifactID)")
            #expect(!text.contains("=MARY RAINES=") && !text.contains("*Interview with") && !text.contains("[Illustration"), "\(story.artifactID)")
        }
        // Hard-wrapped lines are joined: this sentence spans two lines in the file.
        let adams = try story(titled: "Rachel Adams", in: stories)
        #expect(adams.transcript.text.contains("Rachel Adams' two-room, frame house is perched on the side of a steep hill where"))
        let raines = try story(titled: "Mary Raines", in: stories)
        #expect(raines.transcript.text.contains("MARY RAINES\n\nEX-SLAVE 99 YEARS OLD."))
    }

    @Test("interviews start at their own heading, never inside the front matter")
    func firstInterviews() throws {
        let stories = try importedStories()
        let firsts = Dictionary(grouping: stories, by: { $0.source ?? "" }).mapValues { $0[0] }
        #expect(firsts["wpa:missouri.txt"]?.transcript.text.hasPrefix("James Monroe Abbot\n\nInterview with James Monroe Abbot,") == true)
        #expect(firsts["wpa:texas-part3.txt"]?.transcript.text.hasPrefix("Cinto Lewis\n\nUncle Cinto Lewis, ex-slave") == true)
        #expect(firsts["wpa:florida.txt"]?.transcript.text.hasPrefix("FOLK STUFF, FLORIDA") == true)
        #expect(firsts["wpa:georgia-part1.txt"]?.title == "Rachel Adams")
        #expect(firsts["wpa:south-carolina-part4.txt"]?.title == "Mary Raines")
    }

    @Test("place, interviewer and date come from the heading")
    func placeFromHeading() throws {
        let stories = try importedStories()
        let adams = try story(titled: "Rachel Adams", in: stories)
        #expect(adams.historicalContext.first?.location?.name == "Athens, Georgia")
        #expect(adams.aiMetadata.places == ["Georgia", "Athens, Georgia"])
        #expect(adams.creator == "Sadie B. Hornsby")

        let abbot = try story(titled: "James Monroe Abbot", in: stories)
        #expect(abbot.historicalContext.first?.location?.name == "Cape Girardeau, Missouri")
        #expect(abbot.creationDate == "1936-1938" && abbot.historicalContext.first?.year == nil)

        let anderson = try story(titled: "Josephine Anderson", in: stories)
        #expect(anderson.historicalContext.first?.location?.name == "Tampa, Florida")
        #expect(anderson.creator == "Jules A. Frost")
        #expect(anderson.creationDate == "October 20, 1937" && anderson.historicalContext.first?.year == 1937)

        let hagar = try story(titled: "Hagar Lewis", in: stories)
        #expect(hagar.historicalContext.first?.location?.name == "El Paso, Texas")

        // South Carolina: the informant and town come from the closing "Source:" line.
        let rawls = stories.filter { $0.title == "Sam Rawls" }
        #expect(rawls.count == 2)
        #expect(rawls.allSatisfy { $0.historicalContext.first?.location?.name == "Newberry, South Carolina" && $0.creator == "G.L. Summer" })

        // No town in the heading: the state alone.
        let cinto = try story(titled: "Cinto Lewis", in: stories)
        #expect(cinto.historicalContext.first?.location?.name == "Texas")
    }

    @Test("sections holding two documents are split")
    func splits() throws {
        let stories = try importedStories()
        #expect(stories.filter { $0.title == "Hannah Allen" }.count == 2)
        #expect(stories.filter { $0.title == "Louis Hill" }.count == 2)
        let bradley = try story(titled: "Alice Bradley", in: stories)
        let colquitt = try story(titled: "Kizzie Colquitt", in: stories)
        #expect(!bradley.transcript.text.contains("Old Aunt Kizzie Colquitt, about 75 years old"))
        #expect(colquitt.transcript.text.hasPrefix("Kizzie Colquitt\n\nOld Aunt Kizzie Colquitt"))
        #expect(colquitt.historicalContext.first?.location?.name == "Athens, Georgia")
    }

    @Test("fixed fields")
    func fixedFields() throws {
        for story in try importedStories() {
            #expect(story.privacy == .public && story.ownerUserID == nil)
            #expect(story.tags == ["WPA slave narratives"])
            #expect(story.subject == ["Slavery in the United States", "Oral history"])
            #expect(story.language == ["en"])
            #expect(story.source?.hasPrefix("wpa:") == true)
            #expect(story.description?.hasPrefix("Interview with \(story.title), ") == true)
            #expect(story.historicalContext.count == 1)
            #expect(story.publicDomain, "\(story.artifactID): the narratives are a federal work, public domain")
        }
    }
}

// MARK: - Without the data folder

@Suite("WPA importer on small texts")
struct WPAImporterUnitTests {
    /// A miniature volume in the usual Gutenberg layout (1 blank line between paragraphs, 4 between
    /// interviews), with a BOM and CRLF line endings.
    static let miniature = """
        \u{FEFF}The Project Gutenberg eBook of Slave Narratives, Volume X, Missouri Narratives

        Title: Slave Narratives: A Folk History of Slavery in the United States from Interviews with Former Slaves, Volume X, Missouri Narratives

        *** START OF THE PROJECT GUTENBERG EBOOK SLAVE NARRATIVES ***




        SLAVE NARRATIVES

        VOLUME X

        MISSOURI NARRATIVES

        Prepared by the Federal Writers' Project of

        for the State of Missouri

        Mary Smith


            *Interview with "Aunt" Mary Smith,*
            *Hannibal, Missouri.*

        "I was born in 1850 and I remember _all_ of it. This line is long enough
        to have been wrapped by the typist at the right margin of the page.

        "We had a =big= house."




        John Doe


            *Interview with John Doe,*
            *Festus, Missouri.*
            *Interviewed by J. Tom Miles.*

        "De war come and we was all scared, so we hid in the woods a long time
        and waited for it to pass, and it did pass at last, by and by."

        *** END OF THE PROJECT GUTENBERG EBOOK SLAVE NARRATIVES ***

        Project Gutenberg licence text.
        """.replacingOccurrences(of: "\n", with: "\r\n")

    @Test("splits a miniature volume with BOM and CRLF")
    func miniatureVolume() {
        let stories = WPAImporter().stories(inVolume: Self.miniature, fileName: "missouri-mini.txt")
        #expect(stories.map(\.title) == ["Mary Smith", "John Doe"])
        #expect(stories.map(\.artifactID) == ["wpa-missouri-mary-smith", "wpa-missouri-john-doe"])
        guard stories.count == 2 else { return }
        #expect(stories[0].historicalContext.first?.location?.name == "Hannibal, Missouri")
        #expect(stories[1].creator == "J. Tom Miles")
        #expect(stories[1].people == ["John Doe", "J. Tom Miles"])
        #expect(stories[0].source == "wpa:missouri-mini.txt")
        let text = stories[0].transcript.text
        #expect(text.contains("I remember all of it. This line is long enough to have been wrapped"))
        #expect(text.contains("\"We had a big house.\""))
        #expect(!text.contains("\r") && !text.contains("\u{FEFF}") && !text.contains("*"))
        #expect(!stories[1].transcript.text.contains("Gutenberg"))
        #expect(stories[0].description == "Interview with Mary Smith, Hannibal, Missouri, from the WPA slave narratives (Volume X, Missouri Narratives).")
    }

    @Test("a missing folder says where it looked and what to pass")
    func missingFolder() {
        let missing = URL(fileURLWithPath: "/nonexistent/wpa-\(UUID().uuidString)")
        let error = #expect(throws: WPAImportError.self) {
            _ = try WPAImporter().stories(inDirectory: missing)
        }
        let message = error.map { String(describing: $0) } ?? ""
        #expect(message.contains(missing.path) && message.contains("../shared/data/wpa-narratives"), "\(message)")
    }

    @Test("names in capitals become Title Case")
    func titleCase() {
        #expect(WPAText.capsName(from: "RACHEL ADAMS, Age 78")?.name == "Rachel Adams")
        #expect(WPAText.capsName(from: "\"FATHER\" CHARLES COATES")?.name == "Charles Coates")
        #expect(WPAText.capsName(from: "\"MAMA DUCK\"")?.name == "Mama Duck")
        #expect(WPAText.capsName(from: "INTERVIEW WITH (MRS.) MARIAH CALLAWAY EX-SLAVE")?.name == "Mariah Callaway")
        #expect(WPAText.capsName(from: "PLANTATION LIFE") == nil)
        #expect(WPAText.cleanName("Sarah Frances Shaw Graves (Aunt Sally)") == "Sarah Frances Shaw Graves")
    }
}
