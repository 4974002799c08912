import Testing
@testable import GriotStoryteller
