import Foundation
import GriotChat
import GriotProviders
import GriotServer
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import Synchronization
import Testing

/// Traces (issue 37, item 3; coaching standards item 74): a chat turn exported over OTLP/HTTP to
/// a loopback receiver that decodes it with opentelemetry-proto, as a collector would.
@Suite(.serialized) struct TraceExportTests {
    static let stages = ["screen", "retrieve", "assemble", "generate", "review", "finish"]
    /// What the user wrote that no span may hold: a name, a phone number, the question's words.
    static let message = "I am Zofia Łukasiewicz, call me on +48 601 234 567: what happened in Kelly Ingram Park?"
    static let personal = ["Zofia", "Łukasiewicz", "Lukasiewicz", "601 234 567", "601234567", "Kelly Ingram", "what happened"]

    @Test func oneChatTurnIsOneTraceOfItsStagesWithTheModelCallAndNoPersonalData() async throws {
        let service = try await TestService()
        let run = try await Self.chat(service)
        #expect(run.status == 200)
        let spans = run.spans.filter { $0.attributes["griot.request_id"] as? String == run.requestID }

        // The request's server span, named by its route.
        let request = try #require(spans.first { $0.kind == "SPAN_KIND_SERVER" }, "no server span among \(spans.map(\.name))")
        #expect(request.name == "POST /api/griot/chat")
        #expect(request.attributes["http.route"] as? String == "/api/griot/chat")
        #expect(request.attributes["http.request.method"] as? String == "POST")
        #expect(request.attributes["http.response.status_code"] as? Int == 200)
        #expect(request.resource["service.name"] as? String == "griot-trace-test", "OTEL_SERVICE_NAME is read")

        // One trace: every span with the request id is in the request's trace, and only one turn.
        #expect(Set(spans.map(\.traceID)) == [request.traceID])
        let turns = spans.filter { $0.name == "turn" }
        #expect(turns.count == 1)
        let turn = try #require(turns.first)
        #expect(turn.parentSpanID == request.spanID)
        #expect(turn.attributes["griot.status"] as? String == "complete")
        #expect(turn.attributes["griot.assistant"] as? String == "griot")
        #expect((turn.attributes["griot.turn_id"] as? String)?.isEmpty == false)

        // The six stages, once each, children of the turn, in order.
        let stages = spans.filter { $0.parentSpanID == turn.spanID }
        #expect(stages.map(\.name).sorted() == Self.stages.sorted())
        #expect(stages.sorted { $0.start < $1.start }.map(\.name) == Self.stages)
        #expect((spans.first { $0.name == "retrieve" }?.attributes["griot.passages"] as? Int ?? 0) > 0)

        // The model call, under generate, by the GenAI semantic conventions.
        let generate = try #require(stages.first { $0.name == "generate" })
        let model = try #require(spans.first { $0.parentSpanID == generate.spanID }, "no span under generate")
        #expect(model.kind == "SPAN_KIND_CLIENT")
        #expect(model.name == "chat \(ExtractiveResponder.model)")
        let genAI = model.attributes
        #expect(genAI["gen_ai.operation.name"] as? String == "chat")
        #expect(genAI["gen_ai.provider.name"] as? String == "griot-extractive")
        #expect(genAI["gen_ai.system"] as? String == "griot-extractive")
        #expect(genAI["gen_ai.request.model"] as? String == ExtractiveResponder.model)
        #expect(genAI["gen_ai.response.model"] as? String == ExtractiveResponder.model)
        #expect(genAI["gen_ai.request.temperature"] as? Double == 0.3)
        #expect((genAI["gen_ai.request.max_tokens"] as? Int ?? 0) > 0)
        #expect(genAI["gen_ai.response.finish_reasons"] as? [String] == ["stop"])
        #expect((genAI["gen_ai.usage.input_tokens"] as? Int ?? 0) > 0)
        #expect((genAI["gen_ai.usage.output_tokens"] as? Int ?? 0) > 0)
        #expect(genAI["griot.usage.counted"] as? Bool == true, "the offline responder reports no usage: the count is ours")

        // No message text, reply text or personal data anywhere in a span.
        let reply = run.reply.prefix(40)
        #expect(reply.count == 40, "the turn answered")
        for span in spans {
            for text in span.strings {
                for word in Self.personal { #expect(!text.contains(word), "span \(span.name) holds \(word): \(text)") }
                #expect(!text.contains(reply), "span \(span.name) holds the reply's text")
                #expect(text.count < 120, "span \(span.name) holds a long text: \(text)")
            }
        }

        // The request's log line names its trace.
        let line = try #require(run.logLines.first { $0["message"] == "request" })
        #expect(line["trace_id"] == request.traceID)
        #expect(line["request_id"] == run.requestID)
    }

    @Test func aFailedModelCallIsRecordedOnItsSpansByKindWithTheLastActions() async throws {
        let service = try await TestService(provider: FailingModel())
        let run = try await Self.chat(service)
        let spans = run.spans.filter { $0.attributes["griot.request_id"] as? String == run.requestID }
        let turn = try #require(spans.first { $0.name == "turn" })
        #expect(turn.statusCode == 2, "the failed turn's status is error")
        #expect(turn.attributes["griot.failure_code"] as? String == "provider_error")
        let model = try #require(spans.first { $0.name.hasPrefix("chat ") })
        #expect(model.statusCode == 2)
        let exception = try #require(model.events.first { $0["name"] as? String == "exception" })
        let recorded = exception["attributes"] as? [String: Any] ?? [:]
        #expect(recorded["exception.type"] as? String == "ProviderError")
        #expect(recorded["exception.message"] as? String == "status 503")
        let last = recorded["griot.last_actions"] as? [String] ?? []
        #expect(last.contains("screen:allow") && last.contains("generate"), "last actions: \(last)")
        #expect(last.contains { $0.hasPrefix("retrieve:") })
        // The upstream's words (here a name and a key) are in no span.
        for span in spans {
            for text in span.strings {
                #expect(!text.contains("sk-live") && !text.contains("Zofia"), "span \(span.name) holds the upstream's text: \(text)")
            }
        }
    }

    @Test func tracingIsOffUnlessAnEndpointIsSet() {
        #expect(!TraceExport.isEnabled([:]))
        #expect(TraceExport.isEnabled(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318"]))
        #expect(TraceExport.isEnabled(["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4318/v1/traces"]))
        #expect(!TraceExport.isEnabled(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_SDK_DISABLED": "true"]))
        #expect(!TraceExport.isEnabled(["OTEL_EXPORTER_OTLP_ENDPOINT": "http://collector:4318", "OTEL_TRACES_EXPORTER": "none"]))
    }

    // MARK: One traced turn

    struct Run {
        var requestID: String
        var status: Int
        var reply: String
        var spans: [ReceivedSpan]
        var logLines: [[String: String]]
    }

    /// One chat turn through the service's router with spans exported to a fresh receiver, the
    /// service's log lines kept; returns once the turn's span has reached the receiver and the
    /// exporter has flushed.
    static func chat(_ service: TestService) async throws -> Run {
        let receiver = try await OTLPReceiver.start()
        defer { receiver.stop() }
        // swift-otel reads the standard variables from the process's environment.
        setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint, 1)
        setenv("OTEL_SERVICE_NAME", "griot-trace-test", 1)
        setenv("OTEL_BSP_SCHEDULE_DELAY", "100", 1)
        defer {
            for name: String in ["OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME", "OTEL_BSP_SCHEDULE_DELAY"] { unsetenv(name) }
        }
        var headers = try await service.headers("u-trace-1", families: ["fam-carter"])
        let requestID = "trace-\(UUID().uuidString.lowercased())"
        headers[HTTPField.Name("X-Request-ID")!] = requestID
        let lines = LogLines()
        let logger = Logger(label: "griot") { JSONLogHandler(label: $0, output: lines.append) }
        let griot = service.service
        let (status, reply) = try await TraceExport.running(environment: ProcessInfo.processInfo.environment) { [headers] in
            let answer = try await Application(router: griot.router(), server: GriotService.server, logger: logger).test(.router) { client in
                try await client.execute(uri: "/api/griot/chat", method: .post, headers: headers, body: body(["message": Self.message])) { response in
                    (Int(response.status.code), json(response.body)["content"] as? String ?? "")
                }
            }
            // The turn's span ends just after its reply is sent: wait for it to be exported.
            let deadline = ContinuousClock.now + .seconds(20)
            while ContinuousClock.now < deadline, !receiver.spans.contains(where: { $0.name == "turn" }) {
                try await Task.sleep(for: .milliseconds(100))
            }
            return answer
        }
        #expect(receiver.errors.isEmpty || receiver.errors.contains("venv"), "receiver: \(receiver.errors)")
        return Run(requestID: requestID, status: status, reply: reply, spans: receiver.spans, logLines: lines.decoded)
    }
}

/// The JSON lines a `JSONLogHandler` wrote.
final class LogLines: Sendable {
    private let lines = Mutex<[Data]>([])
    @Sendable func append(_ line: Data) { lines.withLock { $0.append(line) } }
    var decoded: [[String: String]] {
        lines.withLock { $0 }.compactMap { try? JSONSerialization.jsonObject(with: $0) as? [String: String] }
    }
}

/// A model whose upstream answers 503 with words that must stay out of traces.
struct FailingModel: ChatProvider {
    let name = "failing"
    let defaultModel = "failing-model"
    func stream(_ request: ChatRequest) -> AsyncThrowingStream<ProviderEvent, any Error> {
        AsyncThrowingStream { $0.finish(throwing: ProviderError.status(code: 503, message: "key sk-live-123 rejected for Zofia", retryAfterSeconds: nil)) }
    }
}

extension ReceivedSpan {
    var start: Int { json["start_unix_nano"] as? Int ?? 0 }
}
