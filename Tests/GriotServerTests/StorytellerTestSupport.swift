import Foundation
import GriotArchive
import GriotChat
import GriotImages
import GriotPrompts
import GriotProviders
import GriotServer
import GriotTestSupport
import HTTPTypes
import NIOCore

/// A service whose engine knows the storyteller, its drawings in a fresh temporary folder, and its
/// model the one `environment`'s `GRIOT_STORYTELLER_*` names (none: the offline sample storyteller).
struct StorytellerTestService {
    let service: TestService
    let drawings: URL

    init(environment: [String: String] = [:], retry: RetryPolicy = RetryPolicy(maximumAttempts: 2, baseDelay: 0.01, maximumDelay: 0.02)) async throws {
        let storage = try await TestDatabase.storage()
        drawings = FileManager.default.temporaryDirectory.appendingPathComponent("griot-drawings-\(UUID().uuidString)", isDirectory: true)
        let storyteller = try await StorytellerSetup.declaration(chats: storage.chats, drawings: drawings, environment: environment, retry: retry)
        let engine = ChatEngine(archive: StoryArchive(storage: storage), chats: storage.chats,
                                prompts: try PromptRegistry.load(folder: packageRoot.appendingPathComponent("prompts")),
                                provider: ExtractiveResponder(), counters: .bytePair, assistants: AssistantCatalog.builtIn.adding(storyteller))
        service = try await TestService(engine: engine)
    }

    /// The environment that points the storyteller at a stub model server.
    static func model(_ baseURL: String) -> [String: String] {
        ["GRIOT_STORYTELLER_BASE_URL": baseURL, "GRIOT_STORYTELLER_API_KEY": "test-key", "GRIOT_STORYTELLER_MODEL": "stub-vision"]
    }

    /// Removes the drawings folder (a test's `defer`).
    func removeDrawings() {
        try? FileManager.default.removeItem(at: drawings)
    }

    /// Every file under the drawings folder, with its bytes.
    func storedFiles() -> [(path: String, data: Data)] {
        guard let walker = FileManager.default.enumerator(at: drawings, includingPropertiesForKeys: [.isRegularFileKey]) else { return [] }
        return walker.compactMap { item in
            guard let url = item as? URL, (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  let data = try? Data(contentsOf: url) else { return nil }
            return (url.path, data)
        }
    }
}

/// Replies a test scripts after the stub has started (the drawings' ids are known only then).
final class ScriptedReplies: @unchecked Sendable {
    private let lock = NSLock()
    private var replies: [StubReply] = []
    private var fallback: StubReply = .error(status: 500, message: "no reply scripted")

    func set(_ replies: [StubReply], then fallback: StubReply? = nil) {
        lock.withLock {
            self.replies = replies
            if let fallback { self.fallback = fallback }
        }
    }

    /// The next scripted reply, or the fallback once they are used up.
    func next() -> StubReply {
        lock.withLock { replies.isEmpty ? fallback : replies.removeFirst() }
    }
}

/// Drawings made in the test: a small PNG, the JPEG the image module makes of it, and that JPEG
/// with a phone's EXIF segment (camera make and a GPS IFD) inserted after its start marker.
enum TestDrawings {
    /// Bytes that appear only inside the GPS IFD (its map datum), to look for in stored files.
    static let gpsMarker = "GPS-PARIS-48.8584N"

    /// An RGB PNG, `width`×`height`, left half of `left`, right half of `right` (stored deflate).
    static func png(width: Int = 64, height: Int = 48, left: [UInt8] = [220, 30, 30], right: [UInt8] = [30, 30, 220]) -> Data {
        TestPNG.make(width: width, height: height, left: left, right: right)
    }

    /// A JPEG of the PNG picture, with no metadata.
    static func jpeg(width: Int = 64, height: Int = 48) throws -> Data {
        try DrawingImage.thumbnail(png(width: width, height: height), maxSide: max(width, height))
    }

    /// `jpeg` with an APP1 Exif segment after SOI: IFD0 naming the camera and pointing to a GPS IFD
    /// with a latitude, its reference and `gpsMarker` as the map datum.
    static func jpegWithGPS(width: Int = 64, height: Int = 48) throws -> Data {
        let plain = try jpeg(width: width, height: height)
        // TIFF, big-endian. IFD0 at 8: 2 entries (Make, GPS pointer); GPS IFD after it: 3 entries.
        var tiff: [UInt8] = Array("MM".utf8) + [0x00, 0x2A] + be32(8)
        let make = Array("GriotPhone\0".utf8)
        let ifd0Size = 2 + 2 * 12 + 4
        let makeOffset = 8 + ifd0Size
        let gpsOffset = makeOffset + make.count + (make.count % 2)
        tiff += be16(2)
        tiff += be16(0x010F) + be16(2) + be32(make.count) + be32(makeOffset)
        tiff += be16(0x8825) + be16(4) + be32(1) + be32(gpsOffset)
        tiff += be32(0)
        tiff += make + (make.count % 2 == 1 ? [0] : [])
        let datum = Array((gpsMarker + "\0").utf8)
        let gpsSize = 2 + 3 * 12 + 4
        let latitudeOffset = gpsOffset + gpsSize
        let datumOffset = latitudeOffset + 24
        tiff += be16(3)
        tiff += be16(0x0001) + be16(2) + be32(2) + Array("N\0".utf8) + [0, 0]
        tiff += be16(0x0002) + be16(5) + be32(3) + be32(latitudeOffset)
        tiff += be16(0x0012) + be16(2) + be32(datum.count) + be32(datumOffset)
        tiff += be32(0)
        tiff += be32(48) + be32(1) + be32(51) + be32(1) + be32(3024) + be32(100)
        tiff += datum
        let payload = Array("Exif\0\0".utf8) + tiff
        let segment: [UInt8] = [0xFF, 0xE1] + be16(payload.count + 2) + payload
        var bytes = [UInt8](plain)
        bytes.insert(contentsOf: segment, at: 2)
        return Data(bytes)
    }

    /// The start of an iPhone's HEIC file: an ISO BMFF `ftyp` box of brand heic.
    static let heic = Data([0x00, 0x00, 0x00, 0x18] + Array("ftypheic".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8) + [UInt8](repeating: 0, count: 64))

    static func be16(_ value: Int) -> [UInt8] { [UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
    static func be32(_ value: Int) -> [UInt8] { [UInt8((value >> 24) & 0xFF), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)] }
}

extension Data {
    /// Whether `needle`'s bytes occur anywhere in these.
    func holds(_ needle: String) -> Bool { range(of: Data(needle.utf8)) != nil }
}

/// A multipart/form-data body: text fields, then one file part named `image`.
func multipartBody(fields: [(String, String)], image: Data, filename: String, boundary: String = "griot-test-\(UUID().uuidString)") -> (body: ByteBuffer, contentType: String) {
    var data = Data()
    for (name, value) in fields {
        data += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n".utf8)
    }
    data += Data("--\(boundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"\(filename)\"\r\nContent-Type: image/jpeg\r\n\r\n".utf8)
    data += image
    data += Data("\r\n--\(boundary)--\r\n".utf8)
    return (ByteBuffer(data: data), "multipart/form-data; boundary=\(boundary)")
}
