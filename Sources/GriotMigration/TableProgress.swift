/// How far the copy of one table has come: reported after every committed batch, and once
/// when the table is done (also for a table a previous run finished).
public struct TableProgress: Sendable {
    public var table: String
    public var rowsCopied: Int
    public var rowsTotal: Int
    public var finished: Bool
}
