import Codecs
import Fixtures
import Foundation
import Testing
import TestSupport

/// The `bundlefs` executable, run as users run it.
@Suite struct CommandTests {
    let temporary = TemporaryDirectory("commands")
    var tree: TreeWriter { TreeWriter(root: temporary.appending("tree")) }
    var catalogue: String { temporary.appending("cache/bundlefs/catalogue.sqlite") }

    func bundlefs(_ arguments: String..., environment: [String: String] = [:]) throws -> ProcessResult {
        try Subprocess.bundlefs(arguments, catalogue: catalogue, environment: environment)
    }

    func writeSampleApps() {
        tree.macApp("Applications/Chess.app", identifier: "com.example.chess",
                    info: ["CFBundleDisplayName": .string("Chess"), "CFBundleVersion": .string("2.1.0b7"), "CFBundleShortVersionString": .string("2.1")],
                    localizedStrings: ["de": ["CFBundleDisplayName": "Schach"], "en": ["CFBundleDisplayName": "Chess"]])
        tree.macApp("Applications/Old Chess.app", identifier: "com.example.chess", info: ["CFBundleVersion": .string("1.0")])
        tree.macApp("Applications/Mail.app", identifier: "com.example.mail")
        tree.macFramework("Library/Frameworks/Kit.framework", identifier: "com.example.kit")
        tree.text("Applications/Chess.app/Contents/Resources/en.lproj/board.png", "en board")
        tree.text("Applications/Chess.app/Contents/Resources/de.lproj/board.png", "de board")
    }

    @Test func indexQueryShowResolve() throws {
        writeSampleApps()
        let index = try bundlefs("index", tree.root)
        #expect(index.status == 0, "\(index)")
        #expect(index.standardOutput.contains("4 bundles and packages"))
        // No progress line when stderr is not a terminal.
        #expect(!index.standardError.contains("\u{1B}[K"))

        let table = try bundlefs("query", "com.example.chess", "--lang", "de")
        #expect(table.status == 0)
        let lines = table.standardOutput.split(separator: "\n")
        #expect(lines.count == 3) // header and two versions of one identifier
        #expect(lines[1].contains("Schach") && lines[1].contains("2.1"))

        let json = try bundlefs("query", "com.example.*", "--json", "--lang", "de")
        let array = try #require(try JSONValue.parse(json.standardOutput).arrayValue)
        #expect(array.count == 4) // both Chess versions, Mail and Kit
        let chess = try #require(array.first { $0["path"]?.stringValue == tree.path("Applications/Chess.app") })
        for field in ["path", "identifier", "kind", "isPackage", "packageReasons", "isBundle", "name", "displayName", "version",
                      "shortVersion", "developmentRegion", "localizations", "executable", "icon", "errors"] {
            #expect(chess[field] != nil, "missing \(field)")
        }
        #expect(chess["displayName"] == .string("Schach"))
        #expect(chess["kind"] == .string("application"))
        #expect(chess["isPackage"] == .bool(true))
        #expect(chess["packageReasons"] == .strings(["extension"]))
        #expect(chess["localizations"] == .strings(["de", "en"]))
        #expect(chess["executable"] == .string(tree.path("Applications/Chess.app/Contents/MacOS/Chess")))
        #expect(chess["errors"] == .array([]))

        let frameworks = try JSONValue.parse(try bundlefs("query", "--kind", "framework", "--json").standardOutput)
        #expect(frameworks.arrayValue?.count == 1)
        let under = try JSONValue.parse(try bundlefs("query", "--under", tree.path("Library"), "--json").standardOutput)
        #expect(under.arrayValue?.map { $0["identifier"] } == [.string("com.example.kit")])

        let show = try bundlefs("show", tree.path("Applications/Chess.app"), "--json", "--lang", "de")
        #expect(show.status == 0)
        let object = try JSONValue.parse(show.standardOutput)
        #expect(object["displayName"] == .string("Schach"))
        #expect(object["numericVersion"] == .integer(0x0210_6007))
        #expect(object["info"]?["CFBundleIdentifier"] == .string("com.example.chess"))

        let resolve = try bundlefs("resolve", tree.path("Applications/Chess.app"), "board.png", "--lang", "de-AT")
        #expect(resolve.status == 0)
        #expect(resolve.standardOutput == tree.path("Applications/Chess.app/Contents/Resources/de.lproj/board.png") + "\n")
        let english = try bundlefs("resolve", tree.path("Applications/Chess.app"), "board.png", environment: ["LANG": "ja_JP.UTF-8"])
        #expect(english.standardOutput.hasSuffix("en.lproj/board.png\n"))
    }

