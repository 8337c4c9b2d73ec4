-- The oldest schema version whose PayDesk may still open this database. A later
-- migration that only adds (a table, a nullable column, an index) leaves it where it
-- was, so an older desk keeps working on a database a newer one has migrated; one that
-- changes what older code relies on raises it. Written on every migration run.
CREATE TABLE schema_compat (
    one INTEGER PRIMARY KEY CHECK (one = 1),
    oldest_reader INTEGER NOT NULL
);
