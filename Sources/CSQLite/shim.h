#ifndef GRAPH_ICS_CSQLITE_SHIM_H
#define GRAPH_ICS_CSQLITE_SHIM_H
// graph-ics keeps the state of `sync` in SQLite (Debian's libsqlite3-dev) through this header only.
// SQLITE_TRANSIENT is a cast of -1 to a function pointer, which Swift cannot import: the helpers below
// bind text and blobs with it, so SQLite copies the bytes before the call returns.
#include <sqlite3.h>

/// sqlite3_bind_text with SQLITE_TRANSIENT (SQLite copies the `length` bytes of UTF-8).
static inline int gics_sqlite3_bind_text(sqlite3_stmt *statement, int index, const char *text, int length) {
    return sqlite3_bind_text(statement, index, text, length, SQLITE_TRANSIENT);
}

/// sqlite3_bind_blob with SQLITE_TRANSIENT (SQLite copies the `length` bytes).
static inline int gics_sqlite3_bind_blob(sqlite3_stmt *statement, int index, const void *bytes, int length) {
    return sqlite3_bind_blob(statement, index, bytes, length, SQLITE_TRANSIENT);
}

#endif
