-- Audit logs set aside when the key that sealed them was lost from the keyring: their rows
-- stay as written and readable, but can no longer be checked. The live log then starts a
-- new chain under a new key, whose first row names the archive.
CREATE TABLE audit_archive (
    archive     INTEGER PRIMARY KEY,
    archived_at INTEGER NOT NULL,
    row_count   INTEGER NOT NULL,
    sealed_rows INTEGER NOT NULL,
    reason      TEXT NOT NULL
);

CREATE TABLE audit_archived_row (
    archive     INTEGER NOT NULL REFERENCES audit_archive (archive),
    id          INTEGER NOT NULL,
    at          INTEGER NOT NULL,
    profile     TEXT NOT NULL,
    operator    TEXT NOT NULL,
    operation   TEXT NOT NULL,
    identifiers TEXT NOT NULL,
    result      TEXT NOT NULL,
    latency_ms  INTEGER NOT NULL,
    prev_hash   TEXT NOT NULL,
    hash        TEXT NOT NULL,
    PRIMARY KEY (archive, id)
);
