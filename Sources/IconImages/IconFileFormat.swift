import BundleModel

/// What an icon file is, from its first bytes, never its name.
enum IconFileFormat: String, Sendable {
    case icns
    case tiff
    case png

    static let prefixLength = 24

    init?(prefix: some Collection<UInt8>) {
        let bytes = Array(prefix.prefix(Self.prefixLength))
        if bytes.starts(with: IcnsFile.magic) {
            self = .icns
        } else if [[0x49, 0x49, 0x2A, 0x00], [0x4D, 0x4D, 0x00, 0x2A], [0x49, 0x49, 0x2B, 0x00], [0x4D, 0x4D, 0x00, 0x2B]].contains(where: bytes.starts(with:)) {
            self = .tiff
        } else if PNGHeader.size(bytes) != nil {
            self = .png
        } else {
            return nil
        }
    }
}
