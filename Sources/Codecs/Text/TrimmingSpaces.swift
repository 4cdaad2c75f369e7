extension String {
    /// The string without leading and trailing ASCII whitespace (space, tab, line feed, carriage
    /// return), as the property-list formats and Info values are trimmed.
    public var trimmingSpaces: String {
        let utf8 = self.utf8
        guard let first = utf8.firstIndex(where: { !XMLPlistParser.isSpace($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !XMLPlistParser.isSpace($0) })!
        return String(self[first...last])
    }
}
