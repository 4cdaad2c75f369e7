public import BundleModel
public import CatalogueReading

/// `serve-web --database URL [--host H]`: where the pages read when they show a fleet, the
/// PostgreSQL database hosts publish to (SPEC "Many hosts"), instead of the local catalogue.
/// The daemon gives one (Service, through Publishing); the pages only ask.
public protocol FleetSource: Sendable {
    /// The published bundles matching a query (every host's, or the one `--host` named), each
    /// with its host, by host and path. Read at each request: a publisher's rows as they are.
    func bundles(matching query: BundleQuery) throws -> [(host: String, record: BundleRecord)]
    /// The first `limit` of them (all without one) and how many match in all, counted up to
    /// `countingUpTo + 1`: a count past it is "more than" (a million rows are not counted for a page).
    func bundles(matching query: BundleQuery, limit: Int?, countingUpTo: Int?) throws -> (bundles: [(host: String, record: BundleRecord)], count: Int)
}
