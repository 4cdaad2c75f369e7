import Publishing
import Testing

/// Passwords never leave a connection string shown to anyone (SPEC "Many hosts").
struct PostgresURLTests {
    @Test func redactsEveryForm() {
        let cases: [(String, String)] = [
            ("postgresql://ada:hunter2@db.example.com:5433/catalogue", "postgresql://ada@db.example.com:5433/catalogue"),
            ("postgres://ada:p%40ss@db/c?sslmode=require", "postgres://ada@db/c?sslmode=require"),
            ("postgresql://ada@db/c?password=hunter2&sslmode=require", "postgresql://ada@db/c?sslmode=require"),
            ("postgresql://ada@db/c?sslmode=require&PASSWORD=x", "(a connection string libpq cannot parse)"),
            ("postgresql:///c?host=/run/postgresql&user=ada", "postgresql:///c?host=/run/postgresql&user=ada"),
            ("postgresql://a:b@[::1]:5432/c", "postgresql://a@[::1]:5432/c"),
            ("host=db password=hunter2 dbname=c", "host=db dbname=c"),
            ("host=db password = 'hunter \\' 2' dbname=c", "host=db dbname=c"),
            ("password=hunter2", ""),
            ("postgresql://ada:hun?ter2@db/c", "postgresql://ada@db/c"),
            ("postgresql://ada:hunter2#x@db/c?sslmode=require", "postgresql://ada@db/c?sslmode=require"),
            ("postgresql://ada@db/c?%70assword=hunter2", "postgresql://ada@db/c"),
            ("postgresql://db?password=hunter2", "postgresql://db"),
            ("host=db password=hun\\ ter2 dbname=c", "host=db dbname=c"),
            ("host=db password=hunter2://x dbname=c", "host=db dbname=c"),
            ("service=catalogue", "service=catalogue"),
            ("", ""),
        ]
        for (given, shown) in cases {
            #expect(PostgresURL.redacted(given) == shown, "\(given)")
            #expect(!PostgresURL.redacted(given).contains("hunter"), "\(given)")
            #expect(PostgresURL.hasPassword(given) == (given != shown), "\(given)")
        }
    }

    /// A string libpq cannot parse is refused with a message that quotes none of it.
    @Test func malformedStringsAreNotQuoted() throws {
        for malformed in ["postgresql://ada:hunter%zz@db/c", "host=db password=hunter2 x"] {
            #expect(throws: PostgresError.self) { try PostgresURL.parsedPassword(malformed) }
            do { _ = try PostgresURL.parsedPassword(malformed) } catch { #expect(!"\(error)".contains("hunter"), "\(error)") }
        }
        #expect(try PostgresURL.parsedPassword("postgresql://ada:p%40ss@db/c") == "p@ss")
        #expect(try PostgresURL.parsedPassword("host=db") == nil)
    }

    @Test func recognisesConnectionStrings() {
        #expect(PostgresURL.looksValid("postgresql://db/c") && PostgresURL.looksValid("postgres://db") && PostgresURL.looksValid("dbname=c"))
        #expect(PostgresURL.looksValid(""))
        #expect(!PostgresURL.looksValid("db.example.com") && !PostgresURL.looksValid("mysql://db/c"))
    }
}
