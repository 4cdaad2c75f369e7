import BundleModel
import CatalogueReading
import Publishing
import WebInventory

/// `serve-web --database URL [--host H]`: the web pages' fleet, read from PostgreSQL on
/// connections kept between requests (`PublishedReaders`), one per lookup thread; one that
/// failed is dropped, so a database restarted meanwhile is no lasting failure. Errors name the
/// database without its password.
struct PostgresFleet: FleetSource {
    let url: String
    let host: String?
    let readers: PublishedReaders

    init(url: String, host: String?, connections: Int) {
        self.url = url
        self.host = host
        readers = PublishedReaders(url: url, keeping: connections)
    }

    func bundles(matching query: BundleQuery) throws -> [(host: String, record: BundleRecord)] {
        try bundles(matching: query, limit: nil, countingUpTo: nil).bundles
    }

    func bundles(matching query: BundleQuery, limit: Int?, countingUpTo: Int?) throws -> (bundles: [(host: String, record: BundleRecord)], count: Int) {
        do {
            let (found, count) = try readers.reading { try $0.bundles(matching: query, host: host, limit: limit, countingUpTo: countingUpTo) }
            return (found.map { ($0.host, $0.record) }, count)
        } catch {
            throw FleetError(description: "\(PostgresURL.redacted(url)): \(error)")
        }
    }
}

struct FleetError: Error, CustomStringConvertible {
    var description: String
}
