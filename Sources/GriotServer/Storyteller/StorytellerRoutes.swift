import Foundation
import GriotAuth
import GriotChat
import GriotImages
import GriotStore
import Hummingbird

/// The storyteller's routes (the Joanie app), under `/api/storyteller`: a parent's children, their
/// drawings, the bedtime stories told from them, and the stories' read-only links. Every route but
/// a shared link's is the signed-in parent's own: another parent's child, drawing, story or link is
/// 404, exactly as a missing one (the store reads them as nil).
///
/// Drawings are checked by their bytes (PNG or JPEG), stripped of EXIF, GPS and other metadata
/// before anything is stored, kept by content hash under the data folder with a thumbnail, and
/// never served to anyone but their parent (or through a live share link of a story they are in).
struct StorytellerRoutes: AssistantRoutes {
    let engine: ChatEngine
    let turns: TurnRegistry
    let observer: TurnMetricsObserver
    let limiter: any RateLimiter
    let blobs: DrawingBlobStore
    let limits: StorytellerLimits

    static let assistant = "storyteller"
    static let group = "storyteller"

    /// Every route is the signed-in parent's own (their children, drawings, stories and links;
    /// the handlers read them through the store scoped by the caller, so another parent's id is
    /// 404); a shared link's page and its drawings are anyone's who holds the token.
    static let accessRows: [String: AccessPolicy.Row] = [
        "POST /api/storyteller/children": .init(.signedIn, .read),
        "GET /api/storyteller/children": .init(.signedIn, .read),
        "GET /api/storyteller/children/{id}": .init(.signedIn, .read),
        "PATCH /api/storyteller/children/{id}": .init(.signedIn, .read),
        "DELETE /api/storyteller/children/{id}": .init(.signedIn, .heavy),
        "POST /api/storyteller/drawings": .init(.signedIn, .heavy),
        "GET /api/storyteller/drawings": .init(.signedIn, .read),
        "GET /api/storyteller/drawings/{id}": .init(.signedIn, .read),
        "GET /api/storyteller/drawings/{id}/image": .init(.signedIn, .read),
        "GET /api/storyteller/drawings/{id}/thumbnail": .init(.signedIn, .read),
        "DELETE /api/storyteller/drawings/{id}": .init(.signedIn, .heavy),
        "POST /api/storyteller/stories": .init(.signedIn, .chat),
        "GET /api/storyteller/stories": .init(.signedIn, .read),
        "GET /api/storyteller/stories/{id}": .init(.signedIn, .read),
        "POST /api/storyteller/stories/{id}/chapters": .init(.signedIn, .chat),
        "POST /api/storyteller/stories/{id}/shares": .init(.signedIn, .read),
        "GET /api/storyteller/stories/{id}/shares": .init(.signedIn, .read),
        "GET /api/storyteller/stories/{id}/pdf": .init(.signedIn, .heavy),
        "DELETE /api/storyteller/shares/{token}": .init(.signedIn, .read),
        "GET /api/storyteller/shared/{token}": .init(.anyone, .read),
        "GET /api/storyteller/shared/{token}/drawings/{id}": .init(.anyone, .read),
    ]

    init(_ services: AssistantRouteServices) {
        engine = services.engine
        turns = services.turns
        observer = services.observer
        limiter = services.limiter
        blobs = services.service.drawings
        limits = StorytellerLimits()
    }

    func add(to router: RouterGroup<GriotRequestContext>) {
        router.post("children", use: addChild)
        router.get("children", use: children)
        router.get("children/:id", use: child)
        router.patch("children/:id", use: updateChild)
        router.delete("children/:id", use: deleteChild)
        router.post("drawings", use: addDrawing)
        router.get("drawings", use: drawings)
        router.get("drawings/:id", use: drawing)
        router.get("drawings/:id/image", use: drawingImage)
        router.get("drawings/:id/thumbnail", use: drawingThumbnail)
        router.delete("drawings/:id", use: deleteDrawing)
        addStories(to: router)
        addShares(to: router)
        addPDF(to: router)
    }

    var store: any StorytellerStore {
        get throws {
            guard let store = engine.chats as? any StorytellerStore else {
                throw APIError(.serviceUnavailable, code: "storyteller_unavailable", "This service's database keeps no storyteller data; run it on SQLite or PostgreSQL.")
            }
            return store
        }
    }

    // MARK: Children

    struct ChildBody: Decodable {
        var name: String?
        var age: Int?
        var avatar: String?
    }

    struct ChildItem: ResponseEncodable {
        var id: String
        var name: String
        var age: Int?
        var avatar: String?
        var createdAt: Date
        var updatedAt: Date

