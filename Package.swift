// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "Griot",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "griot", targets: ["GriotCLI"]),
        .executable(name: "griot-bench", targets: ["GriotBench"]),
        .library(name: "GriotArchive", targets: ["GriotArchive"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-crypto", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", exact: "2.28.1"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.34.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // multipart/form-data bodies (the storyteller's drawing uploads).
        .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
        // Spans (the API the parts write to) and their export over OTLP/HTTP. swift-otel's
        // default traits also build its gRPC exporter (grpc-swift 2 and HTTP/2): only the
        // OTLPHTTP trait is enabled, so a clean build compiles neither.
        .package(url: "https://github.com/apple/swift-distributed-tracing", from: "1.7.3"),
        .package(url: "https://github.com/swift-otel/swift-otel", from: "1.6.0", traits: ["OTLPHTTP"]),
    ],
    targets: [
        // Text analysis: normalisation, tokenizing, stop words, Porter2 stemming.
        .target(name: "GriotText"),
        // The domain: stories, their validation and decoding, passages, the WPA importer.
        .target(name: "GriotStories", dependencies: ["GriotText"]),
        // all-MiniLM-L6-v2 in Swift: WordPiece, safetensors, the encoder (OpenBLAS for matrix
        // multiplies, loaded at run time). Built for AVX2 so its element-wise loops vectorise:
        // measured 2.0 G exp/s against 0.29 G on the default x86-64 target.
        .target(name: "GriotEmbedding", swiftSettings: [.unsafeFlags(["-target-cpu", "haswell", "-O"])]),
        // The passage index (BM25 and vector arms, fusion) and its filters; knows stories only as
        // passages with metadata. Built for AVX2 too, for the vector scan's multiply-adds.
        .target(name: "GriotSearch", dependencies: ["GriotText", "GriotStories"],
                swiftSettings: [.unsafeFlags(["-target-cpu", "haswell"])]),
        // Exact OpenAI token counts: byte-pair encoding with the cl100k_base and o200k_base ranks.
        .target(name: "GriotTokens", swiftSettings: [.unsafeFlags(["-O"])]),
        // Model providers behind one streaming protocol: OpenAI-compatible chat completions over
        // SSE, with retries and a circuit breaker around them.
        // json-c: a chat-completion chunk read in C (one per token of every streaming reply).
        .systemLibrary(name: "CJSONC", pkgConfig: "json-c", providers: [.apt(["libjson-c-dev"])]),
        // What a span of ours is: the stage spans of a turn, the request id on each, errors
        // recorded without their text, the GenAI attribute names. The API only; the exporter is
        // the server's (TraceExport).
        .target(name: "GriotTracing", dependencies: [
            .product(name: "Tracing", package: "swift-distributed-tracing"),
        ]),
        .target(name: "GriotProviders", dependencies: [
            "CJSONC", "GriotTracing",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // Assistants as files: versioned prompts with front matter, validated and labelled.
        .target(name: "GriotPrompts", dependencies: [
            "GriotProviders",
            .product(name: "Yams", package: "Yams"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // SQLite storage through GRDB: migrations and records.
        .target(name: "GriotStore", dependencies: [
            "GriotStories",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The same stores on PostgreSQL 15 through postgres-nio, for nodes that share one database.
        .target(name: "GriotPostgres", dependencies: [
            "GriotStore", "GriotStories",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // `griot migrate-store`: an installation's SQLite database copied to PostgreSQL, resumably,
        // and verified. A target of its own so the PostgreSQL backend never links the SQLite reader.
        .target(name: "GriotMigration", dependencies: [
            "GriotStore", "GriotPostgres",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "Crypto", package: "swift-crypto"),
        ]),
        // The archive: the store and the index kept in step (ingest, delete, search).
        .target(name: "GriotArchive", dependencies: ["GriotStories", "GriotSearch", "GriotStore", "GriotPostgres", "GriotText", "GriotEmbedding", "GriotProviders"]),
        // PCRE2 (8-bit), for the PII scrubber's JIT-compiled patterns.
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        // The safety stages' scorers: moderation, PII, groundedness, copyright. They know text,
        // not turns; the pipeline runs them.
        // GriotEmbedding for the moderator's semantic layer (MiniLM's word-piece vectors).
        .target(name: "GriotSafety", dependencies: [
            "CPCRE2", "GriotText", "GriotEmbedding",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        // The turn pipeline: context under a token budget, generation, streamed events, threads.
        .target(name: "GriotChat", dependencies: [
            "GriotSafety", "GriotArchive", "GriotPrompts", "GriotProviders", "GriotTokens", "GriotStore", "GriotText", "GriotSearch", "GriotStories",
            "GriotEmbedding", "GriotTracing",
            .product(name: "Logging", package: "swift-log"),
        ]),
        // Who is calling: bearer JWTs (HS256 with a shared secret, RS256/ES256 from a JWKS file).
        .target(name: "GriotAuth", dependencies: [
            .product(name: "JWTKit", package: "jwt-kit"),
        ]),
        // Pango and Cairo (text laid out, shaped and drawn into a PDF, fonts embedded and subset).
        .systemLibrary(name: "CPangoCairo", pkgConfig: "pangocairo", providers: [.apt(["libpango1.0-dev", "libcairo2-dev"])]),
        // Conversation exports for coaches and admins: JSON, and PDF marked "Confidential".
        .target(name: "GriotExport", dependencies: ["GriotStore", "GriotImages", "CPangoCairo"]),
        // libjpeg-turbo and libpng: drawings decoded for thumbnails (the metadata stripping reads the files' own structure).
        .systemLibrary(name: "CJPEG", path: "Sources/CJPEG", pkgConfig: "libjpeg", providers: [.apt(["libjpeg62-turbo-dev"])]),
        .systemLibrary(name: "CPNG", path: "Sources/CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        // Uploaded drawings: format checks, EXIF and GPS stripped, thumbnails, a content-addressed store.
        .target(name: "GriotImages", dependencies: ["CJPEG", "CPNG", .product(name: "Crypto", package: "swift-crypto")]),
        // The storyteller assistant (the Joanie app): its declaration, reply schema, offline template and checks.
        .target(name: "GriotStoryteller", dependencies: [
            "GriotChat", "GriotStore", "GriotProviders", "GriotPrompts", "GriotSafety", "GriotImages", "GriotTokens",
        ]),
        // The HTTP service on Hummingbird: routes, SSE, auth, rate limits, audit, metrics.
        .target(name: "GriotServer", dependencies: [
            "GriotChat", "GriotArchive", "GriotAuth", "GriotExport", "GriotStore", "GriotSearch", "GriotStories", "GriotProviders", "GriotPrompts",
            "GriotSafety", "GriotEval", "GriotTracing", "GriotStoryteller", "GriotImages",
            .product(name: "MultipartKit", package: "multipart-kit"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "OTel", package: "swift-otel"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "CoreMetrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
        ], resources: [.copy("Resources/openapi.yaml"), .copy("Resources/web")]),
        // Golden questions: the eval files, their cases and gates (the runner is `griot eval`).
        .target(name: "GriotEval", dependencies: [
            "GriotChat", "GriotSearch", "GriotStore", "GriotArchive", "GriotPrompts", "GriotProviders", "GriotSafety", "GriotText",
            .product(name: "Yams", package: "Yams"),
        ]),
        .executableTarget(name: "GriotCLI", dependencies: [
            "GriotEval", "GriotArchive", "GriotChat", "GriotPrompts", "GriotProviders", "GriotServer", "GriotAuth", "GriotSafety", "GriotMigration",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .executableTarget(name: "GriotBench", dependencies: [
            "GriotSearch", "GriotText", "GriotStories", "GriotEmbedding", "GriotTokens", "GriotAuth", "GriotSafety",
            "GriotArchive", "GriotChat", "GriotEval", "GriotPrompts", "GriotStore", "GriotExport",
            "GriotServer", "GriotImages", "CJPEG",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], path: "Benchmarks/GriotBench"),
        .testTarget(name: "GriotTextTests", dependencies: ["GriotText", "GriotTestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GriotEmbeddingTests", dependencies: ["GriotEmbedding"], resources: [.copy("Fixtures")]),
        .testTarget(name: "GriotTokensTests", dependencies: ["GriotTokens"], resources: [.copy("Fixtures")]),
        // A scripted OpenAI-compatible server on loopback, for the tests that need a model; and
        // the database the tests' stores live in (TestDatabase: SQLite, or PostgreSQL with
        // GRIOT_TEST_DATABASE=postgres).
        .target(name: "GriotTestSupport", dependencies: [
            "GriotStore", "GriotPostgres",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ], path: "Tests/GriotTestSupport"),
        .testTarget(name: "GriotProvidersTests", dependencies: [
            "GriotProviders", "GriotTestSupport",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .testTarget(name: "GriotStoriesTests", dependencies: ["GriotStories"]),
        .testTarget(name: "GriotSafetyTests", dependencies: ["GriotSafety", "GriotEmbedding", "GriotTestSupport"]),
        .testTarget(name: "GriotSearchTests", dependencies: ["GriotSearch", "GriotStories"]),
        .testTarget(name: "GriotArchiveTests", dependencies: ["GriotArchive", "GriotStore", "GriotTestSupport"]),
        .testTarget(name: "GriotPromptsTests", dependencies: ["GriotPrompts"]),
        .testTarget(name: "GriotChatTests", dependencies: ["GriotChat", "GriotSafety", "GriotArchive", "GriotStore", "GriotProviders", "GriotPrompts", "GriotTokens", "GriotTestSupport"]),
        .testTarget(name: "GriotStoreTests", dependencies: ["GriotStore", "GriotStories"]),
        // Every store operation against both backends: SQLite, and PostgreSQL started by scripts/postgres.sh.
        .testTarget(name: "GriotStoreConformanceTests", dependencies: [
            "GriotStore", "GriotPostgres", "GriotStories", "GriotArchive", "GriotSearch", "GriotProviders", "GriotChat", "GriotTestSupport",
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "Logging", package: "swift-log"),
        ]),
        .testTarget(name: "GriotEvalTests", dependencies: [
            "GriotEval", "GriotChat", "GriotArchive", "GriotStore", "GriotPrompts", "GriotEmbedding", "GriotProviders", "GriotSearch", "GriotTestSupport",
        ]),
        .testTarget(name: "GriotImagesTests", dependencies: ["GriotImages"]),
        .testTarget(name: "GriotStorytellerTests", dependencies: [
            "GriotStoryteller", "GriotChat", "GriotStore", "GriotProviders", "GriotPrompts", "GriotImages", "GriotTestSupport",
        ]),
        .testTarget(name: "GriotAuthTests", dependencies: ["GriotAuth", .product(name: "JWTKit", package: "jwt-kit")]),
        .testTarget(name: "GriotExportTests", dependencies: ["GriotExport", "GriotStore", "GriotTestSupport"]),
        .testTarget(name: "GriotServerTests", dependencies: [
            "GriotServer", "GriotChat", "GriotArchive", "GriotStore", "GriotAuth", "GriotEval", "GriotTestSupport", "GriotTracing",
            .product(name: "Tracing", package: "swift-distributed-tracing"),
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "Yams", package: "Yams"),
            .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Runs the built `griot` binary the way a person or a script would.
        .testTarget(name: "GriotCLITests", dependencies: [
            "GriotCLI", "GriotTestSupport", "GriotAuth", "GriotStore", "GriotArchive", "GriotStories",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // The cluster acceptance runs (issue 34): scripts/cluster.sh's three nodes on one
        // PostgreSQL behind nginx, brought up by the tests themselves; only with
        // GRIOT_CLUSTER_TESTS=1 (scripts/test.sh --cluster). GriotCLI: the `griot` the nodes run.
        .testTarget(name: "GriotClusterTests", dependencies: [
            "GriotCLI", "GriotAuth", "GriotTestSupport",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
    ]
)
