import Foundation
import Testing
@testable import GriotImages

@Suite("GriotImagesTests: damaged uploads")
struct DrawingImageDamageTests {
    /// Each damaged file either reads as an image or is refused with an `ImageError`; none
    /// crashes the process (a trap in the layout walk, or libjpeg/libpng ending it).
    @Test("Randomly damaged JPEGs and PNGs are read or refused, never a crash")
    func randomDamage() throws {
        let originals = [
            TestImages.phoneJPEG(try TestImages.jpeg(width: 40, height: 30, noise: 50)),
            try TestImages.jpeg(width: 40, height: 30, noise: 50, progressive: true, restartRows: 1),
            TestImages.rgbPNG(width: 12, height: 9, before: [("tEXt", Array("Comment\0hi".utf8))]),
            TestImages.interlacedPNG(width: 12, height: 9),
        ]
        var noise = TestImages.Noise(state: 39)
        var refused = 0, read = 0
        for original in originals {
            for round in 0..<150 {
                var bytes = [UInt8](original)
                for _ in 0..<(1 + round % 4) {
                    let at = (Int(noise.next()) << 8 | Int(noise.next())) % bytes.count
                    bytes[at] = noise.next()
                }
                if round % 10 == 0 { bytes.removeLast(Int(noise.next()) % bytes.count) }
                let damaged = Data(bytes)
                do {
                    _ = try DrawingImage.inspect(damaged)
                    let stripped = try DrawingImage.strip(damaged)
                    _ = try DrawingImage.thumbnail(stripped.data, maxSide: 16)
                    read += 1
                } catch {
                    #expect(!error.message.isEmpty)
                    refused += 1
                }
            }
        }
        #expect(refused > 0 && read > 0, "read \(read), refused \(refused)")
    }
}
