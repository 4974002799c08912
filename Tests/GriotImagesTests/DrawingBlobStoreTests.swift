import Crypto
import Foundation
import Testing
@testable import GriotImages

@Suite("GriotImagesTests: blob store")
struct DrawingBlobStoreTests {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("griot-blobs-\(UUID().uuidString)")

    @Test("A drawing is stored under its SHA-256, read back, stored once, and removed with its thumbnail")
    func roundTrip() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = DrawingBlobStore(folder: folder)
        let drawing = TestImages.rgbPNG(width: 10, height: 10)
        let hash = try store.put(drawing)
        #expect(hash == SHA256.hash(data: drawing).map { String(format: "%02x", $0) }.joined())
        let file = folder.appendingPathComponent(String(hash.prefix(2))).appendingPathComponent(String(hash.dropFirst(2).prefix(2)))
            .appendingPathComponent(hash)
        #expect(FileManager.default.fileExists(atPath: file.path))
        let permissions = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(permissions == 0o600)
        #expect(store.data(hash) == drawing)

        #expect(try store.put(drawing) == hash)
        let siblings = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(siblings == [hash], "no temporary files left, one copy")

        #expect(store.thumbnail(hash) == nil)
        try store.putThumbnail(hash, Data("thumb".utf8))
        #expect(store.thumbnail(hash) == Data("thumb".utf8))

        try store.remove(hash)
        #expect(store.data(hash) == nil)
        #expect(store.thumbnail(hash) == nil)
        try store.remove(hash)  // already gone: fine
    }

    @Test("A hash that is not 64 lower-case hex digits never becomes a path")
    func refusesTraversal() throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = DrawingBlobStore(folder: folder.appendingPathComponent("drawings"))
        let outside = folder.appendingPathComponent("secret")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data("parent's secret".utf8).write(to: outside)
        let valid = String(repeating: "ab", count: 32)
        for hash in ["../secret", "../../secret", "ab/../../secret" + String(repeating: "0", count: 49), valid.uppercased(),
                     String(valid.dropLast()), valid + "0", String(valid.dropLast()) + "/", ""] {
            #expect(store.data(hash) == nil, "\(hash)")
            #expect(store.thumbnail(hash) == nil, "\(hash)")
            #expect(throws: BlobStoreError.self) { try store.putThumbnail(hash, Data("x".utf8)) }
            #expect(throws: BlobStoreError.self) { try store.remove(hash) }
        }
        #expect(FileManager.default.fileExists(atPath: outside.path))
        #expect(DrawingBlobStore.isValidHash(valid))
    }
}