        init(_ child: ChildRecord) {
            id = child.id
            name = child.name
            age = child.age
            avatar = child.avatar
            createdAt = child.created
            updatedAt = child.updated
        }
    }

    struct ChildList: ResponseEncodable {
        var children: [ChildItem]
    }

    static let childShape = #"{"name": "…", "age": 6, "avatar": "…"}"#

    /// The body's name, age and avatar, checked: what to send instead when one is wrong.
    func checkedChild(_ body: ChildBody) throws -> (name: String, age: Int?, avatar: String?) {
        let name = (body.name ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !name.isEmpty else { throw APIError.badRequest("missing_name", "Send the child's name in \"name\" (a first name is enough).") }
        guard name.count <= 100 else { throw APIError.badRequest("invalid_name", "The name is \(name.count) characters; send at most 100.") }
        if let reason = StorableText.unstorableReason(name, what: "name") { throw APIError.badRequest("invalid_name", reason) }
        if let age = body.age, !(0...17).contains(age) {
            throw APIError.badRequest("invalid_age", "\"age\" is \(age); send the child's age in years, 0 to 17, or leave it out.")
        }
        let avatar = body.avatar.map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.flatMap { $0.isEmpty ? nil : $0 }
        if let avatar {
            guard avatar.count <= 200 else { throw APIError.badRequest("invalid_avatar", "\"avatar\" is \(avatar.count) characters; send at most 200 (an emoji or a short name).") }
            if let reason = StorableText.unstorableReason(avatar, what: "avatar") { throw APIError.badRequest("invalid_avatar", reason) }
        }
        return (name, body.age, avatar)
    }

    @Sendable func addChild(_ request: Request, context: GriotRequestContext) async throws -> EditedResponse<ChildItem> {
        let caller = try context.requireCaller()
        let body = try await request.decodeJSON(as: ChildBody.self, context: context, shape: Self.childShape)
        let checked = try checkedChild(body)
        let store = try store
        let existing = try await store.children(parentID: caller.userID)
        guard existing.count < limits.childrenPerParent else {
            throw APIError(.conflict, code: "too_many_children", "You have \(existing.count) children here, the most allowed; delete one before adding another.")
        }
        let child = try await store.addChild(ChildRecord(parentID: caller.userID, name: checked.name, age: checked.age, avatar: checked.avatar))
        return EditedResponse(status: .created, response: ChildItem(child))
    }

    @Sendable func children(_ request: Request, context: GriotRequestContext) async throws -> ChildList {
        let caller = try context.requireCaller()
        return ChildList(children: try await store.children(parentID: caller.userID).map(ChildItem.init))
    }

    func ownChild(_ id: String, caller: Caller) async throws -> ChildRecord {
        guard let child = try await store.child(id: id, parentID: caller.userID) else {
            throw APIError.notFound("child_not_found", "There is no child \(id) of yours; GET /api/storyteller/children lists them.")
        }
        return child
    }

    @Sendable func child(_ request: Request, context: GriotRequestContext) async throws -> ChildItem {
        let caller = try context.requireCaller()
        return ChildItem(try await ownChild(try context.parameters.require("id"), caller: caller))
    }

    @Sendable func updateChild(_ request: Request, context: GriotRequestContext) async throws -> ChildItem {
        let caller = try context.requireCaller()
        let id = try context.parameters.require("id")
        let current = try await ownChild(id, caller: caller)
        let body = try await request.decodeJSON(as: ChildBody.self, context: context, shape: Self.childShape)
        // A field left out keeps its value.
        let checked = try checkedChild(ChildBody(name: body.name ?? current.name, age: body.age ?? current.age, avatar: body.avatar ?? current.avatar))
        guard let updated = try await store.updateChild(id: id, parentID: caller.userID, name: checked.name, age: checked.age, avatar: checked.avatar) else {
            throw APIError.notFound("child_not_found", "There is no child \(id) of yours; GET /api/storyteller/children lists them.")
        }
        return ChildItem(updated)
    }

    @Sendable func deleteChild(_ request: Request, context: GriotRequestContext) async throws -> HTTPResponse.Status {
        let caller = try context.requireCaller()
        let id = try context.parameters.require("id")
        guard let removal = try await store.deleteChild(id: id, parentID: caller.userID) else {
            throw APIError.notFound("child_not_found", "There is no child \(id) of yours; GET /api/storyteller/children lists them.")
        }
        removeBlobs(removal.unreferencedHashes, context: context)
        return .noContent
    }

    /// Removes the files of drawings no row names any more; a failure is logged, not the
    /// request's (the rows are gone, and an orphaned file holds nothing anyone can reach).
    func removeBlobs(_ hashes: some Sequence<String>, context: GriotRequestContext) {
        for hash in hashes {
            do { try blobs.remove(hash) } catch { context.logger.warning("A drawing's file could not be removed", metadata: ["hash": "\(hash)", "error": "\(error)"]) }
        }
    }

    // MARK: Drawings

    struct DrawingItem: ResponseEncodable {
        var id: String
        var childID: String
        var mediaType: String
        var bytes: Int
        var width: Int
        var height: Int
        var filename: String?
        var caption: String?
        var createdAt: Date
        var imageURL: String
        var thumbnailURL: String

        init(_ drawing: DrawingRecord) {
            id = drawing.id
            childID = drawing.childID
            mediaType = drawing.mediaType
            bytes = drawing.byteCount
            width = drawing.width
            height = drawing.height
            filename = drawing.filename
            caption = drawing.caption
            createdAt = drawing.created
            imageURL = "/api/storyteller/drawings/\(drawing.id)/image"
            thumbnailURL = "/api/storyteller/drawings/\(drawing.id)/thumbnail"
        }
    }

    struct DrawingList: ResponseEncodable {
        var drawings: [DrawingItem]
        var nextCursor: String?
    }

    @Sendable func addDrawing(_ request: Request, context: GriotRequestContext) async throws -> EditedResponse<DrawingItem> {
        let caller = try context.requireCaller()
        let upload = try await DrawingUpload.read(request, context: context)
        let child = try await ownChild(upload.childID, caller: caller)
        guard upload.bytes.count <= limits.drawingBytes else {
            throw APIError(.contentTooLarge, code: "drawing_too_large",
                           "The picture is \(upload.bytes.count / 1024) KB; the most is \(limits.drawingBytes / (1024 * 1024)) MB. Send a smaller photo of the drawing (most phones' \"medium\" size is fine).",
                           details: ["limit_bytes": String(limits.drawingBytes)])
        }
        let filename = try Self.checkedText(upload.filename, field: "filename", limit: 200)
        let caption = try Self.checkedText(upload.caption, field: "caption", limit: 500)
        let store = try store
        let (forChild, forParent) = (try await store.drawingCount(childID: child.id, parentID: caller.userID), try await store.drawingCount(parentID: caller.userID))
        guard forChild < limits.drawingsPerChild else {
            throw APIError(.conflict, code: "too_many_drawings", "\(child.name) has \(forChild) drawings here, the most allowed; delete some before adding more.")
        }
        guard forParent < limits.drawingsPerParent else {
            throw APIError(.conflict, code: "too_many_drawings", "You have \(forParent) drawings here, the most allowed; delete some before adding more.")
        }
        let drawing: DrawingIntake
        do {
            drawing = try DrawingIntake.prepare(upload.bytes)
        } catch {
            throw APIError(.unsupportedMediaType, code: "unsupported_image", error.message)
        }
        let hash = try drawing.store(in: blobs)
        let record = drawing.record(hash: hash, parentID: caller.userID, childID: child.id, filename: filename, caption: caption)
        guard let stored = try await store.addDrawing(record) else {
            throw APIError.notFound("child_not_found", "There is no child \(child.id) of yours; GET /api/storyteller/children lists them.")
        }
        // The same picture's other drawing may have been deleted between the file's write and the
        // row's insert, taking the file with it; now that a row names the hash, write it again if so.
        if !blobs.contains(hash) { try drawing.store(in: blobs) }
        return EditedResponse(status: .created, response: DrawingItem(stored))
    }

    /// An optional text field, trimmed, with its limit and the store's rules; nil when empty.
    static func checkedText(_ text: String?, field: String, limit: Int) throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        guard text.count <= limit else { throw APIError.badRequest("invalid_\(field)", "\"\(field)\" is \(text.count) characters; send at most \(limit).") }
        if let reason = StorableText.unstorableReason(text, what: field) { throw APIError.badRequest("invalid_\(field)", reason) }
        return text
    }

