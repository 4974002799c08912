@testable import GriotServer
import Testing

/// Behind nginx every connection comes from the balancer: the client is read from
/// `X-Forwarded-For`, but only when a trusted proxy sent it.
@Suite struct ForwardedClientTests {
    let proxy: Set<String> = ["127.0.0.1"]

    @Test func aTrustedProxyNamesTheClient() {
        #expect(ForwardedClient.address(socket: "127.0.0.1", forwardedFor: "203.0.113.9", trusted: proxy) == "203.0.113.9")
        // Read from the right: what the client wrote itself in front does not count.
        #expect(ForwardedClient.address(socket: "127.0.0.1", forwardedFor: "10.9.9.9, 203.0.113.9", trusted: proxy) == "203.0.113.9")
        #expect(ForwardedClient.address(socket: "127.0.0.1", forwardedFor: "203.0.113.9, 127.0.0.1", trusted: proxy) == "203.0.113.9")
    }

    @Test func anyoneElsesHeaderIsIgnored() {
        #expect(ForwardedClient.address(socket: "198.51.100.7", forwardedFor: "203.0.113.9", trusted: proxy) == "198.51.100.7")
        #expect(ForwardedClient.address(socket: "127.0.0.1", forwardedFor: "203.0.113.9", trusted: []) == "127.0.0.1")
        #expect(ForwardedClient.address(socket: "127.0.0.1", forwardedFor: nil, trusted: proxy) == "127.0.0.1")
    }

    @Test func theSettingIsAListOfAddresses() {
        #expect(ForwardedClient.trusted(["GRIOT_TRUSTED_PROXIES": " 127.0.0.1, ::1 "]) == ["127.0.0.1", "::1"])
        #expect(ForwardedClient.trusted([:]).isEmpty)
    }
}
