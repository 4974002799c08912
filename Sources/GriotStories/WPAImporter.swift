import Foundation

/// Splits the WPA Federal Writers' Project slave narrative volumes (the Project Gutenberg
/// plain texts in `shared/data/wpa-narratives`) into one public `Story` per interview.
///
/// Interviews are found the way the volumes delimit them: sections sit between the largest
/// runs of blank lines (measured against the file's own paragraph gap), the first interview
/// starts right after the title page, and a section that holds several documents (Missouri
/// "Interview with" sub-headers, two informants filed under one header, a South Carolina
/// `Source:` closer followed by another interview) is split where that is clean. The Gutenberg
/// header and licence, the title page and the INFORMANTS / contents lists never reach a story.
///
/// ```swift
/// let importer = WPAImporter()
/// let stories = try importer.stories(inDirectory: URL(fileURLWithPath: "../shared/data/wpa-narratives"))
/// print(stories.count, stories[0].title, stories[0].historicalContext[0].location?.name ?? "")
/// ```
public struct WPAImporter: Sendable {
    public init() {}

    /// Every interview in every `*.txt` volume of the folder, volumes in file-name order.
    ///
    /// Artifact ids are unique across the whole folder.
    public func stories(inDirectory directory: URL) throws -> [Story] {
        let fileManager = FileManager.default
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw WPAImportError.noVolumes(path: directory.path)
        }
        let names: [String]
        do {
            names = try fileManager.contentsOfDirectory(atPath: directory.path)
        } catch {
            throw WPAImportError.unreadable(path: directory.path, reason: error.localizedDescription)
        }
        let volumes = names.filter { $0.lowercased().hasSuffix(".txt") }.sorted()
        guard !volumes.isEmpty else { throw WPAImportError.noVolumes(path: directory.path) }

        var all: [Story] = []
        var used = Set<String>()
        for name in volumes {
            let url = directory.appendingPathComponent(name)
            let data: Data
            do {
                data = try Data(contentsOf: url)
            } catch {
                throw WPAImportError.unreadable(path: url.path, reason: error.localizedDescription)
            }
            let found = stories(inVolume: String(decoding: data, as: UTF8.self), fileName: name)
            guard !found.isEmpty else { throw WPAImportError.noInterviews(path: url.path) }
            for var story in found {
                story.artifactID = WPAText.uniqueID(story.artifactID, used: &used)
                all.append(story)
            }
        }
        return all
    }

    /// The interviews of one volume's text (BOM and CRLF tolerated).
    ///
    /// `fileName` becomes the story `source` ("wpa:<file name>") and is the fallback for the
    /// state when the title page does not name one.
    public func stories(inVolume text: String, fileName: String) -> [Story] {
        WPAVolumeParser(text: text, fileName: fileName).stories()
    }
}

/// Why a folder of WPA volumes could not be imported; each message says what to do next.
public enum WPAImportError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The folder is missing or holds no `*.txt` file.
    case noVolumes(path: String)
    /// A volume or the folder could not be read.
    case unreadable(path: String, reason: String)
    /// A volume was read but no interview was found in it.
    case noInterviews(path: String)

    public var description: String {
        switch self {
        case .noVolumes(let path):
            return "no WPA volumes (*.txt) in \(path); pass the folder ../shared/data/wpa-narratives"
        case .unreadable(let path, let reason):
            return "cannot read \(path) (\(reason)); check that the file exists and is readable, or pass the folder ../shared/data/wpa-narratives"
        case .noInterviews(let path):
            return "no interviews found in \(path); it does not look like a WPA slave narratives volume (Project Gutenberg plain text), so move it out of the folder"
        }
    }
}
