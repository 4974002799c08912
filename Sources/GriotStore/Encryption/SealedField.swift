/// A column whose text is stored encrypted, named by what it holds rather than by its table:
/// a message keeps its field name when it moves to `archivedMessage`, so its ciphertext moves
/// with it. The name and the row's id are the authenticated data of every ciphertext, so a
/// ciphertext copied into another row or another column fails to open.
public enum SealedField: String, Sendable, CaseIterable {
    case messageContent = "message.content"
    case messageError = "message.error"
    case threadTitle = "thread.title"
    case turnSnapshot = "turn.snapshot"
    case auditDetails = "audit.details"
    case auditModeration = "audit.moderation"
    case retainedText = "retained.content"
    case streamEvent = "stream.data"
    case safetyReason = "safety.reason"
    case safetyDetails = "safety.details"
    case reviewSummary = "review.summary"
    case reviewNote = "review.note"
    case reviewResolution = "review.resolution"
    case storyTitle = "story.title"
    case storyDocument = "story.document"
    case passageText = "passage.text"
    case passageSpeaker = "passage.speaker"
    case export = "export"
    // The storyteller's (sealed with the parent's key).
    case childName = "child.name"
    case childAvatar = "child.avatar"
    case drawingFilename = "drawing.filename"
    case drawingCaption = "drawing.caption"
    case bedtimeStoryTheme = "bedtimeStory.theme"
    case chapterText = "bedtimeChapter.text"
}

/// Whose data key seals a value: a user's (everything of theirs, so that an erasure that
/// deletes the key leaves any copy of their ciphertext unreadable), a non-public story's, or
/// the service's own (audit rows about no user).
public enum KeyScope: Sendable, Hashable {
    case user(String)
    case story(String)
    case service

    public var name: String {
        switch self {
        case .user(let id): return "user:" + id
        case .story(let id): return "story:" + id
        case .service: return "service"
        }
    }
}