    @Sendable func drawings(_ request: Request, context: GriotRequestContext) async throws -> DrawingList {
        let caller = try context.requireCaller()
        guard let childID = request.uri.queryParameters.get("child_id"), !childID.isEmpty else {
            throw APIError.badRequest("missing_child", "Name the child: GET /api/storyteller/drawings?child_id=….")
        }
        _ = try await ownChild(childID, caller: caller)
        var query = DrawingQuery()
        if let limit = request.uri.queryParameters.get("limit") {
            guard let value = Int(limit), value > 0 else { throw APIError.badRequest("invalid_limit", "limit=\(limit) is not a positive whole number.") }
            query.limit = value
        }
        query.cursor = request.uri.queryParameters.get("cursor").flatMap { $0.isEmpty ? nil : $0 }
        query.from = try Self.date(request.uri.queryParameters.get("from"), field: "from")
        query.until = try Self.date(request.uri.queryParameters.get("until"), field: "until")
        do {
            let page = try await store.drawings(childID: childID, parentID: caller.userID, query: query)
            return DrawingList(drawings: page.drawings.map(DrawingItem.init), nextCursor: page.nextCursor)
        } catch let error as ChatStoreError where error.kind == .invalid {
            throw APIError.badRequest("invalid_cursor", error.description)
        }
    }