    // Rule 12 on Debian's layout: Resources (one app) or each resource (another) linked from
    // /usr/lib into /usr/share, relative and absolute. `show` lists what `resolve` finds.
    @Test func showAndResolveAgreeOnDebiansLinkedLayout() throws {
        let share = "usr/share/GNUstep/Applications"
        tree.plist("\(share)/Cenon.app/Resources/Info-gnustep.plist", .dictionary([
            "CFBundleIdentifier": .string("vhf.Cenon"), "NSExecutable": .string("Cenon"), "NSIcon": .string("Cenon.tiff")]), format: .openStep)
        tree.file("\(share)/Cenon.app/Resources/Cenon.tiff", IconFixtures.tiff([IconFixtures.gradient(side: 32)]))
        for (lproj, word) in [("English", "Open"), ("German", "Öffnen")] {
            tree.strings("\(share)/Cenon.app/Resources/\(lproj).lproj/Localizable.strings", ["Open": word])
        }
        tree.text("usr/lib/GNUstep/Applications/Cenon.app/Cenon", "elf")
        tree.symlink("usr/lib/GNUstep/Applications/Cenon.app/Resources", to: "../../../../share/GNUstep/Applications/Cenon.app/Resources")
        tree.text("\(share)/Gorm.app/Resources/Info-gnustep.plist", "{ CFBundleIdentifier = org.gnustep.Gorm; NSExecutable = Gorm; }")
        tree.text("\(share)/Gorm.app/Resources/English.lproj/Gorm.gorm", "nib")
        tree.text("usr/lib/GNUstep/Applications/Gorm.app/Gorm", "elf")
        tree.symlink("usr/lib/GNUstep/Applications/Gorm.app/Resources/Info-gnustep.plist", to: tree.path("\(share)/Gorm.app/Resources/Info-gnustep.plist"))
        tree.symlink("usr/lib/GNUstep/Applications/Gorm.app/Resources/English.lproj", to: "../../../../../share/GNUstep/Applications/Gorm.app/Resources/English.lproj")

        for (app, resources) in [("Cenon.app", ["Info-gnustep.plist", "Localizable.strings", "Cenon.tiff"]), ("Gorm.app", ["Info-gnustep.plist", "Gorm.gorm"])] {
            let path = tree.path("usr/lib/GNUstep/Applications/" + app)
            let show = try bundlefs("show", path, "--json", "--lang", "de")
            #expect(show.status == 0, "\(show)")
            let object = try JSONValue.parse(show.standardOutput)
            #expect(object["errors"] == .array([]), "\(app): \(show.standardOutput)")
            let localizations = object["localizations"]?.arrayValue?.compactMap(\.stringValue) ?? []
            #expect(!localizations.isEmpty, "\(app)")
            for localization in localizations {
                let language = localization == "German" ? "de" : "en"
                for resource in resources {
                    let resolve = try bundlefs("resolve", path, resource, "--lang", language)
                    #expect(resolve.status == 0, "\(app) \(resource) \(language): \(resolve)")
                }
            }
            if app == "Cenon.app" {
                #expect(localizations == ["English", "German"])
                #expect(object["icon"] == .string(path + "/Resources/Cenon.tiff"))
                let german = try bundlefs("resolve", path, "Localizable.strings", "--lang", "de")
                #expect(german.standardOutput == path + "/Resources/German.lproj/Localizable.strings\n")
            }
        }
    }

