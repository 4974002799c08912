import Foundation
import GriotServer
import GriotTestSupport
import HummingbirdTesting
import Testing

/// A parent's erasure (`DELETE /api/users/{id}`) removes their storyteller rows and the files of
/// their drawings, but not a file another parent's drawing still names (the same picture,
/// uploaded by both, is one file).
@Suite struct StorytellerErasureTests {
    @Test func erasureRemovesTheParentsDrawingFilesButNotOnesOthersStillUse() async throws {
        let setup = try await StorytellerTestService()
        defer { setup.removeDrawings() }
        let service = setup.service
        let leaving = try await service.headers("u-parent-leaving")
        let staying = try await service.headers("u-parent-staying")
        let routes = StorytellerRouteTests()
        let own = TestDrawings.png(width: 40, height: 30, left: [10, 200, 10], right: [200, 200, 10])
        let shared = TestDrawings.png(width: 40, height: 30)
        try await service.test(.live) { client in
            let child = try await routes.addChild(client, leaving, name: "Zofia Łukasiewicz")
            #expect(try await routes.upload(client, leaving, child: child, image: own, caption: "a green field").status == 201)
            #expect(try await routes.upload(client, leaving, child: child, image: shared, caption: "李秀英's sun").status == 201)
            let other = try await routes.addChild(client, staying, name: "Ama")
            let kept = try await routes.upload(client, staying, child: other, image: shared, caption: "the same sun")
            #expect(kept.status == 201)
            let keptID = try #require(object(kept.text)["id"] as? String)
            let before = setup.storedFiles()
            #expect(before.count == 6, "two pictures, each with a thumbnail and a model copy: \(before.map(\.path))")

            let erased = try await live(client, .DELETE, "/api/users/u-parent-leaving", headers: leaving)
            #expect(erased.status == 200, "\(erased.text)")
            // Only the shared picture's files are left, and the other parent still reads it.
            let after = setup.storedFiles()
            #expect(after.count == 3, "\(after.map(\.path))")
            #expect(Set(after.map(\.path)).isSubset(of: Set(before.map(\.path))))
            let image = try await live(client, .GET, "/api/storyteller/drawings/\(keptID)/image", headers: staying)
            #expect(image.status == 200)
            #expect(try await live(client, .GET, "/api/storyteller/children", headers: leaving).text.contains("Zofia") == false)
        }
    }
}
