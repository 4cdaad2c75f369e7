import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport

/// `serve-symbols` with the clients people run (SPEC.md "Symbol stores"): elfutils'
/// `debuginfod-find`, gdb through DEBUGINFOD_URLS, curl.
@Suite struct SymbolServerClientTests {
    @Test func debuginfodFindFetchesExecutablesAndDebugFilesByBuildIDAndUUID() throws {
        let fixture = try SymbolStoreFixture()
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let find = try #require(Toolchain.tool("debuginfod-find"), "debuginfod-find (Debian's debuginfod package) is not installed")
        let cache = fixture.temporary.appending("cache")
        func fetch(_ kind: String, _ id: String) throws -> [UInt8] {
            let result = try Subprocess.run(find, [kind, id], environment: ["DEBUGINFOD_URLS": server.url, "DEBUGINFOD_CACHE_PATH": cache, "DEBUGINFOD_TIMEOUT": "10"])
            try #require(result.status == 0, "debuginfod-find \(kind) \(id): \(result)\n\(server.log)")
            let path = result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
            return Array(try Data(contentsOf: URL(fileURLWithPath: path)))
        }
        // An ELF build-id: the executable, and its debug file from the dSYM beside it.
        #expect(try fetch("executable", fixture.compiledBuildID) == fixture.bytes("GNUstep/Square.app/Square"))
        #expect(try fetch("debuginfo", fixture.compiledBuildID.uppercased()) == fixture.bytes("GNUstep/Square.app.dSYM/Contents/Resources/DWARF/Square"))
        // A Mach-O UUID without hyphens: the dSYM's DWARF file and the universal executable.
        #expect(try fetch("debuginfo", fixture.machOKey) == fixture.bytes("Build/Tool.app.dSYM/Contents/Resources/DWARF/Tool"))
        #expect(try fetch("executable", fixture.machOKey.uppercased()) == fixture.bytes("Build/Tool.app/Contents/MacOS/Tool"))
        // An unstripped ELF without a dSYM is its own debug file, as debuginfod serves it.
        #expect(try fetch("debuginfo", fixture.writtenKey) == fixture.bytes("GNUstep/Md5.app/Md5"))
        let unknown = try Subprocess.run(find, ["debuginfo", String(repeating: "ab", count: 20)],
                                         environment: ["DEBUGINFOD_URLS": server.url, "DEBUGINFOD_CACHE_PATH": cache])
        #expect(unknown.status != 0 && unknown.standardError.contains("No such file"), "\(unknown)")
        // One line per request at debug level.
        #expect(server.log.contains("GET /buildid/\(fixture.compiledBuildID)/executable 200"))
    }