    // Rule 22: `show` converts the icon it reports; a broken one is a warning, never an error.
    @Test func showWarnsAboutABrokenIcon() throws {
        tree.macApp("Junk.app", identifier: "com.example.junk", info: ["CFBundleIconFile": .string("Junk")])
        tree.text("Junk.app/Contents/Resources/Junk.icns", "this is not an icon")
        tree.macApp("Good.app", identifier: "com.example.good", info: ["CFBundleIconFile": .string("Good")])
        tree.file("Good.app/Contents/Resources/Good.icns", IconFixtures.packedIcns(IconFixtures.gradient(side: 128)))
        let junk = try JSONValue.parse(try bundlefs("show", tree.path("Junk.app"), "--json").standardOutput)
        #expect(junk["errors"] == .array([]))
        #expect(junk["warnings"] == .strings(["icon \(tree.path("Junk.app/Contents/Resources/Junk.icns")): not an .icns, TIFF or PNG file"]))
        let good = try JSONValue.parse(try bundlefs("show", tree.path("Good.app"), "--json").standardOutput)
        #expect(good["warnings"] == .array([]))
        #expect(good["icon"] == .string(tree.path("Good.app/Contents/Resources/Good.icns")))
    }

    @Test func languagesComeFromTheEnvironment() throws {
        writeSampleApps()
        #expect(try bundlefs("index", tree.root).status == 0)
        let german = try bundlefs("query", "com.example.chess", "--json", environment: ["LANG": "de_DE.UTF-8"])
        #expect(try JSONValue.parse(german.standardOutput).arrayValue?.first?["displayName"] == .string("Schach"))
        let language = try bundlefs("query", "com.example.chess", "--json", environment: ["LANGUAGE": "fr:de", "LANG": "en_US.UTF-8"])
        #expect(try JSONValue.parse(language.standardOutput).arrayValue?.first?["displayName"] == .string("Schach"))
    }

