import CJSONC

extension ChatCompletionChunk {
    /// The chunk read with json-c, when it has the shape every server sends token by token:
    /// an object whose `model` is a string, whose `choices` are objects with an integer `index`,
    /// a `delta` object with a string (or null) `content`, and a string (or null)
    /// `finish_reason`, and whose `usage` has the two integer counts. Anything else (an
    /// `error`, a value of another type, bytes after the object) gives nil, and the caller
    /// reads the chunk with `JSONDecoder`, whose answer (or error) stands.
    ///
    /// Why not `JSONDecoder` for every chunk: one is read for each token of every streaming
    /// reply, and `JSONDecoder` took 6.8 % of the service's CPU at 1,000 streaming chats
    /// (`griot-bench serve-load` under `perf`, docs/BENCHMARKS.md); with json-c (a system
    /// library on our design card) reading the chunks took 1.0 % in the same profile.
    static func parsedWithJSONC(_ data: String) -> ChatCompletionChunk? {
        var text = data
        return text.withUTF8 { bytes -> ChatCompletionChunk? in
            guard let base = bytes.baseAddress, bytes.count > 1, bytes.count < Int(Int32.max) else { return nil }
            guard let tokener = json_tokener_new() else { return nil }
            defer { json_tokener_free(tokener) }
            let root = base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                json_tokener_parse_ex(tokener, $0, Int32(bytes.count))
            }
            guard let root else { return nil }
            defer { json_object_put(root) }
            // The whole text must be the one object (JSONDecoder refuses anything after it).
            guard json_tokener_get_error(tokener) == json_tokener_success,
                  Int(json_tokener_get_parse_end(tokener)) == bytes.count,
                  json_object_get_type(root) == json_type_object else { return nil }
            return Self(jsonc: root)
        }
    }

    private init?(jsonc root: OpaquePointer) {
        if Self.member(root, "error") != nil { return nil }
        switch Self.member(root, "model") {
        case nil: model = nil
        case let value?:
            guard let string = Self.string(value) else { return nil }
            model = string
        }
        if let list = Self.member(root, "choices") {
            guard json_object_get_type(list) == json_type_array else { return nil }
            var read: [Choice] = []
            for position in 0..<json_object_array_length(list) {
                guard let item = json_object_array_get_idx(list, position), let choice = Choice(jsonc: item) else { return nil }
                read.append(choice)
            }
            choices = read
        } else {
            choices = nil
        }
        if let counts = Self.member(root, "usage") {
            guard json_object_get_type(counts) == json_type_object,
                  let prompt = Self.member(counts, "prompt_tokens").flatMap(Self.integer),
                  let completion = Self.member(counts, "completion_tokens").flatMap(Self.integer) else { return nil }
            usage = Usage(promptTokens: prompt, completionTokens: completion)
        } else {
            usage = nil
        }
        error = nil
    }

    /// The member's value; nil when it is missing or JSON null (as `decodeIfPresent` reads both).
    fileprivate static func member(_ object: OpaquePointer, _ key: String) -> OpaquePointer? {
        var value: OpaquePointer?
        guard json_object_object_get_ex(object, key, &value) != 0, let value, json_object_get_type(value) != json_type_null else { return nil }
        return value
    }

    /// A JSON string's text, NUL bytes included; nil for any other type.
    fileprivate static func string(_ value: OpaquePointer) -> String? {
        guard json_object_get_type(value) == json_type_string, let start = json_object_get_string(value) else { return nil }
        let length = Int(json_object_get_string_len(value))
        return start.withMemoryRebound(to: UInt8.self, capacity: length) { String(decoding: UnsafeBufferPointer(start: $0, count: length), as: UTF8.self) }
    }

    /// A JSON integer; nil for any other type (a fraction or a string, which `JSONDecoder`
    /// judges).
    fileprivate static func integer(_ value: OpaquePointer) -> Int? {
        guard json_object_get_type(value) == json_type_int else { return nil }
        return Int(json_object_get_int64(value))
    }
}

extension ChatCompletionChunk.Choice {
    fileprivate init?(jsonc item: OpaquePointer) {
        guard json_object_get_type(item) == json_type_object else { return nil }
        let member = { ChatCompletionChunk.member(item, $0) }
        if let value = member("index") {
            guard let number = ChatCompletionChunk.integer(value) else { return nil }
            index = number
        } else {
            index = nil
        }
        if let value = member("delta") {
            guard json_object_get_type(value) == json_type_object else { return nil }
            if let content = ChatCompletionChunk.member(value, "content") {
                guard let text = ChatCompletionChunk.string(content) else { return nil }
                delta = ChatCompletionChunk.Delta(content: text)
            } else {
                delta = ChatCompletionChunk.Delta(content: nil)
            }
        } else {
            delta = nil
        }
        if let value = member("finish_reason") {
            guard let reason = ChatCompletionChunk.string(value) else { return nil }
            finishReason = reason
        } else {
            finishReason = nil
        }
    }
}