    /// elfutils' client stamps its cached copy with `Last-Modified`; without it the copy is dated
    /// 1969 and the cache cleaner (`cache_clean_interval_s` 0, `max_unused_age_s` an hour)
    /// deletes it on the next query. With it, the copy stays.
    @Test func debuginfodFindsCacheKeepsWhatItFetched() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let find = try #require(Toolchain.tool("debuginfod-find"), "debuginfod-find (Debian's debuginfod package) is not installed")
        let cache = fixture.temporary.appending("cache")
        let environment = ["DEBUGINFOD_URLS": server.url, "DEBUGINFOD_CACHE_PATH": cache, "DEBUGINFOD_TIMEOUT": "10"]
        let fetched = try Subprocess.run(find, ["executable", fixture.machOKey], environment: environment)
        try #require(fetched.status == 0, "\(fetched)")
        let path = fetched.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
        let stamp = try #require(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date)
        let original = try #require(try FileManager.default.attributesOfItem(atPath: fixture.tree.path("Build/Tool.app/Contents/MacOS/Tool"))[.modificationDate] as? Date)
        #expect(abs(stamp.timeIntervalSince(original)) < 1, "cached copy stamped \(stamp), the file's time is \(original)")
        try "0\n".write(toFile: cache + "/cache_clean_interval_s", atomically: true, encoding: .utf8)
        try "3600\n".write(toFile: cache + "/max_unused_age_s", atomically: true, encoding: .utf8)
        // Any query cleans first; this one asks for something the server does not have.
        _ = try Subprocess.run(find, ["debuginfo", String(repeating: "ab", count: 20)], environment: environment)
        #expect(FileManager.default.fileExists(atPath: path), "the cache cleaner deleted \(path)")
    }

    /// The headers elfutils' debuginfod sends, and its 406 for a file over the client's
    /// `X-DEBUGINFOD-MAXSIZE`, which `debuginfod-find` sends from DEBUGINFOD_MAXSIZE.
    @Test func debuginfodHeadersAndMaximumSize() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let url = server.url + "/buildid/\(fixture.machOKey)/debuginfo"
        let size = try fixture.bytes("Build/Tool.app.dSYM/Contents/Resources/DWARF/Tool").count
        let modified = try #require(try FileManager.default.attributesOfItem(atPath: fixture.dwarfPath)[.modificationDate] as? Date)
        let format = DateFormatter()
        format.locale = Locale(identifier: "en_US_POSIX")
        format.timeZone = TimeZone(identifier: "GMT")
        format.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        for arguments in [[String](), ["-I"]] {
            let answer = try curl(url, arguments)
            #expect(answer.status == 200)
            #expect(answer.headers.contains("Last-Modified: \(format.string(from: modified))\r"), "\(answer.headers)")
            #expect(answer.headers.contains("Cache-Control: public\r"))
            #expect(answer.headers.contains("X-Debuginfod-File: \(fixture.dwarfPath)\r"), "\(answer.headers)")
            #expect(answer.headers.contains("X-Debuginfod-Size: \(size)\r"))
            let date = try #require(answer.headers.split(separator: "\r\n").first { $0.hasPrefix("Date: ") })
            let when = try #require(format.date(from: String(date.dropFirst("Date: ".count))), "\(date)")
            #expect(abs(when.timeIntervalSinceNow) < 60)
        }
        for arguments in [[String](), ["-I"]] {
            #expect(try curl(url, arguments + ["-H", "X-DEBUGINFOD-MAXSIZE: \(size - 1)"]).status == 406)
            #expect(try curl(url, arguments + ["-H", "X-DEBUGINFOD-MAXSIZE: \(size)"]).status == 200)
        }
        // Not a number, or 0: no limit, as elfutils reads it.
        #expect(try curl(url, ["-H", "X-DEBUGINFOD-MAXSIZE: 0"]).status == 200)
        #expect(try curl(url, ["-H", "X-DEBUGINFOD-MAXSIZE: ten"]).status == 200)
        let find = try #require(Toolchain.tool("debuginfod-find"), "debuginfod-find (Debian's debuginfod package) is not installed")
        let environment = ["DEBUGINFOD_URLS": server.url, "DEBUGINFOD_CACHE_PATH": fixture.temporary.appending("cache"), "DEBUGINFOD_TIMEOUT": "10"]
        let refused = try Subprocess.run(find, ["debuginfo", fixture.machOKey], environment: environment.merging(["DEBUGINFOD_MAXSIZE": "10"]) { $1 })
        #expect(refused.status != 0, "\(refused)")
        #expect(server.log.contains("/buildid/\(fixture.machOKey)/debuginfo 406"))
        #expect(try Subprocess.run(find, ["debuginfo", fixture.machOKey], environment: environment).status == 0)
    }

    @Test func gdbFindsAGNUstepExecutablesSymbolsThroughDebuginfod() throws {
        let fixture = try SymbolStoreFixture()
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let gdb = try #require(Toolchain.tool("gdb"), "gdb is not installed")
        func lineOfSquare(_ environment: [String: String]) throws -> String {
            try Subprocess.run(gdb, ["-nx", "-batch", "-iex", "set debuginfod enabled on", "-ex", "info line square", fixture.strippedCopy],
                               environment: environment.merging(["DEBUGINFOD_CACHE_PATH": fixture.temporary.appending("gdb-cache")]) { $1 }).standardOutput
        }
        // Stripped, the executable has no line table; through the server gdb finds the DWARF.
        #expect(try lineOfSquare(["DEBUGINFOD_URLS": ""]).contains("No line number information"))
        let found = try lineOfSquare(["DEBUGINFOD_URLS": server.url])
        #expect(found.contains("Line 2 of \"") && found.contains("square.c\""), "\(found)\n\(server.log)")
    }

    @Test func curlSeesLayoutsRangesHeadAndRefusals() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let dwarf = try fixture.bytes("Build/Tool.app.dSYM/Contents/Resources/DWARF/Tool"), executable = try fixture.bytes("Build/Tool.app/Contents/MacOS/Tool")
        let key = fixture.machOKey.uppercased()
        let native = stride(from: 0, to: 20, by: 4).map { String(key.dropFirst($0).prefix(4)) }.joined(separator: "/") + "/" + key.suffix(12)
        let elf = fixture.writtenKey
        for (path, bytes) in [("/native/\(native)", dwarf), ("/native/\(native).app", executable), ("/native/\(native.lowercased())", dwarf),
                              ("/unified/\(key.prefix(2).lowercased())/\(key.dropFirst(2).lowercased())/debuginfo", dwarf),
                              ("/unified/\(key.prefix(2))/\(key.dropFirst(2))/executable", executable),
                              ("/native/\(elf.prefix(2))/\(elf.dropFirst(2))", try fixture.bytes("GNUstep/Md5.app/Md5")),
                              ("/buildid/\(key)/executable", executable)] {
            let answer = try curl(server.url + path)
            #expect(answer.status == 200 && answer.body == bytes, "\(path): \(answer.status)")
            #expect(answer.headers.lowercased().contains("content-length: \(bytes.count)\r"), "\(path)")
        }
        let url = server.url + "/buildid/\(key)/executable"
        // Ranges: a part, the last bytes, past the end.
        let part = try curl(url, ["-r", "100-199"])
        #expect(part.status == 206 && part.body == Array(executable[100...199]) && part.headers.contains("Content-Range: bytes 100-199/\(executable.count)"))
        let tail = try curl(url, ["-H", "Range: bytes=-16"])
        #expect(tail.status == 206 && tail.body == Array(executable.suffix(16)))
        let past = try curl(url, ["-r", "\(executable.count)-"])
        #expect(past.status == 416 && past.headers.contains("Content-Range: bytes */\(executable.count)"))
        // A last byte past any Int64 is "to the end" (RFC 9110), not a reason to ignore the range.
        let huge = try curl(url, ["-H", "Range: bytes=0-99999999999999999999"])
        #expect(huge.status == 206 && huge.body == executable && huge.headers.contains("Content-Range: bytes 0-\(executable.count - 1)/\(executable.count)"))
        // HEAD: the length, no body.
        let head = try curl(url, ["-I"])
        #expect(head.status == 200 && head.headers.contains("Content-Length: \(executable.count)\r") && head.body.isEmpty == false)
        // The unknown and the malformed; nothing climbs out.
        #expect(try curl(server.url + "/buildid/\(String(repeating: "0", count: 40))/debuginfo").status == 404)
        #expect(try curl(server.url + "/buildid/\(key)/source/etc/passwd").status == 404)
        #expect(try curl(server.url + "/etc/passwd").status == 404)
        for path in ["/buildid/../../etc/passwd", "/buildid/%2e%2e/%2e%2e/etc/passwd", "/buildid/%2E%2E%2F%2E%2E%2Fetc%2Fpasswd/debuginfo",
                     "/native/../../../etc/passwd", "/unified/%2e%2e/%2e%2e/debuginfo", "/buildid/not-hex/debuginfo", "/buildid/\(key)/executable/.."] {
            let answer = try curl(server.url + path)
            #expect(answer.status == 400 && !String(decoding: answer.body, as: UTF8.self).contains("root:"), "\(path): \(answer.status)")
        }
        #expect(try curl(url, ["-X", "POST"]).status == 405)
        #expect(server.log.contains("HEAD /buildid/\(key)/executable 200"))
    }

    /// A catalogued file later replaced by a symlink out of the tree, or moved out of it, is not
    /// served: files are opened inside the roots, never where a path leads.
    @Test func nothingOutsideTheRootsIsServed() throws {
        let fixture = try SymbolStoreFixture(compile: false)
        let server = try SymbolServerProcess(catalogue: fixture.catalogue, logFile: fixture.temporary.appending("server.log"))
        let outside = fixture.temporary.appending("outside")
        fixture.tree.file("../outside", Array("secret".utf8))
        let executable = fixture.tree.path("Build/Tool.app/Contents/MacOS/Tool")
        try FileManager.default.removeItem(atPath: executable)
        try FileManager.default.createSymbolicLink(atPath: executable, withDestinationPath: outside)
        #expect(try curl(server.url + "/buildid/\(fixture.machOKey)/executable").status == 404)
        // The dSYM is still served.
        #expect(try curl(server.url + "/buildid/\(fixture.machOKey)/debuginfo").status == 200)
        // Nor is a symlink put in its place that stays inside the tree: only the file the catalogue
        // recorded is served (SymbolServerIdentityTests), until the watcher reads it again.
        try FileManager.default.removeItem(atPath: executable)
        try FileManager.default.createSymbolicLink(atPath: executable, withDestinationPath: "../../../Tool.app.dSYM/Contents/Resources/DWARF/Tool")
        #expect(try curl(server.url + "/buildid/\(fixture.machOKey)/executable").status == 404)
    }
}
