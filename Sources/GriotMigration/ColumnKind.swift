/// How PostgreSQL stores a column, and so how a SQLite value is converted for it: SQLite's
/// declared types are advice, PostgreSQL's are the contract the copied rows must meet.
enum ColumnKind: String, Sendable {
    case text, integer, double, blob, timestamp

    /// The kind of an `information_schema.columns.data_type`, or nil for one no table of the
    /// schema uses (a schema change the migration does not know yet).
    init?(postgresType: String) {
        switch postgresType {
        case "text", "character varying": self = .text
        case "bigint", "integer", "smallint": self = .integer
        case "double precision", "real": self = .double
        case "bytea": self = .blob
        case "timestamp with time zone": self = .timestamp
        default: return nil
        }
    }

    /// The cast each parameter carries, so that a column of nulls still has a type in a
    /// many-row `VALUES` list, and a date travels as exact text rather than a rounded double.
    var parameterCast: String {
        switch self {
        case .text: "text"
        case .integer: "bigint"
        case .double: "float8"
        case .blob: "bytea"
        case .timestamp: "timestamptz"
        }
    }
}
