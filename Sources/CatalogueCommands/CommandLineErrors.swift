/// A mistake in what the user asked for: printed as one line, exit status 1.
public struct UserError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A command that ran correctly but has a negative answer (`resolve` found nothing): print the
/// message, exit with `status`.
package struct NegativeAnswer: Error, CustomStringConvertible {
    package var description: String
    package var status: Int32 = 1

    package init(description: String, status: Int32 = 1) {
        self.description = description
        self.status = status
    }
}
