extension ImageOrientation {
    /// Stands packed RGB pixels upright: the picture a viewer honouring the EXIF tag would show.
    func upright(_ pixels: [UInt8], width: Int, height: Int) -> (pixels: [UInt8], width: Int, height: Int) {
        guard self != .up else { return (pixels, width, height) }
        let (outWidth, outHeight) = swapsSides ? (height, width) : (width, height)
        var result = [UInt8](repeating: 0, count: pixels.count)
        for y in 0..<outHeight {
            for x in 0..<outWidth {
                // The stored pixel that lands at (x, y) once upright.
                let (sourceX, sourceY): (Int, Int) = switch self {
                case .up: (x, y)
                case .upMirrored: (width - 1 - x, y)
                case .down: (width - 1 - x, height - 1 - y)
                case .downMirrored: (x, height - 1 - y)
                case .leftMirrored: (y, x)
                case .right: (y, height - 1 - x)
                case .rightMirrored: (width - 1 - y, height - 1 - x)
                case .left: (width - 1 - y, x)
                }
                let target = (y * outWidth + x) * 3, source = (sourceY * width + sourceX) * 3
                result[target] = pixels[source]
                result[target + 1] = pixels[source + 1]
                result[target + 2] = pixels[source + 2]
            }
        }
        return (result, outWidth, outHeight)
    }
}
