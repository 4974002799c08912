import Foundation

/// OpenBLAS's single-precision matrix multiply, loaded at run time.
///
/// OpenBLAS picks its kernels once, when the library loads, honouring `OPENBLAS_CORETYPE`.
/// Our machine image sets that to "Haswell" (AVX2) for every program, although on its AMD
/// Zen 4 CPUs the AVX-512 "SkylakeX" kernels run our multiplies 1.9x faster (measured: 108
/// vs 207 GFLOP/s, 256x384x1536, one thread). So for this process we choose by the CPU's
/// features, before loading the library with `dlopen`: SkylakeX when the CPU has the
/// AVX-512 subsets those kernels use, else what the environment says. `GRIOT_OPENBLAS_CORETYPE`
/// overrides the choice (e.g. `Haswell`).
///
/// ```swift
/// let blas = try BLAS.shared()
/// blas.multiply(m: 2, n: 2, k: 2, a: a, lda: 2, b: b, ldb: 2, transposeB: true, c: c, ldc: 2)
/// ```
public final class BLAS: Sendable {
    typealias SGEMM = @convention(c) (
        Int32, Int32, Int32, Int32, Int32, Int32, Float,
        UnsafePointer<Float>?, Int32, UnsafePointer<Float>?, Int32, Float, UnsafeMutablePointer<Float>?, Int32
    ) -> Void
    typealias SetThreads = @convention(c) (Int32) -> Void
    typealias CoreName = @convention(c) () -> UnsafePointer<CChar>?

    private let sgemm: SGEMM
    private let setThreads: SetThreads?
    /// The kernel family OpenBLAS chose, e.g. "SkylakeX".
    public let coreName: String

    private static let loaded: Result<BLAS, EmbeddingError> = Result { try BLAS() }.mapError { $0 as? EmbeddingError ?? .blasMissing("\($0)") }

    public static func shared() throws -> BLAS { try loaded.get() }

    private init() throws {
        if let chosen = ProcessInfo.processInfo.environment["GRIOT_OPENBLAS_CORETYPE"], !chosen.isEmpty {
            setenv("OPENBLAS_CORETYPE", chosen, 1)
        } else if CPUFeatures.hasAVX512 {
            setenv("OPENBLAS_CORETYPE", "SkylakeX", 1)
        }
        let names = ["libopenblas.so.0", "libopenblas.so", "/usr/lib/x86_64-linux-gnu/libopenblas.so.0"]
        guard let handle = names.lazy.compactMap({ dlopen($0, RTLD_NOW | RTLD_LOCAL) }).first else {
            throw EmbeddingError.blasMissing(String(cString: dlerror()))
        }
        guard let gemm = dlsym(handle, "cblas_sgemm") else { throw EmbeddingError.blasMissing("cblas_sgemm not found") }
        sgemm = unsafeBitCast(gemm, to: SGEMM.self)
        setThreads = dlsym(handle, "openblas_set_num_threads").map { unsafeBitCast($0, to: SetThreads.self) }
        let corename = dlsym(handle, "openblas_get_corename").map { unsafeBitCast($0, to: CoreName.self) }
        coreName = corename.flatMap { $0() }.map { String(cString: $0) } ?? "unknown"
        setThreads?(1)
    }

    /// How many threads one multiply may use (1 by default: requests run side by side).
    public func setThreadCount(_ count: Int) { setThreads?(Int32(count)) }

    /// C = alpha * A * op(B) + beta * C, row-major; op(B) = Bᵀ when `transposeB`.
    @inline(__always)
    func multiply(m: Int, n: Int, k: Int, alpha: Float = 1, a: UnsafePointer<Float>, lda: Int,
                  b: UnsafePointer<Float>, ldb: Int, transposeB: Bool, beta: Float = 0,
                  c: UnsafeMutablePointer<Float>, ldc: Int) {
        sgemm(101, 111, transposeB ? 112 : 111, Int32(m), Int32(n), Int32(k), alpha, a, Int32(lda), b, Int32(ldb), beta, c, Int32(ldc))
    }
}

enum CPUFeatures {
    /// True on x86 CPUs with the AVX-512 subsets (F, BW, DQ, VL) that OpenBLAS's SkylakeX
    /// kernels need, read from /proc/cpuinfo.
    static let hasAVX512: Bool = {
        // Read to the end: /proc files report a size of 0, so size-based reads see nothing.
        guard let data = FileHandle(forReadingAtPath: "/proc/cpuinfo")?.readDataToEndOfFile(),
              let flags = String(decoding: data, as: UTF8.self).split(separator: "\n").first(where: { $0.hasPrefix("flags") })
        else { return false }
        let present = Set(flags.split(whereSeparator: { $0 == " " || $0 == "\t" }))
        return ["avx512f", "avx512bw", "avx512dq", "avx512vl"].allSatisfy { present.contains(Substring($0)) }
    }()
}
