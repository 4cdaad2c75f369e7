import BundleModel
import Fixtures
import Foundation
import SystemCalls
import Testing
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

extension MountedViewTests {
    /// SPEC.md "Nothing leaks": a second, unprivileged user reads through an `--allow-other` view
    /// exactly what they could read in SOURCE, and gets EACCES for the rest.
    @Suite struct AccessTests {
        let fixture = ViewFixture()

        init() throws {
            // Everything up to the source is open to others, as a shared tree would be.
            chmod(fixture.directory.path, 0o755)
            let tree = fixture.tree
            tree.macApp("Shared/Open.app", identifier: "org.example.open", info: ["CFBundleIconFile": .string("Open")],
                        localizedStrings: ["en": ["CFBundleDisplayName": "Open"]])
            tree.file("Shared/Open.app/Contents/Resources/Open.icns", IconFixtures.packedIcns(IconFixtures.gradient(side: 128)))
            tree.macApp("Shared/Private.app", identifier: "org.example.private", info: ["CFBundleIconFile": .string("Private")])
            tree.file("Shared/Private.app/Contents/Resources/Private.icns", IconFixtures.packedIcns(IconFixtures.gradient(side: 128)), mode: 0o600)
            tree.text("Shared/Private.app/Contents/Resources/secret.txt", "secret\n", mode: 0o600)
            tree.macApp("Shared/Locked.app", identifier: "org.example.locked")
            tree.text("Shared/Locked.app/Contents/Resources/Vault/inside.txt", "inside\n")
            chmod(tree.path("Shared/Locked.app/Contents/Resources/Vault"), 0o700)
            tree.macApp("Shared/Strings.app", identifier: "org.example.strings", info: ["CFBundleDisplayName": .string("Strings")],
                        localizedStrings: ["en": ["CFBundleDisplayName": "Secret Name"]])
            chmod(tree.path("Shared/Strings.app/Contents/Resources/en.lproj/InfoPlist.strings"), 0o600)
            tree.macApp("Hidden/Inner.app", identifier: "org.example.inner")
            chmod(tree.path("Hidden"), 0o700)
        }

        @Test func aSecondUserReadsNoMoreThanInSource() throws {
            let user = try SystemUser()
            let view = try fixture.mount(languages: "en", arguments: ["--allow-other"])
            let source = fixture.tree
            // (what, path in SOURCE, path in the view, is a directory); a package's tar is readable
            // natively when all of the package is (tar can archive it).
            let cases: [(String, String?, String, Bool)] = [
                ("an open app's tar", "Shared/Open.app", "Shared/Open", false),
                ("an open app's effective Info.plist", "Shared/Open.app/Contents/Info.plist", ".bundlefs/by-path/Shared/Open.app/Info.plist", false),
                ("an open app's Icon.png", "Shared/Open.app/Contents/Resources/Open.icns", ".bundlefs/by-path/Shared/Open.app/Icon.png", false),
                ("an Icon.png made from a 0600 icon", "Shared/Private.app/Contents/Resources/Private.icns",
                 ".bundlefs/by-path/Shared/Private.app/Icon.png", false),
                ("a tar holding a 0600 member", "Shared/Private.app", "Shared/Private", false),
                ("the 0600 member by its real path", "Shared/Private.app/Contents/Resources/secret.txt",
                 "Shared/Private.app/Contents/Resources/secret.txt", false),
                ("the 0600 member resolved by-id", "Shared/Private.app/Contents/Resources/secret.txt",
                 ".bundlefs/by-id/org.example.private/Resources/secret.txt", false),
                ("a 0700 directory in Resources, by-id", "Shared/Locked.app/Contents/Resources/Vault",
                 ".bundlefs/by-id/org.example.locked/Resources/Vault", true),
                ("a file in it", "Shared/Locked.app/Contents/Resources/Vault/inside.txt",
                 ".bundlefs/by-id/org.example.locked/Resources/Vault/inside.txt", false),
                ("an Info.plist localized from a 0600 strings file", "Shared/Strings.app/Contents/Resources/en.lproj/InfoPlist.strings",
                 ".bundlefs/by-path/Shared/Strings.app/Info.plist", false),
                ("a 0700 directory by-path", "Hidden", ".bundlefs/by-path/Hidden", true),
                ("a bundle under it by-path", "Hidden/Inner.app", ".bundlefs/by-path/Hidden/Inner.app", true),
                ("a bundle under it by-id", "Hidden/Inner.app", ".bundlefs/by-id/org.example.inner", true),
            ]
            var readable: [String] = []
            for (what, native, viewed, isDirectory) in cases {
                let nativeAllowed = try native.map { relative -> Bool in
                    if isDirectory { return try user.canList(source.path(relative)) }
                    if relative.hasSuffix(".app") { return try user.canArchive(source.path(relative)) }
                    return try user.canRead(source.path(relative))
                } ?? false
                let viewAllowed = isDirectory ? try user.canList(view.path(viewed)) : try user.canRead(view.path(viewed))
                #expect(!viewAllowed || nativeAllowed, "\(what): readable through the view only")
                if viewAllowed { readable.append(what) }
            }
            // Not vacuous: what SOURCE shares, the view shares too.
            #expect(readable == ["an open app's tar", "an open app's effective Info.plist", "an open app's Icon.png"], "\(readable)")
            // The kernel shows one listing of by-id to every user: others may only search it.
            #expect(try !user.canList(view.path(".bundlefs/by-id")))
            // The owner (root here) still reads everything through the view.
            #expect(try contents(view.path(".bundlefs/by-id/org.example.private/Resources/secret.txt")) == Array("secret\n".utf8))
            let tar = try contents(view.path("Shared/Private"))
            #expect(tar.count > 1024)
        }

