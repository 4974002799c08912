import Foundation

/// A drawing with its metadata removed, and the one piece of it worth keeping: which way is up.
///
/// A phone stores a portrait photo's pixels sideways and says so in EXIF Orientation; once the
/// EXIF is gone, `orientation` is the only record of it, for `DrawingImage.thumbnail(_:maxSide:orientation:)`.
public struct StrippedImage: Sendable, Hashable {
    public let data: Data
    public let orientation: ImageOrientation

    public init(data: Data, orientation: ImageOrientation) {
        self.data = data
        self.orientation = orientation
    }
}
