import Foundation
import GriotTestSupport
import Testing

/// `griot ask` on the bundled demo corpus with no API key: the offline extractive responder.
@Suite struct AskCommandTests {
    struct Answer {
        var events: [(name: String, data: [String: Any])]
        var citedStories: [String] { events.filter { $0.name == "citation" }.compactMap { $0.data["story_id"] as? String } }
        var done: [String: Any]? { events.last { $0.name == "done" }?.data }
        var meta: [String: Any]? { events.first { $0.name == "meta" }?.data }
        var text: String { done?["text"] as? String ?? "" }
    }

    func ask(_ sandbox: GriotSandbox, _ arguments: [String], environment: [String: String] = [:]) throws -> Answer {
        let run = try sandbox.run(["ask"] + arguments + ["--json"], useDefaultDatabase: true, environment: environment)
        #expect(run.status == 0, "\(arguments): \(run.errors)")
        let events = run.output.split(separator: "\n").compactMap { line -> (String, [String: Any])? in
            guard let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = object["event"] as? String, let data = object["data"] as? [String: Any] else { return nil }
            return (name, data)
        }
        return Answer(events: events)
    }

    @Test func answersPersonPlaceTopicAndNoContentQuestionsWithTheRightCitations() throws {
        let sandbox = try GriotSandbox()
        let person = try ask(sandbox, ["Who was Octavia Batiste?"])
        #expect(person.meta?["model"] as? String == "griot-extractive-1")
        #expect(Set(person.citedStories).count >= 2)
        #expect(person.citedStories.contains("batiste-lucien-trumpet-seventh-ward") || person.citedStories.contains("batiste-opelousas-la-la-saturday-nights"))

        let place = try ask(sandbox, ["What happened in Kelly Ingram Park?"])
        #expect(place.citedStories.first == "odom-childrens-crusade-kelly-ingram-park")

        let topic = try ask(sandbox, ["What was it like to work as a Pullman porter?"])
        #expect(topic.citedStories.contains("carter-pullman-porter"))

        let nothing = try ask(sandbox, ["Who was Aunt Lil?"])
        #expect(nothing.citedStories.isEmpty)
        #expect(nothing.text.contains("do not cover Aunt Lil"))
        #expect(nothing.done?["status"] as? String == "complete")

        // A family member sees their family's stories; a visitor does not.
        let visitor = try ask(sandbox, ["Tell me about Octavia's Sunday gumbo with filé"])
        #expect(!visitor.citedStories.contains("batiste-octavia-sunday-gumbo-file"))
        let family = try ask(sandbox, ["Tell me about Octavia's Sunday gumbo with filé", "--viewer", "u-simone-batiste-reyes", "--families", "fam-batiste"])
        #expect(family.citedStories.contains("batiste-octavia-sunday-gumbo-file"))
    }

    @Test func theTerminalFormStreamsTheAnswerThenSourcesAndLedger() throws {
        let sandbox = try GriotSandbox()
        let run = try sandbox.run(["ask", "What happened in Kelly Ingram Park?"], useDefaultDatabase: true)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("Sources:\n[1] The Day the Water Hit"))
        #expect(run.output.contains("Token budget (o200k_base):"))
        #expect(run.errors.contains("griot v1 (sha256:"))
        #expect(run.errors.contains("continue with: griot ask --thread "))
    }

    @Test func aThreadIsContinuedByItsIdAndAnotherUsersThreadIsNotFound() throws {
        let sandbox = try GriotSandbox()
        let first = try ask(sandbox, ["Who was Ida Mae Carter?", "--viewer", "u-ruth-carter", "--families", "fam-carter"])
        let thread = try #require(first.meta?["thread_id"] as? String)
        let second = try ask(sandbox, ["/summary", "--viewer", "u-ruth-carter", "--families", "fam-carter", "--thread", thread])
        #expect(second.meta?["thread_id"] as? String == thread)
        #expect(second.meta?["command"] as? String == "summary")
        #expect(second.events.contains { $0.name == "chips" })
        let intruder = try sandbox.run(["ask", "hello", "--viewer", "u-someone-else", "--thread", thread], useDefaultDatabase: true)
        #expect(intruder.status != 0)
        #expect(intruder.errors.contains("There is no griot thread \(thread) for you"))
    }
}

/// `griot ask` against an OpenAI-compatible server: a stub on loopback that the test starts.
@Suite struct AskWithRemoteModelTests {
    @Test func theAnswerStreamsFromTheServerWhichReceivedTheVersionedPromptAndPassages() async throws {
        let sandbox = try GriotSandbox()
        let pieces = ["The Children's ", "Crusade marched ", "from Kelly Ingram ", "Park [1]. ", "Water cannons ", "followed [1]."]
        try await StubChatServer.with({ _ in .stream(pieces, model: "stub-model", pause: 0.01) }) { server in
            let run = try sandbox.run(["ask", "What happened in Kelly Ingram Park?"], useDefaultDatabase: true,
                                      environment: ["OPENAI_BASE_URL": server.baseURL, "OPENAI_MODEL": "stub-model"])
            #expect(run.status == 0, "\(run.errors)")
            #expect(run.output.hasPrefix(pieces.joined()))
            #expect(run.output.contains("Sources:\n[1] The Day the Water Hit"))
            #expect(run.errors.contains("stub-model"))

            let request = try #require(server.requests.first)
            #expect(request.uri == "/v1/chat/completions")
            let body = request.json
            #expect(body["stream"] as? Bool == true)
            #expect(body["model"] as? String == "stub-model")
            #expect(body["max_tokens"] as? Int == 700)
            let messages = try #require(body["messages"] as? [[String: Any]])
            let system = try #require(messages.first?["content"] as? String)
            let prompt = try String(contentsOf: GriotSandbox.packageRoot.appendingPathComponent("prompts/griot/1.md"), encoding: .utf8)
            // The system message is version 1's system section, filled in.
            #expect(system.hasPrefix("You are the Griot, the keeper of your family stories"))
            #expect(prompt.contains("Cite every statement that comes from a story with its number in square brackets"))
            #expect(system.contains("Cite every statement that comes from a story with its number in square brackets"))
            let sources = try #require(messages.dropFirst().first?["content"] as? String)
            #expect(sources.hasPrefix("# Sources"))
            #expect(sources.contains("[1] \"The Day the Water Hit\""))
            #expect(sources.contains("```quote"))
            #expect((messages.last?["content"] as? String) == "What happened in Kelly Ingram Park?")
        }
    }

    @Test func anUnreachableServerFailsTheTurnAndSaysWhy() throws {
        let sandbox = try GriotSandbox()
        // A port nobody listens on; one attempt at most a second each.
        let run = try sandbox.run(["ask", "Who was Tad Carter?"], useDefaultDatabase: true,
                                  environment: ["OPENAI_BASE_URL": "http://127.0.0.1:9/v1", "OPENAI_CONNECT_TIMEOUT": "1"])
        #expect(run.status == 1)
        // The fixed words a client would get, and for the operator at the terminal the cause.
        #expect(run.errors.contains("error (provider_error): The AI service could not answer"))
        #expect(run.errors.contains("Could not reach the AI service"))
    }
}
