import GriotProviders
import Testing

@Suite struct ServerSentEventParserTests {
}
