/// The seam through which one server also answers the web inventory (SPEC.md "The web
/// inventory"): a GET or HEAD whose target no symbol route claims (`SymbolRoute.unknown`) is
/// handed to `SymbolServer.Pages`, off the event loop, after the same limits as every request
/// (connections, head size and time, target length, no body, the send-rate floor).
public struct PageRequest: Sendable {
    /// `GET` or `HEAD`; a HEAD's answer is sent without its body.
    public let method: String
    /// The request target as sent: `/path?query`.
    public let target: String
    /// The request's header fields, in order.
    public let headers: [(name: String, value: String)]

    public init(method: String, target: String, headers: [(name: String, value: String)]) {
        (self.method, self.target, self.headers) = (method, target, headers)
    }

    /// The first field of that name, any case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

public struct PageAnswer: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        (self.status, self.headers, self.body) = (status, headers, body)
    }
}

extension SymbolServer {
    /// Answers the targets the symbol routes leave; nil leaves them 404.
    public typealias Pages = @Sendable (PageRequest) -> PageAnswer?
}
