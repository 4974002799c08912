import GriotProviders
import Testing

@Suite struct OpenAICompatibleConfigurationTests {
    @Test func anEmptyEnvironmentMeansOpenAIWithItsDefaults() throws {
        let configuration = try OpenAICompatibleConfiguration(environment: [:])
        #expect(configuration == OpenAICompatibleConfiguration())
        #expect(configuration.name == "openai")
        #expect(configuration.baseURL == "https://api.openai.com/v1")
        #expect(configuration.model == "gpt-4o-mini")
        #expect(configuration.apiKey == nil)
        #expect(configuration.temperature == nil && configuration.maxTokens == nil)
        #expect(configuration.includeUsage)
        #expect(configuration.chatCompletionsURL(model: "gpt-4o-mini") == "https://api.openai.com/v1/chat/completions")
    }

    @Test func everyVariableIsRead() throws {
        let configuration = try OpenAICompatibleConfiguration(environment: [
            "OPENAI_BASE_URL": "http://localhost:8080/v1/", "OPENAI_API_KEY": "sk-local", "OPENAI_MODEL": "llama-3.1-8b",
            "OPENAI_TEMPERATURE": "0.3", "OPENAI_MAX_TOKENS": "512", "OPENAI_STREAM_USAGE": "false",
            "OPENAI_CONNECT_TIMEOUT": "2.5", "OPENAI_READ_TIMEOUT": "90",
        ])
        #expect(configuration == OpenAICompatibleConfiguration(
            baseURL: "http://localhost:8080/v1/", apiKey: "sk-local", model: "llama-3.1-8b", temperature: 0.3, maxTokens: 512,
            includeUsage: false, connectTimeout: 2.5, readTimeout: 90))
        #expect(configuration.chatCompletionsURL(model: "llama-3.1-8b") == "http://localhost:8080/v1/chat/completions")
    }

    @Test func theAzureStyleReadsItsOwnVariables() throws {
        let configuration = try OpenAICompatibleConfiguration(environment: [
            "OPENAI_API_STYLE": "azure", "AZURE_OPENAI_ENDPOINT": "https://griot.openai.azure.com",
            "AZURE_OPENAI_API_KEY": "azure-key", "OPENAI_API_KEY": "sk-other", "AZURE_OPENAI_DEPLOYMENT": "griot-4o",
            "AZURE_OPENAI_API_VERSION": "2025-01-01-preview",
        ])
        #expect(configuration.style == .azure)
        #expect(configuration.name == "azure-openai")
        #expect(configuration.apiKey == "azure-key")
        #expect(configuration.chatCompletionsURL(model: "gpt-4o-mini")
            == "https://griot.openai.azure.com/openai/deployments/griot-4o/chat/completions?api-version=2025-01-01-preview")
        // Without a deployment the model names it; without a version the default applies.
        let minimal = try OpenAICompatibleConfiguration(environment: ["OPENAI_API_STYLE": "AZURE", "AZURE_OPENAI_ENDPOINT": "https://griot.openai.azure.com/"])
        #expect(minimal.chatCompletionsURL(model: "gpt-4o")
            == "https://griot.openai.azure.com/openai/deployments/gpt-4o/chat/completions?api-version=2024-10-21")
    }

    @Test func theAzureStyleWithoutAnEndpointSaysWhichVariableToSet() {
        #expect { try OpenAICompatibleConfiguration(environment: ["OPENAI_API_STYLE": "azure"]) } throws: { error in
            "\(error)".contains("AZURE_OPENAI_ENDPOINT is not set")
        }
    }

    @Test(arguments: [
        ("OPENAI_TEMPERATURE", "hot", "a number from 0 to 2"),
        ("OPENAI_TEMPERATURE", "2.5", "a number from 0 to 2"),
        ("OPENAI_MAX_TOKENS", "0", "a whole number above 0"),
        ("OPENAI_MAX_TOKENS", "many", "a whole number above 0"),
        ("OPENAI_API_STYLE", "gcp", "openai or azure"),
        ("OPENAI_BASE_URL", "localhost:8080", "an http or https URL"),
        ("OPENAI_BASE_URL", "ftp://example.org", "an http or https URL"),
        ("OPENAI_STREAM_USAGE", "maybe", "true or false"),
        ("OPENAI_CONNECT_TIMEOUT", "-1", "a number of seconds above 0"),
        ("OPENAI_READ_TIMEOUT", "soon", "a number of seconds above 0"),
        ("OPENAI_READ_TIMEOUT", "1e300", "at most 86400"),
        ("OPENAI_CONNECT_TIMEOUT", "99999999999", "at most 86400"),
    ])
    func anUnusableValueNamesTheVariableAndWhatItShouldBe(variable: String, value: String, expected: String) {
        #expect { try OpenAICompatibleConfiguration(environment: [variable: value]) } throws: { error in
            let message = "\(error)"
            return message.contains("\(variable) is \"\(value)\"") && message.contains(expected)
        }
    }

    @Test func emptyValuesMeanTheDefault() throws {
        let configuration = try OpenAICompatibleConfiguration(environment: ["OPENAI_MODEL": "", "OPENAI_TEMPERATURE": " ", "OPENAI_API_KEY": ""])
        #expect(configuration == OpenAICompatibleConfiguration())
    }
}
