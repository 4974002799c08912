import CJPEG
import Foundation

/// libjpeg-turbo, encoding packed RGB (a thumbnail) as JPEG.
enum JPEGEncoder {
    static func encode(rgb: [UInt8], width: Int, height: Int, quality: Int,
                       progressive: Bool = false, restartRows: Int = 0) throws(ImageError) -> Data {
        precondition(rgb.count == width * height * 3)
        var output: UnsafeMutablePointer<UInt8>?
        var size: UInt = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = rgb.withUnsafeBufferPointer { rgb in
            message.withUnsafeMutableBufferPointer { message in
                griot_jpeg_encode_rgb(rgb.baseAddress, UInt32(width), UInt32(height), Int32(quality),
                                      progressive ? 1 : 0, UInt32(restartRows), &output, &size,
                                      message.baseAddress, message.count)
            }
        }
        guard status == 0, let output else {
            let detail = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            throw ImageError(.undecodable, "The thumbnail could not be encoded (\(detail)); send the drawing again.")
        }
        defer { free(output) }
        return Data(bytes: output, count: Int(size))
    }
}
