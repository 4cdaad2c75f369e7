import CatalogueReading
import Foundation
import GRDB

/// GRDB's rows and connections as the shared decoders read them (`CatalogueReading`).
extension Row: ColumnValues {
    package func text(_ index: Int) -> String? { self[index] }
    package func integer(_ index: Int) -> Int64? { self[index] }
    package func bytes(_ index: Int) -> [UInt8]? { (self[index] as Data?).map { [UInt8]($0) } }
}

extension Database: RowSource {
    package func forEachRow(_ sql: String, _ arguments: [SQLValue], _ body: (any ColumnValues) throws -> Void) throws {
        // Cached: preparing a statement costs GRDB far more than running an indexed lookup.
        let values = arguments.map { value -> DatabaseValue in
            switch value {
            case let .text(text): text.databaseValue
            case let .integer(integer): integer.databaseValue
            }
        }
        try Row.fetchCursor(cachedStatement(sql: sql), arguments: StatementArguments(values)).forEach { try body($0) }
    }
}
