import ArgumentParser
import Foundation
import GriotArchive
import GriotStore

/// `griot keys new-master | rotate-master | master-status | retire-master`: the master keys of
/// the encryption at rest (see docs/SECURITY.md). A rotation: put the new key's line first in
/// `GRIOT_MASTER_KEY_FILE` (the old one after it), restart or roll the nodes, run
/// `rotate-master` (online, resumable), then `retire-master OLD_ID`.
let masterKeyCommands: [any ParsableCommand.Type] = [
    KeysCommand.NewMaster.self, KeysCommand.RotateMaster.self, KeysCommand.MasterStatus.self, KeysCommand.RetireMaster.self,
]

extension KeysCommand {
    struct NewMaster: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "new-master",
            abstract: "Print a new random AES-256 master key as a key file line (KEY_ID BASE64).",
            discussion: "Example: griot keys new-master --id mk-2026-12 > /etc/griot/master.key && chmod 600 /etc/griot/master.key")

        @Option(name: .long, help: "The key's id (letters, digits, '.', '_', '-'); default mk- and 12 hex digits of its hash.") var id: String?

        func run() throws {
            if let id, id.range(of: "^[A-Za-z0-9._-]{1,64}$", options: .regularExpression) == nil {
                throw ValidationError("--id may hold only letters, digits, '.', '_' and '-' (1 to 64), e.g. --id mk-2026-12")
            }
            print(MasterKeyring.newKeyLine(id: id))
        }
    }

    struct RotateMaster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "rotate-master",
            abstract: "Re-wrap every data key under the active (first) master key of GRIOT_MASTER_KEY_FILE.",
            discussion: """
                Online: the data keys inside do not change, so nodes keep reading and writing while it runs. \
                Each data key is re-wrapped by one statement that checks it was not changed meanwhile, so the \
                command can be stopped at any point and run again; it says what is left.
                Example: GRIOT_MASTER_KEY_FILE=/etc/griot/master.key griot keys rotate-master
                """)

        @Option(name: .long, help: "Re-wrap at most this many data keys in this run (spread a rotation over several runs).") var max: Int?
        @Option(name: .long, help: "Data keys read per batch.") var batch = 200
        @OptionGroup var options: ArchiveOptions

        func run() async throws {
            guard batch > 0, max.map({ $0 > 0 }) ?? true else { throw ValidationError("--batch and --max must be positive") }
            for storage in try await options.openEveryStorage() {
                let keys = storage.chats
                guard let keyring = keys.cipher.keyring else {
                    throw ValidationError("no master key is configured: set GRIOT_MASTER_KEY_FILE to a file whose first line is the new key and whose later lines hold the old ones")
                }
                let active = keyring.active.id
                let bar = ProgressBar(label: "re-wrapping under \(active)")
                let outcome = try await MasterKeyRotation(store: keys, batch: batch).run(max: max, progress: bar.update)
                bar.finish()
                let (done, skipped, left) = (outcome.rewrapped, outcome.skipped, outcome.left)
                print("re-wrapped \(done) data key\(done == 1 ? "" : "s") under \(active) in \(storage.location)\(skipped > 0 ? " (\(skipped) changed meanwhile, skipped)" : "")")
                if left.isEmpty {
                    let old = keyring.keys.dropFirst().map(\.id)
                    print(old.isEmpty ? "every data key is wrapped by \(active)" : "nothing uses \(old.joined(separator: ", ")) any more: retire with griot keys retire-master ID")
                } else {
                    print("still wrapped by older keys: " + left.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", ")
                          + "; run griot keys rotate-master again")
                }
            }
        }
    }

    struct MasterStatus: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "master-status",
            abstract: "How many data keys each master key wraps, and which keys of the key file are unused.")
        @Flag(name: .long, help: "One JSON object.") var json = false
        @OptionGroup var options: ArchiveOptions

        func run() async throws {
            struct Status: Encodable { var database: String; var active: String?; var dataKeys: [String: Int]; var unused: [String] }
            var statuses: [Status] = []
            for storage in try await options.openEveryStorage() {
                let counts = try await storage.chats.dataKeyCounts()
                let listed = storage.chats.cipher.keyring?.keys.map(\.id) ?? []
                statuses.append(Status(database: storage.location.description, active: listed.first, dataKeys: counts,
                                       unused: listed.filter { counts[$0] == nil }))
                if json { continue }
                print("database \(storage.location)")
                guard !listed.isEmpty else {
                    print(counts.isEmpty ? "not encrypted (no master key configured, no data keys)" : "encrypted, but no master key is configured")
                    continue
                }
                for id in Set(listed).union(counts.keys).sorted() {
                    let role = id == listed.first ? "active" : listed.contains(id) ? "older" : "not in the key file"
                    print("\(id)  \(role)  wraps \(counts[id] ?? 0) data key\(counts[id] == 1 ? "" : "s")")
                }
            }
            if json { print(try Terminal.json(["databases": statuses])) }
        }
    }

    struct RetireMaster: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "retire-master",
            abstract: "Remove an old master key from GRIOT_MASTER_KEY_FILE once no data key uses it.",
            discussion: "Refuses, saying what still uses the key, while any data key is wrapped by it. Example: griot keys retire-master mk-2025-06")

        @Argument(help: "The master key's id.") var id: String
        @OptionGroup var options: ArchiveOptions

        func run() async throws {
            let storages = try await options.openEveryStorage()
            let storage = storages[0]
            guard let keyring = storage.chats.cipher.keyring else { throw ValidationError("no master key is configured (GRIOT_MASTER_KEY_FILE)") }
            guard id != keyring.active.id else {
                throw ValidationError("\(id) is the active master key (the first line of the key file); put the new key first and rotate before retiring it")
            }
            for each in storages {
                let uses = try await each.chats.dataKeyCounts()[id] ?? 0
                guard uses == 0 else {
                    throw ValidationError("\(id) still wraps \(uses) data key\(uses == 1 ? "" : "s") in \(each.location); run griot keys rotate-master first")
                }
            }
            guard let path = ProcessInfo.processInfo.environment["GRIOT_MASTER_KEY_FILE"], !path.isEmpty else {
                print("\(id) wraps no data key in \(storage.location): remove it from what GRIOT_MASTER_KEY_COMMAND prints")
                return
            }
            let text = try String(contentsOfFile: path, encoding: .utf8)
            var removed = false
            // A line's id as the keyring reads it (a key alone has its derived id); comments and
            // blank lines hold none and stay.
            let kept = text.split(separator: "\n", omittingEmptySubsequences: false).filter { line in
                guard (try? MasterKeyring.parse(String(line), source: "line"))?.active.id == id else { return true }
                removed = true
                return false
            }
            guard removed else {
                print("\(id) is not in \(path) and wraps no data key in \(storage.location): nothing to do")
                return
            }
            // Written beside and renamed over, with the file's permissions, so a crash leaves
            // either the old file or the new one.
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let temporary = path + ".retiring"
            try Data(kept.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: temporary))
            if let permissions = attributes[.posixPermissions] {
                try FileManager.default.setAttributes([.posixPermissions: permissions], ofItemAtPath: temporary)
            }
            guard rename(temporary, path) == 0 else {
                throw ValidationError("could not replace \(path) (\(String(cString: strerror(errno)))); the new file is at \(temporary)")
            }
            print("retired \(id): removed from \(path); no data key in \(storage.location) uses it")
        }
    }
}
