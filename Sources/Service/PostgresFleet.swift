import BundleModel
import CatalogueReading
import Publishing
import WebInventory

/// `serve-web --database URL [--host H]`: the web pages' fleet, read from PostgreSQL with a
/// connection per request (as `query --database` does), so a database restarted meanwhile is
/// no lasting failure. Errors name the database without its password.
struct PostgresFleet: FleetSource {
    let url: String
    let host: String?

    func bundles(matching query: BundleQuery) throws -> [(host: String, record: BundleRecord)] {
        try bundles(matching: query, limit: nil).bundles
    }

    func bundles(matching query: BundleQuery, limit: Int?) throws -> (bundles: [(host: String, record: BundleRecord)], count: Int) {
        do {
            let (found, count) = try PublishedCatalogue(readingFrom: url).bundles(matching: query, host: host, limit: limit)
            return (found.map { ($0.host, $0.record) }, count)
        } catch {
            throw FleetError(description: "\(PostgresURL.redacted(url)): \(error)")
        }
    }
}

struct FleetError: Error, CustomStringConvertible {
    var description: String
}
