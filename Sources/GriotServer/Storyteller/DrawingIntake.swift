import Foundation
import GriotImages
import GriotStore

/// What an uploaded drawing becomes before anything is stored, and the storing of it: the one
/// path the upload route (and the storyteller benchmark) takes.
///
/// 1. its format read from its bytes (PNG or JPEG; anything else refused with what to send);
/// 2. its metadata stripped (EXIF, GPS, XMP, comments, text chunks);
/// 3. turned upright when its EXIF said it was taken sideways (re-encoded at full size);
/// 4. its thumbnail and the copy a vision model is shown (`modelSide` pixels a side) made now,
///    so that telling a story reads copies that are already there.
///
/// ```swift
/// let drawing = try DrawingIntake.prepare(upload.bytes)      // throws ImageError
/// let hash = try drawing.store(in: blobs)
/// ```
public struct DrawingIntake: Sendable {
    public var data: Data
    public var mediaType: String
    public var width: Int
    public var height: Int
    public var thumbnail: Data
    public var modelCopy: Data

    public static let thumbnailSide = 320
    /// The longest side of the copy of a drawing a vision model is shown.
    public static let modelSide = 1_024

    public static func prepare(_ bytes: Data) throws(ImageError) -> DrawingIntake {
        let info = try DrawingImage.inspect(bytes)
        var stripped = try DrawingImage.strip(bytes)
        var mediaType = info.mediaType
        if stripped.orientation != .up {
            stripped = StrippedImage(data: try DrawingImage.thumbnail(stripped.data, maxSide: max(info.width, info.height),
                                                                      orientation: stripped.orientation, quality: 92), orientation: .up)
            mediaType = "image/jpeg"
        }
        let thumbnail = try DrawingImage.thumbnail(stripped.data, maxSide: thumbnailSide)
        let modelCopy = try DrawingImage.thumbnail(stripped.data, maxSide: modelSide)
        return DrawingIntake(data: stripped.data, mediaType: mediaType, width: info.orientation.swapsSides ? info.height : info.width,
                             height: info.orientation.swapsSides ? info.width : info.height, thumbnail: thumbnail, modelCopy: modelCopy)
    }

    /// Writes the drawing, its thumbnail and its model copy; returns its content hash.
    @discardableResult
    public func store(in blobs: DrawingBlobStore) throws -> String {
        let hash = try blobs.put(data)
        try blobs.putThumbnail(hash, thumbnail)
        try blobs.putVariant(hash, name: "model", modelCopy)
        return hash
    }

    /// The record of the drawing, once stored under `hash`.
    public func record(hash: String, parentID: String, childID: String, filename: String?, caption: String?) -> DrawingRecord {
        DrawingRecord(parentID: parentID, childID: childID, contentHash: hash, mediaType: mediaType, byteCount: data.count,
                      width: width, height: height, filename: filename, caption: caption)
    }
}
