import GriotStories

/// Who is asking: the identity every search is filtered by.
///
/// ```swift
/// let viewer = Viewer(userID: "u-ruth-carter", familyGroupIDs: ["fam-carter"])
/// viewer.maySee(.familyOnly, owner: "u-tad-carter", families: ["fam-carter"])   // true
/// ```
public struct Viewer: Sendable, Hashable {
    public var userID: String?
    public var familyGroupIDs: Set<String>

    public init(userID: String? = nil, familyGroupIDs: Set<String> = []) {
        self.userID = userID
        self.familyGroupIDs = familyGroupIDs
    }

    /// Someone signed out: public stories only.
    public static let anonymous = Viewer()

    /// The access rule, in one place: public to all; private to the owner; family_only to the
    /// owner and to members of one of the story's family groups.
    public func maySee(_ privacy: Privacy, owner: String?, families: [String]) -> Bool {
        switch privacy {
        case .public:
            return true
        case .private:
            return owner != nil && owner == userID
        case .familyOnly:
            if let owner, owner == userID { return true }
            return families.contains(where: familyGroupIDs.contains)
        }
    }
}

