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
    /// The slow one here is the first listing of a directory of 10,000 entries; meanwhile another
    /// thread looks up names that do not exist (each a request to the daemon).
    @Suite struct ConcurrencyTests {
        let fixture = ViewFixture()

        init() {
            let big = fixture.tree.directory("Big")
            for index in 0..<10_000 {
                let descriptor = open(Paths.join(big, "file\(index)"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
                if descriptor >= 0 { close(descriptor) }
            }
        }

        /// Lookups asked and answered while the thread listing the big directory for the first
        /// time slept in one request to the daemon.
        func lookupsDuringAFirstListing(_ view: MountedView) throws -> (answered: Int, lookups: Int) {
            try LookupsDuringOneWait.count(in: view, directory: "Documents") {
                _ = try? Descriptor.open(view.path("Big"), flags: Descriptor.directoryNoFollow).listDirectory()
            }
        }

        @Test func aSlowRequestDoesNotHoldUpTheOthers() throws {
            // The default loop: lookups are answered while the slow listing waits for its answer.
            let view = try fixture.mount(languages: "en")
            let served = try lookupsDuringAFirstListing(view)
            #expect(served.answered > 0, "no lookup of \(served.lookups) was answered while the listing waited")
            // Not vacuous: with one thread serving, a lookup asked during the listing's wait is
            // answered after it.
            let single = try fixture.mount(languages: "en", arguments: ["--threads", "1"])
            let held = try lookupsDuringAFirstListing(single)
            #expect(held.answered == 0, "one thread: \(held.answered) of \(held.lookups) lookups answered while the listing waited")
            #expect(held.lookups > 0)
            print("lookups answered while a first listing waited: \(served.answered) of \(served.lookups); one thread: \(held.answered) of \(held.lookups)")
        }
    }
}
