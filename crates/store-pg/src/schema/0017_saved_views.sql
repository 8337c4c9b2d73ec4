-- Issue 36: saved views of the Orders, Activity, Refunds and chargebacks, and Events
-- screens (filters with relative or fixed dates, columns, widths, sort; JSON the desk
-- checks), each member's own or shared with the team, and the view each member's
-- screen used last. What the database holds, whatever a member sends:
--   * a personal view is seen by its author only; a shared view by every member;
--   * a view is changed or deleted by its author, or (a shared one) by an admin;
--   * no member holds table-level UPDATE, DELETE or TRUNCATE on these tables or on
--     `saved_filters` (any of them lets a member LOCK the table in ACCESS EXCLUSIVE
--     mode and stall every desk reading it): rows change through column-level UPDATE
--     under row-level security, and are deleted through `paydesk.delete_view`.
-- The author is `session_user` (a member's SET ROLE to a group role does not make
-- them another author).

CREATE TABLE paydesk.saved_views (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    mer_no      bigint NOT NULL,
    owner       text NOT NULL DEFAULT session_user,
    screen      text NOT NULL CHECK (screen IN ('orders', 'activity', 'reversals', 'events')),
    name        text COLLATE "C" NOT NULL CHECK (pg_catalog.length(name) BETWEEN 1 AND 60),
    spec        text NOT NULL CHECK (pg_catalog.octet_length(spec) <= 16384),
    shared      boolean NOT NULL DEFAULT false,
    created_at  bigint NOT NULL,
    updated_at  bigint NOT NULL,
    UNIQUE (mer_no, owner, screen, name)
);
ALTER TABLE paydesk.saved_views ENABLE ROW LEVEL SECURITY;
CREATE POLICY saved_views_read ON paydesk.saved_views FOR SELECT
    USING (owner = session_user OR shared);
CREATE POLICY saved_views_add ON paydesk.saved_views FOR INSERT
    WITH CHECK (owner = session_user);
-- The author changes their own; an admin a shared one, which stays shared.
CREATE POLICY saved_views_change ON paydesk.saved_views FOR UPDATE
    USING (owner = session_user
           OR (shared AND pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')))
    WITH CHECK (owner = session_user
           OR (shared AND pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')));

GRANT SELECT, INSERT ON paydesk.saved_views
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;
GRANT UPDATE (spec, shared, updated_at) ON paydesk.saved_views
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;

-- Deletes a view the caller may delete (its author's; a shared one also an admin's):
-- true when it did.
CREATE FUNCTION paydesk.delete_view(merchant bigint, view_id bigint) RETURNS boolean
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE n integer;
BEGIN
    DELETE FROM paydesk.saved_views v
     WHERE v.id OPERATOR(pg_catalog.=) delete_view.view_id
       AND v.mer_no OPERATOR(pg_catalog.=) delete_view.merchant
       AND (v.owner OPERATOR(pg_catalog.=) session_user
            OR (v.shared AND pg_catalog.pg_has_role(session_user, 'paydesk_admin', 'MEMBER')));
    GET DIAGNOSTICS n = ROW_COUNT;
    RETURN n OPERATOR(pg_catalog.=) 1;
END $$;
REVOKE ALL ON FUNCTION paydesk.delete_view(bigint, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.delete_view(bigint, bigint)
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;

-- The view each member's screen used last (none: the screen's own). A view deleted
-- later is simply not found (no foreign key: its check would tell a member which ids
-- of others' personal views exist).
CREATE TABLE paydesk.last_views (
    mer_no   bigint NOT NULL,
    owner    text NOT NULL DEFAULT session_user,
    screen   text NOT NULL CHECK (screen IN ('orders', 'activity', 'reversals', 'events')),
    view_id  bigint,
    PRIMARY KEY (mer_no, owner, screen)
);
ALTER TABLE paydesk.last_views ENABLE ROW LEVEL SECURITY;
CREATE POLICY last_views_own ON paydesk.last_views
    USING (owner = session_user) WITH CHECK (owner = session_user);
GRANT SELECT, INSERT ON paydesk.last_views
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;
GRANT UPDATE (view_id) ON paydesk.last_views
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;

-- Each member's saved filter sets become their personal orders views (fixed dates, as
-- they were saved). The table stays for older desks: they read and add to it, and
-- replace a filter through column-level UPDATE; none deletes from it any more.
INSERT INTO paydesk.saved_views (mer_no, owner, screen, name, spec, shared, created_at, updated_at)
SELECT f.mer_no, f.owner, 'orders', pg_catalog.left(f.name, 60),
       pg_catalog.json_build_object('orderFilter', f.filter::json)::text, false,
       f.created_at, f.created_at
  FROM paydesk.saved_filters f
 WHERE pg_catalog.left(f.filter, 1) = '{' AND pg_catalog.length(f.name) >= 1
ON CONFLICT DO NOTHING;

REVOKE UPDATE, DELETE, TRUNCATE ON paydesk.saved_filters
    FROM paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;
GRANT UPDATE (filter) ON paydesk.saved_filters
    TO paydesk_viewer, paydesk_support, paydesk_maker, paydesk_approver, paydesk_signer,
    paydesk_admin;
