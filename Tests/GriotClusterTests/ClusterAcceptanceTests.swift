import Foundation
import Testing

/// The cluster acceptance runs of issue 34, against the real thing: `scripts/cluster.sh` brings
/// up three `griot serve` nodes on one PostgreSQL behind nginx, once for every test nested here
/// (one at a time), and takes it down after them. Each test talks HTTP to nginx and to the
/// nodes directly, as clients and a balancer would.
///
/// Off unless GRIOT_CLUSTER_TESTS=1 (a plain `swift test` starts no cluster); `scripts/test.sh
/// --cluster` runs them. A file of this target adds its tests as a nested suite, so they share
/// the one cluster:
///
/// ```swift
/// extension ClusterAcceptanceTests {
///     @Suite struct NodeDeath { @Test func … { let cluster = try await ClusterFixture.shared.running() … } }
/// }
/// ```
@Suite(.serialized, .enabled(if: ClusterLayout.testsEnabled, "the cluster tests start PostgreSQL, nginx and three nodes; set GRIOT_CLUSTER_TESTS=1 (or run scripts/test.sh --cluster)"),
       .cluster)
struct ClusterAcceptanceTests {}

/// Brings the cluster up around the suite it is attached to, and down after its last test.
struct ClusterTrait: SuiteTrait, TestScoping {
    var isRecursive: Bool { false }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        do {
            _ = try await ClusterFixture.shared.up()
            try await function()
        } catch {
            await ClusterFixture.shared.down()
            throw error
        }
        await ClusterFixture.shared.down()
    }
}

extension Trait where Self == ClusterTrait {
    /// The cluster of `scripts/cluster.sh`, up for the suite's tests.
    static var cluster: Self { ClusterTrait() }
}
