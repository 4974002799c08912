import Foundation
import GriotStore
import PostgresNIO

/// The conversations' text is sealed on its way into the database and opened on its way out,
/// here and nowhere else, so callers above the store see plain text (see `FieldCipher`). Rows
/// decode as they are stored (`PostgresChatStore+Rows`); the records are opened after, because
/// opening may read a data key another node made.
extension PostgresChatStore {
    func opened(_ thread: ThreadRecord) async throws -> ThreadRecord {
        var thread = thread
        thread.title = try await keys.open(thread.title, .threadTitle, row: thread.id)
        return thread
    }

    func opened(_ message: MessageRecord) async throws -> MessageRecord {
        var message = message
        message.content = try await keys.open(message.content, .messageContent, row: message.id)
        message.error = try await keys.open(message.error, .messageError, row: message.id)
        return message
    }

    /// An archived message keeps its id and field names, so the ciphertext the archive copied opens as it did.
    func opened(_ message: ArchivedMessageRecord) async throws -> ArchivedMessageRecord {
        var message = message
        message.content = try await keys.open(message.content, .messageContent, row: message.id)
        message.error = try await keys.open(message.error, .messageError, row: message.id)
        return message
    }

    func opened(_ turn: TurnRecord) async throws -> TurnRecord {
        var turn = turn
        turn.snapshot = try await keys.open(turn.snapshot, .turnSnapshot, row: turn.id)
        return turn
    }

    func opened(_ entry: AuditEntry) async throws -> AuditEntry {
        guard let id = entry.id else { return entry }
        var entry = entry
        entry.moderation = try await keys.open(entry.moderation, .auditModeration, row: String(id))
        entry.details = try await keys.open(entry.details, .auditDetails, row: String(id))
        return entry
    }

    func opened(_ verdict: SafetyVerdictRecord) async throws -> SafetyVerdictRecord {
        guard let id = verdict.id else { return verdict }
        var verdict = verdict
        verdict.reason = try await keys.open(verdict.reason, .safetyReason, row: String(id))
        verdict.details = try await keys.open(verdict.details, .safetyDetails, row: String(id))
        return verdict
    }

    func opened(_ text: RetainedText) async throws -> RetainedText {
        guard let id = text.id else { return text }
        var text = text
        text.content = try await keys.open(text.content, .retainedText, row: String(id))
        return text
    }

    func opened(_ ticket: ReviewTicket) async throws -> ReviewTicket {
        var ticket = ticket
        ticket.summary = try await keys.open(ticket.summary, .reviewSummary, row: ticket.id)
        ticket.note = try await keys.open(ticket.note, .reviewNote, row: ticket.id)
        ticket.resolution = try await keys.open(ticket.resolution, .reviewResolution, row: ticket.id)
        return ticket
    }

    func opened(_ item: ReviewItem) async throws -> ReviewItem {
        var item = item
        item.ticket = try await opened(item.ticket)
        return item
    }

    /// Each record opened, in order (a `CipherError` from any of them is thrown as it is).
    func opened<Record>(_ records: [Record], _ open: (Record) async throws -> Record) async throws -> [Record] {
        var result: [Record] = []
        result.reserveCapacity(records.count)
        for record in records { result.append(try await open(record)) }
        return result
    }

    // MARK: Whose data key

    /// The users owning these messages' threads, by message id: from memory for messages met
    /// before, else one query for all the others (a streaming batch costs one look-up at most).
    /// None without a keyring: nothing is sealed, so nothing is looked up.
    func owners(ofMessages ids: [String], on connection: PostgresConnection? = nil) async throws -> [String: String] {
        guard cipher.isEnabled else { return [:] }
        var found: [String: String] = [:]
        var missing: [String] = []
        for id in Set(ids) {
            if let owner = owners.owner(of: .message(id)) { found[id] = owner } else { missing.append(id) }
        }
        guard !missing.isEmpty else { return found }
        let query: PostgresQuery = """
            SELECT message.id, thread.userid FROM message JOIN thread ON thread.id = message.threadid WHERE message.id = ANY(\(missing))
            """
        let rows = try await run(query, on: connection)
        for row in rows {
            let (id, owner) = try row.decode((String, String).self)
            owners.remember(owner, of: .message(id))
            found[id] = owner
        }
        return found
    }

    /// The user owning a thread (nil when there is no such thread, or without a keyring).
    func owner(ofThread id: String, on connection: PostgresConnection? = nil) async throws -> String? {
        guard cipher.isEnabled else { return nil }
        if let owner = owners.owner(of: .thread(id)) { return owner }
        let query: PostgresQuery = "SELECT userid FROM thread WHERE id = \(id)"
        let rows = try await run(query, on: connection)
        guard let owner = try Self.scalar(String.self, rows) else { return nil }
        owners.remember(owner, of: .thread(id))
        return owner
    }

    /// Reads (or makes) the data keys of these scopes before a transaction opens: a seal inside
    /// a transaction then finds its key in memory and never waits for a pooled connection while
    /// holding its locks (with every connection held by writers queued on those locks, that
    /// wait would never end).
    func prepareKeys(_ scopes: [KeyScope]) async throws {
        guard cipher.isEnabled else { return }
        for scope in Set(scopes) where cipher.cachedKeyID(scope: scope) == nil { _ = try await keys.keyID(scope: scope) }
    }

    /// The data key of the user owning these messages' threads, ready before a transaction.
    func prepareKeys(ofMessages ids: [String]) async throws {
        guard cipher.isEnabled else { return }
        try await prepareKeys(owners(ofMessages: ids).values.map { KeyScope.user($0) })
    }

    /// A statement in the caller's transaction, or on a pooled connection when there is none.
    func run(_ query: PostgresQuery, on connection: PostgresConnection?) async throws -> [PostgresRow] {
        if let connection { return try await Self.rows(query, on: connection) }
        return try await rows(query)
    }

    /// Ids for rows of a table numbered by the database, taken before the rows are written:
    /// a sealed value's authenticated data names its row.
    static func nextIDs(of table: String, count: Int, on connection: PostgresConnection) async throws -> [Int64] {
        guard count > 0 else { return [] }
        return try await rows("SELECT nextval(pg_get_serial_sequence(\(table), 'id')::regclass) FROM generate_series(1, \(count))", on: connection)
            .map { try $0.decode(Int64.self) }
    }
}

/// Who owns a thread, a message or a stream: fixed once written, so a node remembers the
/// answers it read (up to `capacity`, then starts over) instead of asking again at every write
/// of a streaming reply.
final class RowOwners: @unchecked Sendable {
    enum Row: Hashable {
        case thread(String)
        case message(String)
        case stream(String)
    }

    private let lock = NSLock()
    private var owners: [Row: String] = [:]
    private let capacity: Int

    init(capacity: Int = 20_000) {
        self.capacity = capacity
    }

    func owner(of row: Row) -> String? {
        lock.withLock { owners[row] }
    }

    func remember(_ owner: String, of row: Row) {
        lock.withLock {
            if owners.count >= capacity { owners.removeAll(keepingCapacity: true) }
            owners[row] = owner
        }
    }
}
