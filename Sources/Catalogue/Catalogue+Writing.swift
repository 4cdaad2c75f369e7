public import BundleModel
import GRDB
public import Records
public import SystemCalls

/// Writing: scan events, removals, claims. Each call is one transaction.
extension Catalogue {
    /// Applies a batch of scan events in one transaction, in their order; applications' claims and
    /// type tags too unless `writesLaunchServices` is off (only the benchmark turns it off).
    public func apply(_ events: [ScanEvent], scannedAt: Double, writesLaunchServices: Bool) throws {
        guard !events.isEmpty else { return }
        try write { db in
            var writer = try CatalogueWriter(db, scannedAt: scannedAt)
            writer.writesLaunchServices = writesLaunchServices
            for event in events { try writer.apply(event) }
        }
    }

    /// Runs `body` in one transaction with a writer for scan events, removals and renames.
    public func transaction<T>(scannedAt: Double, _ body: (CatalogueWriter) throws -> T) throws -> T {
        try write { db in try body(try CatalogueWriter(db, scannedAt: scannedAt)) }
    }

    /// Removes directories and bundles that no longer exist, by path.
    public func remove(directories: [FilePath], bundles: [FilePath]) throws {
        guard !directories.isEmpty || !bundles.isEmpty else { return }
        try write { db in
            let deleteDirectory = try RawStatement(db, "DELETE FROM directories WHERE path = ?")
            let writer = try CatalogueWriter(db, scannedAt: 0)
            for path in directories {
                deleteDirectory.bind(1, path.string)
                try deleteDirectory.execute()
                // The archives it held went with it.
                try writer.removeArchives(in: path, except: [])
            }
            for path in bundles { try writer.removeBundle(at: path) }
        }
    }

    /// Notes that a root was indexed completely.
    public func recordRoot(_ path: FilePath, indexedAt time: Double) throws {
        try write { db in
            try db.execute(sql: "INSERT INTO roots (path, last_indexed_at) VALUES (?, ?) ON CONFLICT(path) DO UPDATE SET last_indexed_at = excluded.last_indexed_at", arguments: [path.string, time])
        }
    }

    /// Replaces the package claims of these applications (of all, when nil: claims are global,
    /// rule 14) with `claims`.
    public func replaceClaims(_ claims: [PackageClaim], of applications: Set<FilePath>?) throws {
        try write { db in
            if let applications {
                let delete = try db.cachedStatement(sql: "DELETE FROM claims WHERE application_id IN (SELECT id FROM bundles WHERE path = ?)")
                for path in applications { try delete.execute(arguments: [path.string]) }
            } else {
                try db.execute(sql: "DELETE FROM claims")
            }
            let insert = try db.cachedStatement(sql: "INSERT INTO claims (application_id, extension, content_type) SELECT id, ?, ? FROM bundles WHERE path = ?")
            for claim in claims { try insert.execute(arguments: [claim.ext, claim.contentType, claim.applicationPath.string]) }
        }
    }
}
