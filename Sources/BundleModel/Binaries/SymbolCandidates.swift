extension DebugSymbols {
    /// The matches that may answer a layout's role, best first (SPEC.md "Symbol stores"): for
    /// `executable` the executables; for `debuginfo` the dSYMs' DWARF files, then, for an ELF
    /// build-id, the executables too, since an ELF file that is not stripped carries its own DWARF
    /// (elfutils' debuginfod serves such a file for both). A Mach-O executable never holds the
    /// DWARF (it stays in the object files), so it never answers `debuginfo`.
    public static func candidates(for role: SymbolLayout.Role, in matches: [Match]) -> [Match] {
        let dSYMs = matches.filter(\.isDSYM), executables = matches.filter { !$0.isDSYM }
        switch role {
        case .executable: return executables
        case .debugInfo: return dSYMs + executables.filter { $0.slice.format == .elf }
        }
    }
}
