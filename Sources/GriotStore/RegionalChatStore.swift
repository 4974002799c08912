import Foundation
import Synchronization

/// The chat store of a node that keeps each user's conversations in their region's database
/// (data residency, `GRIOT_REGION_DATABASES`): one `ChatStore` per region beside the node's home
/// database, behind the same seam, so the pipeline, the routes and the jobs do not change.
///
/// ```swift
/// let chats = try RegionalChatStore(home: home.chats, regions: [("eu", eu.chats), ("us", us.chats)], defaultRegion: "eu")
/// try await Residency.$region.withValue("us") { try await chats.createThread(assistant: "griot", userID: "u-sam") }
/// ```
///
/// Where each call goes:
/// - A user's new rows (a thread, a profile, a warning count, an audit entry of no thread) go to
///   the store of the bound region (`Residency.region`, else the default region); a user's own
///   lists (`threads(userID:)`) are read there.
/// - Rows named by id (a thread, message, turn, ticket, stream) are read and written where they
///   live: the bound region first, then the others; the region found is remembered. So a coach
///   of one region answering a client of another writes into the client's thread, in the
///   client's region, and a batch written off the request's task (checkpoints, stream events)
///   lands with its rows.
/// - Node-wide reads (the operators' turn list, the audit log, the review queue) merge every region.
/// - Scheduled jobs, unbound, run in every region in turn, each bound to its region; a user's
///   erasure runs in every region and in the home database, whatever is bound.
/// - Stories' support grants, API keys, breakers, prompt releases, the dashboard's rollup, rate
///   limits and job locks stay in the home database (they are the service's, not a user's
///   conversations), as do the data keys this type reports (each region's database is rotated
///   with `griot keys rotate-master --database` of its own).
public final class RegionalChatStore: ChatStore, Sendable {
    public let home: any ChatStore
    /// Each region's store, in configured order.
    public let regions: [(name: String, store: any ChatStore)]
    public let defaultRegion: String
    private let byName: [String: any ChatStore]
    /// Where rows named by id were found (`t:` thread, `m:` message, `u:` turn, `r:` ticket).
    private let located = Mutex<[String: String]>([:])
    private static let locatedLimit = 100_000

    public init(home: any ChatStore, regions: [(name: String, store: any ChatStore)], defaultRegion: String) throws {
        guard !regions.isEmpty else { throw ChatStoreError(.invalid, "a regional store needs at least one region's database") }
        var byName: [String: any ChatStore] = [:]
        for (name, store) in regions {
            guard byName[name] == nil else { throw ChatStoreError(.invalid, "region \(name) is listed twice") }
            byName[name] = store
        }
        guard byName[defaultRegion] != nil else {
            throw ChatStoreError(.invalid, "the default region \(defaultRegion) is not one of \(regions.map(\.name).joined(separator: ", "))")
        }
        self.home = home
        self.regions = regions
        self.defaultRegion = defaultRegion
        self.byName = byName
    }

    /// The regions this node serves, in configured order.
    public var regionNames: [String] { regions.map(\.name) }

    public func serves(_ region: String) -> Bool { byName[region] != nil }

    // MARK: - Choosing the store

    private enum Kind: String { case thread = "t", message = "m", turn = "u", ticket = "r" }

    /// The bound region's name and store; throws `RegionUnavailable` for a region without one.
    private func bound() throws -> (name: String, store: any ChatStore) {
        let name = Residency.region ?? defaultRegion
        guard let store = byName[name] else { throw RegionUnavailable(region: name, served: regionNames) }
        return (name, store)
    }

    /// The regions to look in for a row: the bound one first (when it is served), then the rest.
    private func searchOrder() -> [(name: String, store: any ChatStore)] {
        guard let first = Residency.region, byName[first] != nil else { return regions }
        return regions.filter { $0.name == first } + regions.filter { $0.name != first }
    }

    private func remember(_ kind: Kind, _ id: String?, in region: String) {
        guard let id else { return }
        located.withLock { located in
            if located.count >= Self.locatedLimit { located.removeAll(keepingCapacity: true) }
            located[kind.rawValue + ":" + id] = region
        }
    }

