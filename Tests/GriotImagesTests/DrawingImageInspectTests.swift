import Foundation
import Testing
@testable import GriotImages

@Suite("GriotImagesTests: inspect")
struct DrawingImageInspectTests {
    @Test("A PNG and a JPEG are recognised by their bytes, with their size from the header")
    func acceptsPNGAndJPEG() throws {
        let png = try DrawingImage.inspect(TestImages.rgbPNG(width: 37, height: 21))
        #expect(png == ImageInfo(format: .png, width: 37, height: 21))
        #expect(png.mediaType == "image/png")
        let jpeg = try DrawingImage.inspect(TestImages.jpeg(width: 123, height: 45))
        #expect(jpeg == ImageInfo(format: .jpeg, width: 123, height: 45))
        #expect(jpeg.mediaType == "image/jpeg")
    }

    @Test("A phone's JPEG (named .heic or not) is a JPEG, and its EXIF orientation is read")
    func phoneJPEGIsJPEG() throws {
        let info = try DrawingImage.inspect(TestImages.phoneJPEG(TestImages.jpeg(width: 64, height: 48), orientation: 6))
        #expect(info.format == .jpeg)
        #expect(info.width == 64 && info.height == 48)
        #expect(info.orientation == .right)
    }

    @Test("HEIC is refused with how to send it as JPEG")
    func refusesHEIC() {
        for brand in ["heic", "mif1", "heix"] {
            let heic = Data([0, 0, 0, 0x18] + Array("ftyp\(brand)".utf8) + [0, 0, 0, 0] + Array("mif1heic".utf8) + [UInt8](repeating: 0, count: 64))
            let error = refusal(heic)
            #expect(error?.reason == .unsupportedFormat)
            #expect(error?.message.contains("HEIC") == true)
            #expect(error?.message.contains("JPEG") == true)
            #expect(error?.message.contains("Most Compatible") == true)
        }
    }

    @Test("GIF, WebP, BMP, TIFF, SVG, PDF and unknown bytes are refused, each named")
    func refusesOtherFormats() {
        let cases: [(Data, String)] = [
            (Data("GIF89a".utf8) + Data(count: 40), "GIF"),
            (Data("RIFF".utf8) + Data([0x20, 0, 0, 0]) + Data("WEBPVP8 ".utf8) + Data(count: 40), "WebP"),
            (Data("BM".utf8) + Data(count: 60), "BMP"),
            (Data([0x49, 0x49, 0x2A, 0x00]) + Data(count: 40), "TIFF"),
            (Data("\u{FEFF}<?xml version=\"1.0\"?>\n<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>".utf8), "SVG"),
            (Data("%PDF-1.7\n".utf8) + Data(count: 40), "PDF"),
            (Data("hello, this is text".utf8), "not a PNG or JPEG"),
        ]
        for (data, name) in cases {
            let error = refusal(data)
            #expect(error?.reason == .unsupportedFormat, "\(name)")
            #expect(error?.message.contains(name) == true, "\(name): \(error?.message ?? "accepted")")
            #expect(error?.message.contains("JPEG") == true || error?.message.contains("PNG") == true)
        }
    }

    @Test("Empty and cut-short files are refused and asked for again")
    func refusesEmptyAndTruncated() throws {
        #expect(refusal(Data())?.reason == .empty)
        let jpeg = try TestImages.jpeg(width: 200, height: 100, noise: 40)
        for cut in [3, 20, jpeg.count / 2, jpeg.count - 2] {
            let error = refusal(jpeg.prefix(cut))
            #expect(error?.reason == .truncated, "cut at \(cut): \(error?.message ?? "accepted")")
            #expect(error?.message.contains("send the file again") == true)
        }
        let png = TestImages.rgbPNG(width: 20, height: 20)
        for cut in [8, 30, png.count / 2, png.count - 1] {
            #expect(refusal(png.prefix(cut))?.reason == .truncated, "PNG cut at \(cut)")
        }
    }

    @Test("A drawing over the size limit is refused with the limit stated")
    func refusesHugeDimensions() throws {
        let wide = TestImages.png(width: 20_000, height: 1, rows: [[UInt8](repeating: 0, count: 60_000)])
        let error = refusal(wide)
        #expect(error?.reason == .tooLarge)
        #expect(error?.message.contains("20,000 × 1") == true)
        #expect(error?.message.contains("12,000") == true)
        // A JPEG whose frame header claims 9,000 × 9,000 (81 megapixels).
        var jpeg = [UInt8](try TestImages.jpeg(width: 16, height: 16))
        let sof = try #require(jpeg.indices.first { jpeg[$0] == 0xFF && jpeg[$0 + 1] == 0xC0 })
        jpeg.replaceSubrange((sof + 5)..<(sof + 9), with: TestImages.be16(9000) + TestImages.be16(9000))
        let jpegError = refusal(Data(jpeg))
        #expect(jpegError?.reason == .tooLarge)
        #expect(jpegError?.message.contains("50 megapixels") == true)
    }

    @Test("A structurally broken JPEG is refused, not passed on")
    func refusesMalformedJPEG() throws {
        let jpeg = [UInt8](try TestImages.jpeg(width: 16, height: 16))
        var garbage = jpeg
        garbage.insert(contentsOf: [0x12, 0x34], at: 2)  // not a marker where one must be
        #expect(refusal(Data(garbage))?.reason == .malformed)
        var overlong = jpeg
        overlong[4] = 0xFF; overlong[5] = 0xF0  // APP0 claims 65 KB
        #expect(refusal(Data(overlong))?.reason == .truncated)
    }

    private func refusal(_ data: Data) -> ImageError? {
        do {
            _ = try DrawingImage.inspect(data)
            return nil
        } catch {
            return error
        }
    }
}
