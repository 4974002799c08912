/// One table compared after the copy: its row count and the checksum of its rows on each side.
public struct TableVerification: Sendable {
    public var table: String
    public var sqliteRows: Int
    public var postgresRows: Int
    public var sqliteChecksum: String
    public var postgresChecksum: String

    public var matches: Bool { sqliteRows == postgresRows && sqliteChecksum == postgresChecksum }
}
