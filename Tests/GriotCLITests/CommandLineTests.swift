import Foundation
import Testing

/// The `griot` binary, run as a user runs it, against a fresh database each time.
struct GriotRun {
    var status: Int32
    var output: String
    var errors: String
}

final class GriotSandbox {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-cli-\(UUID().uuidString)")
    var database: String { directory.appendingPathComponent("test.sqlite").path }

    static var binary: URL {
        Bundle.main.bundleURL.appendingPathComponent("griot")
    }

    static var packageRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    init() throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func write(_ name: String, _ text: String) throws -> String {
        let url = directory.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    /// Runs griot with `arguments`; `--db` points at this sandbox unless `useDefaultDatabase`.
    func run(_ arguments: [String], useDefaultDatabase: Bool = false, environment extra: [String: String] = [:]) throws -> GriotRun {
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = useDefaultDatabase ? arguments : arguments + ["--db", database]
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        environment["GRIOT_DB"] = nil
        // The offline responder unless a test names a provider.
        for name in ["OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_MODEL", "GRIOT_PROVIDER"] { environment[name] = nil }
        environment.merge(extra) { _, new in new }
        process.environment = environment
        process.currentDirectoryURL = Self.packageRoot
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return GriotRun(status: process.terminationStatus, output: String(decoding: outputData, as: UTF8.self),
                        errors: String(decoding: errorData, as: UTF8.self))
    }
}

@Suite struct CommandLineTests {
    let story = #"{"artifact_id": "carter-test", "title": "The Water Came Up", "privacy": "public", "people": ["Ida Mae Carter"], "transcript": {"segments": [{"start": 0, "end": 9, "speaker": "Ida Mae Carter", "text": "The levee broke at Mounds Landing and we spent two nights on the church roof."}]}}"#

    @Test func ingestSearchReingestAndDelete() throws {
        let sandbox = try GriotSandbox()
        let file = try sandbox.write("story.json", story)
        var run = try sandbox.run(["ingest", file])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("1 added, 0 updated, 0 unchanged, 0 rejected"))

        run = try sandbox.run(["ingest", file])
        #expect(run.output.contains("0 added, 0 updated, 1 unchanged, 0 rejected"))

        run = try sandbox.run(["search", "church roof", "--json"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(run.output.utf8)) as? [String: Any])
        let results = try #require(json["results"] as? [[String: Any]])
        #expect(results.count == 1)
        #expect(results.first?["story_id"] as? String == "carter-test")
        #expect(results.first?["start_seconds"] as? Double == 0)
        #expect((results.first?["highlights"] as? [[Int]])?.count == 2)

        run = try sandbox.run(["delete", "carter-test"])
        #expect(run.status == 0)
        run = try sandbox.run(["search", "church roof"])
        #expect(run.output.contains("No passages match"))
        run = try sandbox.run(["delete", "carter-test"])
        #expect(run.status == 1)
        #expect(run.errors.contains("no story with artifact_id \"carter-test\""))
    }

    @Test func aBadStoryIsRejectedWithItsReasonAndTheRestIsStored() throws {
        let sandbox = try GriotSandbox()
        let bad = #"{"artifact_id": "bad", "title": "Bad", "privacy": "friends", "transcript": "x"}"#
        let file = try sandbox.write("mixed.jsonl", story + "\n" + bad + "\n")
        let run = try sandbox.run(["ingest", file])
        #expect(run.status == 1)
        #expect(run.output.contains("1 added, 0 updated, 0 unchanged, 1 rejected"))
        #expect(run.errors.contains("mixed.jsonl:2: story \"bad\" field \"privacy\": has unknown value \"friends\"; use public, family_only or private"))
        #expect(try sandbox.run(["search", "levee"]).output.contains("The Water Came Up"))
    }

    @Test func theDefaultDatabaseStartsWithTheDemoCorpusAndHonoursAccess() throws {
        let sandbox = try GriotSandbox()
        var run = try sandbox.run(["search", "sweet potato pie", "--json"], useDefaultDatabase: true)
        #expect(run.errors.contains("first use: ingested"))
        #expect(run.output.contains("carter-sweet-potato-pie"))

        // A private story: only its owner finds it, not even the family.
        run = try sandbox.run(["search", "Marquette Park rock", "--json"], useDefaultDatabase: true)
        #expect(!run.output.contains("carter-1966-open-housing-march"))
        run = try sandbox.run(["search", "Marquette Park rock", "--json", "--viewer", "u-ruth-carter"], useDefaultDatabase: true)
        #expect(run.output.contains("carter-1966-open-housing-march"))
        run = try sandbox.run(["search", "Marquette Park rock", "--json", "--viewer", "u-someone", "--families", "fam-carter"], useDefaultDatabase: true)
        #expect(!run.output.contains("carter-1966-open-housing-march"))

        // A family_only story: hidden from the public and other families, shown to the family.
        let query = ["search", "army overcoat Maxwell Street", "--json"]
        #expect(!(try sandbox.run(query, useDefaultDatabase: true).output.contains("carter-first-winter-bronzeville")))
        #expect(!(try sandbox.run(query + ["--viewer", "u-x", "--families", "fam-odom"], useDefaultDatabase: true).output.contains("carter-first-winter-bronzeville")))
        #expect(try sandbox.run(query + ["--viewer", "u-x", "--families", "fam-odom,fam-carter"], useDefaultDatabase: true).output.contains("carter-first-winter-bronzeville"))
    }

    @Test func badArgumentsSayWhatToDo() throws {
        let sandbox = try GriotSandbox()
        var run = try sandbox.run(["search", "flood", "--years", "nineteen"])
        #expect(run.status != 0)
        #expect(run.errors.contains("write e.g. 1927 or 1920-1939"))
        run = try sandbox.run(["search", "flood", "--years", "1920-"])
        #expect(run.errors.contains("write e.g. 1927 or 1920-1939"))
        run = try sandbox.run(["ingest", sandbox.directory.appendingPathComponent("missing.json").path])
        #expect(run.status == 1)
        #expect(run.errors.contains("does not exist; check the path"))
        run = try sandbox.run(["search", "flood", "--db", sandbox.directory.appendingPathComponent("typo.sqlite").path], useDefaultDatabase: true)
        #expect(run.status != 0)
        #expect(run.errors.contains("no database at"))
        #expect(run.errors.contains("ingest stories first"))
        #expect(!FileManager.default.fileExists(atPath: sandbox.directory.appendingPathComponent("typo.sqlite").path))
    }

    @Test func importWPASplitsTheVolumesIntoSearchableInterviews() throws {
        let sandbox = try GriotSandbox()
        let shared = ProcessInfo.processInfo.environment["GRIOT_SHARED_DATA"]
            ?? GriotSandbox.packageRoot.deletingLastPathComponent().appendingPathComponent("shared/data").path
        let folder = shared + "/wpa-narratives"
        try #require(FileManager.default.fileExists(atPath: folder), "the WPA volumes are not at \(folder); set GRIOT_SHARED_DATA")
        var run = try sandbox.run(["import-wpa", folder])
        #expect(run.status == 0, "\(run.errors)")
        let count = Int(run.output.split(separator: " ").first ?? "") ?? 0
        #expect(count >= 150, "\(run.output)")
        run = try sandbox.run(["search", "patrollers pass", "--places", "Missouri", "--json", "--k", "3"])
        #expect(run.output.contains("wpa-missouri-"))
        run = try sandbox.run(["import-wpa", sandbox.directory.path])
        #expect(run.status != 0)
        #expect(run.errors.contains("pass the folder ../shared/data/wpa-narratives"))
    }
}
