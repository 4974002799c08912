import NIOCore

extension ServerSentEventParser {
    /// Feeds the next bytes of the stream, as AsyncHTTPClient hands them over; returns the
    /// events they complete, in order.
    /// - Throws: `LimitExceeded`, as `feed(_:)` for a byte sequence does.
    public mutating func feed(_ buffer: ByteBuffer) throws(LimitExceeded) -> [ServerSentEvent] {
        // `withUnsafeReadableBytes` rethrows untyped errors; a `Result` carries the typed one out.
        let result = buffer.withUnsafeReadableBytes { bytes in
            Result { () throws(LimitExceeded) -> [ServerSentEvent] in try feed(bytes) }
        }
        return try result.get()
    }
}