    @Test func userErrorsAreOneLineAndStatusOne() throws {
        writeSampleApps()
        let cases: [([String], String)] = [
            (["query"], "no catalogue at"),
            (["index", temporary.appending("missing")], "missing"),
            (["index"], "root"),
            (["query", "--bogus"], "--bogus"),
            (["show", tree.root], "neither a bundle nor a package"),
            (["show", temporary.appending("missing.app")], "missing.app"),
            (["show", tree.path("Applications/Chess.app"), "--lang", "de,!!"], "!!"),
            (["resolve", tree.path("Applications/Chess.app"), "../Info.plist"], "'..'"),
            (["resolve", tree.path("Applications/Chess.app"), "missing.png"], "no missing.png"),
            (["frobnicate"], "frobnicate"),
        ]
        for (arguments, needle) in cases {
            let result = try Subprocess.bundlefs(arguments, catalogue: catalogue)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.standardError.contains(needle), "\(arguments): \(result)")
            #expect(result.standardError.hasPrefix("bundlefs: "), "\(arguments): \(result)")
            // One line, and every error once.
            #expect(result.standardError.split(separator: "\n").count == 1, "\(arguments): \(result)")
            #expect(!result.standardError.contains("Fatal error") && !result.standardError.contains("Stack dump"), "\(arguments)")
        }
        // A usage mistake names the command's own help.
        #expect(try bundlefs("query", "--bogus").standardError.contains("(see `bundlefs query --help`)"))
        #expect(try bundlefs("index").standardError.contains("(see `bundlefs index --help`)"))
        #expect(try bundlefs("frobnicate").standardError.contains("(see `bundlefs --help`)"))
        #expect(try bundlefs("--help").status == 0)
        #expect(try bundlefs("query", "--help").standardOutput.contains("--json"))
    }

    /// Every error once, on standard error: a missing path's reason once, an archive's error not
    /// also on standard output.
    @Test func errorsAreSaidOnceOnStandardError() throws {
        writeSampleApps()
        #expect(try bundlefs("index", tree.root).status == 0)
        let missing = try bundlefs("open-with", temporary.appending("nonexistent.txt"))
        #expect(missing.status == 1 && missing.standardError.components(separatedBy: "nonexistent.txt").count == 2, "\(missing)")
        tree.text("bad.zip", "PK\u{3}\u{4}" + String(repeating: "x", count: 200))
        let bad = try bundlefs("show", tree.path("bad.zip"))
        #expect(bad.status == 1 && bad.standardError.contains("bad.zip:"), "\(bad)")
        #expect(!bad.standardOutput.contains("Truncated") && !bad.standardOutput.lowercased().contains("error"), "\(bad)")
        #expect(bad.standardError.split(separator: "\n").count == 1, "\(bad)")
    }

    /// Help shows each default once, as the code has it, and lists every configuration key.
    @Test func helpTakesItsDefaultsFromTheCode() throws {
        let mount = try bundlefs("mount", "--help").standardOutput
        #expect(mount.components(separatedBy: "(default: 4)").count == 2 && !mount.contains("default 4"), "\(mount)")
        let top = try bundlefs("--help").standardOutput.replacingOccurrences(of: "\n", with: " ")
        let serve = try bundlefs("serve", "--help").standardOutput.replacingOccurrences(of: "\n", with: " ")
        for key in ["source", "mountpoint", "languages", "catalogue", "threads", "allow-other", "publish", "host", "symbols"] {
            #expect(top.contains(" \(key),") || top.contains(" \(key)."), "\(key) missing from bundlefs --help")
            #expect(serve.contains(" \(key),") || serve.contains(" \(key) "), "\(key) missing from bundlefs serve --help")
        }
        // serve's threads default as mount's: one constant.
        #expect(serve.replacingOccurrences(of: #"\s+"#, with: " ", options: .regularExpression).contains("(default 4, or the configuration's)"), "\(serve)")
    }

    /// `mount` over a folder that holds something hides it: refused unless `--nonempty`.
    @Test func mountRefusesAFolderThatIsNotEmpty() throws {
        writeSampleApps()
        let point = temporary.appending("point")
        tree.text("../point/keep.txt", "mine")
        let refused = try bundlefs("mount", tree.root, point)
        #expect(refused.status == 1 && refused.standardError.contains("is not empty") && refused.standardError.contains("--nonempty"), "\(refused)")
        // Told, it goes past that check (and stops at the next: a source that is not there).
        let told = try bundlefs("mount", temporary.appending("no-source"), point, "--nonempty", "-f")
        #expect(told.status == 1 && !told.standardError.contains("is not empty"), "\(told)")
        #expect(FileManager.default.fileExists(atPath: point + "/keep.txt"))
    }

    @Test func catalogueThatCannotBeCreatedOrIsNotOne() throws {
        tree.macApp("A.app", identifier: "com.example.a")
        let notDirectory = temporary.appending("file")
        tree.text("../file", "x")
        let blocked = try Subprocess.bundlefs(["index", tree.root], catalogue: notDirectory + "/catalogue.sqlite")
        #expect(blocked.status == 1, "\(blocked)")
        #expect(blocked.standardError.contains("cannot create the catalogue"))
        tree.text("../garbage.sqlite", String(repeating: "not a database ", count: 100))
        let garbage = try Subprocess.bundlefs(["index", tree.root], catalogue: temporary.appending("garbage.sqlite"))
        #expect(garbage.status == 1, "\(garbage)")
        #expect(garbage.standardError.contains("is not a bundlefs catalogue (it is not a SQLite database)"), "\(garbage)")
    }

    @Test func hostileNamesDoNotReachTheTerminalRaw() throws {
        tree.macApp("Evil.app", identifier: "com.example.evil", info: ["CFBundleDisplayName": .string("\u{1B}[31mEvil\u{7}")])
        tree.macApp("Esc\u{1B}[2J.app", identifier: "com.example.esc")
        #expect(try bundlefs("index", tree.root).status == 0)
        let table = try bundlefs("query")
        #expect(!table.standardOutput.contains("\u{1B}"))
        #expect(table.standardOutput.contains("\\x1b[2J"))
        let json = try bundlefs("query", "--json")
        #expect(!json.standardOutput.contains("\u{1B}"))
        #expect(json.standardOutput.contains("\\u001b"))
    }

    @Test func progressLineOnATerminalOnly() throws {
        writeSampleApps()
        // `script` gives the command a pseudo-terminal.
        let command = "\(Subprocess.bundlefs) index \(tree.root)"
        let result = try Subprocess.run("/usr/bin/script", ["-qec", command, "/dev/null"], environment: ["BUNDLEFS_CATALOGUE": catalogue])
        #expect(result.status == 0, "\(result)")
        #expect(result.standardOutput.contains("\u{1B}[K"))
        #expect(result.standardOutput.contains("indexing"))
    }
}
