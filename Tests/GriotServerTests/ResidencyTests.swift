import Foundation
import GRDB
import GriotArchive
import GriotAuth
import GriotChat
import GriotPrompts
@testable import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import NIOCore
import Testing

/// Issue 38, residency: a user's conversations are kept in their region's database and nowhere
/// else, found there again, refused when the node keeps no database for the region, and erased
/// from every region. Checked on the raw bytes of the SQLite files (database, WAL and shared
/// memory), not only through the store.
@Suite struct ResidencyTests {
    /// A node with a home database and one SQLite file per region, under a fresh folder.
    struct Node {
        let folder: URL
        let service: TestService
        let regional: RegionalChatStore

        init(regions: [String] = ["eu", "us"], defaultRegion: String? = nil) async throws {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-residency-\(UUID().uuidString)")
            self.folder = folder
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let home = try SQLiteStoryStore(path: folder.appendingPathComponent("home.sqlite").path, cipher: TestDatabase.cipher()).storage()
            let listed = regions.map { "\($0)=\(folder.appendingPathComponent("\($0).sqlite").path)" }.joined(separator: ",")
            let databases = try RegionDatabases.parse(listed, defaultRegion: defaultRegion)
            let regional = try await databases.open(home: home).chats
            self.regional = regional
            let prompts = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
            let engine = ChatEngine(archive: await demoArchive, chats: regional, prompts: prompts, provider: ExtractiveResponder(), counters: .bytePair)
            service = try await TestService(engine: engine)
        }

        func headers(_ userID: String, region: String?, role: CallerRole = .client) async throws -> HTTPFields {
            let token = try await service.verifier.mintDevelopmentToken(userID: userID, role: role, courseIDs: TestService.enrolled, region: region,
                                                                          expiresIn: 3600)
            return [.authorization: "Bearer \(token)", .contentType: "application/json"]
        }

        /// The bytes of a database's files as they are on disk now: the file, its WAL and its shared memory.
        func bytes(_ database: String) throws -> Data {
            var all = Data()
            for suffix in ["", "-wal", "-shm"] {
                let path = folder.appendingPathComponent("\(database).sqlite\(suffix)").path
                if let data = FileManager.default.contents(atPath: path) { all.append(data) }
            }
            return all
        }

        func contains(_ database: String, _ text: String) throws -> Bool {
            try bytes(database).range(of: Data(text.utf8)) != nil
        }

        /// Rewrites a database without its free pages and folds its WAL in, so deleted rows'
        /// bytes are gone from disk and a scan sees only what is still stored.
        func compact(_ database: String) throws {
            let queue = try DatabaseQueue(path: folder.appendingPathComponent("\(database).sqlite").path)
            try queue.writeWithoutTransaction { db in
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
                try db.execute(sql: "VACUUM")
                try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)")
            }
        }