    /// The region holding the row, found by `probe` (remembered), else the bound region.
    private func holder(_ kind: Kind, _ id: String) async throws -> (name: String, store: any ChatStore) {
        if regions.count == 1 { return regions[0] }
        if let name = located.withLock({ $0[kind.rawValue + ":" + id] }), let store = byName[name] { return (name, store) }
        for (name, store) in searchOrder() {
            let found = try await Residency.$region.withValue(name) { try await probe(kind, id, store) }
            if found {
                remember(kind, id, in: name)
                return (name, store)
            }
        }
        return try bound()
    }

    private func probe(_ kind: Kind, _ id: String, _ store: any ChatStore) async throws -> Bool {
        switch kind {
        case .thread: return try await store.threadExists(id: id)
        case .message: return try await store.message(id: id, includingDeleted: true) != nil
        case .turn:
            if try await store.turn(id: id, includingDeleted: true) != nil { return true }
            return try await store.stream(turnID: id) != nil
        case .ticket: return try await store.reviewItem(id: id) != nil
        }
    }

    /// Runs `body` on the store holding the row, bound to its region.
    private func at<T>(_ kind: Kind, _ id: String, _ body: (any ChatStore) async throws -> T) async throws -> T {
        let (name, store) = try await holder(kind, id)
        return try await Residency.$region.withValue(name) { try await body(store) }
    }

    /// Runs `body` on the bound region's store.
    private func inBound<T>(_ body: (any ChatStore) async throws -> T) async throws -> T {
        let (name, store) = try bound()
        return try await Residency.$region.withValue(name) { try await body(store) }
    }

    /// Runs `body` in every region, each bound to its region, in configured order.
    private func everyRegion<T>(_ body: (any ChatStore) async throws -> T) async throws -> [T] {
        var results: [T] = []
        for (name, store) in regions {
            results.append(try await Residency.$region.withValue(name) { try await body(store) })
        }
        return results
    }

    /// A job's scope: the bound region when a region is bound, else every region.
    private func scoped<T>(_ body: (any ChatStore) async throws -> T) async throws -> [T] {
        if Residency.region != nil { return [try await inBound(body)] }
        return try await everyRegion(body)
    }

    /// The first region (bound first) where `body` finds something.
    private func firstFound<T>(_ kind: Kind?, _ id: String, _ body: (any ChatStore) async throws -> T?) async throws -> T? {
        if let kind, let name = located.withLock({ $0[kind.rawValue + ":" + id] }), let store = byName[name] {
            if let found = try await Residency.$region.withValue(name, operation: { try await body(store) }) { return found }
        }
        for (name, store) in searchOrder() {
            if let found = try await Residency.$region.withValue(name, operation: { try await body(store) }) {
                if let kind { remember(kind, id, in: name) }
                return found
            }
        }
        return nil
    }

    // MARK: - Service-wide, in the home database

    public var pseudonyms: UserPseudonyms { home.pseudonyms }
    public func rateLimiter(_ limits: [RateLimit]) throws -> any RateLimiter { try home.rateLimiter(limits) }
    public func runExclusively(_ job: String, _ body: @Sendable () async throws -> Void) async throws -> Bool {
        try await home.runExclusively(job, body)
    }

    public var cipher: FieldCipher { home.cipher }
    public func dataKeyCounts() async throws -> [String: Int] { try await home.dataKeyCounts() }
    public func dataKeys(notWrappedBy masterKeyID: String, after: String?, limit: Int) async throws -> [DataKeyRecord] {
        try await home.dataKeys(notWrappedBy: masterKeyID, after: after, limit: limit)
    }
    public func replaceWrapping(_ record: DataKeyRecord, previous: DataKeyRecord) async throws -> Bool {
        try await home.replaceWrapping(record, previous: previous)
    }

    public func createSupportGrant(_ grant: SupportGrant) async throws -> SupportGrant { try await home.createSupportGrant(grant) }
    public func supportGrants(ownerUserID: String) async throws -> [SupportGrant] { try await home.supportGrants(ownerUserID: ownerUserID) }
    public func supportGrant(id: String) async throws -> SupportGrant? { try await home.supportGrant(id: id) }
    public func activeSupportGrants(owners: Set<String>, at now: Date) async throws -> [SupportGrant] {
        try await home.activeSupportGrants(owners: owners, at: now)
    }
    public func revokeSupportGrant(id: String, at now: Date) async throws -> SupportGrant? { try await home.revokeSupportGrant(id: id, at: now) }

