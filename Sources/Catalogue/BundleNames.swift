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

    static let schemaSQL = """
        CREATE TABLE bundle_names (bundle_id INTEGER PRIMARY KEY, names TEXT NOT NULL);
        CREATE TRIGGER bundle_names_insert AFTER INSERT ON bundles BEGIN \(refresh("NEW.id")) END;
        CREATE TRIGGER bundle_names_update AFTER UPDATE OF name, identifier, info_bundle_name, info_display_name ON bundles BEGIN \(refresh("NEW.id")) END;
        CREATE TRIGGER bundle_names_delete AFTER DELETE ON bundles BEGIN DELETE FROM bundle_names WHERE bundle_id = OLD.id; END;
        CREATE TRIGGER bundle_names_string_insert AFTER INSERT ON localized_strings WHEN NEW.key IN \(localizedKeys) BEGIN \(refresh("NEW.bundle_id")) END;
        CREATE TRIGGER bundle_names_string_delete AFTER DELETE ON localized_strings WHEN OLD.key IN \(localizedKeys) BEGIN \(refresh("OLD.bundle_id")) END;
        """
}
