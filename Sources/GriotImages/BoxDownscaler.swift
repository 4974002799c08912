/// Shrinks an RGB image fed one row at a time by averaging each output pixel's box of source
/// pixels (an area filter: every source pixel counts once, so fine pencil lines thin out
/// instead of vanishing, as they would by sampling).
struct BoxDownscaler {
    let sourceWidth: Int
    let sourceHeight: Int
    let width: Int
    let height: Int
    /// The finished image, width × height × 3 bytes.
    private(set) var pixels: [UInt8]

    /// Output column of each source column, and how many source columns each output column has.
    private let columnOf: [Int]
    private let columnSpan: [Int]
    private var sums: [UInt64]
    private var sourceRow = 0
    private var outputRow = 0
    private var rowsInBand = 0

    init(sourceWidth: Int, sourceHeight: Int, width: Int, height: Int) {
        precondition(width >= 1 && height >= 1 && width <= sourceWidth && height <= sourceHeight)
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        pixels = [UInt8](repeating: 0, count: width * height * 3)
        var columnOf = [Int](repeating: 0, count: sourceWidth)
        var columnSpan = [Int](repeating: 0, count: width)
        for column in 0..<width {
            for source in (column * sourceWidth / width)..<((column + 1) * sourceWidth / width) {
                columnOf[source] = column
                columnSpan[column] += 1
            }
        }
        self.columnOf = columnOf
        self.columnSpan = columnSpan
        sums = [UInt64](repeating: 0, count: width * 3)
    }

    /// Adds the next source row (sourceWidth × 3 bytes).
    mutating func add(row: UnsafePointer<UInt8>) {
        precondition(sourceRow < sourceHeight, "more rows than the source has")
        sums.withUnsafeMutableBufferPointer { sums in
            columnOf.withUnsafeBufferPointer { columnOf in
                for x in 0..<sourceWidth {
                    let target = columnOf[x] * 3, source = x * 3
                    sums[target] &+= UInt64(row[source])
                    sums[target + 1] &+= UInt64(row[source + 1])
                    sums[target + 2] &+= UInt64(row[source + 2])
                }
            }
        }
        sourceRow += 1
        rowsInBand += 1
        if sourceRow == (outputRow + 1) * sourceHeight / height { finishBand() }
    }

    private mutating func finishBand() {
        let offset = outputRow * width * 3
        let rows = UInt64(rowsInBand)
        pixels.withUnsafeMutableBufferPointer { pixels in
            sums.withUnsafeMutableBufferPointer { sums in
                for column in 0..<width {
                    let area = UInt64(columnSpan[column]) * rows
                    for channel in 0..<3 {
                        let index = column * 3 + channel
                        pixels[offset + index] = UInt8((sums[index] + area / 2) / area)
                        sums[index] = 0
                    }
                }
            }
        }
        outputRow += 1
        rowsInBand = 0
    }
}