    public func breakerState(_ name: String) async throws -> (openSince: Double?, probeUntil: Double?)? { try await home.breakerState(name) }
    public func openBreaker(_ name: String, since: Double) async throws { try await home.openBreaker(name, since: since) }
    public func closeBreaker(_ name: String) async throws { try await home.closeBreaker(name) }
    public func claimBreakerProbe(_ name: String, now: Double, openSeconds: Double, lease: Double) async throws -> Bool {
        try await home.claimBreakerProbe(name, now: now, openSeconds: openSeconds, lease: lease)
    }
    public func releaseBreakerProbe(_ name: String) async throws { try await home.releaseBreakerProbe(name) }

    public func promptLabels() async throws -> [String: [String: PromptRelease]] { try await home.promptLabels() }
    public func setPromptLabel(assistant: String, label: String, release: PromptRelease, at: Date) async throws {
        try await home.setPromptLabel(assistant: assistant, label: label, release: release, at: at)
    }
    public func appendPromotion(assistant: String, record: String, at: Date) async throws {
        try await home.appendPromotion(assistant: assistant, record: record, at: at)
    }
    public func promotions(assistant: String) async throws -> [String] { try await home.promotions(assistant: assistant) }

    public func createAPIKey(_ key: APIKey) async throws -> APIKey { try await home.createAPIKey(key) }
    public func apiKeys() async throws -> [APIKey] { try await home.apiKeys() }
    public func apiKey(id: String) async throws -> APIKey? { try await home.apiKey(id: id) }
    public func revokeAPIKey(id: String, at now: Date) async throws -> APIKey? { try await home.revokeAPIKey(id: id, at: now) }
    public func recordAPIKeyUse(id: String, at now: Date, interval: TimeInterval) async throws -> Bool {
        try await home.recordAPIKeyUse(id: id, at: now, interval: interval)
    }

    public var rollupIsShared: Bool { home.rollupIsShared }
    public func addRollup(_ rollup: TurnRollup) async throws { try await home.addRollup(rollup) }
    public func rollupReport(from first: Int64, through last: Int64, resolution: RollupResolution) async throws -> RollupReport {
        try await home.rollupReport(from: first, through: last, resolution: resolution)
    }
    public func rollupActivity(since: Int64) async throws -> Int { try await home.rollupActivity(since: since) }
    public func purgeRollups(before: Int64) async throws -> Int { try await home.purgeRollups(before: before) }

    /// Courses are the coaching app's catalogue, shared by users of every region.
    public func saveCourse(_ course: CourseRecord) async throws { try await home.saveCourse(course) }
    public func course(id: String) async throws -> CourseRecord? { try await home.course(id: id) }

    // MARK: - Threads

    public func createThread(assistant: String, userID: String, courseID: String?, title: String, id: String, now: Date) async throws -> ThreadRecord {
        let (name, store) = try bound()
        let thread = try await Residency.$region.withValue(name) {
            try await store.createThread(assistant: assistant, userID: userID, courseID: courseID, title: title, id: id, now: now)
        }
        remember(.thread, thread.id, in: name)
        return thread
    }

    public func courseThread(assistant: String, userID: String, courseID: String, title: String) async throws -> ThreadRecord {
        let (name, store) = try bound()
        let thread = try await Residency.$region.withValue(name) {
            try await store.courseThread(assistant: assistant, userID: userID, courseID: courseID, title: title)
        }
        remember(.thread, thread.id, in: name)
        return thread
    }

