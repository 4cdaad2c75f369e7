package import ArgumentParser
import BundleModel
import Catalogue
import Codecs
import Foundation

package struct SymbolsCommand: ParsableCommand {
    package init() {}

    package static let configuration = CommandConfiguration(
        commandName: "symbols",
        abstract: "Print the DebugSymbols property list for these UUIDs: where their dSYMs and executables are (exit 1 when none is known).",
        discussion: """
            The output is what macOS's DebugSymbols.framework expects from a DBGShellCommands script: a \
            plist keyed by UUID, with DBGArchitecture, DBGDSYMPath (the DWARF file in the dSYM) and \
            DBGSymbolRichExecutable. Unknown UUIDs are left out. On a Mac, point lldb at a build server \
            with `defaults write com.apple.DebugSymbols DBGShellCommands "ssh buildhost bundlefs symbols"`.
            """)

    @Argument(help: ArgumentHelp("Mach-O UUIDs or ELF build-ids (any case, hyphens or none).", valueName: "uuid"))
    var uuids: [String]

    @OptionGroup var common: CommonOptions

    package func run() throws { try request.run() }

    /// What was asked, as plain values (what `DirectArguments` reads without this type).
    package var request: SymbolsRequest { SymbolsRequest(uuids: uuids, choice: common.catalogueChoice) }
}

/// `bundlefs symbols`'s question and its answer, apart from how the command line was read.
package struct SymbolsRequest: Equatable, Sendable {
    var uuids: [String]
    var choice = CatalogueChoice()

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
        FileHandle.standardOutput.write(Data(DebugSymbols.plist(entries)))
    }
}