        func remove() { try? FileManager.default.removeItem(at: folder) }
    }

    /// Message text is stored in plain text unless the suite runs with a master key (then the
    /// scans can look for the user ids only, which are not encrypted).
    static let textIsPlain = (ProcessInfo.processInfo.environment["GRIOT_MASTER_KEY_FILE"] ?? "").isEmpty

    @Test func eachUsersConversationsStayInTheirRegionAndTheErasureReachesEveryRegion() async throws {
        let node = try await Node()
        defer { node.remove() }
        let anna = "u-anna-lindqvist-eu", sam = "u-sam-okafor-us", ravi = "u-ravi-menon-ap"
        let annasText = "Did anyone in the stories keep bees near the quillwortmeadow?"
        let samsText = "Tell me about the flood and the sagebrushprairie behind the church."
        let keysText = "What did the family remember of the juniperkeyvale orchard?"
        let ravisText = "Tell me about the porch and the mangrovelagoonstory."
        let (key, keyToken) = APIKey.make(name: "us exporter", role: "client", region: "us", now: Date())
        try await node.regional.createAPIKey(key)
        let keyHeaders: HTTPFields = [.authorization: "Bearer \(keyToken)", .contentType: "application/json"]

        try await node.service.test(.live) { client in
            let annaHeaders = try await node.headers(anna, region: "eu")
            let chatted = try await live(client, .POST, "/api/griot/chat", headers: annaHeaders, body: body(["message": annasText]))
            #expect(chatted.status == 200, "\(chatted.text.prefix(300))")
            let annasSession = try #require(object(chatted.text)["session_id"] as? String)
            let samsChat = try await live(client, .POST, "/api/griot/chat", headers: try await node.headers(sam, region: "us"),
                                          body: body(["message": samsText]))
            #expect(samsChat.status == 200, "\(samsChat.text.prefix(300))")
            let keysChat = try await live(client, .POST, "/api/griot/chat", headers: keyHeaders, body: body(["message": keysText]))
            #expect(keysChat.status == 200, "\(keysChat.text.prefix(300))")

            // Read back from her region: her session and its messages.
            let sessions = try await live(client, .GET, "/api/griot/sessions", headers: annaHeaders)
            #expect((object(sessions.text)["sessions"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == [annasSession])
            let session = try await live(client, .GET, "/api/griot/sessions/\(annasSession)", headers: annaHeaders)
            #expect(session.status == 200 && session.text.contains("quillwortmeadow"), "\(session.text.prefix(300))")

            // A region this node keeps no database for: refused before anything is written.
            let refused = try await live(client, .POST, "/api/griot/chat", headers: try await node.headers(ravi, region: "ap"),
                                         body: body(["message": ravisText]))
            #expect(refused.status == 403)
            let error = try #require(object(refused.text)["error"] as? [String: Any])
            #expect(error["code"] as? String == "region_unavailable")
            let message = error["message"] as? String ?? ""
            #expect(message.contains("\"ap\"") && message.contains("eu, us"), "\(message)")
        }

        // The raw files: each user's id and words are in their region's files only.
        #expect(try node.contains("eu", anna) && !node.contains("us", anna) && !node.contains("home", anna))
        #expect(try node.contains("us", sam) && !node.contains("eu", sam) && !node.contains("home", sam))
        #expect(try node.contains("us", "key:\(key.id)") && !node.contains("eu", "key:\(key.id)"), "the key's region, us, holds its chat")
        for (word, region, other) in [("quillwortmeadow", "eu", "us"), ("sagebrushprairie", "us", "eu"), ("juniperkeyvale", "us", "eu")] {
            #expect(try !node.contains(other, word) && !node.contains("home", word), "\(word) is outside \(region)")
            if Self.textIsPlain { #expect(try node.contains(region, word), "\(word) is in \(region)") }
        }
        for database in ["eu", "us", "home"] {
            #expect(try !node.contains(database, ravi) && !node.contains(database, "mangrovelagoonstory"), "nothing of the refused user in \(database)")
        }

        // Erasure: one request removes the user from every region's database.
        try await node.service.test(.live) { client in
            let admin = try await node.headers("u-admin-eu", region: "eu", role: .admin)
            for user in [anna, sam] {
                let erased = try await live(client, .DELETE, "/api/users/\(user)", headers: admin)
                #expect(erased.status == 200, "\(erased.text.prefix(300))")
                #expect((object(erased.text)["erased"] as? [String: Any])?["threads"] as? Int == 1)
            }
        }
        for region in ["eu", "us"] {
            try await Residency.$region.withValue(region) {
                for user in [anna, sam] {
                    #expect(try await node.regional.threads(userID: user, assistant: "griot").isEmpty)
                    let left = try await node.regional.auditEntries(AuditFilter(userID: user, limit: 100)).map(\.action)
                    #expect(left.allSatisfy { $0 == .userPurge }, "only the records of the erasure: \(left)")
                }
            }
            try node.compact(region)
            for word in ["quillwortmeadow", "sagebrushprairie"] {
                #expect(try !node.contains(region, word), "\(word) is gone from \(region)")
            }
        }
    }

    @Test func anAPIKeysRegionAndTheDefaultRegionDecideWhereAChatGoes() async throws {
        let node = try await Node(defaultRegion: "us")
        defer { node.remove() }
        let (euKey, euToken) = APIKey.make(name: "eu bot", role: "client", region: "eu", now: Date())
        try await node.regional.createAPIKey(euKey)
        #expect(try await node.regional.apiKey(id: euKey.id)?.region == "eu", "the key keeps its region")
        try await node.service.test(.live) { client in
            let viaKey = try await live(client, .POST, "/api/griot/chat", headers: [.authorization: "Bearer \(euToken)", .contentType: "application/json"],
                                        body: body(["message": "What happened in the flood?"]))
            #expect(viaKey.status == 200)
            let noRegion = try await live(client, .POST, "/api/griot/chat", headers: try await node.headers("u-no-region-named", region: nil),
                                          body: body(["message": "What happened in the flood?"]))
            #expect(noRegion.status == 200)
        }
        #expect(try node.contains("eu", "key:\(euKey.id)") && !node.contains("us", "key:\(euKey.id)"))
        #expect(try node.contains("us", "u-no-region-named") && !node.contains("eu", "u-no-region-named"), "no region: the default, us")
    }

    @Test func theScheduledJobsRunInEveryRegion() async throws {
        let node = try await Node()
        defer { node.remove() }
        let longAgo = Date().addingTimeInterval(-40 * 86_400)
        var threads: [String: String] = [:]
        for region in ["eu", "us"] {
            threads[region] = try await Residency.$region.withValue(region) {
                let thread = try await node.regional.createThread(assistant: "griot", userID: "u-\(region)-deleter", now: longAgo)
                try await node.regional.appendMessage(threadID: thread.id, role: .user, content: "Delete me", now: longAgo)
                #expect(try await node.regional.softDeleteThread(id: thread.id, by: "u-\(region)-deleter", now: longAgo))
                return thread.id
            }
        }
        // Unbound, as the node's jobs run: both regions' deleted threads are purged.
        await MaintenanceService(chats: node.regional, retentionInterval: 0).runOnce()
        for region in ["eu", "us"] {
            let store = try #require(node.regional.regions.first { $0.name == region }?.store)
            #expect(try await store.threadExists(id: threads[region]!) == false, "purged in \(region)")
        }
    }

    @Test func regionDatabasesAreReadWithErrorsThatSayWhatIsWrong() throws {
        let regions = try RegionDatabases.parse("eu=/tmp/eu.sqlite, us=postgres://griot:secret@us-db:5432/griot", defaultRegion: nil)
        #expect(regions.regionNames == ["eu", "us"] && regions.defaultRegion == "eu")
        #expect(try RegionDatabases.parse("eu=/tmp/eu.sqlite,us=/tmp/us.sqlite", defaultRegion: "us").defaultRegion == "us")
        func failure(_ text: String, _ defaultRegion: String? = nil) -> String {
            do {
                _ = try RegionDatabases.parse(text, defaultRegion: defaultRegion)
                return ""
            } catch { return "\(error)" }
        }
        #expect(failure("eu:/tmp/eu.sqlite").contains("is not REGION=DATABASE"))
        #expect(failure("EU=/tmp/eu.sqlite").contains("is not a region name"))
        #expect(failure("eu=").contains("region eu has no database"))
        #expect(failure("eu=/tmp/a.sqlite,eu=/tmp/b.sqlite").contains("lists region eu twice"))
        #expect(failure("eu=/tmp/a.sqlite,us=/tmp/a.sqlite").contains("name the same database"))
        #expect(failure("eu=/tmp/a.sqlite,us=/tmp/b.sqlite", "ap").contains("GRIOT_DEFAULT_REGION=ap is not one of the configured regions (eu, us)"))
        #expect(failure("eu=mysql://x/y").contains("the database of region eu is not one"))

        let unset = try GriotConfiguration.load(environment: ["HOME": "/tmp"])
        #expect(unset.regions == nil, "no regions: one database, as before")
        let configured = try GriotConfiguration.load(environment: ["HOME": "/tmp", "GRIOT_REGION_DATABASES": "eu=/tmp/eu.sqlite,us=/tmp/us.sqlite",
                                                                   "GRIOT_DEFAULT_REGION": "us"])
        #expect(configured.regions?.regionNames == ["eu", "us"] && configured.regions?.defaultRegion == "us")
        #expect(throws: ConfigurationError.self) { try GriotConfiguration.load(environment: ["HOME": "/tmp", "GRIOT_DEFAULT_REGION": "eu"]) }
    }
}
