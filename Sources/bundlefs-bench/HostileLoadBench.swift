import Foundation
import Synchronization
import SystemCalls
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Issue 37's hostile load on `serve-symbols`: while 4 clients pipeline 6,000 GETs each and read
/// nothing, 300 ask for the 100 MB file and never read, 300 announce a gigabyte body and never
/// send it, and 100 send their headers a byte a second (each reconnecting a second after the
/// server lets it go), an honest client fetches a small file and the 100 MB one over 30 s: its
/// p50 and p99 (and the same with no attack), what it was answered, and the server's descriptors
/// and resident memory meanwhile.
enum HostileLoadBench {
    static let pipeliners = 4, silentReaders = 300, bodiless = 300, slowloris = 100
    static let smallFetches = 300, largeFetches = 10
    static let duration = 30.0

    static func run(binary: String, output: String, report: inout Report) throws {
        let (_, key, _, catalogue) = SymbolServerBench.prepare(binary: binary, output: output)
        let server = try SymbolServerProcess(catalogue: catalogue, logFile: Paths.join(output, "serve-symbols-hostile.log"), binary: binary, logLevel: "info")
        defer { _ = try? server.stop() }
        DescriptorLimit.raise(toAtLeast: 4_096)
        let large = "/buildid/\(key)/debuginfo", small = "/buildid/\(key)/executable"
        let request = "GET \(large) HTTP/1.1\r\nHost: bench\r\n\r\n"
        let attack = Attack(port: server.port, clients:
            Array(repeating: Array(String(repeating: request, count: 6_000).utf8), count: pipeliners)
            + Array(repeating: Array(request.utf8), count: silentReaders)
            + Array(repeating: Array("GET \(large) HTTP/1.1\r\nHost: bench\r\nContent-Length: 1000000000\r\n\r\n".utf8), count: bodiless)
            + Array(repeating: Array("GET /buildid/".utf8), count: slowloris))
        // The same fetches with no attack, for comparison.
        var quietSmall: [Double] = [], quietLarge: [Double] = []
        for index in 0..<50 {
            quietSmall.append(HonestFetch(port: server.port, path: small).seconds)
            if index % 10 == 0 { quietLarge.append(HonestFetch(port: server.port, path: large).seconds) }
        }

        let attacker = Thread { attack.run() }
        attacker.start()
        // Until every attacking client has connected and the pipeliners hold answers they do not read.
        try poll(timeout: 60, "the attacking clients to connect") { attack.established }

        // Spread over 30 s, so that the attackers are let go (10 s without taking a byte) and
        // come back while the honest client is served.
        var smallTimes: [Double] = [], largeTimes: [Double] = []
        var statuses: [Int: Int] = [:]
        var descriptors = 0, residentKiB = 0
        let started = Date()
        for index in 0..<smallFetches {
            let answer = HonestFetch(port: server.port, path: small)
            smallTimes.append(answer.seconds)
            statuses[answer.status, default: 0] += 1
            if index % (smallFetches / largeFetches) == 0 {
                let answer = HonestFetch(port: server.port, path: large)
                largeTimes.append(answer.seconds)
                statuses[answer.status, default: 0] += 1
                if answer.status == 200 && answer.bytes < SymbolServerBench.fileSize { statuses[-1, default: 0] += 1 }
            }
            descriptors = max(descriptors, server.openDescriptors)
            residentKiB = max(residentKiB, server.residentKiB)
            let due = started.addingTimeInterval(duration * Double(index + 1) / Double(smallFetches))
            if due > Date() { usleep(useconds_t(due.timeIntervalSinceNow * 1_000_000)) }
        }
        attack.stop()
        while !attack.stopped { usleep(10_000) }

        func milliseconds(_ values: [Double], _ fraction: Double) -> String { String(format: "%.1f ms", Timing.percentile(values, fraction) * 1_000) }
        let answered = statuses.sorted { $0.key < $1.key }.map { $0.key == -1 ? "\($0.value) cut short" : "\($0.value) × \($0.key)" }.joined(separator: ", ")
        report.add("hostile load: honest small file, p50 / p99", value: "\(milliseconds(smallTimes, 0.5)) / \(milliseconds(smallTimes, 0.99)) (\(smallTimes.count))",
                   goal: "p99 < 100 ms")
        report.add("hostile load: honest 100 MB file, p50 / p99", value: "\(milliseconds(largeTimes, 0.5)) / \(milliseconds(largeTimes, 0.99)) (\(largeTimes.count))",
                   goal: "")
        report.notes.append("hostile load: with no attack, the small file p50 / p99 \(milliseconds(quietSmall, 0.5)) / \(milliseconds(quietSmall, 0.99)), "
            + "the 100 MB file \(milliseconds(quietLarge, 0.5)) / \(milliseconds(quietLarge, 0.99))")
        report.add("hostile load: honest answers", value: answered, goal: "all 200")
        report.add("hostile load: server at most", value: "\(descriptors) descriptors, \(residentKiB / 1_024) MB resident", goal: "< 200 MB")
        report.notes.append("hostile load: \(pipeliners) pipelining 6,000 GETs, \(silentReaders) never reading, \(bodiless) never sending their body, "
            + "\(slowloris) slowloris; \(attack.reconnects) reconnections after the server let one go")
    }
}

