import Foundation
import GriotChat
import GriotImages
import GriotSafety
import GriotStore
import GriotStoryteller

/// The storyteller's retrieval: what one chapter is told from, read for the signed-in parent only.
/// The child (first name only, unless the service is set not to send it), the chapter's drawings
/// (their captions with personal details masked, and each picture as a model copy: at most
/// `modelSide` pixels a side, re-encoded as JPEG, so ten 2 MB photos are sent as about 1 MB in
/// all), and the story's earlier chapters, summarised when they no longer fit `chapterTokens`.
///
/// A turn that no storyteller route started (`/v1` or `griot ask`) has no drawings: it is told
/// from the message alone.
///
/// ```swift
/// let source = DrawingPassageSource(chats: storage.chats, blobs: DrawingBlobStore(folder: drawings), counters: .bytePair)
/// let catalog = AssistantCatalog.builtIn.adding(Storyteller.declaration(source: source))
/// ```
struct DrawingPassageSource: PassageSource {
    let chats: any ChatStore
    let blobs: DrawingBlobStore
    let counters: TokenCounters
    let scrubber: PIIScrubber?
    /// The earlier chapters' share of the budget, in tokens (the prompt leaves about 4,000 of its
    /// 9,000 once the reply, the instructions and ten drawings are counted).
    var chapterTokens = 4_000

    init(chats: any ChatStore, blobs: DrawingBlobStore, counters: TokenCounters, scrubber: PIIScrubber? = try? PIIScrubber()) {
        self.chats = chats
        self.blobs = blobs
        self.counters = counters
        self.scrubber = scrubber
    }

    func passages(for request: TurnRequest) async throws -> SourcedContext {
        guard let input = StorytellerInput(request.assistantInput), let store = chats as? any StorytellerStore,
              let parentID = request.viewer.userID else {
            return StoryPassages.context(child: .init(name: nil, theme: nil), drawings: [], chapters: [], images: [])
        }
        let child = try await store.child(id: input.childID, parentID: parentID)
        let records = try await store.drawings(ids: input.drawingIDs, parentID: parentID)
        var drawings: [StoryDrawing] = []
        var images: [String] = []
        for record in records {
            // A drawing whose file this node cannot read is left out whole, so that the images and
            // the drawings' passages stay in step (the story is told from the others).
            guard let copy = try modelCopy(of: record) else { continue }
            drawings.append(StoryDrawing(id: record.id, caption: record.caption.map(masked), filename: record.filename.map(masked)))
            images.append("data:image/jpeg;base64," + copy.base64EncodedString())
        }
        let earlier = try await store.chapters(storyID: input.storyID, parentID: parentID)
        let counter = try counters.counter(for: nil)
        let chapters = ChapterSummary.fit(earlier.map { (number: $0.number, text: $0.text) }, tokens: chapterTokens, counter: counter)
        return StoryPassages.context(child: .init(name: input.childName, age: child?.age ?? input.childAge, theme: input.theme),
                                     drawings: drawings, chapters: chapters, images: images)
    }

    /// A caption or file name with phone numbers, emails, addresses and the like masked: only the
    /// child's first name is meant to reach the model.
    func masked(_ text: String) -> String {
        scrubber?.scrub(text).text ?? text
    }

    /// The copy of a drawing the model is shown: made at upload (`DrawingIntake`), else now (a
    /// drawing stored before copies were made at upload) and kept beside the drawing.
    func modelCopy(of drawing: DrawingRecord) throws -> Data? {
        if let kept = blobs.variant(drawing.contentHash, name: "model") { return kept }
        guard let original = blobs.data(drawing.contentHash) else { return nil }
        let copy = try DrawingImage.thumbnail(original, maxSide: DrawingIntake.modelSide)
        try? blobs.putVariant(drawing.contentHash, name: "model", copy)
        return copy
    }
}
