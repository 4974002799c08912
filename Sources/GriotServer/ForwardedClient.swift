import Foundation
import HTTPTypes

/// The client's address behind a load balancer. nginx connects to a node from its own address,
/// so without this every client of a cluster would share one address: one per-address limit
/// on the public routes, one hash in the audit log. `X-Forwarded-For` is believed only from
/// the proxies the node is told to trust (`GRIOT_TRUSTED_PROXIES`, e.g. `127.0.0.1`), and read
/// from the right: the first address no trusted proxy added is the client.
///
/// ```swift
/// ForwardedClient.address(socket: "127.0.0.1", forwardedFor: "203.0.113.9, 127.0.0.1", trusted: ["127.0.0.1"])   // "203.0.113.9"
/// ```
public enum ForwardedClient {
    static let header = HTTPField.Name("X-Forwarded-For")!

    static func address(socket: String?, forwardedFor: String?, trusted: Set<String>) -> String? {
        guard let socket, trusted.contains(socket), let forwardedFor else { return socket }
        let hops = forwardedFor.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        return hops.last { !trusted.contains($0) } ?? hops.first ?? socket
    }

    /// `GRIOT_TRUSTED_PROXIES`: addresses separated by commas; none when unset.
    public static func trusted(_ environment: [String: String]) -> Set<String> {
        Set((environment["GRIOT_TRUSTED_PROXIES"] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
    }
}
