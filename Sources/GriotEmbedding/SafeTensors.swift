import Foundation

/// A `.safetensors` file mapped into memory: an 8-byte header length, a JSON header naming
/// each tensor's dtype, shape and byte range, then the raw little-endian data. Tensors are
/// read in place from the mapping, so loading the 91 MB model costs no copy.
///
/// ```swift
/// let file = try SafeTensors(path: folder + "/model.safetensors")
/// let embeddings = try file.floats("embeddings.word_embeddings.weight", shape: [30522, 384])
/// ```
public final class SafeTensors: @unchecked Sendable {
    public struct TensorInfo: Sendable {
        public var dtype: String
        public var shape: [Int]
        public var range: Range<Int>
    }

    public let path: String
    public let tensors: [String: TensorInfo]
    private let base: UnsafeMutableRawPointer
    private let length: Int
    private let dataStart: Int

    public init(path: String) throws {
        self.path = path
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { throw EmbeddingError.modelMissing(path: path) }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size > 8 else {
            throw EmbeddingError.modelDamaged(path: path, reason: "the file is empty")
        }
        length = Int(status.st_size)
        guard let mapped = mmap(nil, length, PROT_READ, MAP_PRIVATE, descriptor, 0), mapped != MAP_FAILED else {
            throw EmbeddingError.modelDamaged(path: path, reason: "mmap failed")
        }
        base = mapped
        let headerLength = Int(UInt64(littleEndian: mapped.loadUnaligned(as: UInt64.self)))
        guard headerLength > 0, 8 + headerLength <= length else {
            munmap(mapped, length)
            throw EmbeddingError.modelDamaged(path: path, reason: "bad header length \(headerLength)")
        }
        dataStart = 8 + headerLength
        let header = Data(bytes: mapped + 8, count: headerLength)
        guard let object = try? JSONSerialization.jsonObject(with: header) as? [String: Any] else {
            munmap(mapped, length)
            throw EmbeddingError.modelDamaged(path: path, reason: "the header is not JSON")
        }
        var tensors: [String: TensorInfo] = [:]
        for (name, value) in object where name != "__metadata__" {
            guard let entry = value as? [String: Any], let dtype = entry["dtype"] as? String,
                  let shape = entry["shape"] as? [Int], let offsets = entry["data_offsets"] as? [Int], offsets.count == 2,
                  offsets[0] <= offsets[1], dataStart + offsets[1] <= length else {
                munmap(mapped, length)
                throw EmbeddingError.modelDamaged(path: path, reason: "tensor \(name) has a bad entry")
            }
            tensors[name] = TensorInfo(dtype: dtype, shape: shape, range: offsets[0]..<offsets[1])
        }
        self.tensors = tensors
    }

    deinit { munmap(base, length) }

    /// The F32 tensor `name`, checked against the expected shape.
    public func floats(_ name: String, shape: [Int]) throws -> UnsafeBufferPointer<Float> {
        guard let info = tensors[name] else { throw EmbeddingError.modelDamaged(path: path, reason: "tensor \(name) is missing") }
        guard info.dtype == "F32", info.shape == shape, info.range.count == shape.reduce(1, *) * 4 else {
            throw EmbeddingError.modelDamaged(path: path, reason: "tensor \(name) is \(info.dtype) \(info.shape), expected F32 \(shape)")
        }
        let start = (base + dataStart + info.range.lowerBound).assumingMemoryBound(to: Float.self)
        return UnsafeBufferPointer(start: start, count: shape.reduce(1, *))
    }
}
