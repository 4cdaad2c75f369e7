/// Where `serve-symbols` listens: `ADDR:PORT`, `[IPV6]:PORT`, or a port alone, which means
/// loopback (127.0.0.1): the server answers another host only when told an address that reaches it.
public struct ListenAddress: Equatable, Sendable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses the text of `--listen` or the configuration's `symbols`; nil when it is not an
    /// address and a port from 0 to 65535 (0: any free port). Host names other than `localhost`
    /// are refused, so that what is bound never depends on a resolver.
    public init?(_ text: String) {
        let host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else { return nil }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
            guard host.contains(":") else { return nil }
        } else if let colon = text.lastIndex(of: ":") {
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
            guard !host.contains(":") else { return nil }
        } else {
            host = "127.0.0.1"
            portText = Substring(text)
        }
        guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              let port = Int(portText), port <= 65535, !host.isEmpty
        else { return nil }
        let name = host == "localhost" ? "127.0.0.1" : String(host)
        guard Self.isNumeric(name) else { return nil }
        self.init(host: name, port: port)
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// Whether only this machine can reach the address.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// An IPv4 dotted quad or an IPv6 literal (hex digits, colons, dots): what the socket layer is
    /// given as is.
    static func isNumeric(_ host: String) -> Bool {
        if host.contains(":") {
            return host.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0) || $0 == 0x3A || $0 == 0x2E }
        }
        let parts = host.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { part in
            !part.isEmpty && part.utf8.count <= 3 && part.utf8.allSatisfy { (0x30...0x39).contains($0) } && Int(part)! <= 255
        }
    }
}
