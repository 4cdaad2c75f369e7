import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// SPEC.md "Performance": one slow request must never stall every other request of the mount.
    /// The slow one here is the first listing of a directory of 60,000 entries; meanwhile another
    /// thread looks up names that do not exist (each a request to the daemon).
    @Suite struct ConcurrencyTests {
        let fixture = ViewFixture()

        init() {
            let big = fixture.tree.directory("Big")
            for index in 0..<60_000 {
                let descriptor = open(Paths.join(big, "file\(index)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                if descriptor >= 0 { close(descriptor) }
            }
        }

        /// The slowest lookup while the big directory is listed for the first time, and how long
        /// that listing took.
        func lookupsDuringAFirstListing(_ view: MountedView) throws -> (slowestLookup: Double, listing: Double) {
            let measured = try LookupsMeanwhile.measure(in: view, directory: "Documents") {
                _ = try? Descriptor.open(view.path("Big"), flags: Descriptor.directoryNoFollow).listDirectory()
            }
            return (measured.slowestLookup, measured.slowSeconds)
        }

        @Test func aSlowRequestDoesNotHoldUpTheOthers() throws {
            // The default loop: a lookup never waits for the whole of the slow listing.
            let view = try fixture.mount(languages: "en")
            let served = try lookupsDuringAFirstListing(view)
            #expect(served.slowestLookup < served.listing / 4, "a lookup waited \(served.slowestLookup) s of a \(served.listing) s listing")
            // Not vacuous: one thread serving makes a lookup wait for most of it.
            let single = try fixture.mount(languages: "en", arguments: ["--threads", "1"])
            let held = try lookupsDuringAFirstListing(single)
            #expect(held.slowestLookup > held.listing / 4, "one thread: a lookup waited \(held.slowestLookup) s of a \(held.listing) s listing")
        }
    }
}
