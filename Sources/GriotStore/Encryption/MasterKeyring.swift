import Crypto
import Foundation

/// The master keys (key-encryption keys) that wrap the data keys, read from
/// `GRIOT_MASTER_KEY_FILE` or from the output of `GRIOT_MASTER_KEY_COMMAND` (a key-management
/// tool's "print the key" command). Each line is `KEY_ID BASE64_32_BYTES` (or the key alone,
/// whose id is then `mk-` and the first 12 hex digits of its SHA-256); `#` starts a comment.
/// The first key is the active one: new data keys are wrapped with it. The others only unwrap
/// data keys written before a rotation (`griot keys rotate-master` re-wraps them).
///
/// ```text
/// # /etc/griot/master.key (mode 0600)
/// mk-2026-11 3q2+7w4tV0Yx...=
/// mk-2025-06 Zm9vYmFy...=
/// ```
public struct MasterKeyring: Sendable {
    public struct Key: Sendable {
        public let id: String
        public let key: SymmetricKey
    }

    public let keys: [Key]
    /// Where the keys came from, for messages (`GRIOT_MASTER_KEY_FILE=/etc/griot/master.key`).
    public let source: String

    public var active: Key { keys[0] }

    public init(keys: [Key], source: String) throws {
        guard !keys.isEmpty else { throw KeyringError("\(source) holds no master key; write a line KEY_ID BASE64 (make one with `griot keys new-master`)") }
        var seen = Set<String>()
        for key in keys where !seen.insert(key.id).inserted {
            throw KeyringError("\(source) lists the master key \(key.id) twice; each key id once, the active key first")
        }
        self.keys = keys
        self.source = source
    }

    public func key(id: String) -> Key? { keys.first { $0.id == id } }

    /// The keyring the environment names, or nil when it names none (the data is then stored
    /// in plain text, and a database that holds encrypted data refuses to open).
    public static func configured(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws -> MasterKeyring? {
        if let path = environment["GRIOT_MASTER_KEY_FILE"], !path.isEmpty {
            guard let data = FileManager.default.contents(atPath: path) else {
                throw KeyringError("GRIOT_MASTER_KEY_FILE=\(path) cannot be read; give the path of the master key file (make one with `griot keys new-master > FILE`)")
            }
            return try parse(String(decoding: data, as: UTF8.self), source: "GRIOT_MASTER_KEY_FILE=\(path)")
        }
        if let command = environment["GRIOT_MASTER_KEY_COMMAND"], !command.isEmpty {
            return try parse(try run(command), source: "GRIOT_MASTER_KEY_COMMAND")
        }
        return nil
    }

    public static func parse(_ text: String, source: String) throws -> MasterKeyring {
        var keys: [Key] = []
        for (number, raw) in text.split(whereSeparator: \.isNewline).enumerated() {
            let line = raw.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0].trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty else { continue }
            let fields = line.split(whereSeparator: \.isWhitespace).map(String.init)
            guard fields.count <= 2 else { throw KeyringError("\(source), line \(number + 1): write KEY_ID BASE64, two fields") }
            let encoded = fields.last!
            guard let bytes = Data(base64Encoded: encoded), bytes.count == 32 else {
                throw KeyringError("\(source), line \(number + 1): the key is not 32 bytes of base64 (AES-256); make one with `griot keys new-master`")
            }
            let key = SymmetricKey(data: bytes)
            let id = fields.count == 2 ? fields[0] : defaultID(for: key)
            guard id.range(of: "^[A-Za-z0-9._-]{1,64}$", options: .regularExpression) != nil else {
                throw KeyringError("\(source), line \(number + 1): the key id \(id) may hold only letters, digits, '.', '_' and '-'")
            }
            keys.append(Key(id: id, key: key))
        }
        return try MasterKeyring(keys: keys, source: source)
    }

    /// A new random master key as a key file's line.
    public static func newKeyLine(id: String? = nil) -> String {
        let key = SymmetricKey(size: .bits256)
        let encoded = key.withUnsafeBytes { Data($0).base64EncodedString() }
        return "\(id ?? defaultID(for: key)) \(encoded)"
    }

    static func defaultID(for key: SymmetricKey) -> String {
        let digest = key.withUnsafeBytes { SHA256.hash(data: Data($0)) }
        return "mk-" + digest.prefix(6).map { String(format: "%02x", $0) }.joined()
    }

    private static func run(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let output = Pipe()
        process.standardOutput = output
        do { try process.run() } catch {
            throw KeyringError("GRIOT_MASTER_KEY_COMMAND could not start: \(error.localizedDescription)")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw KeyringError("GRIOT_MASTER_KEY_COMMAND exited with status \(process.terminationStatus); it must print the master key (KEY_ID BASE64)")
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// A master key file or command that cannot be used, said so that the operator can fix it.
public struct KeyringError: Error, CustomStringConvertible, LocalizedError {
    public let description: String
    public init(_ description: String) { self.description = description }
    public var errorDescription: String? { description }
}
