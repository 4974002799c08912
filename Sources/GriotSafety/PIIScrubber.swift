// INTERIM (not committed): API stand-in until the pii branch lands.
import Foundation
public enum PIIType: String, Codable, Sendable, CaseIterable { case phone = "PHONE", email = "EMAIL", address = "ADDRESS", ssn = "SSN", creditCard = "CREDIT_CARD", ipv4 = "IPV4" }
public struct PIIMatch: Sendable, Equatable { public var type: PIIType; public var range: Range<Int>; public var value: String }
public final class PIIScrubber: @unchecked Sendable {
    let phone = try! NSRegularExpression(pattern: #"\(?\b\d{3}\)?[-. ]\d{3}[-. ]\d{4}\b"#)
    public init() throws {}
    public func matches(in text: String) -> [PIIMatch] {
        let ns = text as NSString
        return phone.matches(in: text, range: NSRange(location: 0, length: ns.length)).map {
            PIIMatch(type: .phone, range: $0.range.location..<($0.range.location + $0.range.length), value: ns.substring(with: $0.range))
        }
    }
    public func scrub(_ text: String, keeping shared: Set<String> = []) -> (text: String, masked: [PIIMatch]) {
        var out = text as NSString
        var masked: [PIIMatch] = []
        for m in matches(in: text).reversed() where !shared.contains(Self.key(m)) {
            out = out.replacingCharacters(in: NSRange(location: m.range.lowerBound, length: m.range.count), with: "[\(m.type.rawValue)]") as NSString
            masked.insert(m, at: 0)
        }
        return (out as String, masked)
    }
    public static func key(_ match: PIIMatch) -> String { match.value.filter(\.isNumber) }
    public func sharedKeys(in text: String) -> Set<String> { Set(matches(in: text).map(Self.key)) }
}
