// INTERIM (not committed): API stand-in until the moderation branch lands.
import AsyncHTTPClient
import Foundation
public enum ModerationCategory: String, Codable, Sendable, CaseIterable { case harassment, hate, sexual, violence, selfHarm = "self_harm" }
public struct ModerationResult: Codable, Sendable, Equatable {
    public var harassment = 0.0, hate = 0.0, sexual = 0.0, violence = 0.0, selfHarm = 0.0
    public var source = "local"
    public var reasons: [String] = []
    public var toxicity: Double { max(harassment, hate, violence, sexual) }
    public static let blockThreshold = 0.8
    public static let crisisThreshold = 0.5
    public var blocks: Bool { toxicity > Self.blockThreshold }
    public var needsCrisisResponse: Bool { selfHarm >= Self.crisisThreshold }
    public var topCategory: ModerationCategory { .harassment }
}
public protocol Moderator: Sendable { func moderate(_ text: String) async -> ModerationResult }
public struct LocalModerator: Moderator {
    public init() {}
    public func classify(_ text: String) -> ModerationResult {
        var r = ModerationResult()
        let t = text.lowercased()
        if t.contains("kill myself") || t.contains("end it all") { r.selfHarm = 0.95; r.reasons = ["first-person intent"] }
        if t.contains("you idiot") { r.harassment = 0.95; r.reasons = ["insult"] }
        return r
    }
    public func moderate(_ text: String) async -> ModerationResult { classify(text) }
}
public struct RemoteModerationConfiguration: Sendable {
    public var url: String; public var apiKey: String?; public var model: String?; public var timeout: Duration
    public static func fromEnvironment(_ env: [String: String]) -> RemoteModerationConfiguration? { nil }
}
public struct RemoteModerator: Moderator {
    let fallback: LocalModerator
    public init(configuration: RemoteModerationConfiguration, client: HTTPClient = .shared, fallback: LocalModerator = LocalModerator()) { self.fallback = fallback }
    public func moderate(_ text: String) async -> ModerationResult { fallback.classify(text) }
}