    public func nameThread(id: String, from text: String) async throws { try await at(.thread, id) { try await $0.nameThread(id: id, from: text) } }
    public func thread(id: String) async throws -> ThreadRecord? { try await firstFound(.thread, id) { try await $0.thread(id: id) } }
    public func threads(userID: String, assistant: String) async throws -> [ThreadRecord] {
        try await inBound { try await $0.threads(userID: userID, assistant: assistant) }
    }
    public func threadSummaries(userID: String, assistant: String) async throws -> [ThreadSummary] {
        try await inBound { try await $0.threadSummaries(userID: userID, assistant: assistant) }
    }
    public func threadExists(id: String) async throws -> Bool {
        try await firstFound(.thread, id) { try await $0.threadExists(id: id) ? true : nil } ?? false
    }
    public func deleteThread(id: String, now: Date) async throws -> Bool { try await at(.thread, id) { try await $0.deleteThread(id: id, now: now) } }
    public func unreadCount(threadID: String) async throws -> Int { try await at(.thread, threadID) { try await $0.unreadCount(threadID: threadID) } }
    public func markRead(threadID: String, messageID: String) async throws {
        try await at(.thread, threadID) { try await $0.markRead(threadID: threadID, messageID: messageID) }
    }
    public func saveProfile(_ profile: ProfileRecord) async throws { try await inBound { try await $0.saveProfile(profile) } }
    /// The caller's region first: a coach reads a client's profile wherever the client lives.
    public func profile(userID: String) async throws -> ProfileRecord? { try await firstFound(nil, userID) { try await $0.profile(userID: userID) } }

    // MARK: - Messages

    public func appendMessage(threadID: String, role: MessageRecord.Role, content: String, status: MessageStatus, turnID: String?, now: Date,
                              moderation: String?, audit: AuditContext?, inputMode: String?) async throws -> MessageRecord {
        let (name, store) = try await holder(.thread, threadID)
        let message = try await Residency.$region.withValue(name) {
            try await store.appendMessage(threadID: threadID, role: role, content: content, status: status, turnID: turnID, now: now,
                                          moderation: moderation, audit: audit, inputMode: inputMode)
        }
        remember(.message, message.id, in: name)
        remember(.turn, message.turnID, in: name)
        return message
    }

    public func finishMessage(id: String, content: String, status: MessageStatus, error: String?, now: Date, moderation: String?) async throws {
        try await at(.message, id) { try await $0.finishMessage(id: id, content: content, status: status, error: error, now: now, moderation: moderation) }
    }

    /// A batch of several users' replies (the checkpoint writer's): each region's share in one commit there.
    public func saveStreamingTexts(_ texts: [(id: String, content: String)], now: Date) async throws {
        var shares: [String: [(id: String, content: String)]] = [:]
        for text in texts { shares[try await holder(.message, text.id).name, default: []].append(text) }
        for (name, share) in shares {
            try await Residency.$region.withValue(name) { try await byName[name]!.saveStreamingTexts(share, now: now) }
        }
    }

    public func message(id: String, includingDeleted: Bool) async throws -> MessageRecord? {
        try await firstFound(.message, id) { try await $0.message(id: id, includingDeleted: includingDeleted) }
    }
    public func recentMessages(threadID: String, limit: Int, beforeSequence: Int?) async throws -> [MessageRecord] {
        try await at(.thread, threadID) { try await $0.recentMessages(threadID: threadID, limit: limit, beforeSequence: beforeSequence) }
    }
    public func messages(threadID: String, before: Int?, limit: Int) async throws -> MessagePage {
        try await at(.thread, threadID) { try await $0.messages(threadID: threadID, before: before, limit: limit) }
    }
    public func sequence(ofMessage messageID: String, inThread threadID: String) async throws -> Int? {
        try await at(.thread, threadID) { try await $0.sequence(ofMessage: messageID, inThread: threadID) }
    }
    public func userTexts(threadID: String) async throws -> [String] { try await at(.thread, threadID) { try await $0.userTexts(threadID: threadID) } }
    public func editMessage(id: String, content: String, ifMatch: String, by actorID: String, now: Date,
                            moderation: String?, decision: String?) async throws -> MessageRecord {
        try await at(.message, id) {
            try await $0.editMessage(id: id, content: content, ifMatch: ifMatch, by: actorID, now: now, moderation: moderation, decision: decision)
        }
    }
    public func softDeleteMessage(id: String, by actorID: String, ifMatch: String?, now: Date) async throws -> Bool {
        try await at(.message, id) { try await $0.softDeleteMessage(id: id, by: actorID, ifMatch: ifMatch, now: now) }
    }
    public func softDeleteThread(id: String, by actorID: String, now: Date) async throws -> Bool {
        try await at(.thread, id) { try await $0.softDeleteThread(id: id, by: actorID, now: now) }
    }
    public func markInterruptedReplies(staleAfter: Double, now: Date) async throws -> Int {
        try await scoped { try await $0.markInterruptedReplies(staleAfter: staleAfter, now: now) }.reduce(0, +)
    }
    public func markInterrupted(replyIDs: [String], now: Date) async throws -> Int {
        var shares: [String: [String]] = [:]
        for id in replyIDs { shares[try await holder(.message, id).name, default: []].append(id) }
        var marked = 0
        for (name, ids) in shares {
            marked += try await Residency.$region.withValue(name) { try await byName[name]!.markInterrupted(replyIDs: ids, now: now) }
        }
        return marked
    }
    public func inputMode(messageID: String) async throws -> String? { try await at(.message, messageID) { try await $0.inputMode(messageID: messageID) } }
    public func recordModeration(messageID: String, moderation: String, decision: String, blocked: Bool, write: String, now: Date) async throws {
        try await at(.message, messageID) {
            try await $0.recordModeration(messageID: messageID, moderation: moderation, decision: decision, blocked: blocked, write: write, now: now)
        }
    }

