-- Review sql-r6 F5: a member's day limit is the day of the database's clock when each
-- payout row is added, never the day the maker's transaction began. The limit of 0028
-- took its day from now() (the transaction's start) and counted the requests made
-- (created_at, the transaction's start too) since that day began: a maker who opened a
-- transaction before midnight and added rows after it had them checked against
-- yesterday's room and left out of today's sum, so two days' allowance went in one real
-- day. Now each row counts on the day of its `added_at` (the clock when the row was
-- inserted, 0016: set by the database, changed by nobody), and is checked against the
-- rows added since that day began in the limit's zone. Attacked as the maker with plain
-- SQL in tests/team/team_review_r7.rs.
CREATE OR REPLACE FUNCTION paydesk.request_row_within_limits() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog, paydesk, pg_temp SET lock_timeout = '10s' AS $$
DECLARE r paydesk.requests; l paydesk.member_limits; day_start timestamptz; used numeric;
BEGIN
    SELECT * INTO r FROM paydesk.requests q WHERE q.id OPERATOR(pg_catalog.=) NEW.request_id;
    IF NOT FOUND OR r.operation OPERATOR(pg_catalog.<>) 'payout' THEN
        RETURN NEW;
    END IF;
    -- A write, not a lock: see 0028 F2.
    UPDATE paydesk.member_limits m SET set_at = m.set_at
     WHERE m.member OPERATOR(pg_catalog.=) r.maker AND m.currency OPERATOR(pg_catalog.=) r.currency
    RETURNING m.* INTO l;
    IF NOT FOUND THEN
        RETURN NEW;
    END IF;
    IF l.per_payout IS NOT NULL AND NEW.amount OPERATOR(pg_catalog.>) l.per_payout THEN
        RAISE EXCEPTION 'amount: row % is % %, over the limit per payout of % % the team set for %',
            NEW.row_no, pg_catalog.trim_scale(NEW.amount), r.currency, pg_catalog.trim_scale(l.per_payout),
            r.currency, r.maker
            USING ERRCODE = 'check_violation';
    END IF;
    IF l.per_day IS NOT NULL THEN
        -- The row is added now, after the wait for the limit's row (request_row_new
        -- set an earlier time): the day it counts in is the day it is checked in, in
        -- the limit's zone.
        NEW.added_at := pg_catalog.clock_timestamp();
        day_start := pg_catalog.date_trunc('day', NEW.added_at AT TIME ZONE l.day_zone) AT TIME ZONE l.day_zone;
        SELECT coalesce(pg_catalog.sum(rr.amount), 0) INTO used
          FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
         WHERE q.maker OPERATOR(pg_catalog.=) r.maker
           AND q.operation OPERATOR(pg_catalog.=) 'payout'
           AND q.currency OPERATOR(pg_catalog.=) r.currency
           AND rr.added_at OPERATOR(pg_catalog.>=) day_start
           AND q.state OPERATOR(pg_catalog.<>) 'rejected'
           AND rr.status OPERATOR(pg_catalog.<>) ALL (ARRAY['rejected', 'failed']);
        IF used OPERATOR(pg_catalog.+) NEW.amount OPERATOR(pg_catalog.>) l.per_day THEN
            RAISE EXCEPTION 'amount: row % (% %) would take %''s payouts today over the limit per day of % % the team set (% % requested today)',
                NEW.row_no, pg_catalog.trim_scale(NEW.amount), r.currency, r.maker,
                pg_catalog.trim_scale(l.per_day), r.currency, pg_catalog.trim_scale(used), r.currency
                USING ERRCODE = 'check_violation';
        END IF;
    END IF;
    RETURN NEW;
END $$;
REVOKE ALL ON FUNCTION paydesk.request_row_within_limits() FROM PUBLIC;

-- The same sum at the maker's desk (advice; the trigger decides): today by the clock,
-- rows by when they were added.
CREATE OR REPLACE FUNCTION paydesk.my_payout_limit(code text)
    RETURNS TABLE (per_payout numeric, per_day numeric, day_zone text, used_today numeric)
LANGUAGE sql VOLATILE SET search_path = pg_catalog, paydesk, pg_temp AS $$
    SELECT l.per_payout, l.per_day, l.day_zone,
           (SELECT coalesce(pg_catalog.sum(rr.amount), 0)
              FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id OPERATOR(pg_catalog.=) rr.request_id
             WHERE q.maker OPERATOR(pg_catalog.=) l.member
               AND q.operation OPERATOR(pg_catalog.=) 'payout'
               AND q.currency OPERATOR(pg_catalog.=) l.currency
               AND rr.added_at OPERATOR(pg_catalog.>=)
                   (pg_catalog.date_trunc('day', pg_catalog.clock_timestamp() AT TIME ZONE l.day_zone) AT TIME ZONE l.day_zone)
               AND q.state OPERATOR(pg_catalog.<>) 'rejected'
               AND rr.status OPERATOR(pg_catalog.<>) ALL (ARRAY['rejected', 'failed']))
      FROM paydesk.member_limits l
     WHERE l.member OPERATOR(pg_catalog.=) session_user::pg_catalog.text
       AND l.currency OPERATOR(pg_catalog.=) pg_catalog.upper(pg_catalog.btrim(code))
$$;
REVOKE ALL ON FUNCTION paydesk.my_payout_limit(text) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION paydesk.my_payout_limit(text) TO paydesk_maker;

-- The rows of a maker's day, found by when they were added.
CREATE INDEX request_rows_added ON paydesk.request_rows (added_at);
-- The maker's desk sums its own rows by that time (my_payout_limit runs with the
-- maker's rights): when a row was added is no more than its request's time says.
GRANT SELECT (added_at) ON paydesk.request_rows TO paydesk_maker;
