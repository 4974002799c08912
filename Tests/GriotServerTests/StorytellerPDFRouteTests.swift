import Foundation
import GriotServer
import GriotTestSupport
import HTTPTypes
import HummingbirdTesting
import Testing

/// Issue 39, item 5 over HTTP: `GET /api/storyteller/stories/{id}/pdf` gives the story's parent a
/// PDF of it, each drawing after the paragraph the story placed it after, the drawings' stored
/// bytes embedded; to anyone else the story does not exist.
@Suite struct StorytellerPDFRouteTests {
    typealias Client = any TestClientProtocol

    func upload(_ client: Client, _ headers: HTTPFields, child: String, image: Data, caption: String) async throws -> String {
        let response = try await live(client, .POST, "/api/storyteller/drawings", headers: headers,
                                      body: body(["child_id": child, "image_base64": image.base64EncodedString(), "caption": caption]))
        #expect(response.status == 201, "\(response.text)")
        return try #require(object(response.text)["id"] as? String)
    }

    @Test func theParentGetsTheStoryAsAPDFWithItsDrawingsInPlaceAndAnotherParentGets404() async throws {
        let setup = try await StorytellerTestService()
        let service = setup.service
        let parent = try await service.headers("u-parent-pdf")
        let stranger = try await service.headers("u-parent-pdf-stranger")
        try await service.test(.live) { client in
            let added = try await live(client, .POST, "/api/storyteller/children", headers: parent, body: body(["name": "Zofia Łukasiewicz", "age": 6]))
            let child = try #require(object(added.text)["id"] as? String)
            let sun = try await upload(client, parent, child: child, image: TestDrawings.png(), caption: "李秀英's red and blue sun")
            let boat = try await upload(client, parent, child: child, image: try TestDrawings.jpeg(width: 72, height: 40), caption: "قارب فاطمة")
            let told = try await live(client, .POST, "/api/storyteller/stories", headers: parent, body: body(["child_id": child, "drawing_ids": [sun, boat]]))
            #expect(told.status == 200, "\(told.text)")
            let storyID = try #require(object(told.text)["id"] as? String)
            let story = object(try await live(client, .GET, "/api/storyteller/stories/\(storyID)", headers: parent).text)
            let text = try #require(story["story_text"] as? String)
            let placements = (story["image_placements"] as? [[String: Any]] ?? []).map { ($0["drawing_id"] as? String ?? "", $0["after_paragraph"] as? Int ?? 0) }
            #expect(Set(placements.map(\.0)) == [sun, boat], "the sample story places both drawings: \(placements)")

            let pdf = try await live(client, .GET, "/api/storyteller/stories/\(storyID)/pdf", headers: parent)
            #expect(pdf.status == 200, "\(pdf.text)")
            #expect(pdf.headers["content-type"] == "application/pdf")
            #expect(pdf.headers["content-disposition"] == "attachment; filename=\"story-\(storyID).pdf\"")
            #expect(pdf.headers["cache-control"] == "no-store")
            #expect(pdf.data.prefix(5) == Data("%PDF-".utf8))

            // Every paragraph in order (each known by how it starts: pdftotext reorders the
            // right-to-left name inside a line), and each caption on its own line after the
            // paragraph the drawing was placed after, before the next one.
            let (read, errors) = try Poppler.text(of: pdf.data)
            #expect(errors.isEmpty, "poppler complained: \(errors)")
            let lines = read.split(whereSeparator: \.isNewline).map { comparable(String($0)) }.filter { !$0.isEmpty }
            let starts = text.components(separatedBy: "\n\n").map(comparable).filter { !$0.isEmpty }.map { String($0.prefix(10)) }
            let paragraphLines = starts.map { start in lines.firstIndex { $0.hasPrefix(start) } }
            #expect(paragraphLines.allSatisfy { $0 != nil } && paragraphLines.compactMap { $0 } == paragraphLines.compactMap { $0 }.sorted(),
                    "the paragraphs \(starts) in order; pdftotext gave:\n\(read)")
            let captions = [sun: "李秀英'sredandbluesun", boat: comparable("قارب فاطمة")]
            for (id, after) in placements {
                let caption = try #require(captions[id])
                let line = try #require(lines.firstIndex(of: caption), "the caption \(caption) on its own line; pdftotext gave:\n\(read)")
                let paragraph = try #require(paragraphLines[after - 1])
                let next = after < paragraphLines.count ? paragraphLines[after] ?? lines.count : lines.count
                #expect(paragraph < line && line < next, "\(caption) after paragraph \(after); pdftotext gave:\n\(read)")
            }
            let flat = comparable(read)
            #expect(flat.contains("Zofia"))

            // Both drawings embedded; the JPEG as the very bytes the service stored.
            #expect(String(decoding: pdf.data, as: Unicode.ASCII.self).components(separatedBy: "/Subtype /Image").count - 1 == 2)
            let stored = try await live(client, .GET, "/api/storyteller/drawings/\(boat)/image", headers: parent)
            #expect(stored.status == 200 && stored.data.prefix(2) == Data([0xFF, 0xD8]))
            #expect(pdf.data.range(of: stored.data) != nil, "the stored JPEG is in the PDF byte for byte")

            let refused = try await live(client, .GET, "/api/storyteller/stories/\(storyID)/pdf", headers: stranger)
            #expect(refused.status == 404, "another parent's story is not there for them")
            #expect(!refused.data.starts(with: Data("%PDF".utf8)))
            #expect(try await live(client, .GET, "/api/storyteller/stories/\(storyID)/pdf").status == 401)
            #expect(try await live(client, .GET, "/api/storyteller/stories/no-such-story/pdf", headers: parent).status == 404)
        }
    }

    /// Text as compared: whitespace and the bidirectional marks pdftotext adds removed.
    func comparable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter {
            !$0.properties.isWhitespace && !(0x202A...0x202E).contains($0.value) && !(0x2066...0x2069).contains($0.value)
        }))
    }
}
