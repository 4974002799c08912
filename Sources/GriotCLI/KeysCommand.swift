import ArgumentParser
import Foundation
import GriotAuth
import GriotStore

/// `griot keys`: services' API keys in the database the service runs on. `create` prints the
/// key once (only its SHA-256 is kept); `list` shows every key without secrets; `revoke` ends
/// one at once. Making and revoking are audited, with `--by` (default `cli:$USER`) as actor.
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Make, list and revoke API keys for services (Authorization: Bearer griot_…).",
        subcommands: [Create.self, List.self, Revoke.self] + masterKeyCommands, defaultSubcommand: List.self)

    struct Create: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make an API key and print it (once: only its hash is stored).",
            discussion: "Example: griot keys create --name \"nightly export\" --role coach --courses course-7 --expires 90d --requests-per-minute 60")

        @Option(name: .long, help: "What the key is for, e.g. \"nightly export\" (1 to 100 characters).") var name: String
        @Option(name: .long, help: "The role its requests have: client, coach, admin or operator.") var role: String
        @Option(name: .long, parsing: .upToNextOption, help: "Family group ids, comma- or space-separated (the family_only stories it may read).")
        var families: [String] = []
        @Option(name: .long, parsing: .upToNextOption, help: "Course ids, comma- or space-separated (the courses it may use; none when left out).")
        var courses: [String] = []
        @Option(name: .long, help: "When it expires: a duration (90d, 12h, 2w) or a date (2027-01-31, 2027-01-31T12:00:00Z); never when left out.")
        var expires: String?
        @Option(name: .long, help: "Its own chat limit: messages a minute, in place of the service's per-minute and per-day limits.")
        var requestsPerMinute: Int?
        @Option(name: .long, help: "The region whose database keeps its requests' conversations, e.g. eu (GRIOT_REGION_DATABASES); the node's default when left out.")
        var region: String?
        @Option(name: .long, help: "Who makes it, for the audit log (default: cli:$USER).") var by: String?
        @OptionGroup var options: ArchiveOptions

        func validate() throws {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard (1...100).contains(trimmed.count) else { throw ValidationError("--name must be 1 to 100 characters that say what the key is for, e.g. --name \"nightly export\"") }
            guard CallerRole(rawValue: role) != nil else {
                throw ValidationError("--role must be one of \(CallerRole.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            if let requestsPerMinute, !(1...100_000).contains(requestsPerMinute) {
                throw ValidationError("--requests-per-minute must be from 1 to 100000, or left out for the service's chat limits")
            }
            if let expires { _ = try KeysCommand.expiry(expires, now: Date()) }
            if let region, !Residency.isValidName(region) {
                throw ValidationError("--region \(region) is not a region name: 1 to 32 lowercase letters, digits, - or _, beginning with a letter, e.g. --region eu")
            }
            for (option, ids) in [("--families", KeysCommand.ids(families)), ("--courses", KeysCommand.ids(courses))] {
                guard ids.count <= 100 else { throw ValidationError("\(option) lists \(ids.count) ids; a key may name at most 100") }
                if let bad = ids.first(where: { $0.count > 128 || $0.unicodeScalars.contains { $0.properties.generalCategory == .control } }) {
                    throw ValidationError("\(option) holds \"\(bad.prefix(40))\", which is not an id: each is 1 to 128 characters without control characters")
                }
            }
        }

        func run() async throws {
            let now = Date()
            let expiresAt = try expires.map { try KeysCommand.expiry($0, now: now) }
            let (key, token) = APIKey.make(name: name.trimmingCharacters(in: .whitespacesAndNewlines), role: role,
                                           families: KeysCommand.ids(families), courses: KeysCommand.ids(courses), expiresAt: expiresAt,
                                           requestsPerMinute: requestsPerMinute, region: region, now: now)
            let chats = try await options.openStorage().chats
            try await chats.createAPIKey(key)
            var details: [String: AuditEntry.DetailValue] = ["key_id": .string(key.id), "role": .string(key.role),
                                                             "families": .int(key.families.count), "courses": .int(key.courses.count)]
            if let expiresAt = key.expiresAt { details["expires_at"] = .string(expiresAt.formatted(.iso8601)) }
            if let requestsPerMinute { details["requests_per_minute"] = .int(requestsPerMinute) }
            if let region { details["region"] = .string(region) }
            try await chats.recordAudit(AuditEntry(action: .apiKeyCreate, userID: "key:\(key.id)", actorID: KeysCommand.actor(by),
                                                   details: AuditEntry.details(details)))
            print(token)
            Terminal.note("made API key \(key.id) (\(key.name), role \(key.role)\(key.region.map { ", region \($0)" } ?? "")\(key.expiresAt.map { ", expires \(KeysCommand.shown($0))" } ?? "")); "
                          + "the line above is its secret, shown this once: store it now. Send it as Authorization: Bearer <key>.")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List every API key, newest first (never a secret).")
        @Flag(name: .long, help: "One JSON object with every key (the fields of GET /api/admin/keys).") var json = false
        @OptionGroup var options: ArchiveOptions

        func run() async throws {
            let keys = try await options.openStorage().chats.apiKeys()
            if json {
                struct Listed: Encodable {
                    var id, name, role: String
                    var familyIds, courseIds: [String]
                    var requestsPerMinute: Int?
                    var region: String?
                    var createdAt: Date
                    var expiresAt, lastUsedAt, revokedAt: Date?
                }
                print(try Terminal.json(["keys": keys.map {
                    Listed(id: $0.id, name: $0.name, role: $0.role, familyIds: $0.families, courseIds: $0.courses, requestsPerMinute: $0.requestsPerMinute,
                           region: $0.region, createdAt: $0.createdAt, expiresAt: $0.expiresAt, lastUsedAt: $0.lastUsedAt, revokedAt: $0.revokedAt)
                }]))
                return
            }
            guard !keys.isEmpty else {
                print("No API keys; make one with griot keys create --name NAME --role ROLE.")
                return
            }
            let header = ["ID", "NAME", "ROLE", "FAMILIES", "COURSES", "CREATED", "EXPIRES", "LAST USED", "REVOKED"]
            let rows = keys.map { key in
                [key.id, key.name, key.role, key.families.joined(separator: ",").nonEmpty ?? "-", key.courses.joined(separator: ",").nonEmpty ?? "-",
                 KeysCommand.shown(key.createdAt), key.expiresAt.map(KeysCommand.shown) ?? "never", key.lastUsedAt.map(KeysCommand.shown) ?? "never",
                 key.revokedAt.map(KeysCommand.shown) ?? "-"]
            }
            let widths = header.indices.map { column in ([header] + rows).map { $0[column].count }.max() ?? 0 }
            for row in [header] + rows {
                print(row.enumerated().map { column, cell in
                    column == row.count - 1 ? cell : cell.padding(toLength: widths[column], withPad: " ", startingAt: 0)
                }.joined(separator: "  "))
            }
        }
    }

    struct Revoke: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Revoke an API key: its next request is refused (401).")
        @Argument(help: "The key's id (griot keys list shows them).") var id: String
        @Option(name: .long, help: "Who revokes it, for the audit log (default: cli:$USER).") var by: String?
        @OptionGroup var options: ArchiveOptions

        func run() async throws {
            let chats = try await options.openStorage().chats
            guard let key = try await chats.apiKey(id: id) else {
                throw ValidationError("there is no API key \(id); griot keys list shows the ids")
            }
            if let revokedAt = key.revokedAt {
                print("API key \(key.id) (\(key.name)) was already revoked at \(KeysCommand.shown(revokedAt))")
                return
            }
            let revoked = try await chats.revokeAPIKey(id: id)
            try await chats.recordAudit(AuditEntry(action: .apiKeyRevoke, userID: "key:\(key.id)", actorID: KeysCommand.actor(by),
                                                   details: AuditEntry.details(["key_id": .string(key.id)])))
            print("revoked API key \(key.id) (\(key.name)) at \(revoked?.revokedAt.map(KeysCommand.shown) ?? "now")")
        }
    }

    /// `--expires`: a duration from now (`90d`, `12h`, `2w`, `30m`) or a date (`2027-01-31`,
    /// midnight UTC, or an RFC 3339 time), which must be in the future.
    static func expiry(_ text: String, now: Date) throws -> Date {
        let trimmed = text.trimmingCharacters(in: .whitespaces).lowercased()
        let units: [Character: Double] = ["m": 60, "h": 3_600, "d": 86_400, "w": 604_800]
        var date: Date?
        if let unit = trimmed.last, let seconds = units[unit], let count = Int(trimmed.dropLast()), count > 0 {
            date = now.addingTimeInterval(Double(count) * seconds)
        } else if let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) {
            date = day
        } else {
            date = try? Date(text, strategy: .iso8601)
        }
        guard let date else {
            throw ValidationError("--expires \(text) is neither a duration (90d, 12h, 2w, 30m) nor a date (2027-01-31 or 2027-01-31T12:00:00Z)")
        }
        guard date > now else { throw ValidationError("--expires \(text) is not in the future; give a later date or a duration such as 90d") }
        return date
    }

    /// Ids given as `a,b c`: split at commas, blanks dropped, each once.
    static func ids(_ values: [String]) -> [String] {
        var seen: Set<String> = []
        return values.flatMap { $0.split(separator: ",") }.map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    static func actor(_ by: String?) -> String {
        by ?? "cli:\(ProcessInfo.processInfo.environment["USER"] ?? "unknown")"
    }

    /// A time as the list shows it: 2026-12-01T09:30:00Z.
    static func shown(_ date: Date) -> String { date.formatted(.iso8601) }
}

private extension String {
    var nonEmpty: String? { isEmpty ? nil : self }
}
