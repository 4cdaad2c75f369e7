import Codecs
public import SystemCalls

/// Where a bundle's icon comes from (BUNDLES.md rule 21), decided from its Info dictionary alone.
public enum IconRequest: Sendable, Equatable {
    /// A file name resolved by the bundle search pattern (macOS `CFBundleIconFile`, GNUstep
    /// `NSIcon`/`ApplicationIcon`); each candidate is tried in order (`Chess` → `Chess.icns`).
    case resource(key: String, names: [String])
    /// iOS icon files: names that may omit `.png` and have `@2x`/`@3x` and `~ipad` variants, of
    /// which the largest image wins.
    case iOSImages(names: [String])
    /// Only `CFBundleIconName`: the icon is in `Assets.car`, which bundlefs does not decode.
    case assetCatalog(name: String)
}

public enum IconRules {
    /// Rule 21's keys in order: macOS, iOS, GNUstep, then iOS's default `Icon.png` for flat
    /// (iOS) bundles, then the asset catalogue name. nil when the bundle names no icon.
    public static func request(_ info: InfoDictionary, layout: LayoutKind?) -> IconRequest? {
        if let file = nonEmpty(info.string("CFBundleIconFile")) {
            let candidates = FileName(file).lowercasedExtension == nil
                ? (layout == .flat ? [file + ".png", file + ".icns", file] : [file + ".icns", file]) : [file]
            return .resource(key: "CFBundleIconFile", names: candidates)
        }
        let primary = info.raw["CFBundleIcons"]?.dictionary?["CFBundlePrimaryIcon"]?.dictionary?["CFBundleIconFiles"]?.stringList ?? []
        let iPad = info.raw["CFBundleIcons~ipad"]?.dictionary?["CFBundlePrimaryIcon"]?.dictionary?["CFBundleIconFiles"]?.stringList ?? []
        let files = (primary + iPad).filter { !$0.isEmpty }
        if !files.isEmpty { return .iOSImages(names: files) }
        let legacyFiles = (info.raw["CFBundleIconFiles"]?.stringList ?? []).filter { !$0.isEmpty }
        if !legacyFiles.isEmpty { return .iOSImages(names: legacyFiles) }
        for key in ["NSIcon", "ApplicationIcon"] {
            guard let file = nonEmpty(info.string(key)) else { continue }
            // GNUstep's NSImage tries its image types for a name without an extension.
            let candidates = FileName(file).lowercasedExtension == nil ? ["tiff", "tif", "png", "icns"].map { file + "." + $0 } + [file] : [file]
            return .resource(key: key, names: candidates)
        }
        if layout == .flat { return .iOSImages(names: ["Icon.png"]) }
        if let name = nonEmpty(info.string("CFBundleIconName")) { return .assetCatalog(name: name) }
        return nil
    }

    /// Whether a file name is one of the variants of an iOS icon name (`AppIcon60x60` →
    /// `AppIcon60x60@2x.png`, `AppIcon60x60@3x~ipad.png`; `Icon.png` → `Icon@2x.png`). Compared
    /// as bytes, like every file name: an NFD twin of the name is another file.
    public static func isVariant(_ candidate: FileName, of name: String) -> Bool {
        let nameBytes = FileName(name).bytes
        let base = nameBytes.count >= 4 && Array(nameBytes.suffix(4)) == Array(".png".utf8) ? Array(nameBytes.dropLast(4)) : nameBytes
        var rest = candidate.bytes[...]
        if candidate == FileName(name) { return true }
        guard rest.starts(with: base) else { return false }
        rest = rest.dropFirst(base.count)
        for scale in ["@2x", "@3x"] where rest.starts(with: scale.utf8) { rest = rest.dropFirst(scale.utf8.count) }
        for device in ["~ipad", "~iphone"] where rest.starts(with: device.utf8) { rest = rest.dropFirst(device.utf8.count) }
        return rest.elementsEqual(".png".utf8)
    }

    /// A name to look for; the search pattern refuses `..` and absolute paths later.
    private static func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.trimmingSpaces.isEmpty else { return nil }
        return text
    }
}
