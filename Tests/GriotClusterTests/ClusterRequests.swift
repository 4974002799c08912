import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// One answer of a node or of nginx: status, headers, body, and how long it took.
struct ClusterResponse: Sendable {
    var status: Int
    var headers: HTTPHeaders
    var body: Data
    var elapsed: Duration

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    var errorDetails: [String: Any] { (json["error"] as? [String: Any])?["details"] as? [String: Any] ?? [:] }
    var retryAfter: Int? { headers.first(name: "Retry-After").flatMap { Int($0) } }
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The Server-Sent Events of a stream's body, in order.
    var events: [ServerSentEvent] { ServerSentEvent.parse(text) }
}

/// One event of a turn's stream: its name and its JSON data.
struct ServerSentEvent: Sendable {
    var id: String?
    var name: String
    var data: String

    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:] }

    static func parse(_ text: String) -> [ServerSentEvent] {
        text.components(separatedBy: "\n\n").compactMap { block in
            var event = ServerSentEvent(id: nil, name: "message", data: "")
            var data: [String] = []
            for line in block.split(separator: "\n", omittingEmptySubsequences: true) where !line.hasPrefix(":") {
                if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                else if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                else if line.hasPrefix("data: ") { data.append(String(line.dropFirst(6))) }
            }
            guard !data.isEmpty else { return nil }
            event.data = data.joined(separator: "\n")
            return event
        }
    }
}

/// Requests to the cluster, as a client sends them (AsyncHTTPClient's shared client).
enum ClusterRequests {
    static func send(_ method: HTTPMethod, _ url: String, token: String? = nil, json: Any? = nil,
                     timeout: TimeAmount = .seconds(60)) async throws -> ClusterResponse {
        var request = HTTPClientRequest(url: url)
        request.method = method
        if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        }
        let started = ContinuousClock.now
        let response = try await HTTPClient.shared.execute(request, timeout: timeout)
        // A stream ends with `done` and the node closes the connection, so the whole body comes.
        let body = try await response.body.collect(upTo: 16 << 20)
        return ClusterResponse(status: Int(response.status.code), headers: response.headers, body: Data(buffer: body),
                               elapsed: started.duration(to: .now))
    }

    static func get(_ url: String, token: String? = nil) async throws -> ClusterResponse {
        try await send(.GET, url, token: token)
    }

    static func post(_ url: String, token: String, json: Any) async throws -> ClusterResponse {
        try await send(.POST, url, token: token, json: json)
    }

    /// The story ids a search returns to the token's holder (a failed search throws).
    static func searchStoryIDs(_ base: String, token: String, query: String, k: Int = 10) async throws -> [String] {
        var components = URLComponents(string: "\(base)/api/stories/search")!
        components.queryItems = [URLQueryItem(name: "q", value: query), URLQueryItem(name: "k", value: String(k))]
        let response = try await get(components.url!.absoluteString, token: token)
        guard response.status == 200 else {
            throw ClusterError("search \(query) on \(base) answered \(response.status): \(response.text.prefix(300))")
        }
        return (response.json["results"] as? [[String: Any]] ?? []).compactMap { $0["story_id"] as? String }
    }

    /// Ingests stories (the ingest format) through one node, as an admin.
    static func ingest(_ stories: [[String: Any]], through base: String, token: String) async throws {
        let response = try await post("\(base)/api/stories", token: token, json: stories)
        guard response.status == 200 || response.status == 201 else {
            throw ClusterError("ingest through \(base) answered \(response.status): \(response.text.prefix(500))")
        }
    }

    /// Waits until a search on every node finds `storyID` for the token's holder: story changes
    /// reach the nodes in commit order, so every change before it has reached them too.
    static func waitUntilEveryNodeFinds(_ storyID: String, query: String, in cluster: Cluster, token: String,
                                        timeout: Duration = .seconds(10)) async throws {
        let deadline = ContinuousClock.now + timeout
        for node in cluster.nodes {
            while try await !searchStoryIDs(node, token: token, query: query).contains(storyID) {
                guard ContinuousClock.now < deadline else { throw ClusterError("\(node) did not find \(storyID) within \(timeout)") }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
    }
}
