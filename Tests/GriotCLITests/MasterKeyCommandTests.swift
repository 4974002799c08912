import Foundation
import GriotArchive
import GriotStore
import Testing

/// `griot keys new-master | master-status | rotate-master | retire-master`, and a start that
/// fails without the right master key, run as an operator runs them (a SQLite file).
@Suite("griot keys: master keys")
struct MasterKeyCommandTests {
    func keyFile(_ sandbox: GriotSandbox, _ name: String, _ lines: [String]) throws -> String {
        try FileManager.default.createDirectory(at: sandbox.directory, withIntermediateDirectories: true)
        let path = sandbox.directory.appendingPathComponent(name).path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func run(_ sandbox: GriotSandbox, _ arguments: [String], key: String) throws -> GriotRun {
        try sandbox.run(arguments, environment: ["GRIOT_MASTER_KEY_FILE": key, "GRIOT_MASTER_KEY_COMMAND": ""])
    }

    @Test("a start without the database's master key fails naming it; a rotation stopped after one key finishes on the next run; the old key is retired from the file")
    func rotateAndRetire() async throws {
        let sandbox = try GriotSandbox()
        let made = try sandbox.run(["keys", "new-master", "--id", "mk-first"], useDefaultDatabase: true)
        #expect(made.status == 0, "\(made.errors)")
        let firstLine = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(firstLine.wholeMatch(of: /mk-first [A-Za-z0-9+\/]{43}=/) != nil, "\(made.output)")
        let first = try keyFile(sandbox, "first.key", [firstLine])

        // Three users write, each under a data key of their own, wrapped by mk-first.
        let storage = try await StorageLocation.sqlite(path: sandbox.database).open(keyring: try MasterKeyring.parse(firstLine, source: "test"))
        var threads: [(String, String)] = []
        for user in ["u-ada", "u-bo", "u-cy"] {
            let thread = try await storage.chats.createThread(assistant: "coach", userID: user, courseID: "c-1")
            try await storage.chats.appendMessage(threadID: thread.id, role: .user, content: "Notatka \(user): żółć, 李秀英")
            threads.append((thread.id, user))
        }

        let status = try run(sandbox, ["keys", "master-status"], key: first)
        #expect(status.status == 0 && status.output.contains("mk-first  active  wraps 3 data keys"), "\(status.output)\(status.errors)")

        let keyless = try run(sandbox, ["keys", "master-status"], key: "")
        #expect(keyless.status != 0 && keyless.errors.contains("mk-first") && keyless.errors.contains("GRIOT_MASTER_KEY_FILE"), "\(keyless.errors)")
        let stranger = try keyFile(sandbox, "stranger.key", [MasterKeyring.newKeyLine(id: "mk-stranger")])
        let served = try run(sandbox, ["serve", "--host", "127.0.0.1", "--port", "0"], key: stranger)
        #expect(served.status != 0 && served.errors.contains("mk-first"), "the service does not start without the key: \(served.errors)")

        let secondLine = MasterKeyring.newKeyLine(id: "mk-second")
        let both = try keyFile(sandbox, "both.key", [secondLine, firstLine])
        let stopped = try run(sandbox, ["keys", "rotate-master", "--max", "1"], key: both)
        #expect(stopped.status == 0 && stopped.output.contains("re-wrapped 1 data key under mk-second"), "\(stopped.output)\(stopped.errors)")
        #expect(stopped.output.contains("still wrapped by older keys: mk-first: 2"), "\(stopped.output)")
        let refused = try run(sandbox, ["keys", "retire-master", "mk-first"], key: both)
        #expect(refused.status != 0 && refused.errors.contains("still wraps 2 data keys"), "\(refused.errors)")

        let finished = try run(sandbox, ["keys", "rotate-master"], key: both)
        #expect(finished.status == 0 && finished.output.contains("re-wrapped 2 data keys"), "\(finished.output)\(finished.errors)")
        #expect(finished.output.contains("nothing uses mk-first any more"), "\(finished.output)")
        #expect(try run(sandbox, ["keys", "retire-master", "mk-second"], key: both).status != 0, "the active key is never retired")
        let retired = try run(sandbox, ["keys", "retire-master", "mk-first"], key: both)
        #expect(retired.status == 0 && retired.output.contains("retired mk-first"), "\(retired.output)\(retired.errors)")
        let left = try String(contentsOfFile: both, encoding: .utf8)
        #expect(left.contains("mk-second") && !left.contains("mk-first"), "\(left)")

        // The database opens with the new key alone and every message reads back.
        let reopened = try await StorageLocation.sqlite(path: sandbox.database).open(keyring: try MasterKeyring.parse(left, source: "retired file"))
        for (threadID, user) in threads {
            #expect(try await reopened.chats.recentMessages(threadID: threadID, limit: 5).map(\.content) == ["Notatka \(user): żółć, 李秀英"])
        }
    }
}
