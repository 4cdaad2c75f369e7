import Foundation
import Publishing
import Testing
import TestSupport

/// One publisher per host in a database: the session lock and the row that says who holds it.
struct HostClaimTests {
    /// A second session is refused a host the first has, and told who has it; other hosts are
    /// free; the host is free again once the first gives it up or its session is ended.
    @Test func oneSessionHasAHost() throws {
        let server = try PostgresServer()
        let first = try PublishedCatalogue(url: server.url + "&application_name=first")
        try first.claim(host: "alpha")
        try first.claim(host: "alpha")
        let second = try PublishedCatalogue(url: server.url)
        let refusal = #expect(throws: HostTaken.self) { try second.claim(host: "alpha") }
        #expect(refusal?.holder?.pid == getpid())
        #expect(refusal?.holder?.machine == ProcessInfo.processInfo.hostName)
        #expect("\(refusal.map { "\($0)" } ?? "")".contains("host alpha is already published there"))
        try second.claim(host: "beta")

        first.release()
        try second.claim(host: "alpha")
        #expect(try server.psql("SELECT string_agg(host, ',' ORDER BY host) FROM bundlefs_publishers") == "alpha,beta")

        // A publisher killed: the server ends its session, and with it the lock.
        let third = try PublishedCatalogue(url: server.url + "&application_name=third")
        try third.claim(host: "gamma")
        try server.psql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'third'")
        try poll(timeout: 10, "the third session to end") {
            try server.psql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'third'") == "0"
        }
        try second.claim(host: "gamma")
        withExtendedLifetime(third) {}
    }
}
