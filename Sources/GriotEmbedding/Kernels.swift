/// The element-wise parts of the encoder, written as plain loops over raw pointers so that
/// the compiler vectorises them (this target is built for AVX2; see Package.swift).
/// Reductions keep eight partial sums, because floating-point addition is not reassociated
/// by the optimiser on its own.
enum Kernels {
    /// Copies `values` (one row) into every row.
    static func fillRows(_ matrix: UnsafeMutablePointer<Float>, rows: Int, with values: UnsafePointer<Float>, width: Int) {
        for row in 0..<rows { (matrix + row * width).update(from: values, count: width) }
    }

    /// Adds `bias` to every row.
    static func addRows(_ matrix: UnsafeMutablePointer<Float>, rows: Int, bias: UnsafePointer<Float>, width: Int) {
        for row in 0..<rows {
            let line = matrix + row * width
            for column in 0..<width { line[column] += bias[column] }
        }
    }

    static func layerNorm(_ matrix: UnsafeMutablePointer<Float>, rows: Int, width: Int, gamma: UnsafePointer<Float>,
                          beta: UnsafePointer<Float>, epsilon: Float) {
        for row in 0..<rows {
            let line = matrix + row * width
            let mean = sum(line, width) / Float(width)
            var squares = SIMD8<Float>()
            var column = 0
            while column + 8 <= width {
                let centered = load(line + column) - SIMD8(repeating: mean)
                squares += centered * centered
                column += 8
            }
            var variance = squares.sum()
            while column < width {
                variance += (line[column] - mean) * (line[column] - mean)
                column += 1
            }
            let inverse = 1 / (variance / Float(width) + epsilon).squareRoot()
            for column in 0..<width { line[column] = (line[column] - mean) * inverse * gamma[column] + beta[column] }
        }
    }

    static func softmaxRows(_ matrix: UnsafeMutablePointer<Float>, rows: Int, width: Int) {
        for row in 0..<rows {
            let line = matrix + row * width
            let largest = maximum(line, width)
            for column in 0..<width { line[column] = exp(line[column] - largest) }
            let inverse = 1 / sum(line, width)
            for column in 0..<width { line[column] *= inverse }
        }
    }

    /// GELU with the exact error function, as BERT's "gelu" is: x·Φ(x).
    static func gelu(_ values: UnsafeMutablePointer<Float>, count: Int) {
        for index in 0..<count {
            let x = values[index]
            values[index] = 0.5 * x * (1 + erf(x * 0.70710678118654752))
        }
    }

    @inline(__always)
    static func load(_ pointer: UnsafePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    static func load(_ pointer: UnsafeMutablePointer<Float>) -> SIMD8<Float> {
        UnsafeRawPointer(pointer).loadUnaligned(as: SIMD8<Float>.self)
    }

    @inline(__always)
    static func sum(_ values: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
        var partial = SIMD8<Float>()
        var index = 0
        while index + 8 <= count {
            partial += load(values + index)
            index += 8
        }
        var total = partial.sum()
        while index < count {
            total += values[index]
            index += 1
        }
        return total
    }

    @inline(__always)
    static func maximum(_ values: UnsafeMutablePointer<Float>, _ count: Int) -> Float {
        var partial = SIMD8<Float>(repeating: -.infinity)
        var index = 0
        while index + 8 <= count {
            let next = load(values + index)
            partial.replace(with: next, where: next .> partial)
            index += 8
        }
        var largest = partial.max()
        while index < count {
            largest = max(largest, values[index])
            index += 1
        }
        return largest
    }

    /// eˣ to about 6e-6 relative error, as a polynomial for 2^f after range reduction, so the
    /// loop that calls it vectorises (the C library's expf does not).
    @inline(__always)
    static func exp(_ x: Float) -> Float {
        let clamped = min(max(x, -87), 88)
        let t = clamped * 1.442695040888963
        let whole = t.rounded(.down)
        let f = t - whole
        // The integer exponent without a (checked, unvectorisable) Float-to-Int conversion:
        // adding 1.5 * 2^23 puts `whole` in the low mantissa bits.
        let exponent = (whole + 12_582_912).bitPattern &- 0x4B40_0000
        var p: Float = 1.535336188319500e-4
        p = p * f + 1.339887440266574e-3
        p = p * f + 9.618437357674640e-3
        p = p * f + 5.550332471162809e-2
        p = p * f + 2.402264791363012e-1
        p = p * f + 6.931472028550421e-1
        p = p * f + 1.0
        return p * Float(bitPattern: (exponent &+ 127) &<< 23)
    }

    /// The error function to about 1.5e-7 absolute error (Abramowitz and Stegun 7.1.26).
    @inline(__always)
    static func erf(_ x: Float) -> Float {
        let magnitude = abs(x)
        let t = 1 / (1 + 0.3275911 * magnitude)
        var p: Float = 1.061405429
        p = p * t - 1.453152027
        p = p * t + 1.421413741
        p = p * t - 0.284496736
        p = p * t + 0.254829592
        let y = 1 - p * t * exp(-magnitude * magnitude)
        return x < 0 ? -y : y
    }
}
