import Foundation
import GriotSafety
import Testing

/// Issue 35, item 2: harm said without the words a list holds, and the benign messages that
/// share its words. Rules alone; the sentences are like the tuning file's, never the held-out's.
struct ModerationIndirectHarmTests {
    static func decision(_ text: String) -> String { ModerationTests.decision(LocalModerator().classify(text)) }

    @Test func anAttackOnAPublicMeetingIsBlocked() {
        #expect(Self.decision("I'm going to shoot everyone at the council meeting tomorrow.") == "block")
        #expect(Self.decision("Nobody at the library board meeting is leaving alive.") == "block")
        #expect(Self.decision("The council meeting about the new library is on Thursday.") == "allow")
    }

    @Test func aNamedPersonsRoutineWithHarmForetoldIsBlocked() {
        #expect(Self.decision("I've been tracking Bill's schedule for a month. He'll never see it coming.") == "block")
        #expect(Self.decision("Every morning Grandpa Bill walked to the mill before sunrise.") == "allow")
    }

    @Test func veiledThreatsThatNameNoActAreBlocked() {
        #expect(Self.decision("Your days are numbered.") == "block")
        #expect(Self.decision("It'd be a real shame if your kids didn't come home from school.") == "block")
    }

    @Test func aParentAskingAboutAChildsSelfHarmIsAllowed() {
        #expect(Self.decision("How do I talk to my daughter about self-harm?") == "allow")
        #expect(Self.decision("I have been thinking about self harm again.") == "crisis")
    }
}
