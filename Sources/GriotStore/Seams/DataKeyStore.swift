import Foundation

/// The data keys of a database's envelope encryption (`FieldCipher`), for rotation and for
/// the check that a master key can be retired: `griot keys rotate-master` re-wraps each key
/// wrapped by an older master key, one key per statement, so it can stop anywhere and run again.
public protocol DataKeyStore: Sendable {
    /// The cipher this database's stores seal their text with.
    var cipher: FieldCipher { get }

    /// How many data keys each master key wraps (by master key id).
    func dataKeyCounts() async throws -> [String: Int]

    /// Data keys not wrapped by `masterKeyID`, in id order after `after`.
    func dataKeys(notWrappedBy masterKeyID: String, after: String?, limit: Int) async throws -> [DataKeyRecord]

    /// Stores a re-wrapped data key if it is still wrapped as `previous` says (false when
    /// another rotation got there first, or the key was erased).
    func replaceWrapping(_ record: DataKeyRecord, previous: DataKeyRecord) async throws -> Bool
}