/// One GET on a new connection (`Connection: close`), read to the end: status, bytes of body
/// and head, wall time.
struct HonestFetch {
    var status = 0
    var bytes = 0
    var seconds = 0.0

    init(port: Int, path: String) {
        let started = Date()
        defer { seconds = Date().timeIntervalSince(started) }
        guard let socket = RawConnection(port: port, receiveTimeout: 60) else { return }
        socket.sendWithoutWaiting(Array("GET \(path) HTTP/1.1\r\nHost: bench\r\nConnection: close\r\n\r\n".utf8))
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        var head: [UInt8] = []
        while true {
            let n = buffer.withUnsafeMutableBytes { recv(socket.fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            if head.count < 16 { head += buffer[..<min(n, 16)] }
            bytes += n
        }
        // "HTTP/1.1 200 ..."
        if head.count >= 12 { status = Int(String(decoding: head[9..<12], as: UTF8.self)) ?? 0 }
    }
}

/// The attacking clients, on one thread: each sends its opening bytes and never reads; a client
/// whose request opened with `GET /buildid/` alone (slowloris) adds a byte a second; a client the
/// server lets go connects again a second later.
final class Attack: @unchecked Sendable {
    let port: Int
    let openings: [[UInt8]]
    private let stopping = Atomic<Bool>(false)
    private let done = Atomic<Bool>(false)
    private let ready = Atomic<Bool>(false)
    private let reconnections = Atomic<Int>(0)

    init(port: Int, clients: [[UInt8]]) {
        self.port = port
        openings = clients
    }

    var established: Bool { ready.load(ordering: .acquiring) }
    var stopped: Bool { done.load(ordering: .acquiring) }
    var reconnects: Int { reconnections.load(ordering: .relaxed) }
    func stop() { stopping.store(true, ordering: .releasing) }

    func run() {
        var sockets: [RawConnection?] = Array(repeating: nil, count: openings.count)
        var closedAt = [Date](repeating: .distantPast, count: openings.count)
        var connectedOnce = [Bool](repeating: false, count: openings.count)
        var lastByte = Date()
        while !stopping.load(ordering: .acquiring) {
            let now = Date()
            let slowByte = now.timeIntervalSince(lastByte) >= 1
            if slowByte { lastByte = now }
            for index in openings.indices {
                if let socket = sockets[index] {
                    if socket.isHungUp {
                        sockets[index] = nil
                        closedAt[index] = now
                        reconnections.add(1, ordering: .relaxed)
                    } else if slowByte && openings[index].count < 20 {
                        socket.sendWithoutWaiting([UInt8(ascii: "a")])
                    }
                } else if now.timeIntervalSince(closedAt[index]) >= 1, let socket = RawConnection(port: port) {
                    socket.sendWithoutWaiting(openings[index])
                    sockets[index] = socket
                    connectedOnce[index] = true
                }
            }
            if !ready.load(ordering: .relaxed), !connectedOnce.contains(false),
               sockets.prefix(HostileLoadBench.pipeliners).allSatisfy({ ($0?.availableBytes ?? 0) > 0 }) {
                ready.store(true, ordering: .releasing)
            }
            usleep(50_000)
        }
        sockets.removeAll()
        done.store(true, ordering: .releasing)
    }
}
