import Logging

/// The files the view makes rather than passes through: a bundle view's effective `Info.plist`
/// and its `Icon.png`.
extension ViewFileSystem {
    static func isSyntheticFile(_ kind: NodeKind) -> Bool { kind == .info || kind == .icon || kind == .uuidInfo }

    /// Their bytes, or nil when the bundle (or its icon) is gone or cannot be converted.
    func syntheticBytes(_ kind: NodeKind, detail: SyntheticDetail) -> [UInt8]? {
        if kind == .uuidInfo, case let .uuid(key) = detail { return uuids.infoBytes(key) }
        guard let key = detail.bundleView else { return nil }
        switch kind {
        case .info: return views.infoBytes(forView: key)
        // A broken icon is the bundle's warning (rule 22), not the view's error: logged, not offered.
        case .icon: return views.iconBytes(forView: key) { logger.warning("\($0); no Icon.png") }
        default: return nil
        }
    }
}
