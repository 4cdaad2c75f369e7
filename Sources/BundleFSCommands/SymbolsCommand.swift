import ArgumentParser
import CatalogueCommands

struct SymbolsCommand: ParsableCommand {

    static let configuration = CommandConfiguration(
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

    func run() throws { try request.run() }

    /// What was asked, as plain values (what `DirectArguments` reads without this type).
    var request: SymbolsRequest { SymbolsRequest(uuids: uuids, choice: common.catalogueChoice) }
}

