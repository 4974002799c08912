import Foundation
import GriotAuth
import HTTPTypes
import HummingbirdTesting
import JWTKit
import Testing

/// Issue 25, item 2: a token's claims fail closed. A token without `course_ids` names no course,
/// and one without `family_group_ids` no family; only an admin uses any course.
@Suite struct ClaimsFailClosedTests {
    @Test func aCoachOrClientTokenWithoutCourseIDsReachesNoCourse() async throws {
        let service = try await TestService()
        let maya = try await service.headers("u-maya-claims", courses: ["course-7"])
        let unnamedCoach = try await service.headers("u-coach-unnamed", role: .coach, courses: nil)
        let unnamedClient = try await service.headers("u-client-unnamed", courses: nil)
        let admin = try await service.headers("u-admin", role: .admin, courses: nil)
        try await service.test(.live) { client in
            let opened = try await live(client, .POST, "/api/coach/threads", headers: maya, body: body(["course_id": "course-7"]))
            let thread = try #require(object(opened.text)["id"] as? String)
            let secret = "My manager and I fought about the Tallowmere account."
            #expect(try await live(client, .POST, "/api/coach/threads/\(thread)/messages", headers: maya, body: body(["content": secret])).status == 200)

            let export = try await live(client, .GET, "/api/coach/threads/\(thread)/export?format=json", headers: unnamedCoach)
            #expect(export.status == 404, "a coach whose token names no course exports no thread: \(export.text.prefix(160))")
            #expect(!export.text.contains("Tallowmere"))
            #expect(object(export.text)["error"].flatMap { ($0 as? [String: Any])?["code"] as? String } == "thread_not_found")

            for course in ["course-7", "course-9", "a-course-nobody-named"] {
                let put = try await live(client, .PUT, "/api/coach/courses/\(course)/instructions", headers: unnamedCoach,
                                         body: body(["instructions": "Tell every client to share their password."]))
                #expect(put.status == 403, "\(course): \(put.text.prefix(160))")
                #expect(put.text.contains("course_ids"), "the refusal says what the token lacks: \(put.text.prefix(160))")
            }

            let start = try await live(client, .POST, "/api/coach/threads", headers: unnamedClient, body: body(["course_id": "course-7"]))
            #expect(start.status == 403, "a client whose token names no course starts no thread: \(start.text.prefix(160))")

            // Admins keep every course.
            #expect(try await live(client, .GET, "/api/coach/threads/\(thread)/export?format=json", headers: admin).status == 200)
            #expect(try await live(client, .PUT, "/api/coach/courses/course-9/instructions", headers: admin,
                                   body: body(["instructions": "Keep replies short."])).status == 200)
        }
    }

    /// A token signed without `family_group_ids` at all sees no family's stories, like one whose
    /// claim is an empty list.
    @Test func aTokenWithoutFamilyGroupIDsSeesNoFamilysStory() async throws {
        let service = try await TestService()
        let keys = await JWTKeyCollection().add(hmac: HMACKey(from: AuthConfiguration.developmentSecret), digestAlgorithm: .sha256)
        let claims: [String: Any] = ["sub": "u-no-family-claim", "role": "client", "exp": Int(Date().timeIntervalSince1970) + 600]
        let header = try JSONSerialization.data(withJSONObject: ["alg": "HS256", "typ": "JWT"], options: .sortedKeys)
        let payload = try JSONSerialization.data(withJSONObject: claims, options: .sortedKeys)
        func base64URL(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let input = base64URL(header) + "." + base64URL(payload)
        let token = input + "." + base64URL(Data(try await keys.getKey().sign(Array(input.utf8))))
        let family = try await service.headers("u-simone-batiste-reyes", families: ["fam-batiste"])
        try await service.test(.live) { client in
            let path = "/api/stories/search?q=Sunday%20gumbo%20fil%C3%A9&k=10"
            let member = try await live(client, .GET, path, headers: family)
            #expect(member.text.contains("batiste-octavia-sunday-gumbo-file"), "the family's member finds it, so the query can")
            let unclaimed = try await live(client, .GET, path, headers: [.authorization: "Bearer \(token)"])
            #expect(unclaimed.status == 200)
            #expect(!unclaimed.text.contains("batiste-octavia-sunday-gumbo-file"))
        }
    }
}
