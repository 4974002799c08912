/// Why `griot migrate-store` stopped, in words that say what to do next. Whatever was committed
/// before stays, and the same command continues from there.
public struct StoreMigrationError: Error, Sendable, CustomStringConvertible {
    public var description: String

    init(_ description: String) {
        self.description = description
    }
}