    // MARK: - Turns

    public func saveTurn(_ turn: TurnRecord) async throws {
        let (name, store) = try await holder(.thread, turn.threadID)
        try await Residency.$region.withValue(name) { try await store.saveTurn(turn) }
        remember(.turn, turn.id, in: name)
    }
    public func turn(id: String, includingDeleted: Bool) async throws -> TurnRecord? {
        try await firstFound(.turn, id) { try await $0.turn(id: id, includingDeleted: includingDeleted) }
    }
    public func turns(threadID: String, includingDeleted: Bool) async throws -> [TurnRecord] {
        try await at(.thread, threadID) { try await $0.turns(threadID: threadID, includingDeleted: includingDeleted) }
    }
    /// Every region's newest, merged.
    public func recentTurns(_ filter: TurnFilter) async throws -> [TurnRecord] {
        let merged = try await everyRegion { try await $0.recentTurns(filter) }.joined()
        return Array(merged.sorted { $0.startedAt > $1.startedAt }.prefix(max(1, min(filter.limit, 500))))
    }

    // MARK: - Audit

    public func recordAudit(_ entry: AuditEntry) async throws -> AuditEntry {
        if let threadID = entry.threadID { return try await at(.thread, threadID) { try await $0.recordAudit(entry) } }
        if let messageID = entry.messageID { return try await at(.message, messageID) { try await $0.recordAudit(entry) } }
        return try await inBound { try await $0.recordAudit(entry) }
    }

    /// Every region's entries, merged newest first, then paged.
    public func auditEntries(_ filter: AuditFilter) async throws -> [AuditEntry] {
        var wide = filter
        wide.limit = filter.offset + filter.limit
        wide.offset = 0
        let merged = try await everyRegion { try await $0.auditEntries(wide) }.joined()
            .sorted { ($0.at, $0.id ?? 0) > ($1.at, $1.id ?? 0) }
        return Array(merged.dropFirst(filter.offset).prefix(filter.limit))
    }

    public func purgeAudit(olderThan age: DateComponents, now: Date) async throws -> Int {
        try await scoped { try await $0.purgeAudit(olderThan: age, now: now) }.reduce(0, +)
    }

    // MARK: - Safety

    public func recordVerdicts(_ verdicts: [SafetyVerdictRecord]) async throws {
        var shares: [String: [SafetyVerdictRecord]] = [:]
        var order: [String] = []
        for verdict in verdicts {
            let name = try await holder(.thread, verdict.threadID).name
            if shares[name] == nil { order.append(name) }
            shares[name, default: []].append(verdict)
        }
        for name in order {
            try await Residency.$region.withValue(name) { try await byName[name]!.recordVerdicts(shares[name]!) }
        }
    }
    public func verdicts(turnID: String) async throws -> [SafetyVerdictRecord] {
        try await firstFound(.turn, turnID) { store -> [SafetyVerdictRecord]? in
            let found = try await store.verdicts(turnID: turnID)
            return found.isEmpty ? nil : found
        } ?? []
    }
    public func addModerationWarning(userID: String, now: Date) async throws -> Int {
        try await inBound { try await $0.addModerationWarning(userID: userID, now: now) }
    }
    public func moderationWarnings(userID: String, now: Date) async throws -> Int {
        try await inBound { try await $0.moderationWarnings(userID: userID, now: now) }
    }
    public func expireWarnings(now: Date) async throws -> Int { try await scoped { try await $0.expireWarnings(now: now) }.reduce(0, +) }
    public func purgeVerdicts(olderThan age: DateComponents, now: Date) async throws -> Int {
        try await scoped { try await $0.purgeVerdicts(olderThan: age, now: now) }.reduce(0, +)
    }

