-- The audit chain is sealed with HMAC-SHA-256 under a key in the OS keyring from this
-- version on (rows before stay plain SHA-256). The schema is unchanged, but the version
-- moves so that an older PayDesk refuses this database instead of appending plain rows
-- after keyed ones (which the check would rightly call a rewrite).
CREATE TABLE audit_seal_version (one INTEGER PRIMARY KEY CHECK (one = 1), version INTEGER NOT NULL);
INSERT INTO audit_seal_version (one, version) VALUES (1, 2);
