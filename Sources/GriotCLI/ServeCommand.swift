import ArgumentParser
import Foundation
import GriotArchive
import GriotAuth
import GriotChat
import GriotServer
import GriotStore
import Hummingbird
import Logging

struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the HTTP service: Ask the Griot, coaching chat, stories, health and metrics.",
        discussion: """
            On first use of the default database the demo corpus is loaded. Tokens: set \
            GRIOT_JWT_SECRET (HS256) or GRIOT_JWKS_FILE (RS256/ES256); for local use \
            GRIOT_AUTH_MODE=development accepts tokens signed with the documented development \
            secret and prints one to use with curl. SIGTERM or Ctrl-C stops it gracefully. \
            Residency: GRIOT_REGION_DATABASES=eu=PATH_OR_URL,us=… keeps each user's conversations in \
            their region's database (the token's region claim or the API key's region, else \
            GRIOT_DEFAULT_REGION, else the first listed); --database keeps stories and keys.
            """)

    @Option(name: .long, help: "The address to listen on.")
    var host = "127.0.0.1"

    @Option(name: .long, help: "The port to listen on.")
    var port = 8080

    @OptionGroup var options: ArchiveOptions

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be between 0 and 65535, e.g. 8080") }
    }

    func run() async throws {
        // Settings first, so a mistyped one fails before the index is loaded.
        let routeLimits = try RouteLimits(environment: ProcessInfo.processInfo.environment)
        let reviewWebhook = try ReviewWebhook(environment: ProcessInfo.processInfo.environment)
        let configuration = try options.configuration()
        let archive = try await options.openArchive()
        // With GRIOT_REGION_DATABASES, each user's conversations live in their region's database
        // and the --database keeps what the service shares (stories, keys, prompt releases, …).
        let regional = try await configuration.regions?.open(home: archive.storage)
        if let regional {
            Terminal.note("residency: conversations in regions \(regional.chats.regionNames.joined(separator: ", ")) (default \(regional.chats.defaultRegion)); "
                          + "stories and keys in \(archive.storage.location)")
        }
        let engine = try await ChatEngine.open(archive: archive, configuration: configuration, chats: regional?.chats,
                                               assistants: try await .served(chats: regional?.chats ?? archive.storage.chats, configuration: configuration))
        let auth = try AuthConfiguration(environment: ProcessInfo.processInfo.environment)
        let verifier = try await TokenVerifier.make(auth)
        if auth.development {
            let token = try await verifier.mintDevelopmentToken(userID: "dev-user", role: .client, expiresIn: 24 * 3600)
            Terminal.note("development mode: tokens signed with the development secret are accepted. A token for dev-user (24 h):\n\(token)")
        }
        LoggingSystem.bootstrap { JSONLogHandler(label: $0) }
        _ = try await archive.indexedPassageCount()   // load the index before taking traffic
        Terminal.note("griot serving on http://\(host):\(port) (\(engine.provider.name)); GET /readyz to check")
        // Replies left streaming by a service that died count as interrupted once this stale.
        let environment = ProcessInfo.processInfo.environment
        let interruptedAfter = try Self.seconds("GRIOT_INTERRUPTED_AFTER_SECONDS", in: environment, default: 90)
        let shutdownGrace = try Self.seconds("GRIOT_SHUTDOWN_GRACE_SECONDS", in: environment, default: 20)
        let addresses: AddressHasher
        // Nodes sharing a database journal their streams there, so a stream resumes on any node.
        var fleet: StreamFleet? = nil
        switch archive.storage.location {
        case .sqlite(let path):
            addresses = try AddressHasher(environment: environment, databasePath: path)
        case .postgres:
            fleet = StreamFleet(journal: engine.chats)
            // Nodes sharing a database must hash addresses alike, or the audit log could not
            // tell one address from another across them.
            guard let salt = environment["GRIOT_AUDIT_SALT"], !salt.isEmpty else {
                throw ValidationError("a shared database needs GRIOT_AUDIT_SALT, the same secret on every node (e.g. export GRIOT_AUDIT_SALT=$(openssl rand -hex 32)); scripts/cluster.sh sets one")
            }
            addresses = AddressHasher(salt: Data(salt.utf8))
        }
        let service = try GriotService(engine: engine, verifier: verifier, fleet: fleet, routeLimits: routeLimits, addresses: addresses,
                                       trustedProxies: ForwardedClient.trusted(environment), reviewWebhook: reviewWebhook,
                                       configuration: configuration)
        // Commits are synced to disk within 200 ms, in groups, off the request path.
        let syncer = (archive.store as? SQLiteStoryStore)?.startWALSync()
        let regionSyncers = (regional?.storages ?? []).compactMap { ($0.stories as? SQLiteStoryStore)?.startWALSync() }
        // A streaming reply's checkpoints are synced as they are written, so the text a client
        // has seen is on disk, not only in the WAL, when its auto-save lag is measured.
        if let syncer { engine.checkpoints.syncAfterWrite { syncer.syncNow(); for region in regionSyncers { region.syncNow() } } }
        // With OTEL_EXPORTER_OTLP_ENDPOINT set, spans are exported over OTLP/HTTP while the service
        // runs and flushed when it stops (docs/TRACES.md); unset, this is service.run alone.
        let grace: Duration = .milliseconds(Int(shutdownGrace * 1000))
        try await TraceExport.running { [host, port] in
            try await service.run(host: host, port: port, interruptedAfter: interruptedAfter, shutdownGrace: grace)
        }
        syncer?.syncNow()
        syncer?.stop()
        for region in regionSyncers {
            region.syncNow()
            region.stop()
        }
    }

    /// A number of seconds from the environment, or `fallback` when the variable is unset.
    static func seconds(_ name: String, in environment: [String: String], default fallback: Double) throws -> Double {
        guard let text = environment[name] else { return fallback }
        guard let seconds = Double(text), seconds >= 0 else {
            throw ValidationError("\(name)=\(text) is not a number of seconds; use e.g. \(Int(fallback)), or unset it")
        }
        return seconds
    }
}