    // MARK: - Retention

    public func purgeDeleted(olderThan age: DateComponents, now: Date) async throws -> RetentionCounts {
        var total = RetentionCounts()
        for counts in try await scoped({ try await $0.purgeDeleted(olderThan: age, now: now) }) { total.add(counts) }
        return total
    }
    public func archiveMessages(olderThan age: DateComponents, now: Date, batchSize: Int) async throws -> Int {
        try await scoped { try await $0.archiveMessages(olderThan: age, now: now, batchSize: batchSize) }.reduce(0, +)
    }
    public func archivedMessages(threadID: String) async throws -> [ArchivedMessageRecord] {
        try await at(.thread, threadID) { try await $0.archivedMessages(threadID: threadID) }
    }

    /// An erasure covers every region, and the home database (which held the node's chats
    /// before regions were configured, and keeps the rate limits), whatever region is bound.
    public func purgeUser(userID: String, by actorID: String?, now: Date) async throws -> RetentionCounts {
        var total = try await Residency.$region.withValue(nil) { try await home.purgeUser(userID: userID, by: actorID, now: now) }
        for counts in try await everyRegion({ try await $0.purgeUser(userID: userID, by: actorID, now: now) }) { total.add(counts) }
        return total
    }

    public func readRetainedTexts(messageID: String, by actorID: String, now: Date) async throws -> [RetainedTextItem] {
        try await at(.message, messageID) { try await $0.readRetainedTexts(messageID: messageID, by: actorID, now: now) }
    }

    public func retentionDue(now: Date) async throws -> RetentionDue {
        var total = RetentionDue()
        for due in try await scoped({ try await $0.retentionDue(now: now) }) {
            total.deletedMessages += due.deletedMessages
            total.deletedThreads += due.deletedThreads
            total.messagesToArchive += due.messagesToArchive
            total.verdicts += due.verdicts
            total.retainedTexts += due.retainedTexts
            total.oldestDeletedAt = [total.oldestDeletedAt, due.oldestDeletedAt].compactMap { $0 }.min()
        }
        return total
    }

    // MARK: - Stream journal

    /// One node's batch holds streams of users of several regions: each region's share is
    /// committed in its own database (a turn's region is its thread's).
    public func writeStreams(_ batch: StreamJournalBatch) async throws {
        var shares: [String: StreamJournalBatch] = [:]
        for stream in batch.opened {
            let name = try await holder(.thread, stream.threadID).name
            remember(.turn, stream.turnID, in: name)
            shares[name, default: StreamJournalBatch(at: batch.at)].opened.append(stream)
        }
        for event in batch.events {
            shares[try await holder(.turn, event.turnID).name, default: StreamJournalBatch(at: batch.at)].events.append(event)
        }
        for turnID in batch.finished {
            shares[try await holder(.turn, turnID).name, default: StreamJournalBatch(at: batch.at)].finished.append(turnID)
        }
        for (name, share) in shares {
            try await Residency.$region.withValue(name) { try await byName[name]!.writeStreams(share) }
        }
    }
    public func stream(turnID: String) async throws -> TurnStreamRecord? { try await firstFound(.turn, turnID) { try await $0.stream(turnID: turnID) } }
    public func streamEvents(turnID: String, after: Int, limit: Int) async throws -> [TurnStreamEvent] {
        try await at(.turn, turnID) { try await $0.streamEvents(turnID: turnID, after: after, limit: limit) }
    }
    public func markStreamListened(turnID: String, at: Date) async throws {
        try await self.at(.turn, turnID) { try await $0.markStreamListened(turnID: turnID, at: at) }
    }
    public func requestStreamStop(threadID: String, userID: String, at: Date) async throws -> Bool {
        try await self.at(.thread, threadID) { try await $0.requestStreamStop(threadID: threadID, userID: userID, at: at) }
    }
    public func stopRequestedStreams(nodeID: String) async throws -> [String] {
        try await everyRegion { try await $0.stopRequestedStreams(nodeID: nodeID) }.flatMap { $0 }
    }
    /// In every region: a stream's node is judged alive by the heartbeats beside the stream.
    public func beatHeart(nodeID: String, at: Date) async throws {
        _ = try await everyRegion { try await $0.beatHeart(nodeID: nodeID, at: at) }
    }
    public func lastHeartbeat(nodeID: String) async throws -> Date? {
        try await everyRegion { try await $0.lastHeartbeat(nodeID: nodeID) }.compactMap { $0 }.max()
    }
    public func interruptStream(turnID: String, ending: [StreamEventContent], replyText: String, at: Date) async throws -> [TurnStreamEvent]? {
        try await self.at(.turn, turnID) { try await $0.interruptStream(turnID: turnID, ending: ending, replyText: replyText, at: at) }
    }
    public func orphanedStreams(heartbeatBefore: Date) async throws -> [TurnStreamRecord] {
        try await scoped { try await $0.orphanedStreams(heartbeatBefore: heartbeatBefore) }.flatMap { $0 }
    }
    public func pruneStreams(finishedBefore: Date) async throws -> Int {
        try await scoped { try await $0.pruneStreams(finishedBefore: finishedBefore) }.reduce(0, +)
    }

