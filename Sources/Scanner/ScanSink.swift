public import Records

/// Receives a scan's events in batches, on the scanner's threads; must be thread-safe.
public protocol ScanSink: Sendable {
    func receive(_ events: [ScanEvent])
}
