import Testing
@testable import GriotImages
