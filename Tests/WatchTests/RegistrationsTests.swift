@testable import Watcher
import SystemCalls
import Testing

/// The watcher's registrations give back every path, byte for byte, with its watch, in order,
/// across the chunks they are packed in (paths of invalid UTF-8 escaped as `FileNameCoding` does).
@Suite struct RegistrationsTests {
    @Test func everyPathComesBackInOrderAcrossChunks() {
        var registrations = Registrations()
        var expected: [(FilePath, Int32?)] = []
        // About 6 MB: several chunks, and paths that do not fit the rest of one.
        for index in 0..<60_000 {
            let name = String(repeating: "d", count: index % 200) + "\(index)"
            let path = FilePath(bytes: Array("/srv/tree/group\(index % 97)/".utf8) + Array(name.utf8) + (index % 1_000 == 0 ? [0xFF, 0xC3] : []))
            let watch: Int32? = index % 3 == 0 ? nil : Int32(index)
            registrations.append(path, watch: watch)
            expected.append((path, watch))
        }
        #expect(registrations.count == expected.count)
        var read = 0
        for (index, registered) in registrations.enumerated() {
            #expect(registered.path == expected[index].0 && registered.watch == expected[index].1, "entry \(index)")
            read += 1
        }
        #expect(read == expected.count)
        #expect(Array(Registrations()).isEmpty)
    }
}
