import Foundation
import GriotProviders
import GriotSearch
import GriotStore

/// Every setting of Griot in one typed place. Defaults are written here once; a JSON file
/// (`--config FILE` or `GRIOT_CONFIG`) overrides them, and the environment overrides the file.
///
/// | setting | environment | file key | default |
/// |---|---|---|---|
/// | database: a SQLite file (a path or `sqlite:PATH`) or a PostgreSQL URL that several nodes share | `GRIOT_DATABASE_URL` (first), `GRIOT_DB` | `database` | `$XDG_DATA_HOME/griot/griot.sqlite` (`~/.local/share/...`) |
/// | bundled corpus | `GRIOT_CORPUS` | `corpus` | the `corpus/` folder of the checkout |
/// | BM25 k1, b | `GRIOT_BM25_K1`, `GRIOT_BM25_B` | `bm25.k1`, `bm25.b` | 1.2, 0.75 |
/// | prompts folder | `GRIOT_PROMPTS` | `prompts` | the `prompts/` folder of the checkout |
/// | model provider | `GRIOT_PROVIDER` | `provider` | `auto`: OpenAI-compatible when `OPENAI_API_KEY` or `OPENAI_BASE_URL` is set, else the offline `extractive` responder |
/// | breaker: failures that open it, seconds it stays open | `GRIOT_BREAKER_FAILURES`, `GRIOT_BREAKER_OPEN_SECONDS` | `breaker.failure_threshold`, `breaker.open_seconds` | 3, 120 (`CircuitBreaker.Policy`) |
/// | retries: attempts in all, first and longest wait | `GRIOT_RETRY_ATTEMPTS`, `GRIOT_RETRY_BASE_DELAY_SECONDS`, `GRIOT_RETRY_MAX_DELAY_SECONDS` | `retry.attempts`, `retry.base_delay_seconds`, `retry.max_delay_seconds` | 3, 0.5, 8 (`RetryPolicy`) |
/// | residency: each region's database for its users' conversations (the `--database` stays the node's home: stories, keys, breakers, prompt releases, rollups, job locks) | `GRIOT_REGION_DATABASES` (`eu=PATH_OR_URL,us=…`) | `region_databases` | unset: every conversation in the one database |
/// | the region of callers whose token or key names none | `GRIOT_DEFAULT_REGION` | `default_region` | the first region listed |
/// | requests per cost class of route, per user, on each node | `GRIOT_ROUTE_LIMITS` | | probe 600/60 s (per address), read 600/60, search 120/60, heavy 30/60, half the cores' worth (at least 1) of search or heavy in flight (`RouteLimits`, in GriotServer) |
///
/// ```swift
/// let configuration = try GriotConfiguration.load(file: nil)
/// let storage = try await StorageLocation.configured(configuration).open()
/// ```
public struct GriotConfiguration: Sendable {
    /// The database: a SQLite file path, `sqlite:PATH`, or `postgres://USER:PASSWORD@HOST:PORT/DB`
    /// (read by `StorageLocation.parse`).
    public var databasePath: String
    public var usesDefaultDatabase: Bool
    public var corpusPath: String?
    public var bm25 = BM25Configuration()
    public var promptsPath: String?
    public var provider = ProviderChoice.auto
    /// When the model provider's circuit breaker opens and for how long; the defaults are the
    /// policy's own, so they are written down once, in `CircuitBreaker.Policy`.
    public var breaker = CircuitBreaker.Policy()
    /// How often and after how long a failed provider call is tried again (defaults in `RetryPolicy`).
    public var retry = RetryPolicy()
    /// Each region's database for its users' conversations (`GRIOT_REGION_DATABASES`); nil: one
    /// database for everything, as before regions.
    public var regions: RegionDatabases?

    /// Which model answers: `extractive` (offline, no model), `openai` (any OpenAI-compatible
    /// chat-completions server, configured by the `OPENAI_*` variables), or `auto`.
    public enum ProviderChoice: String, Sendable, CaseIterable { case auto, extractive, openai }

