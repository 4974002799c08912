import Foundation
import GriotAuth
import Testing

/// The default rights of each role, which the HTTP layer turns into 403s.
@Suite struct CallerRoleTests {
    @Test func rightsByRole() {
        let rights = CallerRole.allCases.map { ($0, $0.mayExportConversations, $0.mayAdminister, $0.mayOperate) }
        let expected: [(CallerRole, Bool, Bool, Bool)] = [
            (.client, false, false, false), (.coach, true, false, false), (.admin, true, true, true), (.operator, false, false, true),
        ]
        #expect(rights.elementsEqual(expected) { $0 == $1 })
    }

    @Test func aCallerHasOneOfTheRolesAsked() {
        let coach = Caller(userID: "u", role: .coach, familyGroupIDs: ["carter"], expiresAt: .distantFuture)
        #expect(coach.has(role: .coach))
        #expect(coach.has(role: .admin, .coach))
        #expect(!coach.has(role: .admin, .operator))
        #expect(coach.belongs(toFamily: "carter"))
        #expect(!coach.belongs(toFamily: "okafor"))
    }
}
