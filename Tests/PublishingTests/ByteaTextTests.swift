import Foundation
@testable import Publishing
import Testing

/// A bytea value as libpq's text format gives it, decoded in place (issue 40: a page decodes 200
/// records): every byte value both ways, and what is not `\x` and pairs of hex digits refused.
struct ByteaTextTests {
    @Test func everyByteInEitherCase() throws {
        let bytes = (0...255).map(UInt8.init)
        let lower = "\\x" + bytes.map { String(format: "%02x", $0) }.joined()
        #expect(try PublishedRows.bytes(ofBytea: lower) == bytes)
        #expect(try PublishedRows.bytes(ofBytea: lower.uppercased().replacingOccurrences(of: "\\X", with: "\\x")) == bytes)
        #expect(try PublishedRows.bytes(ofBytea: "\\x").isEmpty)
    }

    @Test(arguments: [nil, "", "\\", "x00", "\\X00", "\\x0", "\\x000", "\\x0g", "\\xg0", "\\x 0", "\\x00\u{0}0", "\\x\u{e9}00", "00\\x"])
    func malformedTextIsRefused(_ text: String?) {
        #expect(throws: PostgresError.self) { try PublishedRows.bytes(ofBytea: text) }
    }
}
