import Foundation
import GriotArchive
import GriotStore
import GriotTestSupport
import Testing

/// `griot keys`, run as an admin runs it, on a fresh database of the run's backend (a SQLite
/// file; a PostgreSQL schema with GRIOT_TEST_DATABASE=postgres).
@Suite("griot keys")
struct KeysCommandTests {
    /// A fresh database for the sandbox: the `--db` value, and the location to open it in the test.
    func database(_ sandbox: GriotSandbox) async throws -> (argument: String, location: StorageLocation) {
        switch try await TestDatabase.location() {
        case .postgres(let url): return (url, .postgres(url: url))
        case .sqlite: return (sandbox.database, .sqlite(path: sandbox.database))
        }
    }

    func keys(_ sandbox: GriotSandbox, _ database: String, _ arguments: [String]) throws -> GriotRun {
        try sandbox.run(["keys"] + arguments + ["--db", database], useDefaultDatabase: true, environment: ["USER": "tester"])
    }

    @Test("create prints the key once and stores only its hash; list shows every key without it; revoke ends it, audited")
    func createListRevoke() async throws {
        let sandbox = try GriotSandbox()
        let (db, location) = try await database(sandbox)

        let made = try keys(sandbox, db, ["create", "--name", "nightly export", "--role", "coach", "--families", "fam-a,fam-b",
                                          "--courses", "course-7", "--expires", "90d", "--requests-per-minute", "60"])
        #expect(made.status == 0, "\(made.errors)")
        let token = made.output.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.wholeMatch(of: /griot_[0-9a-f]{16}_[0-9a-f]{64}/) != nil, "stdout is the key alone: \(made.output)")
        #expect(made.errors.contains("shown this once"), "\(made.errors)")
        let (id, secret) = try #require(APIKey.parse(token))

        let storage = try await location.open()
        let stored = try #require(try await storage.keys.apiKey(id: id))
        #expect(stored.secretHash == APIKey.hash(secret: secret) && stored.secretHash != secret)
        #expect(stored.name == "nightly export" && stored.role == "coach" && stored.families == ["fam-a", "fam-b"] && stored.courses == ["course-7"])
        #expect(stored.requestsPerMinute == 60)
        let expiresIn = try #require(stored.expiresAt).timeIntervalSinceNow
        #expect(abs(expiresIn - 90 * 86_400) < 120, "--expires 90d: \(expiresIn) s")

        let other = try keys(sandbox, db, ["create", "--name", "app", "--role", "client"])
        #expect(other.status == 0, "\(other.errors)")

        var list = try keys(sandbox, db, ["list"])
        #expect(list.status == 0, "\(list.errors)")
        let lines = list.output.split(separator: "\n")
        #expect(lines.count == 3, "\(list.output)")
        #expect(lines.first?.split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
                == "ID NAME ROLE FAMILIES COURSES CREATED EXPIRES LAST USED REVOKED")
        let row = try #require(lines.first { $0.hasPrefix(id) })
        for cell in ["nightly export", "coach", "fam-a,fam-b", "course-7", "never"] { #expect(row.contains(cell), "\(row)") }
        #expect(!list.output.contains(secret), "no secret in the list")

        let revoked = try keys(sandbox, db, ["revoke", id])
        #expect(revoked.status == 0 && revoked.output.contains("revoked API key \(id) (nightly export)"), "\(revoked.output) \(revoked.errors)")
        #expect(try await storage.keys.apiKey(id: id)?.revokedAt != nil)
        list = try keys(sandbox, db, ["list", "--json"])
        let listed = try #require((try JSONSerialization.jsonObject(with: Data(list.output.utf8)) as? [String: Any])?["keys"] as? [[String: Any]])
        #expect(listed.count == 2 && listed.allSatisfy { $0["key"] == nil && $0["secret_hash"] == nil })
        #expect(listed.first { $0["id"] as? String == id }?["revoked_at"] is String)

        #expect(try keys(sandbox, db, ["revoke", id]).output.contains("already revoked"))
        let unknown = try keys(sandbox, db, ["revoke", "0123456789abcdef"])
        #expect(unknown.status != 0 && unknown.errors.contains("griot keys list shows the ids"), "\(unknown.errors)")

        let audit = try await storage.chats.auditEntries(AuditFilter(userID: "key:\(id)"))
        #expect(audit.map(\.action) == [.apiKeyRevoke, .apiKeyCreate])
        #expect(audit.allSatisfy { $0.actorID == "cli:tester" && $0.details?.contains(secret) == false })
    }

    @Test("Bad options say what to write, and store nothing")
    func badOptions() async throws {
        let sandbox = try GriotSandbox()
        let (db, location) = try await database(sandbox)
        let cases: [([String], String)] = [
            (["--name", "bot", "--role", "superuser"], "--role must be one of client, coach, admin, operator"),
            (["--name", "bot", "--role", "client", "--expires", "2001-01-01"], "is not in the future"),
            (["--name", "bot", "--role", "client", "--expires", "ninety days"], "neither a duration (90d, 12h, 2w, 30m) nor a date"),
            (["--name", "bot", "--role", "client", "--requests-per-minute", "0"], "--requests-per-minute must be from 1 to 100000"),
            (["--name", " ", "--role", "client"], "--name must be 1 to 100 characters"),
        ]
        for (arguments, words) in cases {
            let run = try keys(sandbox, db, ["create"] + arguments)
            #expect(run.status != 0 && run.errors.contains(words), "\(arguments): \(run.errors)")
        }
        #expect(try await location.open().keys.apiKeys().isEmpty)
        #expect(try keys(sandbox, db, ["list"]).output.contains("No API keys; make one with griot keys create"))
    }
}
