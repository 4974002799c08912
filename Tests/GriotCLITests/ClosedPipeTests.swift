import Foundation
import GRDB
import GriotTestSupport
import Testing

/// `griot ask` feeding a reader that stops early, as in `griot ask --json … | head -1`.
@Suite struct ClosedPipeTests {
    /// The reader takes the first line and closes the pipe while the answer still streams: griot
    /// stops the turn, stores the answer so far marked stopped, and exits 0 without a word on
    /// standard error (it used to die of a trap, SIGILL, at the next write).
    @Test func askExitsQuietlyWhenItsReaderClosesThePipe() async throws {
        let sandbox = try GriotSandbox()
        let pieces = (1...40).map { "Sentence \($0) of a long answer about the flood. " }
        try await StubChatServer.with({ _ in .stream(pieces, model: "stub-model", pause: 0.05) }) { server in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/bin/bash")
            // bash runs the pipe as a user types it; PIPESTATUS[0] is griot's own exit status
            // (128 + the signal when a signal ended it).
            process.arguments = ["-c", #""$0" ask --json "What happened in the flood?" | head -1; echo "griot-status=${PIPESTATUS[0]}" >&2"#,
                                 GriotSandbox.binary.path]
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = sandbox.directory.appendingPathComponent("data").path
            for name in ["GRIOT_DB", "OPENAI_API_KEY", "GRIOT_PROVIDER"] { environment[name] = nil }
            environment["OPENAI_BASE_URL"] = server.baseURL
            environment["OPENAI_MODEL"] = "stub-model"
            process.environment = environment
            process.currentDirectoryURL = GriotSandbox.packageRoot
            let output = Pipe()
            let errors = Pipe()
            process.standardOutput = output
            process.standardError = errors
            try process.run()
            let printed = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()

            #expect(printed.hasPrefix(#"{"event":"meta""#) && printed.split(separator: "\n").count == 1)
            #expect(said.contains("griot-status=0"), "\(said)")
            #expect(!said.contains("Fatal error") && !said.contains("Broken pipe"), "\(said)")

            // The answer so far is stored, marked stopped: the model was not left streaming to nobody.
            let database = try DatabaseQueue(path: sandbox.directory.appendingPathComponent("data/griot/griot.sqlite").path)
            let statuses = try await database.read { db in try String.fetchAll(db, sql: "SELECT status FROM message WHERE role = 'assistant'") }
            #expect(statuses == ["stopped"])
        }
    }
}
