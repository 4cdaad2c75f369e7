import BundleModel
import Testing

/// SPEC.md "Symbol stores": the paths of symbolicator's `native` and `unified` layouts, both ways.
@Suite struct SymbolLayoutTests {
    let machO = SymbolLayout.Entry(key: "0123456789abcdef0123456789abcdef", role: .debugInfo)
    let elf = SymbolLayout.Entry(key: "5e1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b", role: .executable)

    @Test func nativeNamesMachOUUIDsInUpperCaseGroups() {
        #expect(SymbolLayout.native.components(of: machO, format: .machO) == ["0123", "4567", "89AB", "CDEF", "0123", "456789ABCDEF"])
        var executable = machO
        executable.role = .executable
        #expect(SymbolLayout.native.components(of: executable, format: .machO).last == "456789ABCDEF.app")
        #expect(SymbolLayout.native.entry(["0123", "4567", "89AB", "CDEF", "0123", "456789ABCDEF"]) == machO)
        #expect(SymbolLayout.native.entry(["0123", "4567", "89ab", "cdef", "0123", "456789abcdef.APP"]) == executable)
    }

    @Test func nativeNamesBuildIDsInLowerCase() {
        #expect(SymbolLayout.native.components(of: elf, format: .elf) == ["5e", "1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b"])
        var debug = elf
        debug.role = .debugInfo
        #expect(SymbolLayout.native.components(of: debug, format: .elf) == ["5e", "1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b.debug"])
        #expect(SymbolLayout.native.entry(["5E", "1F2A3B4C5D6E7F8091A2B3C4D5E6F708192A3B.DEBUG"]) == debug)
        #expect(SymbolLayout.native.entry(["5e", "1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b"]) == elf)
    }

    @Test func unifiedNamesBothByRole() {
        #expect(SymbolLayout.unified.components(of: machO, format: .machO) == ["01", "23456789abcdef0123456789abcdef", "debuginfo"])
        #expect(SymbolLayout.unified.entry(["01", "23456789ABCDEF0123456789ABCDEF", "DebugInfo"]) == machO)
        #expect(SymbolLayout.unified.entry(["5e", "1f2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b", "executable"]) == elf)
    }

    @Test(arguments: [
        ["0123", "4567", "89AB", "CDEF", "0123"], ["0123", "4567", "89AB", "CDEF", "0123", "456789ABCDEG"],
        ["0123", "4567", "89AB", "CDEF", "0123", "456789ABCDE"], ["5e"], ["5", "e1f2a3b4"], ["5e", "1f2a3"], ["5e", "1f2a3b4c5"],
        ["..", "1f2a3b4c"], ["5e", "../etc"], ["5e", "1f2a3b4c.debug.debug"], [],
    ])
    func pathsThatNameNothingInNative(components: [String]) {
        #expect(SymbolLayout.native.entry(components) == nil)
    }

    @Test(arguments: [["01", "23456789", "symbols"], ["01", "23456789"], ["0", "123456789", "executable"], ["01", "2345678/9", "executable"]])
    func pathsThatNameNothingInUnified(components: [String]) {
        #expect(SymbolLayout.unified.entry(components) == nil)
    }
}
