import Foundation
import GriotArchive
import GriotChat
import GriotPrompts
import GriotServer
import GriotStore
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// `griot keys rotate-master` under load (issue 38): a node started with the old master key
/// keeps serving chats while the rotation runs, is stopped halfway (`max`), and runs again; a
/// node restarted with the new key file serves more; a last run leaves nothing on the old key.
/// Then the database opens with the new key alone and every message reads back as sent.
@Suite(.serialized) struct KeyRotationTests {
    @Test(arguments: EncryptionAtRestTests.Backend.allCases)
    func rotationUnderLoadStoppedHalfwayAndRunAgain(on backend: EncryptionAtRestTests.Backend) async throws {
        let location = try await EncryptionAtRestTests.location(backend)
        let oldLine = MasterKeyring.newKeyLine(id: "mk-old")
        let newLine = MasterKeyring.newKeyLine(id: "mk-new")
        let old = try MasterKeyring.parse(oldLine, source: "old key file")
        let both = try MasterKeyring.parse(newLine + "\n" + oldLine, source: "key file with the new key first")
        let new = try MasterKeyring.parse(newLine, source: "new key file")
        let sent = Sent()

        // Node A, started before the rotation: 24 users have chatted.
        let nodeA = try await Self.node(location, old)
        try await Self.chat(nodeA, users: (0..<24).map { "u-\($0)" }, round: 0, sent: sent)

        // The rotation runs from another process's view (the key file with both keys) while node
        // A serves more chats, new users among them (their data keys made under the old key).
        let rotator = try await location.open(keyring: both)
        let load = Task {
            var round = 1
            while !sent.stopped {
                try await Self.chat(nodeA, users: (0..<6).map { "u-\(($0 + round) % 30)" } + ["u-a\(round)"], round: round, sent: sent)
                sent.finishRound()
                round += 1
            }
        }
        let before = try await rotator.chats.dataKeyCounts()
        let half = (before["mk-old"] ?? 0) / 2
        #expect(half >= 12)
        let first = try await MasterKeyRotation(store: rotator.chats, batch: 5).run(max: half)
        #expect(first.rewrapped == half, "stopped halfway")
        #expect((first.left["mk-old"] ?? 0) > 0)
        try await sent.waitForRounds(2)
        let second = try await MasterKeyRotation(store: rotator.chats, batch: 5).run()
        #expect(second.rewrapped > 0)
        try await sent.waitForRounds(4)
        // Stopped between rounds, never cancelled: a live test server torn down by a
        // cancellation mid-request ends in NIOAsyncWriter's "deinited without finish" trap.
        sent.stop()
        try await load.value

        // Node A is rolled: node B reads the key file with both keys and serves a new user.
        let nodeB = try await Self.node(location, both)
        try await Self.chat(nodeB, users: ["u-b1", "u-3"], round: 100, sent: sent)
        let last = try await MasterKeyRotation(store: rotator.chats).run()
        #expect(last.left.isEmpty, "nothing is left on the old key: \(last.left)")
        #expect(try await rotator.chats.dataKeyCounts()["mk-old"] == nil)

        // The old key retired: the database opens with the new key alone, and reads back whole.
        let reopened = try await location.open(keyring: new)
        var read = 0
        let confirmed = sent.all
        for (user, texts) in sent.attempted {
            let threads = try await reopened.chats.threads(userID: user, assistant: "griot")
            var stored: [String] = []
            for thread in threads {
                stored += try await reopened.chats.recentMessages(threadID: thread.id, limit: 1_000).filter { $0.role == .user }.map(\.content)
            }
            // Every reply the chats saw finish is there; a chat cut by the load's end may be too.
            #expect(Set(stored).isSuperset(of: confirmed[user] ?? []) && Set(stored).isSubset(of: texts),
                    "\(user): \(stored.count) stored of \(confirmed[user]?.count ?? 0) confirmed, \(texts.count) sent")
            read += stored.count
        }
        #expect(read >= 24 + 3 * 7 + 2, "\(read) messages read back")
    }

    /// A node serving the griot assistant over `location` with `keyring`.
    static func node(_ location: StorageLocation, _ keyring: MasterKeyring) async throws -> TestService {
        let storage = try await location.open(keyring: keyring)
        let prompts = try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts"))
        let engine = ChatEngine(archive: StoryArchive(storage: storage, embedder: try await EncryptionAtRestTests.embedder.value), chats: storage.chats, prompts: prompts,
                                provider: ExtractiveResponder(), counters: .bytePair)
        return try await TestService(engine: engine)
    }

    /// Each user sends one streamed message (read to its end); what was sent is noted.
    static func chat(_ node: TestService, users: [String], round: Int, sent: Sent) async throws {
        try await node.test(.live) { http in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for user in users {
                    group.addTask {
                        var headers = try await node.headers(user)
                        headers[.accept] = "text/event-stream"
                        let text = "Round \(round): what did Łucja say to \(user) about the orchard?"
                        sent.attempt(text, for: user)
                        let response = try await live(http, .POST, "/api/griot/chat/stream", headers: headers, body: body(["message": text]))
                        #expect(response.status == 200)
                        #expect(response.text.contains("event: done") && !response.text.contains("event: error"), "\(response.text.suffix(300))")
                        sent.add(text, for: user)
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

/// What each user sent (`attempted` before the request, `all` once its stream ended), from the
/// chats' concurrent tasks, and how many rounds of load have finished.
final class Sent: @unchecked Sendable {
    private let lock = NSLock()
    private var texts: [String: [String]] = [:]
    private var tried: [String: [String]] = [:]
    private var rounds = 0
    private var stopping = false

    func attempt(_ text: String, for user: String) { lock.withLock { tried[user, default: []].append(text) } }
    func add(_ text: String, for user: String) { lock.withLock { texts[user, default: []].append(text) } }
    func finishRound() { lock.withLock { rounds += 1 } }
    func stop() { lock.withLock { stopping = true } }
    var stopped: Bool { lock.withLock { stopping } }
    var all: [String: [String]] { lock.withLock { texts } }
    var attempted: [String: [String]] { lock.withLock { tried } }

    func waitForRounds(_ count: Int) async throws {
        while lock.withLock({ rounds }) < count { try await Task.sleep(for: .milliseconds(20)) }
    }
}
