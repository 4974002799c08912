import Foundation

/// The circuit breakers' shared state (`breakerState`): what one node learns of a provider (it
/// is down; it is back) every node on the database acts on. Times are the breakers' clock seconds.
public protocol BreakerStore: Sendable {
    /// When the breaker last opened (nil: closed) and until when a probe holds its half-open slot.
    func breakerState(_ name: String) async throws -> (openSince: Double?, probeUntil: Double?)?
    /// Records an opening at `since`; a later opening replaces an earlier one, never the reverse.
    func openBreaker(_ name: String, since: Double) async throws
    func closeBreaker(_ name: String) async throws
    /// Takes the probe of an open breaker whose period is over, for `lease` seconds: true when
    /// this caller got it (or no node recorded the breaker), false when another holds it.
    func claimBreakerProbe(_ name: String, now: Double, openSeconds: Double, lease: Double) async throws -> Bool
    func releaseBreakerProbe(_ name: String) async throws
}
