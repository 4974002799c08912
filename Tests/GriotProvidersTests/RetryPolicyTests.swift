import GriotProviders
import Testing

@Suite struct RetryPolicyTests {
    @Test func delaysDoubleFromHalfASecondWithEqualJitterUpToEightSeconds() {
        let low = RetryPolicy(random: { 0 })
        let high = RetryPolicy(random: { 0.999_999 })
        // Retry n waits between half and all of min(8, 0.5 · 2ⁿ⁻¹).
        for (retry, ceiling) in [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 8.0), (40, 8.0)] {
            #expect(low.delay(beforeRetry: retry, retryAfter: nil) == ceiling / 2)
            let most = high.delay(beforeRetry: retry, retryAfter: nil)
            #expect(most < ceiling && most > ceiling * 0.999)
        }
    }

    @Test func retryAfterIsUsedAsGivenUpToTheCap() {
        let policy = RetryPolicy(random: { 0.5 })
        #expect(policy.delay(beforeRetry: 1, retryAfter: 3) == 3)
        #expect(policy.delay(beforeRetry: 1, retryAfter: 0) == 0)
        #expect(policy.delay(beforeRetry: 2, retryAfter: 120) == 8)
        #expect(policy.delay(beforeRetry: 1, retryAfter: -4) == 0)
    }
}
