import Publishing
import Testing

/// Passwords never leave a connection string shown to anyone (SPEC "Many hosts").
struct PostgresURLTests {
    @Test func redactsEveryForm() {
        let cases: [(String, String)] = [
            ("postgresql://ada:hunter2@db.example.com:5433/catalogue", "postgresql://ada@db.example.com:5433/catalogue"),
            ("postgres://ada:p%40ss@db/c?sslmode=require", "postgres://ada@db/c?sslmode=require"),
            ("postgresql://ada@db/c?password=hunter2&sslmode=require", "postgresql://ada@db/c?sslmode=require"),
            ("postgresql://ada@db/c?sslmode=require&PASSWORD=x", "postgresql://ada@db/c?sslmode=require"),
            ("postgresql:///c?host=/run/postgresql&user=ada", "postgresql:///c?host=/run/postgresql&user=ada"),
            ("postgresql://a:b@[::1]:5432/c", "postgresql://a@[::1]:5432/c"),
            ("host=db password=hunter2 dbname=c", "host=db dbname=c"),
            ("host=db password = 'hunter \\' 2' dbname=c", "host=db dbname=c"),
            ("password=hunter2", ""),
            ("service=catalogue", "service=catalogue"),
            ("", ""),
        ]
        for (given, shown) in cases {
            #expect(PostgresURL.redacted(given) == shown, "\(given)")
            #expect(!PostgresURL.redacted(given).contains("hunter"), "\(given)")
            #expect(PostgresURL.hasPassword(given) == (given != shown), "\(given)")
        }
    }

    @Test func recognisesConnectionStrings() {
        #expect(PostgresURL.looksValid("postgresql://db/c") && PostgresURL.looksValid("postgres://db") && PostgresURL.looksValid("dbname=c"))
        #expect(PostgresURL.looksValid(""))
        #expect(!PostgresURL.looksValid("db.example.com") && !PostgresURL.looksValid("mysql://db/c"))
    }
}
