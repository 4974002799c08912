import Foundation
import GriotExport
import GriotStore
import GriotStoryteller
import Hummingbird

/// A story as a PDF for its parent to print or keep: every chapter's paragraphs with each drawing
/// after the paragraph the story placed it after, read through the store scoped by the caller, so
/// another parent's story is 404 like a missing one.
extension StorytellerRoutes {
    func addPDF(to router: RouterGroup<GriotRequestContext>) {
        router.get("stories/:id/pdf", use: storyPDF)
    }

    @Sendable func storyPDF(_ request: Request, context: GriotRequestContext) async throws -> Response {
        let caller = try context.requireCaller()
        let story = try await ownStory(context, caller: caller)
        let store = try store
        let chapters = try await store.chapters(storyID: story.id, parentID: caller.userID)
        let records = try await store.drawings(ids: chapters.flatMap(\.drawingIDs), parentID: caller.userID)
        let drawings = Dictionary(records.map { record in
            // A drawing whose file is gone keeps its place, drawn as its caption in a frame.
            (record.id, StoryExport.Drawing(bytes: blobs.data(record.contentHash) ?? Data(), mediaType: record.mediaType,
                                        caption: StoryDrawing(id: record.id, caption: record.caption, filename: record.filename).label))
        }, uniquingKeysWith: { first, _ in first })
        let export = StoryExport(title: story.theme.map { "A bedtime story: \($0)" } ?? "A bedtime story",
                                 chapters: chapters.map { Self.exportChapter($0, drawings: drawings) })
        var headers = HTTPFields()
        headers[.contentType] = "application/pdf"
        headers[.contentDisposition] = "attachment; filename=\"story-\(story.id).pdf\""
        headers[.cacheControl] = "no-store"
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(data: export.pdf())))
    }

    /// A chapter's paragraphs, each with the drawings placed after it in the chapter's order; a
    /// drawing no longer stored is still shown where it was, as "A drawing" in a frame, and a
    /// placement past the last paragraph goes after the last one: none is dropped.
    static func exportChapter(_ chapter: ChapterRecord, drawings: [String: StoryExport.Drawing]) -> StoryExport.Chapter {
        var texts = StoryText.paragraphs(of: chapter.text)
        if texts.isEmpty, !chapter.placements.isEmpty { texts = [""] }
        let placed = Dictionary(grouping: chapter.placements) { min(max($0.afterParagraph, 1), texts.count) }
        let paragraphs = texts.enumerated().map { index, text in
            StoryExport.Paragraph(text: text, drawings: (placed[index + 1] ?? []).map {
                drawings[$0.drawingID] ?? StoryExport.Drawing(bytes: Data(), mediaType: "", caption: "A drawing")
            })
        }
        return StoryExport.Chapter(number: chapter.number, paragraphs: paragraphs, sample: chapter.sample)
    }
}
