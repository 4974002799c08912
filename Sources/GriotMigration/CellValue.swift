import Foundation

/// One column of one row, as both databases agree to see it: what the copier binds into
/// PostgreSQL and what the checksum hashes, read the same way from either side.
///
/// Dates are whole microseconds since 1970 (PostgreSQL's precision), never a `Date`: a
/// floating-point date rounds differently on each side, an integer does not.
enum CellValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case double(Double)
    case text(String)
    case blob([UInt8])
    case timestamp(microseconds: Int64)
}
