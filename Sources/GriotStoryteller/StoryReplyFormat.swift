import GriotChat
import GriotProviders

/// The storyteller's reply format: the model's JSON reply (`StoryReply`), checked against the
/// drawings of the turn's grounding, becomes the visible story (`StoryText.render`).
///
/// ```swift
/// let visible = try StoryReplyFormat().render(raw, grounding: request.grounding)
/// // "Once upon a time…\n\n![a red kite](drawing:d-1)\n\n…"
/// ```
public struct StoryReplyFormat: ReplyFormat {
    public init() {}

    public func render(_ raw: String, grounding: Grounding) throws(ReplyFormatError) -> String {
        let drawings = StoryPassages.drawings(in: grounding)
        let reply = try StoryReply.parse(raw, drawingIDs: drawings.map(\.id))
        return StoryText.render(reply, drawings: drawings)
    }
}
