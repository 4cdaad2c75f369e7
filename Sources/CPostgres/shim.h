// libpq, PostgreSQL's own client library (Debian's libpq-dev): connection URIs, PG* variables,
// ~/.pgpass, PGSERVICE and sslmode come with it. Docs/dependencies.md says why not postgres-nio.
#include <libpq-fe.h>
