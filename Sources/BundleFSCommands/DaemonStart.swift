import CatalogueCommands
import Foundation
import Logging
import Service

extension Daemon {
    /// How `watch`, `mount`, `serve` and `serve-symbols` run the daemon: its errors a user can act
    /// on as one line and status 1.
    static func start(_ plan: Plan, common: CommonOptions, label: String, defaultLevel: Logger.Level = .warning,
                      ready: @escaping @Sendable () -> Void = {}) throws {
        let daemon: Daemon
        do {
            daemon = try Daemon(plan: plan, environment: ProcessInfo.processInfo.environment,
                                logger: common.logger(label, defaultLevel: defaultLevel),
                                publishLogger: common.logger("bundlefs.publish", defaultLevel: .warning))
        } catch let error as DaemonError {
            throw UserError("\(error)")
        }
        try daemon.run(ready: ready)
    }
}
