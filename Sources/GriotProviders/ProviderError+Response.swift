import Foundation
import NIOHTTP1

extension ProviderError {
    /// The error for a non-2xx reply: the upstream's own message when the body is OpenAI-style
    /// JSON (`{"error": {"message": …}}`, or the shapes other compatible servers use), else the
    /// start of the body, else the status's reason phrase.
    static func forResponse(status: HTTPResponseStatus, headers: HTTPHeaders, body: [UInt8], now: Date = Date()) -> ProviderError {
        .status(code: Int(status.code), message: message(fromErrorBody: body) ?? status.reasonPhrase,
                retryAfterSeconds: RetryAfter.seconds(in: headers, now: now))
    }

    static func message(fromErrorBody body: [UInt8]) -> String? {
        guard !body.isEmpty else { return nil }
        if let object = try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any] {
            if let error = object["error"] as? [String: Any], let message = error["message"] as? String, !message.isEmpty {
                return message
            }
            for key in ["error", "message", "detail"] {
                if let message = object[key] as? String, !message.isEmpty { return message }
            }
        }
        let text = String(decoding: body, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { return nil }
        return text.count > 500 ? String(text.prefix(500)) + "…" : text
    }
}
