public import Codecs
import SystemCalls

/// Writers for typical bundles, so tests and the sample tree say what they mean.
extension TreeWriter {
    /// A macOS-style application: `Contents/Info.plist`, `Contents/MacOS/<executable>`, and
    /// `Contents/Resources/<lproj>.lproj/InfoPlist.strings` for each localized name given.
    public func macApp(
        _ relative: String,
        identifier: String? = nil,
        info: [String: PlistValue] = [:],
        localizedStrings: [String: [String: String]] = [:],
        stringsEncoding: StringsEncoding = .utf16LittleEndianWithBOM,
        format: PlistFormat = .xml
    ) {
        var dictionary = info
        let stem = FilePath(relative).lastComponent.stem.string
        if let identifier { dictionary["CFBundleIdentifier"] = .string(identifier) }
        if dictionary["CFBundlePackageType"] == nil { dictionary["CFBundlePackageType"] = .string("APPL") }
        if dictionary["CFBundleExecutable"] == nil { dictionary["CFBundleExecutable"] = .string(stem) }
        plist(relative + "/Contents/Info.plist", .dictionary(dictionary), format: format)
        if case let .string(executable)? = dictionary["CFBundleExecutable"] {
            text(relative + "/Contents/MacOS/" + executable, "#!/bin/sh\n", mode: 0o755)
        }
        for (lproj, entries) in localizedStrings {
            let path = lproj.isEmpty ? "/Contents/Resources/InfoPlist.strings" : "/Contents/Resources/\(lproj).lproj/InfoPlist.strings"
            file(relative + path, StringsEncoder.encode(entries.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }, as: stringsEncoding))
        }
    }

    /// A GNUstep application as Debian ships it: `Resources/Info-gnustep.plist` in OpenStep text,
    /// the executable at the top, legacy lproj names.
    public func gnustepApp(_ relative: String, info: [String: PlistValue], lprojs: [String] = ["English"]) {
        plist(relative + "/Resources/Info-gnustep.plist", .dictionary(info), format: .openStep)
        if case let .string(executable)? = info["NSExecutable"] {
            text(relative + "/" + executable, "#!/bin/sh\n", mode: 0o755)
        }
        for lproj in lprojs { strings(relative + "/Resources/\(lproj).lproj/Localizable.strings", ["Quit": "Quit"]) }
    }

    /// A macOS versioned framework: `Versions/A/Resources/Info.plist`, `Versions/Current -> A`,
    /// and the top-level links `Resources`, `<Name>`, `Headers`.
    public func macFramework(_ relative: String, identifier: String, version: String = "A") {
        let name = FilePath(relative).lastComponent.stem.string
        plist(relative + "/Versions/\(version)/Resources/Info.plist", .dictionary([
            "CFBundleIdentifier": .string(identifier), "CFBundlePackageType": .string("FMWK"),
            "CFBundleExecutable": .string(name),
        ]))
        text(relative + "/Versions/\(version)/\(name)", "binary", mode: 0o755)
        text(relative + "/Versions/\(version)/Headers/\(name).h", "// header\n")
        symlink(relative + "/Versions/Current", to: version)
        symlink(relative + "/Resources", to: "Versions/Current/Resources")
        symlink(relative + "/Headers", to: "Versions/Current/Headers")
        symlink(relative + "/" + name, to: "Versions/Current/" + name)
    }

    /// A `.dSYM` bundle as Xcode makes one: `Contents/Info.plist` of package type `dSYM` and the
    /// DWARF file, whose Mach-O UUIDs are those of the executable it describes.
    public func dSYM(_ relative: String, dwarfName: String, dwarf: [UInt8], identifier: String? = nil) {
        plist(relative + "/Contents/Info.plist", .dictionary([
            "CFBundleIdentifier": .string(identifier ?? "com.apple.xcode.dsym." + dwarfName), "CFBundlePackageType": .string("dSYM"),
            "CFBundleInfoDictionaryVersion": .string("6.0"), "CFBundleShortVersionString": .string("1.0"), "CFBundleVersion": .string("1"),
        ]))
        file(relative + "/Contents/Resources/DWARF/" + dwarfName, dwarf)
    }

    /// A macOS application whose executable is a real Mach-O file (see `MachOImage`).
    public func machOApp(_ relative: String, identifier: String, executable: [UInt8]) {
        macApp(relative, identifier: identifier)
        let stem = FilePath(relative).lastComponent.stem.string
        file(relative + "/Contents/MacOS/" + stem, executable, mode: 0o755)
    }
}
