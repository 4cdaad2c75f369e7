import BundleModel
import Catalogue
import CompactStorage
import Synchronization

/// `user.bundle.default-application` (SPEC.md, "Launch Services"): the identifier of the
/// application `bundlefs open-with` puts first for an item, asked of the catalogue once per
/// question (a file's lower-cased extension, a folder, a package's extension) between two updates.
/// The ranking reads every claim of the types a question reaches; `getfattr -d` over 10,000 `.txt`
/// files asks one question 10,000 times, so answers are kept, within a bound, until the update
/// stream says the catalogue changed (`invalidate`): any update may have installed, changed or
/// removed an application.
final class DefaultApplications: Sendable {
    let catalogue: any LaunchIndex
    /// Counts each ranking run (`ranking` in `user.bundlefs.requests`), so its cost can be seen.
    let requests: RequestCounts
    private let kept = Mutex(Kept())

    /// What was answered since the last update; nil (no application, or none with an identifier)
    /// is kept too.
    private struct Kept {
        var answers = BoundedCache<HandlerRanking.Question, String?>(limit: 1_024, keeping: 768)
        /// Counts updates, so that an answer read while one came is not kept past it.
        var generation = 0
    }

    init(catalogue: any LaunchIndex, requests: RequestCounts) {
        self.catalogue = catalogue
        self.requests = requests
    }

    /// The default application's identifier, or nil when nothing claims the item or the first
    /// handler has no identifier (the attribute is then absent, as `open-with` shows `-`).
    func identifier(for question: HandlerRanking.Question) -> String? {
        let (known, generation) = kept.withLock { ($0.answers.value(for: question), $0.generation) }
        if let known { return known }
        // A catalogue that cannot be read now (locked, being replaced) gives no answer, and none
        // is kept: the next request asks again.
        requests.count(.ranking)
        guard let handlers = try? catalogue.handlers(of: question, role: nil, all: false, limit: 1) else { return nil }
        let identifier = handlers.first?.application.identifier
        kept.withLock { if $0.generation == generation { _ = $0.answers.store(identifier, for: question, weight: 1) } }
        return identifier
    }

    /// After an update: any application may have changed.
    func invalidate() {
        kept.withLock { $0 = Kept(generation: $0.generation + 1) }
    }
}
