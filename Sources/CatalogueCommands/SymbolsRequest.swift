import BundleModel
import CatalogueReading
import Codecs

/// `bundlefs symbols`'s question and its answer, apart from how the command line was read.
package struct SymbolsRequest: Equatable, Sendable {
    var uuids: [String]
    var choice = CatalogueChoice()

    package init(uuids: [String], choice: CatalogueChoice = CatalogueChoice()) {
        self.uuids = uuids
        self.choice = choice
    }

    package func run() throws {
        let keys = try uuids.map { text in
            guard let key = BinarySlice.uuidKey(text) else { throw UserError("\(text): not a UUID or build-id (hex digits, hyphens allowed)") }
            return key
        }
        let catalogue = try choice.lookup()
        var entries: [(uuid: String, entry: PlistValue)] = []
        for key in keys {
            let matches = try catalogue.symbolMatches(uuidKey: key)
            guard let entry = DebugSymbols.entry(matches), let uuid = DebugSymbols.spelling(matches) else { continue }
            entries.append((uuid, entry))
        }
        guard !entries.isEmpty else {
            throw NegativeAnswer(description: "none of \(uuids.joined(separator: ", ")) is catalogued")
        }
        writeAll(1, DebugSymbols.plist(entries))
    }
}
