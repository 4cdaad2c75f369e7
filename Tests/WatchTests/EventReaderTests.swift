import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
@testable import Watcher

/// The reader thread under a stream of fanotify events, on a tmpfs of the test's own (only the
/// test writes there): the stream is read in batches, not one wake-up per event, the events outside
/// the roots are dropped and counted, and an event inside still comes out with its name.
@Suite(.serialized) struct EventReaderTests {
    @Test func aStreamOfEventsOutsideTheRootsIsReadInBatches() throws {
        let filesystem = try OwnFilesystem()
        let tree = filesystem.tree
        let outside = filesystem.outside
        tree.directory("Apps")
        outside.directory("busy")
        let marks = FilesystemMarks(fanotify: try Fanotify())
        try marks.prepare(root: FilePath(tree.root))
        let apps = try #require(marks.register(FilePath(tree.path("Apps")), descriptor: nil))
        let interval = 0.005
        let reader = try EventReader(inotify: try Inotify(), marks: marks, limit: 1_000_000, readInterval: interval)
        try reader.start()
        defer { reader.stop() }

        let began = Clocks.monotonicSeconds()
        // Distinct names: the kernel merges only the events of one name while they wait.
        for index in 0..<2_000 {
            outside.text("busy/file\(index).txt", "x")
            outside.remove("busy/file\(index).txt")
        }
        tree.text("Apps/inside.txt", "y")
        var events: [InotifyEvent] = []
        try poll(timeout: 60, "the stream to be read") {
            events += reader.take(waitingUpTo: 0.1)
            return reader.droppedOutside >= 2_000 && events.contains { $0.name == "inside.txt" && $0.mask.contains(.closeWrite) }
        }
        let elapsed = Clocks.monotonicSeconds() - began
        // Reads are `interval` apart at least, however fast or slow the writes were; one a wake-up
        // per event or two, as before, would be hundreds.
        #expect(reader.reads <= Int(elapsed / interval) + 1, "\(reader.reads) reads in \(elapsed) s")
        #expect(events.allSatisfy { $0.watch == apps && $0.name == "inside.txt" })
        #expect(events.contains { $0.mask.contains(.create) })
        withExtendedLifetime(filesystem) {}
    }
}
