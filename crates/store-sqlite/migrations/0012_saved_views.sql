-- Saved views of the Orders, Activity, Refunds and chargebacks, and Events screens
-- (issue 36): filters with relative or fixed dates, columns, widths and sort, as JSON
-- the desk checks. Each saved filter set of the orders table becomes an orders view
-- holding that filter (its fixed dates included). `saved_filters` stays for older
-- desks, which keep reading and writing it.
CREATE TABLE saved_views (
    id          INTEGER PRIMARY KEY,
    screen      TEXT NOT NULL CHECK (screen IN ('orders', 'activity', 'reversals', 'events')),
    name        TEXT NOT NULL,
    spec        TEXT NOT NULL,
    created_at  INTEGER NOT NULL,
    updated_at  INTEGER NOT NULL,
    UNIQUE (screen, name)
);

INSERT INTO saved_views (screen, name, spec, created_at, updated_at)
SELECT 'orders', name, json_object('orderFilter', json(filter)), created_at, created_at
  FROM saved_filters
 WHERE json_valid(filter);

-- The view each screen used last (none: the screen's own), so it comes back when the
-- screen opens, also after a restart.
CREATE TABLE last_views (
    screen   TEXT PRIMARY KEY,
    view_id  INTEGER REFERENCES saved_views (id) ON DELETE SET NULL
);
