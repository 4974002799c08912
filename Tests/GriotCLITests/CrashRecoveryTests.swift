import AsyncHTTPClient
import Foundation
import GRDB
import GriotAuth
import GriotTestSupport
import NIOCore
import Testing

/// `griot serve` killed with SIGKILL in the middle of streams, then started again.
@Suite struct CrashRecoveryTests {
    /// A `griot serve` child process on a port of its own.
    final class Server {
        let process = Process()
        let port: Int
        let log: URL

        init(sandbox: GriotSandbox, port: Int, environment extra: [String: String]) throws {
            self.port = port
            process.executableURL = GriotSandbox.binary
            process.arguments = ["serve", "--port", String(port)]
            var environment = ProcessInfo.processInfo.environment
            environment["XDG_DATA_HOME"] = sandbox.directory.appendingPathComponent("data").path
            environment["GRIOT_DB"] = nil
            for name in ["OPENAI_API_KEY", "GRIOT_PROVIDER", "GRIOT_JWT_SECRET", "GRIOT_JWKS_FILE"] { environment[name] = nil }
            environment.merge(extra) { _, new in new }
            process.environment = environment
            process.currentDirectoryURL = GriotSandbox.packageRoot
            process.standardOutput = FileHandle.nullDevice
            log = sandbox.directory.appendingPathComponent("serve-\(port)-\(UUID().uuidString.prefix(8)).log")
            FileManager.default.createFile(atPath: log.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: log)
            try process.run()
        }

        func waitUntilReady(timeout: Duration = .seconds(120)) async throws {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let response = try? await HTTPClient.shared.execute(HTTPClientRequest(url: "http://127.0.0.1:\(port)/readyz"), timeout: .seconds(2)),
                   response.status == .ok { return }
                try await Task.sleep(for: .milliseconds(200))
            }
            let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            Issue.record("griot serve on port \(port) was not ready after \(timeout) (running: \(process.isRunning)); its log:\n\(output.suffix(3000))")
            throw CancellationError()
        }

