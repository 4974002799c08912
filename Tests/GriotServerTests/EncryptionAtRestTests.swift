import Foundation
import GriotArchive
import GriotChat
import GriotEmbedding
import GriotPrompts
import GriotSearch
import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing


/// Data at rest (issue 38): a private story, chat messages and their replies, an edited
/// message's earlier text and an export go through the service over HTTP; then the database's
/// raw files are read byte by byte for each text. Encrypted, no text is found: not in SQLite's
/// pages, WAL or shared memory, not in PostgreSQL's table files (after a checkpoint) or WAL.
/// The same run without a master key finds every text, which shows that the scan can see.
@Suite(.serialized) struct EncryptionAtRestTests {
    enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case sqlite, postgres
        var testDescription: String { rawValue }
    }

    static let embedder = Task { try SentenceEmbedder() }

    static func keyring(_ id: String = "mk-rest-1") throws -> MasterKeyring {
        try MasterKeyring.parse(MasterKeyring.newKeyLine(id: id), source: "the test's key")
    }

    /// The texts of one run, each with a tag of its own so that a match is this run's.
    struct Secrets {
        let tag = String(UInt64.random(in: 1 << 40 ..< 1 << 48), radix: 36)
        var storyText: String { "Zofia Łukasiewicz buried the amber ring \(tag)a beneath the old pear tree in Kraków." }
        var title: String { "李秀英 and the amber ring \(tag)b" }
        var question: String { "Who is 秀英 \(tag)c, and where is the amber ring \(tag)a?" }
        var plan: String { "My private plan \(tag)d is to phone my sister before Sunday." }
        var edited: String { "My private plan \(tag)e is to write to my sister before Sunday." }

        /// What the scan looks for (the question's own words, the plan before and after the edit).
        var scanned: [String] {
            [storyText, title, "Who is 秀英 \(tag)c", "My private plan \(tag)d is to phone", "My private plan \(tag)e is to write"]
        }
    }

    @Test(arguments: Backend.allCases)
    func nothingIsReadableInTheRawFiles(on backend: Backend) async throws {
        let location = try await Self.location(backend)
        let secrets = Secrets()
        let keyring = try Self.keyring()
        try await Self.exercise(location: location, keyring: keyring, secrets: secrets)
        let found = try Self.scan(location, for: secrets.scanned)
        #expect(found.isEmpty, "plain text at rest: \(found)")

        // Restarted with the key: the index is built again from the decrypted story.
        let storage = try await location.open(keyring: keyring)
        let archive = StoryArchive(storage: storage, embedder: try await Self.embedder.value)
        let hits = try await archive.search("amber ring \(secrets.tag)a", filter: SearchFilter(viewer: Viewer(userID: "u-zofia")))
        #expect(hits.results.first?.passage.text.contains(secrets.storyText) == true, "the owner finds her private story after a restart")
    }

    /// The control: the same run without a key leaves every text in the files.
    @Test(arguments: Backend.allCases)
    func theScanFindsPlainTextWhenNothingIsEncrypted(on backend: Backend) async throws {
        let location = try await Self.location(backend)
        let secrets = Secrets()
        try await Self.exercise(location: location, keyring: nil, secrets: secrets)
        let found = try Self.scan(location, for: secrets.scanned)
        #expect(Set(found.map(\.text)) == Set(secrets.scanned), "the scan missed \(Set(secrets.scanned).subtracting(found.map(\.text)))")
    }

    @Test func aDatabaseOpensOnlyWithItsMasterKey() async throws {
        let location = try await Self.location(.sqlite)
        let right = try Self.keyring("mk-right")
        let storage = try await location.open(keyring: right)
        let thread = try await storage.chats.createThread(assistant: "coach", userID: "u-ania", courseID: "c-1")
        try await storage.chats.appendMessage(threadID: thread.id, role: .user, content: "Tylko dla mnie")

        do {
            _ = try await location.open(keyring: .some(nil))
            Issue.record("opened without a key")
        } catch {
            #expect("\(error)".contains("mk-right") && "\(error)".contains("GRIOT_MASTER_KEY_FILE"), "\(error)")
        }
        do {
            _ = try await location.open(keyring: try Self.keyring("mk-other"))
            Issue.record("opened with a key file that lacks the key")
        } catch {
            #expect("\(error)".contains("mk-right"), "\(error)")
        }
        do {
            _ = try await location.open(keyring: try Self.keyring("mk-right"))   // the same id, another key
            Issue.record("opened with a different key under the same id")
        } catch {
            #expect("\(error)".contains("mk-right") && "\(error)".contains("different key"), "\(error)")
        }
        let reopened = try await location.open(keyring: right)
        #expect(try await reopened.chats.recentMessages(threadID: thread.id, limit: 5).map(\.content) == ["Tylko dla mnie"])
    }

    // MARK: The run

    /// An admin adds a private story; its owner asks about it; a client writes to her coach and
    /// edits the message; the coach exports the thread.
    static func exercise(location: StorageLocation, keyring: MasterKeyring?, secrets: Secrets) async throws {
        let storage = try await location.open(keyring: .some(keyring))
        let archive = StoryArchive(storage: storage, embedder: try await embedder.value)
        let prompts = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
        let engine = ChatEngine(archive: archive, chats: storage.chats, prompts: prompts, provider: ExtractiveResponder(), counters: .bytePair)
        let service = try await TestService(engine: engine)
        let admin = try await service.headers("u-admin", role: .admin)
        let zofia = try await service.headers("u-zofia")
        let client = try await service.headers("u-ania")
        let coach = try await service.headers("u-coach", role: .coach)
        try await service.test(.live) { http in
            let story = body(["artifact_id": "amber-\(secrets.tag)", "title": secrets.title, "privacy": "private", "owner_user_id": "u-zofia",
                              "transcript": secrets.storyText + " She told nobody but her granddaughter."])
            #expect(try await live(http, .POST, "/api/stories", headers: admin, body: story).status == 201)

            let answer = try await live(http, .POST, "/api/griot/chat", headers: zofia, body: body(["message": secrets.question]))
            #expect(answer.status == 200)
            let cited = object(answer.text)["citations"] as? [[String: Any]] ?? []
            #expect(cited.contains { $0["video_id"] as? String == "amber-\(secrets.tag)" }, "the answer cites the private story: \(answer.text)")

            let opened = try await live(http, .POST, "/api/coach/threads", headers: client, body: body(["course_id": "c-1"]))
            let threadID = try #require(object(opened.text)["id"] as? String)
            #expect(try await live(http, .POST, "/api/coach/threads/\(threadID)/messages", headers: client, body: body(["content": secrets.plan])).status == 200)
            let page = try await live(http, .GET, "/api/coach/threads/\(threadID)/messages", headers: client)
            let mine = try #require((object(page.text)["messages"] as? [[String: Any]])?.first { $0["role"] as? String == "user" })
            #expect(mine["content"] as? String == secrets.plan, "stored and read back as written")
            var conditional = client
            conditional[.ifMatch] = try #require(mine["etag"] as? String)
            let edited = try await live(http, .PATCH, "/api/coach/messages/\(try #require(mine["id"] as? String))", headers: conditional,
                                        body: body(["content": secrets.edited]))
            #expect(edited.status == 200)

            let export = try await live(http, .GET, "/api/coach/threads/\(threadID)/export?format=json", headers: coach)
            #expect(export.status == 200)
            #expect(export.text.contains(secrets.edited), "the export holds the thread's text")
        }
    }

    // MARK: The scan

    static func location(_ backend: Backend) async throws -> StorageLocation {
        switch backend {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("griot-rest-\(UUID().uuidString)")
            return .sqlite(path: directory.appendingPathComponent("griot.sqlite").path)
        case .postgres:
            return .postgres(url: try await TestSchema.create().url)
        }
    }

    /// Where each text was found: the SQLite file with its WAL and shared memory, or every file
    /// of the PostgreSQL cluster's databases and its WAL, after a checkpoint.
    static func scan(_ location: StorageLocation, for texts: [String]) throws -> [(text: String, file: String)] {
        let files: [URL]
        switch location {
        case .sqlite(let path):
            files = ["", "-wal", "-shm"].map { URL(fileURLWithPath: path + $0) }.filter { FileManager.default.fileExists(atPath: $0.path) }
        case .postgres:
            let folder = try clusterFolder()
            files = ["base", "pg_wal"].flatMap { allFiles(under: folder.appendingPathComponent($0)) }
        }
        #expect(!files.isEmpty)
        var found: [(String, String)] = []
        for file in files {
            guard let data = FileManager.default.contents(atPath: file.path) else { continue }
            for text in texts where contains(data, Array(text.utf8)) { found.append((text, file.lastPathComponent)) }
        }
        return found
    }

    /// `scripts/postgres.sh checkpoint`: every changed page written to the table files; the
    /// cluster's folder.
    static func clusterFolder() throws -> URL {
        let process = Process()
        process.executableURL = packageRoot.appendingPathComponent("scripts/postgres.sh")
        process.arguments = ["checkpoint"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "scripts/postgres.sh checkpoint failed")
        return URL(fileURLWithPath: String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }

    static func allFiles(under folder: URL) -> [URL] {
        guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return walker.compactMap { $0 as? URL }.filter { (try? $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true }
    }

    /// Whether `needle`'s bytes occur in `data` (memchr for the first byte, memcmp for the rest).
    static func contains(_ data: Data, _ needle: [UInt8]) -> Bool {
        guard let first = needle.first else { return true }
        return data.withUnsafeBytes { raw -> Bool in
            guard let base = raw.bindMemory(to: UInt8.self).baseAddress, raw.count >= needle.count else { return false }
            let last = raw.count - needle.count
            var start = 0
            while start <= last {
                guard let hit = memchr(base + start, Int32(first), last - start + 1) else { return false }
                let offset = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                if memcmp(base + offset, needle, needle.count) == 0 { return true }
                start = offset + 1
            }
            return false
        }
    }
}
