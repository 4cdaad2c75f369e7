import Foundation
import SystemCalls
import Testing
import TestSupport

/// `make install`/`make uninstall`, the installed units as systemd reads them, and the man page.
struct InstallTests {
    /// The package root: the Makefile, Systemd/ and Docs/ are read from there.
    static let packageRoot: String = {
        var directory = Subprocess.productsDirectory
        while directory != "/" && !FileManager.default.fileExists(atPath: Paths.join(directory, "Package.swift")) {
            directory = Paths.parent(directory)
        }
        return directory
    }()

    static let installed = [
        "bin/bundlefs", "share/man/man1/bundlefs.1", "share/systemd/user/bundlefs.service", "share/systemd/user/bundlefs@.service",
        "share/bash-completion/completions/bundlefs", "share/zsh/site-functions/_bundlefs", "share/fish/vendor_completions.d/bundlefs.fish",
    ]

    func make(_ arguments: [String]) throws -> ProcessResult {
        try Subprocess.run("/usr/bin/make", ["-s", "-C", Self.packageRoot] + arguments, timeout: 120)
    }

    @Test func installPutsEverythingInPlaceAndUninstallRemovesIt() throws {
        let directory = TemporaryDirectory("install")
        let prefix = directory.appending("prefix")
        let install = try make(["install", "PREFIX=\(prefix)", "BINARY=\(Subprocess.bundlefs)"])
        #expect(install.status == 0, "\(install)")
        for file in Self.installed {
            #expect(FileManager.default.fileExists(atPath: Paths.join(prefix, file)), "\(file) is installed")
        }
        #expect(FileManager.default.isExecutableFile(atPath: Paths.join(prefix, "bin/bundlefs")))
        let unit = try String(contentsOfFile: Paths.join(prefix, "share/systemd/user/bundlefs.service"), encoding: .utf8)
        #expect(unit.contains("ExecStart=\(prefix)/bin/bundlefs serve"), "the unit runs the installed binary")
        let completion = try String(contentsOfFile: Paths.join(prefix, "share/bash-completion/completions/bundlefs"), encoding: .utf8)
        #expect(completion.contains("serve") && completion.contains("mount"))

        let uninstall = try make(["uninstall", "PREFIX=\(prefix)"])
        #expect(uninstall.status == 0, "\(uninstall)")
        for file in Self.installed {
            #expect(!FileManager.default.fileExists(atPath: Paths.join(prefix, file)), "\(file) is removed")
        }
    }

    @Test func systemdAcceptsTheInstalledUnits() throws {
        let directory = TemporaryDirectory("units")
        let prefix = directory.appending("prefix")
        let install = try make(["install", "PREFIX=\(prefix)", "BINARY=\(Subprocess.bundlefs)"])
        try #require(install.status == 0, "\(install)")
        let runtime = directory.appending("runtime")
        try FileManager.default.createDirectory(atPath: runtime, withIntermediateDirectories: true)
        // A template is verified as an instance of it.
        let units = Paths.join(prefix, "share/systemd/user")
        let instance = directory.appending("bundlefs@work.service")
        try FileManager.default.copyItem(atPath: Paths.join(units, "bundlefs@.service"), toPath: instance)
        let verify = try Subprocess.run(
            "/usr/bin/systemd-analyze", ["verify", "--user", Paths.join(units, "bundlefs.service"), instance],
            environment: ["XDG_RUNTIME_DIR": runtime, "MANPATH": Paths.join(prefix, "share/man")])
        #expect(verify.status == 0 && verify.standardError.isEmpty && verify.standardOutput.isEmpty, "\(verify)")
        for unit in [Paths.join(units, "bundlefs.service"), instance] {
            let text = try String(contentsOfFile: unit, encoding: .utf8)
            #expect(text.contains("Type=notify") && text.contains("Restart=on-failure") && text.contains("WatchdogSec="))
        }
    }

    /// The committed man page (`make man`) names every command and every long option.
    @Test func theManPageCoversEveryCommandAndOption() throws {
        let page = try String(contentsOfFile: Paths.join(Self.packageRoot, "Docs/bundlefs.1"), encoding: .utf8)
        let help = try Subprocess.run(Subprocess.bundlefs, ["--help"])
        let commands = help.standardOutput.split(separator: "\n").drop { !$0.hasPrefix("SUBCOMMANDS:") }.dropFirst()
            .compactMap { $0.split(separator: " ").first.map(String.init) }
            .filter { $0 != "See" && $0 != "help" }
        #expect(commands.count >= 8, "\(help)")
        for command in commands {
            #expect(page.contains(command), "the man page describes \(command)")
            let options = try Subprocess.run(Subprocess.bundlefs, [command, "--help"]).standardOutput
            for option in options.split(whereSeparator: { " ,\n".contains($0) }) where option.hasPrefix("--") {
                let name = option.split(separator: "=").first.map(String.init) ?? String(option)
                // mdoc writes `--lang` as `Fl -lang`, `-v, --verbose` as `Fl v , -verbose`.
                #expect(page.contains(String(name.dropFirst())), "the man page describes \(command) \(name); run `make man`")
            }
        }
    }
}
