/// `bundle_names` (schema v18): each bundle's names, one a line, for serve-web's word search:
/// its file name, identifier, Info.plist's CFBundleName and CFBundleDisplayName, and those of each
/// localization's InfoPlist.strings. Triggers keep it equal to the rows it is made of.
enum BundleNames {
    static let localizedKeys = "('CFBundleDisplayName', 'CFBundleName')"

    /// The names of the row `row` (an alias of `bundles`), joined by newlines.
    static func namesOf(_ row: String) -> String {
        """
        \(row).name || char(10) || ifnull(\(row).identifier, '') || char(10) || ifnull(\(row).info_bundle_name, '') || char(10)
            || ifnull(\(row).info_display_name, '') || char(10)
            || ifnull((SELECT group_concat(value, char(10)) FROM localized_strings s WHERE s.bundle_id = \(row).id AND s.key IN \(localizedKeys)), '')
        """
    }

    static func refresh(_ id: String) -> String {
        "INSERT OR REPLACE INTO bundle_names (bundle_id, names) SELECT b.id, \(namesOf("b")) FROM bundles b WHERE b.id = \(id);"
    }

    /// The triggers, by name. A first index drops them and fills the table once at its end
    /// (`Catalogue.buildingIndexesAfterwards`): a refresh per bundle and per localized name,
    /// each reading the bundle's strings again, cost more than the row itself.
    static let triggers: [(name: String, sql: String)] = [
        ("bundle_names_insert", "AFTER INSERT ON bundles BEGIN \(refresh("NEW.id")) END"),
        ("bundle_names_update", "AFTER UPDATE OF name, identifier, info_bundle_name, info_display_name ON bundles BEGIN \(refresh("NEW.id")) END"),
        ("bundle_names_delete", "AFTER DELETE ON bundles BEGIN DELETE FROM bundle_names WHERE bundle_id = OLD.id; END"),
        ("bundle_names_string_insert", "AFTER INSERT ON localized_strings WHEN NEW.key IN \(localizedKeys) BEGIN \(refresh("NEW.bundle_id")) END"),
        ("bundle_names_string_delete", "AFTER DELETE ON localized_strings WHEN OLD.key IN \(localizedKeys) BEGIN \(refresh("OLD.bundle_id")) END"),
    ]

    static let schemaSQL = "CREATE TABLE bundle_names (bundle_id INTEGER PRIMARY KEY, names TEXT NOT NULL);\n"
        + triggers.map { "CREATE TRIGGER \($0.name) \($0.sql);\n" }.joined()

    /// Every row again, from the bundles and strings as they are.
    static let fillSQL = "INSERT INTO bundle_names (bundle_id, names) SELECT id, \(namesOf("bundles")) FROM bundles"

    /// The triggers, made again where missing, and the rows they would have kept.
    static let restoreSQL = "DELETE FROM bundle_names; \(fillSQL);\n"
        + triggers.map { "CREATE TRIGGER IF NOT EXISTS \($0.name) \($0.sql);\n" }.joined()
}
