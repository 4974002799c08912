import CPangoCairo
import Foundation
import GriotImages

/// Pictures on a page: a drawing read from its PNG or JPEG bytes, drawn scaled into a box.
///
/// A PNG is decoded by Cairo. A JPEG is not decoded at all: an image surface of its pixel size
/// carries its bytes as `CAIRO_MIME_TYPE_JPEG` mime data, and the PDF surface embeds them as they
/// are (a DCTDecode stream), so the page shows the JPEG as stored, at no cost in quality or time.
///
/// ```swift
/// if let image = pdf.image(bytes) {
///     let size = image.fitted(width: 400, maxHeight: 300)
///     pdf.draw(image, x: 54, top: 120, width: size.width, height: size.height)
/// }
/// ```
extension PDFRenderer {
    /// A picture ready to draw: its Cairo surface and its size in pixels.
    final class Image {
        fileprivate let surface: OpaquePointer
        let pixelWidth: Int
        let pixelHeight: Int

        fileprivate init(surface: OpaquePointer, pixelWidth: Int, pixelHeight: Int) {
            self.surface = surface
            self.pixelWidth = pixelWidth
            self.pixelHeight = pixelHeight
        }

        deinit { cairo_surface_destroy(surface) }

        /// The largest size with the picture's proportions no wider than `width` and no taller
        /// than `maxHeight`, in points; a small picture is not enlarged past one point a pixel.
        func fitted(width: Double, maxHeight: Double) -> (width: Double, height: Double) {
            let scale = min(1, width / Double(pixelWidth), maxHeight / Double(pixelHeight))
            return (Double(pixelWidth) * scale, Double(pixelHeight) * scale)
        }
    }

    /// A PNG larger than this on a side is first made a JPEG of this size by GriotImages, so a huge
    /// drawing is not decoded whole into memory by Cairo.
    static let largestDecodedSide = 2_400

    /// The picture in `bytes` (PNG or JPEG, told by the bytes, not by a media type), or nil when
    /// they cannot be read as either.
    func image(_ bytes: Data) -> Image? {
        guard let info = try? DrawingImage.inspect(bytes), info.width > 0, info.height > 0 else { return nil }
        switch info.format {
        case .jpeg:
            return Self.jpegImage(bytes, width: info.width, height: info.height)
        case .png:
            guard max(info.width, info.height) > Self.largestDecodedSide else { return Self.pngImage(bytes) }
            guard let smaller = try? DrawingImage.thumbnail(bytes, maxSide: Self.largestDecodedSide),
                  let size = try? DrawingImage.inspect(smaller) else { return nil }
            return Self.jpegImage(smaller, width: size.width, height: size.height)
        }
    }

    /// Draws `image` scaled into the box `width`×`height` whose top-left corner is (`x`, `top`).
    func draw(_ image: Image, x: Double, top: Double, width: Double, height: Double) {
        cairo_save(cairo)
        cairo_translate(cairo, x, top)
        cairo_scale(cairo, width / Double(image.pixelWidth), height / Double(image.pixelHeight))
        cairo_set_source_surface(cairo, image.surface, 0, 0)
        cairo_paint(cairo)
        cairo_restore(cairo)
    }

    /// A thin rectangle's outline, for what stands in place of a picture that could not be read.
    func frame(x: Double, top: Double, width: Double, height: Double, gray: Double = 0.55, lineWidth: Double = 0.75) {
        cairo_save(cairo)
        cairo_set_source_rgb(cairo, gray, gray, gray)
        cairo_set_line_width(cairo, lineWidth)
        cairo_rectangle(cairo, x, top, width, height)
        cairo_stroke(cairo)
        cairo_restore(cairo)
    }

    // MARK: Reading

    private final class PNGReader {
        let bytes: Data
        var offset = 0
        init(_ bytes: Data) { self.bytes = bytes }
    }

    private static func pngImage(_ bytes: Data) -> Image? {
        let reader = PNGReader(bytes)
        let surface = withExtendedLifetime(reader) {
            cairo_image_surface_create_from_png_stream({ closure, buffer, length in
                guard let closure, let buffer else { return CAIRO_STATUS_READ_ERROR }
                let reader = Unmanaged<PNGReader>.fromOpaque(closure).takeUnretainedValue()
                let count = Int(length)
                guard reader.offset + count <= reader.bytes.count else { return CAIRO_STATUS_READ_ERROR }
                reader.bytes.copyBytes(to: buffer, from: reader.bytes.startIndex + reader.offset ..< reader.bytes.startIndex + reader.offset + count)
                reader.offset += count
                return CAIRO_STATUS_SUCCESS
            }, Unmanaged.passUnretained(reader).toOpaque())
        }
        guard let surface else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS else {
            cairo_surface_destroy(surface)
            return nil
        }
        return Image(surface: surface, pixelWidth: Int(cairo_image_surface_get_width(surface)),
                     pixelHeight: Int(cairo_image_surface_get_height(surface)))
    }

    private static func jpegImage(_ bytes: Data, width: Int, height: Int) -> Image? {
        // The surface's own pixels are never drawn (the PDF takes the JPEG instead) nor touched,
        // so their memory, zeroed on demand, is not paid for.
        guard let surface = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(width), Int32(height)) else { return nil }
        guard cairo_surface_status(surface) == CAIRO_STATUS_SUCCESS, let copy = malloc(bytes.count) else {
            cairo_surface_destroy(surface)
            return nil
        }
        bytes.copyBytes(to: copy.assumingMemoryBound(to: UInt8.self), count: bytes.count)
        // Cairo owns the copy from here and frees it with the surface.
        let status = cairo_surface_set_mime_data(surface, CAIRO_MIME_TYPE_JPEG, copy.assumingMemoryBound(to: UInt8.self),
                                                 UInt(bytes.count), { free($0) }, copy)
        guard status == CAIRO_STATUS_SUCCESS else {
            free(copy)
            cairo_surface_destroy(surface)
            return nil
        }
        return Image(surface: surface, pixelWidth: width, pixelHeight: height)
    }
}
