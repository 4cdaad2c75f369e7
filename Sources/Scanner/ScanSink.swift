public import Records

/// Receives a scan's events in batches, one batch at a time, on the thread that called `scan` (the
/// walking threads hand their events over through a channel).
public protocol ScanSink: Sendable {
    func receive(_ events: [ScanEvent])
}