    public static func load(file: String? = nil, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> GriotConfiguration {
        var configuration = GriotConfiguration(
            databasePath: defaultDatabasePath(environment), usesDefaultDatabase: true,
            corpusPath: bundledPath("corpus", marker: "FORMAT.md"))
        configuration.promptsPath = bundledPath("prompts", marker: "griot")
        if let file = file ?? environment["GRIOT_CONFIG"] {
            try configuration.apply(file: file)
        }
        if let path = environment["GRIOT_DATABASE_URL"].flatMap({ $0.isEmpty ? nil : $0 }) ?? environment["GRIOT_DB"], !path.isEmpty {
            configuration.databasePath = path
            configuration.usesDefaultDatabase = false
        }
        if let path = environment["GRIOT_CORPUS"], !path.isEmpty { configuration.corpusPath = path }
        if let path = environment["GRIOT_PROMPTS"], !path.isEmpty { configuration.promptsPath = path }
        if let name = environment["GRIOT_PROVIDER"], !name.isEmpty { configuration.provider = try provider(name, "GRIOT_PROVIDER") }
        if let value = environment["GRIOT_BM25_K1"] { configuration.bm25.k1 = try number(value, "GRIOT_BM25_K1") }
        if let value = environment["GRIOT_BM25_B"] { configuration.bm25.b = try number(value, "GRIOT_BM25_B") }
        if let value = environment["GRIOT_BREAKER_FAILURES"] { configuration.breaker.failureThreshold = try whole(value, "GRIOT_BREAKER_FAILURES", example: "3") }
        if let value = environment["GRIOT_BREAKER_OPEN_SECONDS"] { configuration.breaker.openSeconds = try seconds(value, "GRIOT_BREAKER_OPEN_SECONDS", example: "120") }
        if let value = environment["GRIOT_RETRY_ATTEMPTS"] { configuration.retry.maximumAttempts = try whole(value, "GRIOT_RETRY_ATTEMPTS", example: "3") }
        if let value = environment["GRIOT_RETRY_BASE_DELAY_SECONDS"] { configuration.retry.baseDelay = try seconds(value, "GRIOT_RETRY_BASE_DELAY_SECONDS", example: "0.5") }
        if let value = environment["GRIOT_RETRY_MAX_DELAY_SECONDS"] { configuration.retry.maximumDelay = try seconds(value, "GRIOT_RETRY_MAX_DELAY_SECONDS", example: "8") }
        let defaultRegion = environment["GRIOT_DEFAULT_REGION"].flatMap { $0.isEmpty ? nil : $0 }
        if let text = environment["GRIOT_REGION_DATABASES"], !text.trimmingCharacters(in: .whitespaces).isEmpty {
            configuration.regions = try RegionDatabases.parse(text, defaultRegion: defaultRegion ?? configuration.regions?.namedDefault)
        } else if let defaultRegion {
            guard var regions = configuration.regions else {
                throw ConfigurationError("GRIOT_DEFAULT_REGION=\(defaultRegion) names a region, but no regions are configured; set GRIOT_REGION_DATABASES (e.g. eu=/var/lib/griot/eu.sqlite,us=/var/lib/griot/us.sqlite) or unset GRIOT_DEFAULT_REGION")
            }
            try regions.setDefault(defaultRegion, source: "GRIOT_DEFAULT_REGION")
            configuration.regions = regions
        }
        try configuration.check()
        return configuration
    }

    /// The one check of settings, whichever source they came from.
    func check() throws {
        guard bm25.k1 >= 0, bm25.k1 <= 10 else {
            throw ConfigurationError("BM25 k1 = \(bm25.k1) is outside 0...10; use e.g. 1.2 (GRIOT_BM25_K1 or bm25.k1), or leave it unset")
        }
        guard bm25.b >= 0, bm25.b <= 1 else {
            throw ConfigurationError("BM25 b = \(bm25.b) is outside 0...1; use e.g. 0.75 (GRIOT_BM25_B or bm25.b), or leave it unset")
        }
        guard (1...100).contains(breaker.failureThreshold) else {
            throw ConfigurationError("the breaker's failure threshold \(breaker.failureThreshold) is outside 1...100; use e.g. 3 (GRIOT_BREAKER_FAILURES or breaker.failure_threshold)")
        }
        guard breaker.openSeconds > 0, breaker.openSeconds <= 86_400 else {
            throw ConfigurationError("the breaker's open period \(breaker.openSeconds) s is outside (0, 86400]; use e.g. 120 (GRIOT_BREAKER_OPEN_SECONDS or breaker.open_seconds)")
        }
        guard (1...10).contains(retry.maximumAttempts) else {
            throw ConfigurationError("\(retry.maximumAttempts) attempts is outside 1...10; use e.g. 3, or 1 for no retries (GRIOT_RETRY_ATTEMPTS or retry.attempts)")
        }
        guard retry.baseDelay >= 0, retry.maximumDelay <= 300, retry.baseDelay <= retry.maximumDelay else {
            throw ConfigurationError("the retry waits (first \(retry.baseDelay) s, longest \(retry.maximumDelay) s) must satisfy 0 <= first <= longest <= 300; use e.g. 0.5 and 8 (GRIOT_RETRY_BASE_DELAY_SECONDS, GRIOT_RETRY_MAX_DELAY_SECONDS)")
        }
    }

    mutating func apply(file: String) throws {
        guard let data = FileManager.default.contents(atPath: file) else {
            throw ConfigurationError("cannot read the configuration file \(file); check the path or leave --config out")
        }
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw ConfigurationError("\(file) is not a JSON object; see the README's configuration section")
        }
        if let path = object["database"] as? String {
            databasePath = path
            usesDefaultDatabase = false
        }
        if let path = object["corpus"] as? String { corpusPath = path }
        if let path = object["prompts"] as? String { promptsPath = path }
        if let name = object["provider"] as? String { provider = try Self.provider(name, "provider in \(file)") }
        if let bm25Settings = object["bm25"] as? [String: Any] {
            if let k1 = bm25Settings["k1"] as? Double { bm25.k1 = Float(k1) }
            if let b = bm25Settings["b"] as? Double { bm25.b = Float(b) }
        }
        if let settings = object["breaker"] as? [String: Any] {
            if let value = settings["failure_threshold"] as? Int { breaker.failureThreshold = value }
            if let value = settings["open_seconds"] as? Double { breaker.openSeconds = value }
        }
        if let text = object["region_databases"] as? String {
            regions = try RegionDatabases.parse(text, defaultRegion: object["default_region"] as? String,
                                                source: "region_databases in \(file)", defaultSource: "default_region in \(file)")
        } else if let name = object["default_region"] as? String {
            throw ConfigurationError("default_region \(name) in \(file) names a region, but the file has no region_databases; add them (e.g. \"eu=/var/lib/griot/eu.sqlite,us=/var/lib/griot/us.sqlite\") or remove default_region")
        }
        if let settings = object["retry"] as? [String: Any] {
            if let value = settings["attempts"] as? Int { retry.maximumAttempts = value }
            if let value = settings["base_delay_seconds"] as? Double { retry.baseDelay = value }
            if let value = settings["max_delay_seconds"] as? Double { retry.maximumDelay = value }
        }
    }

