// INTERIM (not committed): API stand-in until the grounded branch lands.
import Foundation
public struct SentenceGroundedness: Codable, Sendable, Equatable {
    public var text: String; public var score: Double; public var lexical: Double; public var semantic: Double?; public var consistency: Double
    public var passage: Int?; public var isClaim: Bool; public var unsupported: [String]
}
public struct GroundednessScore: Codable, Sendable, Equatable {
    public var answer: Double
    public var sentences: [SentenceGroundedness]
    public static let threshold = 0.4
    public var isLowGroundedness: Bool { answer < Self.threshold }
}
public struct GroundednessScorer: Sendable {
    public init(embed: (@Sendable ([String]) -> [[Float]])? = nil) {}
    public func score(answer: String, passages: [String], cited: [Int: [Int]] = [:]) -> GroundednessScore {
        let words = Set(passages.joined(separator: " ").lowercased().split(separator: " "))
        let a = answer.lowercased().split(separator: " ")
        let s = a.isEmpty ? 1 : Double(a.filter { words.contains($0) }.count) / Double(a.count)
        return GroundednessScore(answer: s, sentences: [])
    }
    public func score(sentence: String, passages: [String]) -> SentenceGroundedness {
        SentenceGroundedness(text: sentence, score: 1, lexical: 1, semantic: nil, consistency: 1, passage: nil, isClaim: true, unsupported: [])
    }
}
public struct CopyrightFinding: Codable, Sendable, Equatable { public var similarity: Double; public var passage: Int; public var outputRange: Range<Int> }
public struct CopyrightCheck: Sendable {
    public init(minimumLength: Int = 400, threshold: Double = 0.9) {}
    public func check(_ output: String, passages: [String]) -> CopyrightFinding? { nil }
}