    // MARK: - Review queue

    /// Every region's tickets, merged newest first, then paged.
    public func reviewItems(_ filter: ReviewFilter) async throws -> [ReviewItem] {
        var wide = filter
        wide.limit = filter.offset + filter.limit
        wide.offset = 0
        let merged = try await everyRegion { try await $0.reviewItems(wide) }.joined()
            .sorted { ($0.ticket.createdAt, $0.ticket.id) > ($1.ticket.createdAt, $1.ticket.id) }
        return Array(merged.dropFirst(filter.offset).prefix(filter.limit))
    }
    public func reviewItem(id: String) async throws -> ReviewItem? { try await firstFound(.ticket, id) { try await $0.reviewItem(id: id) } }
    public func reportReply(messageID: String, reporterID: String, reason: ReviewTicket.ReportReason, note: String?, now: Date) async throws
        -> (item: ReviewItem, created: Bool) {
        let (name, store) = try await holder(.message, messageID)
        let report = try await Residency.$region.withValue(name) {
            try await store.reportReply(messageID: messageID, reporterID: reporterID, reason: reason, note: note, now: now)
        }
        remember(.ticket, report.item.ticket.id, in: name)
        return report
    }
    public func acknowledgeReview(id: String, by actorID: String, now: Date) async throws -> ReviewItem {
        try await at(.ticket, id) { try await $0.acknowledgeReview(id: id, by: actorID, now: now) }
    }
    public func resolveReview(id: String, by actorID: String, resolution: String?, now: Date) async throws -> ReviewItem {
        try await at(.ticket, id) { try await $0.resolveReview(id: id, by: actorID, resolution: resolution, now: now) }
    }
    /// Unbound (the delivery service), up to `limit` from the regions in turn.
    public func claimReviewDeliveries(owner: String, limit: Int, lease: TimeInterval, now: Date) async throws -> [ReviewItem] {
        if Residency.region != nil { return try await inBound { try await $0.claimReviewDeliveries(owner: owner, limit: limit, lease: lease, now: now) } }
        var claimed: [ReviewItem] = []
        for (name, store) in regions where claimed.count < limit {
            let items = try await Residency.$region.withValue(name) {
                try await store.claimReviewDeliveries(owner: owner, limit: limit - claimed.count, lease: lease, now: now)
            }
            for item in items { remember(.ticket, item.ticket.id, in: name) }
            claimed += items
        }
        return claimed
    }
    public func recordReviewDelivery(ticketID: String, owner: String, outcome: ReviewDeliveryOutcome, now: Date) async throws -> Bool {
        try await at(.ticket, ticketID) { try await $0.recordReviewDelivery(ticketID: ticketID, owner: owner, outcome: outcome, now: now) }
    }
}
