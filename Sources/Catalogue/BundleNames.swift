/// `bundle_names` (schema v19): each of a bundle's names a row (its file name, identifier,
/// Info.plist's CFBundleName and CFBundleDisplayName, and those of each localization's
/// InfoPlist.strings), and `bundle_name_index`, SQLite's FTS5 trigram index of them, so that a word
/// search reads the names that hold the word, not every name. Triggers keep both equal to the rows
/// they are made of, whichever writer writes; a row per name makes each write of a string one
/// insert, not the whole bundle's names again.
enum BundleNames {
    static let localizedKeys = "('CFBundleDisplayName', 'CFBundleName')"
    /// The bundle's own names (`localization` NULL: `""` is a global InfoPlist.strings'), by key and column.
    static let ownNames = [("name", "name"), ("identifier", "identifier"), ("CFBundleName", "info_bundle_name"),
                           ("CFBundleDisplayName", "info_display_name")]

    /// The rows of the own names of `row` (an alias of `bundles`, or `NEW`), read `from` a table or nothing.
    static func ownRows(_ row: String, from: String = "") -> String {
        let selects = ownNames.map { key, column in
            "SELECT \(row).id, NULL, '\(key)', \(row).\(column) \(from) WHERE \(row).\(column) <> ''"
        }
        return "INSERT INTO bundle_names (bundle_id, localization, key, name) " + selects.joined(separator: " UNION ALL ")
    }

    static let tableSQL = """
        CREATE TABLE bundle_names (id INTEGER PRIMARY KEY, bundle_id INTEGER NOT NULL, localization TEXT, key TEXT NOT NULL, name TEXT NOT NULL);
        CREATE INDEX bundle_names_by_bundle ON bundle_names (bundle_id, localization, key);
        CREATE VIRTUAL TABLE bundle_name_index USING fts5(name, content='bundle_names', content_rowid='id', tokenize='trigram');
        """

    /// Fills the tables from the rows there are, with no trigger live: by one INSERT…SELECT per
    /// kind of name, then the trigram index in one pass ('rebuild' reads the whole content table).
    static let fillSQL = """
        \(ownRows("b", from: "FROM bundles b"));
        INSERT INTO bundle_names (bundle_id, localization, key, name)
            SELECT bundle_id, localization, key, value FROM localized_strings WHERE key IN \(localizedKeys) AND value <> '';
        INSERT INTO bundle_name_index (bundle_name_index) VALUES ('rebuild');
        """

    /// The triggers, by name. A first index drops them and fills both tables once at its end
    /// (`Catalogue.buildingIndexesAfterwards`): a row and an FTS5 insert per name at each commit
    /// cost more than one INSERT…SELECT and one 'rebuild'.
    static let triggers: [(name: String, sql: String)] = [
        ("bundle_names_insert", "AFTER INSERT ON bundles BEGIN \(ownRows("NEW")); END"),
        ("bundle_names_update", """
            AFTER UPDATE OF name, identifier, info_bundle_name, info_display_name ON bundles
                WHEN OLD.name IS NOT NEW.name OR OLD.identifier IS NOT NEW.identifier OR OLD.info_bundle_name IS NOT NEW.info_bundle_name
                    OR OLD.info_display_name IS NOT NEW.info_display_name
            BEGIN
                DELETE FROM bundle_names WHERE bundle_id = OLD.id AND localization IS NULL;
                \(ownRows("NEW"));
            END
            """),
        ("bundle_names_delete", "AFTER DELETE ON bundles BEGIN DELETE FROM bundle_names WHERE bundle_id = OLD.id; END"),
        ("bundle_names_string_insert", """
            AFTER INSERT ON localized_strings WHEN NEW.key IN \(localizedKeys) AND NEW.value <> '' BEGIN
                INSERT INTO bundle_names (bundle_id, localization, key, name) VALUES (NEW.bundle_id, NEW.localization, NEW.key, NEW.value);
            END
            """),
        ("bundle_names_string_delete", """
            AFTER DELETE ON localized_strings WHEN OLD.key IN \(localizedKeys) BEGIN
                DELETE FROM bundle_names WHERE bundle_id = OLD.bundle_id AND localization = OLD.localization AND key = OLD.key;
            END
            """),
        ("bundle_names_string_update", """
            AFTER UPDATE ON localized_strings BEGIN
                DELETE FROM bundle_names WHERE bundle_id = OLD.bundle_id AND localization = OLD.localization AND key = OLD.key;
                INSERT INTO bundle_names (bundle_id, localization, key, name)
                    SELECT NEW.bundle_id, NEW.localization, NEW.key, NEW.value WHERE NEW.key IN \(localizedKeys) AND NEW.value <> '';
            END
            """),
        ("bundle_name_index_insert", "AFTER INSERT ON bundle_names BEGIN INSERT INTO bundle_name_index (rowid, name) VALUES (NEW.id, NEW.name); END"),
        ("bundle_name_index_delete", """
            AFTER DELETE ON bundle_names BEGIN
                INSERT INTO bundle_name_index (bundle_name_index, rowid, name) VALUES ('delete', OLD.id, OLD.name);
            END
            """),
    ]

    static let triggersSQL = triggers.map { "CREATE TRIGGER \($0.name) \($0.sql);\n" }.joined()

    static let dropTriggersSQL = triggers.map { "DROP TRIGGER IF EXISTS \($0.name);\n" }.joined()

    /// After a first index was killed with the triggers dropped: both tables again from the rows
    /// there are (the 'rebuild' empties the trigram index first), and the triggers. Any trigger
    /// still there is dropped first, so that the emptying touches no half-made index.
    static let restoreSQL = dropTriggersSQL + "DELETE FROM bundle_names;\n" + fillSQL + triggersSQL

    /// v18's table and triggers (one row of every name a line, scanned), which v19 replaces.
    static let v18DropSQL = """
        DROP TRIGGER IF EXISTS bundle_names_insert; DROP TRIGGER IF EXISTS bundle_names_update; DROP TRIGGER IF EXISTS bundle_names_delete;
        DROP TRIGGER IF EXISTS bundle_names_string_insert; DROP TRIGGER IF EXISTS bundle_names_string_delete;
        DROP TABLE IF EXISTS bundle_names;
        """
}
