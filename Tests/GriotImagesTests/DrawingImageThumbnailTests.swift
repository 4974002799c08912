import Foundation
import Testing
@testable import GriotImages

@Suite("GriotImagesTests: thumbnail")
struct DrawingImageThumbnailTests {
    @Test("A 4000 × 3000 JPEG thumbnail fits maxSide, keeps its aspect and its picture")
    func largeJPEG() throws {
        let photo = try TestImages.jpeg(width: 4000, height: 3000, noise: 20, quality: 80)
        let clock = ContinuousClock()
        let start = clock.now
        let thumbnail = try DrawingImage.thumbnail(photo, maxSide: 512)
        print("thumbnail of a 4000 × 3000 JPEG of \(photo.count) bytes: \(clock.now - start)")
        #expect(try DrawingImage.inspect(thumbnail) == ImageInfo(format: .jpeg, width: 512, height: 384))
        let decoded = try TestImages.decode(thumbnail)
        let left = pixel(decoded, x: 100, y: 200), right = pixel(decoded, x: 400, y: 200)
        #expect(left.red > 180 && left.blue < 80, "left half is red: \(left)")
        #expect(right.blue > 180 && right.red < 80, "right half is blue: \(right)")
    }

    @Test("A drawing already smaller than maxSide is not enlarged")
    func smallIsKept() throws {
        let thumbnail = try DrawingImage.thumbnail(TestImages.rgbPNG(width: 120, height: 80), maxSide: 512)
        #expect(try DrawingImage.inspect(thumbnail) == ImageInfo(format: .jpeg, width: 120, height: 80))
    }

    @Test("A portrait phone photo stands upright in its thumbnail")
    func orientationIsApplied() throws {
        let phone = TestImages.phoneJPEG(try TestImages.jpeg(width: 400, height: 200), orientation: 6)
        let stripped = try DrawingImage.strip(phone)
        let thumbnail = try DrawingImage.thumbnail(stripped.data, maxSide: 100, orientation: stripped.orientation)
        let decoded = try TestImages.decode(thumbnail)
        #expect(decoded.width == 50 && decoded.height == 100)
        // Turned clockwise, the stored left (red) half is on top, the right (blue) half below.
        #expect(pixel(decoded, x: 25, y: 20).red > 180)
        #expect(pixel(decoded, x: 25, y: 80).blue > 180)
        let left = try TestImages.decode(DrawingImage.thumbnail(stripped.data, maxSide: 100, orientation: .left))
        #expect(pixel(left, x: 25, y: 20).blue > 180)
        #expect(pixel(left, x: 25, y: 80).red > 180)
    }

    @Test("Palette, 16-bit grey and transparent PNGs all come out as RGB on white")
    func pngColourTypes() throws {
        // Palette: index 0 green, index 1 black, alternate columns.
        let palette = TestImages.png(width: 8, height: 4, colorType: 3,
                                     rows: Array(repeating: [0, 0, 0, 0, 0, 0, 0, 0], count: 4),
                                     before: [("PLTE", [0, 200, 0, 0, 0, 0])])
        let green = try TestImages.decode(DrawingImage.thumbnail(palette, maxSide: 8))
        #expect(pixel(green, x: 4, y: 2).green > 180 && pixel(green, x: 4, y: 2).red < 60)

        // 16-bit grey at 0x8080: mid grey.
        let grey = TestImages.png(width: 6, height: 6, bitDepth: 16, colorType: 0,
                                  rows: Array(repeating: [UInt8](repeating: 0x80, count: 12), count: 6))
        let mid = pixel(try TestImages.decode(DrawingImage.thumbnail(grey, maxSide: 6)), x: 3, y: 3)
        #expect((118...138).contains(Int(mid.red)) && mid.red == mid.green && mid.green == mid.blue)

        // Fully transparent black RGBA: white once composited.
        let clear = TestImages.png(width: 6, height: 6, colorType: 6,
                                   rows: Array(repeating: [UInt8](repeating: 0, count: 24), count: 6))
        let white = pixel(try TestImages.decode(DrawingImage.thumbnail(clear, maxSide: 6)), x: 3, y: 3)
        #expect(white.red > 245 && white.green > 245 && white.blue > 245)
    }

    @Test("An interlaced PNG decodes to the same picture as a plain one")
    func interlacedPNG() throws {
        let interlaced = TestImages.interlacedPNG(width: 21, height: 13)
        #expect(try DrawingImage.inspect(interlaced) == ImageInfo(format: .png, width: 21, height: 13))
        #expect(try TestImages.decode(interlaced).pixels == TestImages.rgb(width: 21, height: 13))
        let thumbnail = try TestImages.decode(DrawingImage.thumbnail(interlaced, maxSide: 10))
        #expect(thumbnail.width == 10 && thumbnail.height == 6)
        #expect(pixel(thumbnail, x: 1, y: 3).red > 180 && pixel(thumbnail, x: 8, y: 3).blue > 180)
    }

    @Test("A JPEG libjpeg cannot decode is an error, and the process lives on")
    func badJPEGDoesNotExit() throws {
        var jpeg = [UInt8](try TestImages.jpeg(width: 32, height: 32))
        let dqt = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xDB })
        jpeg[dqt + 4] = 0x07  // quantisation table number 7 does not exist
        #expect(try DrawingImage.inspect(Data(jpeg)).format == .jpeg)  // the structure is sound
        do {
            _ = try DrawingImage.thumbnail(Data(jpeg), maxSide: 16)
            Issue.record("a bogus table was decoded")
        } catch {
            #expect(error.reason == .undecodable)
            #expect(error.message.contains("DQT") || error.message.contains("quantization"), "\(error.message)")
        }
    }

    @Test("A PNG libpng cannot decode is an error, and the process lives on")
    func badPNGDoesNotAbort() throws {
        var png = [UInt8](TestImages.rgbPNG(width: 16, height: 16))
        let idat = try #require(png.indices.first { png[$0..<min($0 + 4, png.count)].elementsEqual(Array("IDAT".utf8)) })
        png[idat + 4] = 0x00  // zlib header, and the chunk's CRC no longer matches
        do {
            _ = try DrawingImage.thumbnail(Data(png), maxSide: 8)
            Issue.record("a damaged IDAT was decoded")
        } catch {
            #expect(error.reason == .undecodable)
            #expect(error.message.contains("PNG"))
        }
    }

    private func pixel(_ image: (width: Int, height: Int, pixels: [UInt8]), x: Int, y: Int) -> (red: UInt8, green: UInt8, blue: UInt8) {
        let index = (y * image.width + x) * 3
        return (image.pixels[index], image.pixels[index + 1], image.pixels[index + 2])
    }
}
