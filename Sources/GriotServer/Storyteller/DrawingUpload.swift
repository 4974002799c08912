import Foundation
import Hummingbird
import MultipartKit
import NIOCore

/// One drawing as a parent sends it: JSON `{child_id, image_base64, filename?, caption?}`, or
/// multipart/form-data with the fields `child_id`, `caption`, `filename` and a file part `image`
/// (its file name is the drawing's when no `filename` field is sent).
///
/// ```swift
/// let upload = try await DrawingUpload.read(request, context: context)
/// print(upload.childID, upload.bytes.count, upload.filename ?? "-")
/// ```
struct DrawingUpload: Sendable {
    var childID: String
    var bytes: Data
    var filename: String?
    var caption: String?

    /// What the JSON form looks like, for error messages.
    static let shape = #"{"child_id": "…", "image_base64": "…", "filename": "…", "caption": "…"} or multipart/form-data with child_id, caption and a file part named image"#

    struct JSONBody: Decodable {
        var childID: String?
        var imageBase64: String?
        var filename: String?
        var caption: String?
        enum CodingKeys: String, CodingKey {
            case childID = "child_id", imageBase64 = "image_base64", filename, caption
        }
    }

    static func read(_ request: Request, context: GriotRequestContext) async throws -> DrawingUpload {
        let contentType = request.headers[.contentType] ?? ""
        if contentType.lowercased().hasPrefix("multipart/form-data") {
            return try await multipart(request, contentType: contentType, context: context)
        }
        let body = try await request.decodeJSON(as: JSONBody.self, context: context, shape: shape)
        guard let childID = body.childID, !childID.isEmpty else {
            throw APIError.badRequest("missing_child", "Send the drawing's child in \"child_id\" (POST /api/storyteller/children makes one).")
        }
        guard let encoded = body.imageBase64, !encoded.isEmpty else {
            throw APIError.badRequest("missing_image", "Send the picture in \"image_base64\" (the file's bytes in base64), or upload it as multipart/form-data.")
        }
        // A data URL ("data:image/png;base64,…") is accepted as its payload.
        let payload = encoded.hasPrefix("data:") ? String(encoded[(encoded.firstIndex(of: ",").map { encoded.index(after: $0) } ?? encoded.endIndex)...]) : encoded
        guard let bytes = Data(base64Encoded: payload, options: .ignoreUnknownCharacters), !bytes.isEmpty else {
            throw APIError.badRequest("invalid_image", "\"image_base64\" is not base64; send the file's bytes encoded in base64 (standard alphabet).")
        }
        return DrawingUpload(childID: childID, bytes: bytes, filename: body.filename, caption: body.caption)
    }

    private static func multipart(_ request: Request, contentType: String, context: GriotRequestContext) async throws -> DrawingUpload {
        guard let boundary = ContentDisposition.parameters(of: contentType)["boundary"], !boundary.isEmpty else {
            throw APIError.badRequest("invalid_body", "The multipart/form-data body names no boundary in its Content-Type; let the HTTP client set it.")
        }
        let buffer: ByteBuffer
        do {
            buffer = try await request.body.collect(upTo: context.maxUploadSize)
        } catch {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        }
        var parts: [(headers: [String: String], body: ByteBuffer)] = []
        var headers: [String: String] = [:]
        var body = ByteBuffer()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { name, value in headers[name.lowercased()] = value }
        parser.onBody = { chunk in body.writeBuffer(&chunk) }
        parser.onPartComplete = {
            parts.append((headers, body))
            headers = [:]
            body = ByteBuffer()
        }
        do {
            try parser.execute(buffer)
        } catch {
            throw APIError.badRequest("invalid_body", "The multipart/form-data body could not be read; send \(shape).")
        }
        var fields: [String: String] = [:]
        var image: (bytes: Data, filename: String?)?
        for part in parts {
            let disposition = ContentDisposition.parameters(of: part.headers["content-disposition"] ?? "")
            guard let name = disposition["name"] else { continue }
            if name == "image" || disposition["filename"] != nil {
                image = (Data(part.body.readableBytesView), disposition["filename"])
            } else {
                fields[name] = String(decoding: part.body.readableBytesView, as: UTF8.self)
            }
        }
        guard let childID = fields["child_id"], !childID.isEmpty else {
            throw APIError.badRequest("missing_child", "Send the drawing's child in the form field child_id (POST /api/storyteller/children makes one).")
        }
        guard let image, !image.bytes.isEmpty else {
            throw APIError.badRequest("missing_image", "Send the picture as a file part named image.")
        }
        return DrawingUpload(childID: childID, bytes: image.bytes, filename: fields["filename"] ?? image.filename, caption: fields["caption"])
    }
}

/// The parameters of a header such as `Content-Disposition: form-data; name="image"; filename="d.png"`
/// or `Content-Type: multipart/form-data; boundary=x`: quoted strings unescaped, and RFC 5987's
/// `filename*=UTF-8''…` decoded (it wins over `filename`), so a name in any script arrives as written.
enum ContentDisposition {
    static func parameters(of header: String) -> [String: String] {
        var result: [String: String] = [:]
        var index = header.firstIndex(of: ";").map { header.index(after: $0) } ?? header.endIndex
        while index < header.endIndex {
            while index < header.endIndex, header[index] == " " || header[index] == "\t" || header[index] == ";" { index = header.index(after: index) }
            guard let equals = header[index...].firstIndex(of: "=") else { break }
            let key = header[index..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            index = header.index(after: equals)
            var value = ""
            if index < header.endIndex, header[index] == "\"" {
                index = header.index(after: index)
                while index < header.endIndex, header[index] != "\"" {
                    if header[index] == "\\", header.index(after: index) < header.endIndex { index = header.index(after: index) }
                    value.append(header[index])
                    index = header.index(after: index)
                }
                if index < header.endIndex { index = header.index(after: index) }
            } else {
                let end = header[index...].firstIndex(of: ";") ?? header.endIndex
                value = header[index..<end].trimmingCharacters(in: .whitespaces)
                index = end
            }
            if key.hasSuffix("*") {
                // RFC 5987: charset'language'percent-encoded
                let pieces = value.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
                if pieces.count == 3, pieces[0].lowercased() == "utf-8", let decoded = String(pieces[2]).removingPercentEncoding {
                    result[String(key.dropLast())] = decoded
                }
            } else if result[key] == nil {
                result[key] = value
            }
        }
        return result
    }
}
