import Crypto
import Foundation

/// Drawings' bytes on disk, named by their SHA-256: `folder/ab/cd/<hash>` and its thumbnail
/// `folder/ab/cd/<hash>.thumb.jpg`. The same drawing uploaded twice is stored once.
///
/// ```swift
/// let blobs = DrawingBlobStore(folder: dataFolder.appending(path: "drawings"))
/// let hash = try blobs.put(stripped.data)               // the record's contentHash
/// try blobs.putThumbnail(hash, thumbnail)
/// ```
public struct DrawingBlobStore: Sendable {
    public let folder: URL

    public init(folder: URL) {
        self.folder = folder
    }

    /// Stores `data` and returns its SHA-256 in lower-case hex; storing it again changes nothing.
    @discardableResult
    public func put(_ data: Data) throws -> String {
        let hash = SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
        let file = try path(hash, suffix: "")
        if !FileManager.default.fileExists(atPath: file.path) { try write(data, to: file) }
        return hash
    }

    /// The stored bytes, or nil when no drawing has this hash (or the hash is not a SHA-256 hex).
    public func data(_ hash: String) -> Data? {
        guard let file = try? path(hash, suffix: "") else { return nil }
        return try? Data(contentsOf: file)
    }

    /// Whether the drawing's file is there (without reading it).
    public func contains(_ hash: String) -> Bool {
        guard let file = try? path(hash, suffix: "") else { return false }
        return FileManager.default.fileExists(atPath: file.path)
    }

    public func thumbnail(_ hash: String) -> Data? {
        guard let file = try? path(hash, suffix: Self.thumbnailSuffix) else { return nil }
        return try? Data(contentsOf: file)
    }

    public func putThumbnail(_ hash: String, _ data: Data) throws {
        try write(data, to: path(hash, suffix: Self.thumbnailSuffix))
    }

    /// A copy of the drawing made for one use (`model`: the copy a vision model is shown), kept
    /// beside it as `<hash>.<name>.jpg`; nil until `putVariant` stored one.
    public func variant(_ hash: String, name: String) -> Data? {
        guard Self.variants.contains(name), let file = try? path(hash, suffix: ".\(name).jpg") else { return nil }
        return try? Data(contentsOf: file)
    }

    public func putVariant(_ hash: String, name: String, _ data: Data) throws {
        guard Self.variants.contains(name) else { throw BlobStoreError("\"\(name)\" is not a kind of copy of a drawing; the kinds are \(Self.variants.sorted()).") }
        try write(data, to: path(hash, suffix: ".\(name).jpg"))
    }

    /// The copies a drawing may have besides its thumbnail (a fixed list, so `remove` finds them all).
    static let variants: Set<String> = ["model"]

    /// Removes the drawing, its thumbnail and its copies; removing what is not there is not an
    /// error. Content is shared: call it when no record names the hash any more.
    public func remove(_ hash: String) throws {
        for suffix in ["", Self.thumbnailSuffix] + Self.variants.sorted().map({ ".\($0).jpg" }) {
            let file = try path(hash, suffix: suffix)
            if unlink(file.path) != 0, errno != ENOENT {
                throw BlobStoreError("The drawing file \(file.lastPathComponent) could not be removed: \(String(cString: strerror(errno))).")
            }
        }
    }

    /// 64 lower-case hex digits: the only names this store builds paths from.
    public static func isValidHash(_ hash: String) -> Bool {
        hash.utf8.count == 64 && hash.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    static let thumbnailSuffix = ".thumb.jpg"

    func path(_ hash: String, suffix: String) throws -> URL {
        guard Self.isValidHash(hash) else {
            throw BlobStoreError("\"\(hash.prefix(80))\" is not a drawing's content hash (64 lower-case hex digits).")
        }
        let utf8 = Array(hash.utf8)
        return folder
            .appendingPathComponent(String(decoding: utf8[0..<2], as: UTF8.self), isDirectory: true)
            .appendingPathComponent(String(decoding: utf8[2..<4], as: UTF8.self), isDirectory: true)
            .appendingPathComponent(hash + suffix, isDirectory: false)
    }

    /// Writes to a temporary file beside `file`, flushes it, then renames it into place, so a
    /// reader sees the whole file or none; drawings of children are readable by this user only.
    private func write(_ data: Data, to file: URL) throws {
        let directory = file.deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let temporary = directory.appendingPathComponent(".\(file.lastPathComponent).\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw failure("create", temporary) }
        var written = 0
        let wrote = data.withUnsafeBytes { bytes -> Bool in
            while written < bytes.count {
                let count = Glibc.write(descriptor, bytes.baseAddress! + written, bytes.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return true
        }
        guard wrote, fsync(descriptor) == 0 else {
            let error = failure("write", temporary)
            close(descriptor)
            unlink(temporary)
            throw error
        }
        close(descriptor)
        guard rename(temporary, file.path) == 0 else {
            let error = failure("rename", temporary)
            unlink(temporary)
            throw error
        }
    }

    private func failure(_ action: String, _ path: String) -> BlobStoreError {
        BlobStoreError("Could not \(action) \(path) in the drawings folder: \(String(cString: strerror(errno))); "
            + "check that the data folder exists, is writable by the service and has free space.")
    }
}

/// A drawing could not be stored, read or removed.
public struct BlobStoreError: Error, CustomStringConvertible, Sendable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
