import ArgumentParser
import Foundation
import GriotAuth

/// `griot token`: signs a bearer token with the HS256 secret the service uses (GRIOT_JWT_SECRET,
/// or the development secret with GRIOT_AUTH_MODE=development), for local use, scripts and
/// operators. Services with only a JWKS get tokens from their identity provider.
struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print a bearer token signed with the service's HS256 secret.",
        discussion: "Example: GRIOT_AUTH_MODE=development griot token --user ruth --role client --families fam-okafor")

    @Option(name: .long, help: "The user id (the sub claim).")
    var user: String

    @Option(name: .long, help: "client, coach, admin or operator.")
    var role: String = "client"

    @Option(name: .long, parsing: .upToNextOption, help: "Family group ids (family_group_ids).")
    var families: [String] = []

    @Option(name: .long, parsing: .upToNextOption, help: "Course ids (course_ids) the user may use; none when left out (admins may use any course).")
    var courses: [String] = []

    @Option(name: .long, help: "Hours until the token expires (at most the server's GRIOT_JWT_MAX_LIFETIME_SECONDS, 24 h by default).")
    var hours: Double = 24

    func validate() throws {
        guard CallerRole(rawValue: role) != nil else {
            throw ValidationError("--role must be one of \(CallerRole.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard hours > 0, hours <= 24 * 30 else { throw ValidationError("--hours must be above 0 and at most 720 (30 days, the longest GRIOT_JWT_MAX_LIFETIME_SECONDS allows), e.g. 24") }
    }

    func run() async throws {
        let auth = try AuthConfiguration(environment: ProcessInfo.processInfo.environment)
        let verifier = try await TokenVerifier.make(auth)
        let token = try await verifier.mintDevelopmentToken(
            userID: user, role: CallerRole(rawValue: role)!, familyGroupIDs: families, courseIDs: courses.isEmpty ? nil : courses,
            expiresIn: hours * 3600)
        print(token)
    }
}
