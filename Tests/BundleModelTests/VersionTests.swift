@testable import BundleModel
import Fixtures
import Testing

@Suite struct VersionTests {
    // BUNDLES.md section 7: CFBundleVersion 2.1.0b7 → 0x02106007.
    @Test(arguments: [
        ("2.1.0b7", UInt32(0x0210_6007)), ("1.0", 0x0100_8000), ("1", 0x0100_8000), ("10.1.2", 0x1012_8000),
        ("1.0d3", 0x0100_2003), ("1.0a255", 0x0100_40FF), ("1.2f1", 0x0120_8001),
        ("10.15", 0), ("1.10", 0), ("1.0b256", 0), ("", 0), ("abc", 0), ("1.0.0.0", 0), ("100", 0), ("1.0x", 0),
    ])
    func packedVersions(version: String, packed: UInt32) {
        #expect(BundleVersion.packed(version) == packed)
    }

    @Test(arguments: [
        ("1.10", "1.9"), ("1.0.1", "1.0"), ("1.0", "1.0b2"), ("1.0b2", "1.0b1"), ("2", "1.99"), ("10.15.7", "10.15.6"),
        ("1.0.0", "1.0-rc1"),
    ])
    func versionOrder(newer: String, older: String) {
        #expect(BundleVersion.compare(newer, older) == .orderedDescending)
        #expect(BundleVersion.compare(older, newer) == .orderedAscending)
    }

    @Test func equalVersions() {
        #expect(BundleVersion.compare("1.01", "1.1") == .orderedSame)
    }

    /// ASCII versions are split by bytes, others by characters: both must split alike.
    @Test func asciiVersionsSplitAsCharactersDo() {
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("0123456789.-_ abfrcZ")
        var versions = ["", "0", "00", "007", "1..2", ".1", "1.", "a", "1a", "a1", "1.0b07", "--", "0.0.0", " 1 ", "1_2-3 4"]
        for _ in 0..<3_000 {
            versions.append(String((0..<Int.random(in: 1...10, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }))
        }
        for version in versions {
            #expect(BundleVersion.asciiTokens(version) == BundleVersion.characterTokens(version), "\(version)")
        }
    }

    /// Rule 20 component by component, as written before versions became byte keys: the oracle
    /// the keys' byte order must agree with.
    static func componentOrder(_ lhs: String, _ rhs: String) -> BundleVersion.Order {
        let left = BundleVersion.characterTokens(lhs), right = BundleVersion.characterTokens(rhs)
        for (a, b) in zip(left, right) {
            switch (a, b) {
            case let (.number(x), .number(y)):
                if x.count != y.count { return x.count < y.count ? .orderedAscending : .orderedDescending }
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            case let (.text(x), .text(y)):
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            case (.separator, .separator): continue
            case (.number, _): return .orderedDescending
            case (_, .number): return .orderedAscending
            case (.text, .separator): return .orderedAscending
            case (.separator, .text): return .orderedDescending
            }
        }
        if left.count == right.count { return .orderedSame }
        let longerIsLeft = left.count > right.count
        let extra = longerIsLeft ? left[right.count] : right[left.count]
        let longerIsNewer: Bool
        if case .text = extra { longerIsNewer = false } else { longerIsNewer = true }
        return longerIsLeft == longerIsNewer ? .orderedDescending : .orderedAscending
    }

    /// The catalogue orders claims by the keys' bytes: that order is rule 20's, for every pair.
    @Test func keysOrderAsComponentsDo() {
        var generator = SeededGenerator(seed: 20)
        let alphabet = Array("0123456789.-_ abfrcZ")
        var versions = ["", "0", "00", "1", "1.0", "1.0b1", "1.0b", "1.0.", "1.0-", "1a", "1.a", "a", "ab", "abc", "b", "10", "9", "1 0",
                        "1.0.0", "2.0rc", "1.2.3.4.5", String(repeating: "9", count: 300), String(repeating: "9", count: 299)]
        for _ in 0..<400 {
            versions.append(String((0..<Int(generator.next() % 8) + 1).map { _ in alphabet[Int(generator.next() % UInt64(alphabet.count))] }))
        }
        for a in versions {
            for b in versions {
                #expect(BundleVersion.compare(a, b) == Self.componentOrder(a, b), "\(a) against \(b)")
            }
        }
    }
}