        func kill() {
            Foundation.kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }
    }

    @Test func everyUserMessageSurvivesAndInterruptedRepliesAreMarked() async throws {
        let sandbox = try GriotSandbox()
        // Sentences: the griot passes reply text to clients and storage a checked sentence at a time.
        let pieces = (0..<400).map { "W\($0). " }
        try await StubChatServer.with({ _ in .stream(pieces, pause: 0.02) }) { stub in
            let port = Int.random(in: 20_000..<40_000)
            let environment = ["GRIOT_AUTH_MODE": "development", "OPENAI_BASE_URL": stub.baseURL, "OPENAI_MODEL": "stub-model",
                               "GRIOT_INTERRUPTED_AFTER_SECONDS": "0"]
            let first = try Server(sandbox: sandbox, port: port, environment: environment)
            try await first.waitUntilReady()
            let verifier = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))

            // Five people ask at once; the stub answers slowly (8 s each).
            let questions = (1...5).map { "Question number \($0) about the flood" }
            let streams = Task {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for (index, question) in questions.enumerated() {
                        let token = try await verifier.mintDevelopmentToken(userID: "u-crash-\(index)", role: .client)
                        group.addTask {
                            var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/griot/chat/stream")
                            request.method = .POST
                            request.headers.add(name: "Authorization", value: "Bearer \(token)")
                            request.headers.add(name: "Content-Type", value: "application/json")
                            request.body = .bytes(ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: ["message": question]))))
                            let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                            for try await _ in response.body {}
                        }
                    }
                    try? await group.waitForAll()
                }
            }
            #expect(await stub.waitUntil(timeout: 30) { $0.count == 5 })
            try await Task.sleep(for: .seconds(1))
            first.kill()
            _ = await streams.result

            // Started again, the node marks the replies its predecessor left streaming.
            let second = try Server(sandbox: sandbox, port: port, environment: environment)
            try await second.waitUntilReady()
            try await Task.sleep(for: .milliseconds(500))
            second.stop()

            let database = sandbox.directory.appendingPathComponent("data/griot/griot.sqlite").path
            let queue = try DatabaseQueue(path: database)
            try await queue.read { db in
                #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
                let asked = try String.fetchAll(db, sql: "SELECT content FROM message WHERE role = 'user' ORDER BY content")
                #expect(asked == questions.sorted(), "every user message is there")
                let replies = try Row.fetchAll(db, sql: "SELECT status, content FROM message WHERE role = 'assistant'")
                #expect(replies.count == 5)
                #expect(replies.allSatisfy { $0["status"] as String == "interrupted" }, "\(replies)")
                #expect(replies.contains { ($0["content"] as String).hasPrefix("W0. ") }, "the text written before the kill is kept")
                #expect(try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM turn WHERE status = 'streaming'") == 0)
            }
        }
    }

    /// SIGTERM: replies that finish within the grace period complete, the rest are stopped and
    /// stored as interrupted, new chats meanwhile get 503, and the process exits cleanly.
    @Test func sigtermLetsShortRepliesFinishAndStoresTheRestAsInterrupted() async throws {
        let sandbox = try GriotSandbox()
        try await StubChatServer.with({ index in
            index == 0 ? .stream((0..<10).map { "s\($0) " }, pause: 0.2) : .stream((0..<400).map { "w\($0) " }, pause: 0.02)
        }) { stub in
            let port = Int.random(in: 20_000..<40_000)
            let server = try Server(sandbox: sandbox, port: port, environment: [
                "GRIOT_AUTH_MODE": "development", "OPENAI_BASE_URL": stub.baseURL, "OPENAI_MODEL": "stub-model", "GRIOT_SHUTDOWN_GRACE_SECONDS": "4"])
            try await server.waitUntilReady()
            let verifier = try await TokenVerifier.make(AuthConfiguration(environment: ["GRIOT_AUTH_MODE": "development"]))
            let token = try await verifier.mintDevelopmentToken(userID: "u-term", role: .client)
            @Sendable func chat(_ question: String) async throws -> (status: Int, text: String) {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(port)/api/griot/chat/stream")
                request.method = .POST
                request.headers.add(name: "Authorization", value: "Bearer \(token)")
                request.headers.add(name: "Content-Type", value: "application/json")
                request.body = .bytes(ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: ["message": question]))))
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                let body = try await response.body.collect(upTo: 1 << 20)
                return (Int(response.status.code), String(buffer: body))
            }
            let short = Task { try await chat("A short question about the flood") }
            #expect(await stub.waitUntil(timeout: 30) { $0.count == 1 })
            let long = Task { try await chat("A long question about the harvest") }
            #expect(await stub.waitUntil(timeout: 30) { $0.count == 2 })
            server.process.terminate()   // SIGTERM
            try await Task.sleep(for: .milliseconds(300))
            let refused = try await chat("A question asked while the node drains")
            #expect(refused.status == 503 && refused.text.contains("shutting_down"))
            let shortResult = try await short.value
            let longResult = try await long.value
            #expect(shortResult.text.contains("event: done") && shortResult.text.contains("s9"))
            #expect(longResult.text.contains("event: done"), "the interrupted stream still ends with done")
            server.process.waitUntilExit()
            #expect(server.process.terminationStatus == 0)

            let database = sandbox.directory.appendingPathComponent("data/griot/griot.sqlite").path
            let queue = try DatabaseQueue(path: database)
            try await queue.read { db in
                #expect(try String.fetchOne(db, sql: "PRAGMA integrity_check") == "ok")
                let rows = try Row.fetchAll(db, sql: """
                    SELECT u.content AS question, a.status AS status FROM message a JOIN message u
                    ON u.threadID = a.threadID AND u.sequence = a.sequence - 1 WHERE a.role = 'assistant'
                    """)
                let statuses = Dictionary(uniqueKeysWithValues: rows.map { ($0["question"] as String, $0["status"] as String) })
                #expect(statuses == ["A short question about the flood": "complete", "A long question about the harvest": "interrupted"], "\(statuses)")
                #expect(try String.fetchAll(db, sql: "SELECT status FROM turn ORDER BY status") == ["complete", "interrupted"])
            }
        }
    }
}
