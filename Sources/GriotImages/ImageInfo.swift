/// The two formats a drawing is stored in.
public enum ImageFormat: String, Sendable, Hashable, Codable {
    case png
    case jpeg

    public var mediaType: String {
        switch self {
        case .png: "image/png"
        case .jpeg: "image/jpeg"
        }
    }
}

/// What `DrawingImage.inspect` read from a drawing's header.
public struct ImageInfo: Sendable, Hashable {
    public let format: ImageFormat
    /// Pixel columns and rows as stored (before any EXIF orientation is applied).
    public let width: Int
    public let height: Int
    /// The EXIF Orientation the file carried (`.up` when it had none); stripping removes it.
    public let orientation: ImageOrientation

    public var mediaType: String { format.mediaType }

    public init(format: ImageFormat, width: Int, height: Int, orientation: ImageOrientation = .up) {
        self.format = format
        self.width = width
        self.height = height
        self.orientation = orientation
    }
}