        /// Each user reaches by-id of every bundle they could read in SOURCE (their own under a
        /// 0700 home, the shared ones, one inside an archive), and none of another user's; nobody
        /// but the mount's owner may list the identifiers.
        @Test func byIDOpensToWhomSourceDoes() throws {
            let alice = try SystemUser(), bob = try SystemUser()
            let tree = fixture.tree
            for (user, identifier) in [(alice, "org.example.alice"), (bob, "org.example.bob")] {
                tree.macApp("Homes/\(user.name)/Mine.app", identifier: identifier)
                try Self.give(tree.path("Homes/\(user.name)"), to: user)
                chmod(tree.path("Homes/\(user.name)"), 0o700)
            }
            tree.macApp("Staging/Payload/Boxed.app", identifier: "org.example.boxed")
            let zipped = try Subprocess.run("/usr/bin/zip", ["-qry", tree.path("Shared/Boxed.ipa"), "Payload"], directory: tree.path("Staging"))
            try #require(zipped.status == 0, "\(zipped)")
            let view = try fixture.mount(languages: "en", arguments: ["--allow-other"])
            let byID = view.path(".bundlefs/by-id")
            for (user, own, theirs) in [(alice, "org.example.alice", "org.example.bob"), (bob, "org.example.bob", "org.example.alice")] {
                #expect(try user.canList(Paths.join(byID, own)), "\(user.name): by-id/\(own)")
                #expect(try user.canRead(Paths.join(Paths.join(byID, own), "Info.plist")), "\(user.name): by-id/\(own)/Info.plist")
                #expect(try user.canList(Paths.join(byID, "org.example.open")), "\(user.name): a shared bundle")
                #expect(try user.canRead(Paths.join(Paths.join(byID, "org.example.boxed"), "Info.plist")), "\(user.name): a bundle in a shared archive")
                #expect(try !user.canList(Paths.join(byID, theirs)), "\(user.name): another user's bundle")
                #expect(try !user.canRead(Paths.join(Paths.join(byID, theirs), "Info.plist")), "\(user.name): another user's Info.plist")
                #expect(try !user.canList(Paths.join(byID, "org.example.inner")), "\(user.name): a bundle under root's 0700 folder")
                #expect(try !user.canList(byID), "\(user.name): the listing names every identifier")
            }
            #expect(try Set(listing(byID)).isSuperset(of: ["org.example.alice", "org.example.bob", "org.example.boxed", "org.example.inner"]))
        }