    static func date(_ text: String?, field: String) throws -> Date? {
        guard let text, !text.isEmpty else { return nil }
        if let date = try? Date(text, strategy: .iso8601) { return date }
        if let day = try? Date(text + "T00:00:00Z", strategy: .iso8601) { return day }
        throw APIError.badRequest("invalid_\(field)", "\(field)=\(text) is not a date; send 2026-11-29 or 2026-11-29T18:00:00Z.")
    }

    func ownDrawing(_ context: GriotRequestContext, caller: Caller) async throws -> DrawingRecord {
        let id = try context.parameters.require("id")
        guard let drawing = try await store.drawing(id: id, parentID: caller.userID) else {
            throw APIError.notFound("drawing_not_found", "There is no drawing \(id) of yours; GET /api/storyteller/drawings?child_id=… lists them.")
        }
        return drawing
    }

    @Sendable func drawing(_ request: Request, context: GriotRequestContext) async throws -> DrawingItem {
        DrawingItem(try await ownDrawing(context, caller: try context.requireCaller()))
    }

    @Sendable func drawingImage(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let drawing = try await ownDrawing(context, caller: try context.requireCaller())
        guard let data = blobs.data(drawing.contentHash) else {
            throw APIError(.gone, code: "drawing_file_missing", "The file of drawing \(drawing.id) is missing from this node's data folder; upload it again.")
        }
        return Self.imageResponse(data, mediaType: drawing.mediaType)
    }

    @Sendable func drawingThumbnail(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let drawing = try await ownDrawing(context, caller: try context.requireCaller())
        if let data = blobs.thumbnail(drawing.contentHash) { return Self.imageResponse(data, mediaType: "image/jpeg") }
        // Made again from the drawing when its thumbnail file is gone.
        guard let original = blobs.data(drawing.contentHash), let made = try? DrawingImage.thumbnail(original, maxSide: DrawingIntake.thumbnailSide) else {
            throw APIError(.gone, code: "drawing_file_missing", "The file of drawing \(drawing.id) is missing from this node's data folder; upload it again.")
        }
        try? blobs.putThumbnail(drawing.contentHash, made)
        return Self.imageResponse(made, mediaType: "image/jpeg")
    }

    static func imageResponse(_ data: Data, mediaType: String) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = mediaType
        headers[.cacheControl] = "private, max-age=3600"
        headers[.contentLength] = String(data.count)
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    @Sendable func deleteDrawing(_ request: Request, context: GriotRequestContext) async throws -> HTTPResponse.Status {
        let caller = try context.requireCaller()
        let id = try context.parameters.require("id")
        guard let removal = try await store.deleteDrawing(id: id, parentID: caller.userID) else {
            throw APIError.notFound("drawing_not_found", "There is no drawing \(id) of yours; GET /api/storyteller/drawings?child_id=… lists them.")
        }
        if !removal.hashStillReferenced { removeBlobs([removal.drawing.contentHash], context: context) }
        return .noContent
    }
}

/// The storyteller's limits, with the environment variables that change them.
struct StorytellerLimits: Sendable {
    /// The largest drawing accepted, after base64 is decoded (`GRIOT_STORYTELLER_DRAWING_MB`, 5).
    var drawingBytes = 5 * 1024 * 1024
    var drawingsPerChild = 500
    var drawingsPerParent = 2_000
    var childrenPerParent = 20
    /// Drawings a story or chapter is told from.
    var drawingsPerStory = 1...10
    /// Whether the child's first name is sent to the model (`GRIOT_STORYTELLER_SEND_CHILD_NAME=0`: "the child").
    var sendsChildName = true

    init(environment: [String: String] = ProcessInfo.processInfo.environment) {
        if let megabytes = environment["GRIOT_STORYTELLER_DRAWING_MB"].flatMap(Int.init), megabytes > 0 { drawingBytes = megabytes * 1024 * 1024 }
        if environment["GRIOT_STORYTELLER_SEND_CHILD_NAME"] == "0" { sendsChildName = false }
    }
}
