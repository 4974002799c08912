import ArgumentParser
import Foundation
import GriotArchive
import GriotStories

struct ImportWPACommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import-wpa",
        abstract: "Split the WPA slave narrative volumes into interviews and ingest them (public).",
        discussion: "For benchmarks and evals: read the volumes where they are, e.g. ../shared/data/wpa-narratives.")

    @Argument(help: "The folder holding the volumes (*.txt).")
    var directory: String

    @OptionGroup var options: ArchiveOptions

    func run() async throws {
        let stories = try WPAImporter().stories(inDirectory: URL(fileURLWithPath: directory))
        let archive = try await options.openArchive(creating: true)
        let progress = ProgressBar(label: "importing")
        let summary = try await archive.ingest(stories, progress: progress.update)
        progress.finish()
        let volumes = Set(stories.compactMap(\.source)).count
        print("\(stories.count) interviews from \(volumes) volumes: \(summary.added) added, \(summary.updated) updated, \(summary.unchanged) unchanged")
    }
}