        /// A package owned by one user whose `Contents` is world-writable (sticky, as a shared drop
        /// folder is) holds another user's 0600 file and 0700 folder: its owner cannot read them
        /// in SOURCE, so not in the package's tar either.
        @Test func aPackageOwnerReadsNoOtherUsersMembersInItsTar() throws {
            let owner = try SystemUser(), other = try SystemUser()
            let tree = fixture.tree
            for name in ["File", "Folder", "Own"] {
                tree.macApp("Drop/\(name).app", identifier: "org.example.drop-\(name.lowercased())")
                try Self.give(tree.path("Drop/\(name).app"), to: owner)
                chmod(tree.path("Drop/\(name).app/Contents"), 0o1777)
            }
            tree.text("Drop/File.app/Contents/theirs.txt", "theirs\n", mode: 0o600)
            try Self.give(tree.path("Drop/File.app/Contents/theirs.txt"), to: other)
            tree.text("Drop/Folder.app/Contents/Theirs/inside.txt", "inside\n")
            try Self.give(tree.path("Drop/Folder.app/Contents/Theirs"), to: other)
            chmod(tree.path("Drop/Folder.app/Contents/Theirs"), 0o700)
            let view = try fixture.mount(languages: "en", arguments: ["--allow-other"])
            for name in ["File", "Folder"] {
                #expect(try !owner.canArchive(tree.path("Drop/\(name).app")), "\(name): the owner could archive it natively")
                #expect(try !owner.canRead(view.path("Drop/\(name)")), "\(name): the owner reads another user's member in the tar")
                #expect(try FileStatus.of(view.path("Drop/\(name)")).permissions & 0o444 == 0)
            }
            // Not vacuous: a package all the owner's own is theirs to read.
            #expect(try owner.canArchive(tree.path("Drop/Own.app")))
            #expect(try owner.canRead(view.path("Drop/Own")))
        }

        static func give(_ path: String, to user: SystemUser) throws {
            let result = try Subprocess.run("/bin/chown", ["-R", "\(user.userID):\(user.groupID)", path])
            try #require(result.status == 0, "\(result)")
        }

        /// Mounted for one user (no `--allow-other`), the daemon reads as that user: a member it
        /// cannot read fails the read with EACCES, never zeros. (The daemon runs as root without
        /// the capabilities that override file modes: /dev/fuse is root's alone on these machines,
        /// so another user cannot mount.)
        @Test func whatTheDaemonCannotReadFailsWithEACCES() throws {
            let secret = fixture.tree.path("Shared/Private.app/Contents/Resources/secret.txt")
            chown(secret, 65534, 65534)
            let view = try fixture.mount(languages: "en", launcher: ["/usr/bin/setpriv", "--bounding-set", "-dac_override,-dac_read_search"])
            // stat works (the layout needs no reading); reading meets the member it may not read.
            #expect(try FileStatus.of(view.path("Shared/Private")).size > 1024)
            #expect(throws: SystemError.self) { try contents(view.path("Shared/Private")) }
            do { _ = try contents(view.path("Shared/Private")) } catch let error as SystemError { #expect(error.errno == EACCES, "\(error)") }
            #expect(try contents(view.path("Shared/Open")).count > 1024)
        }

        @Test func theCatalogueIsCreatedForItsOwnerOnly() throws {
            let cache = fixture.directory.appending("private-cache/bundlefs")
            let catalogue = Paths.join(cache, "catalogue.sqlite")
            let watcher = try WatcherProcess(roots: [fixture.tree.root], catalogue: catalogue, logFile: fixture.directory.appending("watch.log"))
            try watcher.waitUntilWatching()
            let files = [catalogue, catalogue + ".lock"] + ["-wal", "-shm"].map({ catalogue + $0 }).filter({ (try? FileStatus.of($0)) != nil })
            for file in files {
                let permissions = try FileStatus.of(file).permissions
                #expect(permissions & 0o077 == 0, "\(file) is \(String(permissions, radix: 8))")
            }
            #expect(try FileStatus.of(cache).permissions == 0o700)
            #expect(try watcher.stop() == 0)
        }
    }
}
