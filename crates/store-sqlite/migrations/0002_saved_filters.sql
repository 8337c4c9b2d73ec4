-- Saved filter sets of the Orders screen.
CREATE TABLE saved_filters (
    name        TEXT PRIMARY KEY,
    filter      TEXT NOT NULL,
    created_at  INTEGER NOT NULL
);
