import AsyncHTTPClient
import Foundation
import GriotServer
import HummingbirdTesting
import NIOCore
import Testing

@Suite struct StreamHangUpTests {
    /// Clients that hang up after the first bytes of a stream, over and over: the service goes on
    /// serving. (Hummingbird's consumeWithCancellationOnInboundClose, which we used before, trapped
    /// in NIO here when the request body had been read: "Deinited NIOAsyncSequenceProducer.Source
    /// without calling source.finish()".)
    @Test func clientsHangingUpMidStreamDoNotTakeTheServiceDown() async throws {
        let service = try await TestService(grace: 0)
        let headers = try await service.headers("u-hangup")
        try await service.test(.live) { client in
            for round in 0..<12 {
                var request = HTTPClientRequest(url: "http://127.0.0.1:\(client.port!)/api/griot/chat/stream")
                request.method = .POST
                for field in headers { request.headers.add(name: field.name.rawName, value: field.value) }
                request.body = .bytes(ByteBuffer(data: try JSONSerialization.data(withJSONObject: ["message": "What happened in the 1927 flood? (\(round))"])))
                let (started, signal) = AsyncStream.makeStream(of: Void.self)
                // Breaking out of the body loop would not close the connection; cancelling the task does.
                let reader = Task {
                    let response = try await HTTPClient.shared.execute(request, timeout: .seconds(30))
                    for try await _ in response.body { signal.yield() }
                }
                for await _ in started { break }
                reader.cancel()
                _ = await reader.result
            }
            let health = try await live(client, .GET, "/healthz")
            #expect(health.status == 200)
            let after = try await live(client, .POST, "/api/griot/chat", headers: headers, body: body(["message": "Who kept bees?"]))
            #expect(after.status == 200)
        }
    }
}