    static func number(_ text: String, _ name: String) throws -> Float {
        guard let value = Float(text) else {
            throw ConfigurationError("\(name)=\(text) is not a number; set e.g. \(name)=\(name.hasSuffix("B") ? "0.75" : "1.2") or unset it")
        }
        return value
    }

    static func whole(_ text: String, _ name: String, example: String) throws -> Int {
        guard let value = Int(text) else { throw ConfigurationError("\(name)=\(text) is not a whole number; set e.g. \(name)=\(example) or unset it") }
        return value
    }

    static func seconds(_ text: String, _ name: String, example: String) throws -> Double {
        guard let value = Double(text), value.isFinite else { throw ConfigurationError("\(name)=\(text) is not a number of seconds; set e.g. \(name)=\(example) or unset it") }
        return value
    }

    static func provider(_ name: String, _ source: String) throws -> ProviderChoice {
        guard let choice = ProviderChoice(rawValue: name.lowercased()) else {
            throw ConfigurationError("\(source)=\(name) is not a provider; use one of \(ProviderChoice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    static func defaultDatabasePath(_ environment: [String: String]) -> String {
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.local/share"
        return dataHome + "/griot/griot.sqlite"
    }

    /// A folder of the checkout (`corpus/`, `prompts/`): found from the working directory or from
    /// the executable's location (`.build/<config>/griot` inside the checkout).
    static func bundledPath(_ folder: String, marker: String) -> String? {
        var candidates = [FileManager.default.currentDirectoryPath]
        var directory = URL(fileURLWithPath: CommandLine.arguments.first ?? ".").resolvingSymlinksInPath().deletingLastPathComponent()
        for _ in 0..<5 {
            candidates.append(directory.path)
            directory.deleteLastPathComponent()
        }
        for candidate in candidates {
            let path = candidate + "/" + folder
            if FileManager.default.fileExists(atPath: path + "/" + marker) { return path }
        }
        return nil
    }
}

/// Each region's database for its users' conversations, from `GRIOT_REGION_DATABASES`
/// (`eu=/var/lib/griot/eu.sqlite,us=postgres://griot:…@us-db:5432/griot`: a region name, `=`,
/// then a database as `--database` takes it), and the region of callers who name none.
public struct RegionDatabases: Sendable, Hashable {
    public struct Entry: Sendable, Hashable {
        public var region: String
        /// A SQLite path, `sqlite:PATH` or a PostgreSQL URL (`StorageLocation.parse`).
        public var database: String
    }

    /// In the order listed.
    public var databases: [Entry]
    public var defaultRegion: String
    /// The default as written (nil: the first listed was taken), so the environment can keep a file's.
    var namedDefault: String?

    public var regionNames: [String] { databases.map(\.region) }

    public init(databases: [Entry], defaultRegion: String? = nil) throws {
        guard let first = databases.first else { throw ConfigurationError("no region databases given") }
        self.databases = databases
        self.defaultRegion = first.region
        if let defaultRegion { try setDefault(defaultRegion, source: "the default region") }
    }

    /// Reads `eu=PATH_OR_URL,us=…`, saying what is wrong with an entry: not `REGION=DATABASE`,
    /// a region name that is not one, a database that is not one, a region listed twice, or a
    /// default that is not listed.
    public static func parse(_ text: String, defaultRegion: String?, source: String = "GRIOT_REGION_DATABASES",
                             defaultSource: String = "GRIOT_DEFAULT_REGION") throws -> RegionDatabases {
        let example = "e.g. \(source)=eu=/var/lib/griot/eu.sqlite,us=postgres://griot:PASSWORD@us-db:5432/griot"
        var entries: [Entry] = []
        for piece in text.split(separator: ",", omittingEmptySubsequences: false) {
            let entry = piece.trimmingCharacters(in: .whitespaces)
            guard let equals = entry.firstIndex(of: "=") else {
                throw ConfigurationError("\(source): \"\(entry.prefix(60))\" is not REGION=DATABASE; separate regions with commas, \(example)")
            }
            let region = entry[..<equals].trimmingCharacters(in: .whitespaces)
            let database = entry[entry.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            guard Residency.isValidName(region) else {
                throw ConfigurationError("\(source): \"\(region.prefix(40))\" is not a region name: use 1 to 32 lowercase letters, digits, - or _, beginning with a letter (eu, us-east); \(example)")
            }
            guard !database.isEmpty else { throw ConfigurationError("\(source): region \(region) has no database after =; \(example)") }
            do { _ = try StorageLocation.parse(database) } catch {
                throw ConfigurationError("\(source): the database of region \(region) is not one: \(error)")
            }
            guard !entries.contains(where: { $0.region == region }) else {
                throw ConfigurationError("\(source) lists region \(region) twice; give each region one database")
            }
            if let shared = entries.first(where: { (try? StorageLocation.parse($0.database)) == (try? StorageLocation.parse(database)) }) {
                throw ConfigurationError("\(source): regions \(shared.region) and \(region) name the same database, so their users' data would not be kept apart; give each region its own")
            }
            entries.append(Entry(region: region, database: database))
        }
        var regions = try RegionDatabases(databases: entries)
        if let defaultRegion { try regions.setDefault(defaultRegion, source: defaultSource) }
        return regions
    }

    mutating func setDefault(_ region: String, source: String) throws {
        guard regionNames.contains(region) else {
            throw ConfigurationError("\(source)=\(region) is not one of the configured regions (\(regionNames.joined(separator: ", "))); name one of them, or leave it unset for the first (\(databases[0].region))")
        }
        defaultRegion = region
        namedDefault = region
    }
}

public struct ConfigurationError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
