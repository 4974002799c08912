import CJPEG
import CPNG

/// A decoder that yields a drawing one RGB row at a time (3 bytes a pixel, on white), so a
/// thumbnail of a large drawing never holds the whole picture.
protocol RowDecoder: AnyObject {
    var width: Int { get }
    var height: Int { get }
    /// Fills `row` (width × 3 bytes) with the next row.
    func readRow(into row: UnsafeMutablePointer<UInt8>) throws(ImageError)
}

private let messageCapacity = 256

private func undecodable(_ format: String, _ message: UnsafeMutablePointer<CChar>) -> ImageError {
    let detail = String(cString: message)
    return ImageError(.undecodable,
        "This \(format) could not be decoded (\(detail.isEmpty ? "unknown error" : detail)); save it again and re-send it.")
}

/// libjpeg-turbo, decoding at 1/2, 1/4 or 1/8 scale when the thumbnail is that much smaller.
/// The bytes must outlive the decoder.
final class JPEGRowDecoder: RowDecoder {
    private let reader: UnsafeMutablePointer<griot_jpeg_reader>
    private let message = UnsafeMutablePointer<CChar>.allocate(capacity: messageCapacity)
    let width: Int
    let height: Int

    init(_ bytes: UnsafeRawBufferPointer, targetSide: Int) throws(ImageError) {
        message.initialize(repeating: 0, count: messageCapacity)
        guard let base = bytes.baseAddress,
              let reader = griot_jpeg_reader_open(base.assumingMemoryBound(to: UInt8.self), UInt(bytes.count), UInt32(targetSide),
                                                  UInt(DrawingImage.maxPixels), message, messageCapacity)
        else {
            let error = undecodable("JPEG", message)
            message.deallocate()
            throw error
        }
        self.reader = reader
        width = Int(griot_jpeg_reader_width(reader))
        height = Int(griot_jpeg_reader_height(reader))
    }

    deinit {
        griot_jpeg_reader_close(reader)
        message.deallocate()
    }

    func readRow(into row: UnsafeMutablePointer<UInt8>) throws(ImageError) {
        guard griot_jpeg_reader_read_row(reader, row, message, messageCapacity) == 0 else { throw undecodable("JPEG", message) }
    }
}

/// libpng: palette, grey, 16-bit and transparent images all arrive as RGB on white.
/// The bytes must outlive the decoder.
final class PNGRowDecoder: RowDecoder {
    private let reader: UnsafeMutablePointer<griot_png_reader>
    private let message = UnsafeMutablePointer<CChar>.allocate(capacity: messageCapacity)
    let width: Int
    let height: Int

    init(_ bytes: UnsafeRawBufferPointer) throws(ImageError) {
        message.initialize(repeating: 0, count: messageCapacity)
        guard let base = bytes.baseAddress,
              let reader = griot_png_reader_open(base.assumingMemoryBound(to: UInt8.self), bytes.count,
                                                 UInt(DrawingImage.maxPixels), message, messageCapacity)
        else {
            let error = undecodable("PNG", message)
            message.deallocate()
            throw error
        }
        self.reader = reader
        width = Int(griot_png_reader_width(reader))
        height = Int(griot_png_reader_height(reader))
    }

    deinit {
        griot_png_reader_close(reader)
        message.deallocate()
    }

    func readRow(into row: UnsafeMutablePointer<UInt8>) throws(ImageError) {
        guard griot_png_reader_read_row(reader, row, message, messageCapacity) == 0 else { throw undecodable("PNG", message) }
    }
}
