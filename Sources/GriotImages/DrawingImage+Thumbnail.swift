import Foundation

extension DrawingImage {
    /// A JPEG whose longer side is at most `maxSide` pixels (never enlarged), the aspect kept,
    /// turned upright by `orientation` (from `strip`, since stored bytes no longer carry it),
    /// transparency on white.
    public static func thumbnail(_ data: Data, maxSide: Int, orientation: ImageOrientation = .up,
                                 quality: Int = 80) throws(ImageError) -> Data {
        precondition(maxSide >= 1, "a thumbnail needs at least one pixel a side")
        let info = try inspect(data)
        let shrunk = try data.withImageBytes { bytes throws(ImageError) -> BoxDownscaler in
            let decoder: any RowDecoder = switch info.format {
            case .jpeg: try JPEGRowDecoder(bytes, targetSide: maxSide)
            case .png: try PNGRowDecoder(bytes)
            }
            let (width, height) = fitted(width: info.width, height: info.height, maxSide: maxSide)
            var scaler = BoxDownscaler(sourceWidth: decoder.width, sourceHeight: decoder.height,
                                       width: min(width, decoder.width), height: min(height, decoder.height))
            let row = UnsafeMutablePointer<UInt8>.allocate(capacity: decoder.width * 3)
            defer { row.deallocate() }
            for _ in 0..<decoder.height {
                try decoder.readRow(into: row)
                scaler.add(row: row)
            }
            return scaler
        }
        let upright = orientation.upright(shrunk.pixels, width: shrunk.width, height: shrunk.height)
        return try JPEGEncoder.encode(rgb: upright.pixels, width: upright.width, height: upright.height, quality: quality)
    }

    /// The size with the longer side at `maxSide` (or unchanged when already smaller), rounded, at least 1.
    static func fitted(width: Int, height: Int, maxSide: Int) -> (width: Int, height: Int) {
        let longer = max(width, height)
        guard longer > maxSide else { return (width, height) }
        func scaled(_ side: Int) -> Int { max(1, (side * maxSide * 2 + longer) / (longer * 2)) }
        return (scaled(width), scaled(height))
    }
}
