//! What the sixth hostile SQL review found (notes: review-sql-r6, F4-F12; migrations
//! 0033 and 0034), each hole attacked as the member who would use it, with plain SQL
//! (psql, their own password), on a team owned by a role that is not a superuser. Every
//! expected sum and time is the test's own.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use paydesk_team::{MemberLimit, TeamRole};
use paydesk_testpg::{Options, TestPg};

use common::team::{
    CLABE, DB, claim_request_sql, db_ms, executing_row, member, owner_sql, refused, sql,
};

/// Admins alice and adam, makers mark and max, approver ann, viewer vic, signers sam
/// and sid; MXN payouts above 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("adam", TeamRole::Admin),
            ("mark", TeamRole::Maker),
            ("max", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("vic", TeamRole::Viewer),
            ("sam", TeamRole::Signer),
            ("sid", TeamRole::Signer),
        ],
        "10000",
    )
}

/// One payout request of one row to a typed CLABE, as a maker's psql writes it.
fn request(no: &str, amount: &str) -> String {
    format!(
        "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
         VALUES ('payout', 'MXN', {amount}, 1, '{amount} MXN to CLABE 002010********7771') RETURNING id) \
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
         SELECT id, 1, '{no}', {amount}, \
         '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"{amount}\",\"currency\":\"MXN\",\"clabe\":\"{CLABE}\"}}', \
         'CLABE 002010********7771' FROM r"
    )
}

/// Waits until a session of `user` runs a statement containing `tag`.
fn wait_running(pg: &TestPg, user: &str, tag: &str) {
    let start = Instant::now();
    while owner_sql(
        pg,
        &format!(
            "SELECT count(*) FROM pg_stat_activity WHERE usename = '{user}' AND query LIKE '%{tag}%' AND state = 'active'"
        ),
    ) != "1"
    {
        assert!(
            start.elapsed() < Duration::from_secs(10),
            "{user} never ran {tag}"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

// ---------------------------------------------------------------------------------
// F5: a maker's day is the day each row is added, not the day the transaction began.

/// The zone (a POSIX spec, whole seconds east of UTC) in which a day begins at the
/// database's whole second `at` (seconds since the epoch). A team names its zone from
/// the time zone database (`set_member_limit` checks); this stands in for "a named
/// zone whose midnight is now", so a test needs no wait for a real one.
fn zone_with_midnight_at(at: i64) -> String {
    let mut east = (-at).rem_euclid(86_400);
    if east > 43_200 {
        east -= 86_400;
    }
    // POSIX counts west as positive.
    let west = -east;
    let (sign, w) = if west < 0 { ('-', -west) } else { ('+', west) };
    format!(
        "<F5>{sign}{:02}:{:02}:{:02}",
        w / 3600,
        (w / 60) % 60,
        w % 60
    )
}

#[test]
fn a_makers_transaction_opened_before_the_day_began_counts_its_rows_on_the_day_they_are_added() {
    let pg = team_db();
    member(&pg, "alice")
        .set_member_limit(&MemberLimit {
            member: "mark".into(),
            currency: "MXN".into(),
            per_payout: None,
            per_day: Some("150".into()),
            day_zone: "UTC".into(),
            set_by: String::new(),
        })
        .unwrap();
    // The zone is right: its day began at the second asked (checked on the database's
    // own conversion, not the function under test).
    let probe = 1_790_000_123;
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT extract(epoch FROM date_trunc('day', to_timestamp({probe} + 5) AT TIME ZONE '{z}') AT TIME ZONE '{z}')::bigint",
                z = zone_with_midnight_at(probe)
            )
        ),
        probe.to_string()
    );

    // Mark opens a transaction, and the day of mark's limit ends while it is open: the
    // team's day begins one second after the transaction did (and before its insert).
    let late = format!(
        "BEGIN; SELECT 1; SELECT pg_sleep(3) AS f5_wait; {}; COMMIT;",
        request("R7-F5-1", "100")
    );
    let first = std::thread::scope(|s| {
        let t = s.spawn(|| sql(&pg, "mark", &late));
        wait_running(&pg, "mark", "f5_wait");
        let began: i64 = owner_sql(
            &pg,
            "SELECT ceil(extract(epoch FROM xact_start))::bigint FROM pg_stat_activity \
             WHERE usename = 'mark' AND query LIKE '%f5_wait%'",
        )
        .parse()
        .unwrap();
        let midnight = began + 1;
        owner_sql(
            &pg,
            &format!(
                "UPDATE paydesk.member_limits SET day_zone = '{}' WHERE member = 'mark'",
                zone_with_midnight_at(midnight)
            ),
        );
        assert!(
            owner_sql(
                &pg,
                &format!("SELECT clock_timestamp() < to_timestamp({midnight} + 1)")
            ) == "t",
            "the day began too late for the test: the insert may come first"
        );
        t.join().unwrap()
    });
    first.unwrap();
    // The row was added after the day began (the test's check, on the database's
    // clock): it is today's.
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT rr.added_at > q.created_at FROM paydesk.request_rows rr \
             JOIN paydesk.requests q ON q.id = rr.request_id WHERE rr.mer_order_no = 'R7-F5-1'"
        ),
        "t"
    );
    // Another 100 today would be 200 in one day, over 150: refused naming today's 100.
    refused(
        sql(&pg, "mark", &request("R7-F5-2", "100")),
        "a second 100 the same day",
        "over the limit per day of 150 MXN the team set (100 MXN requested today)",
    );
    // The maker's desk says the same: 100 used today.
    assert_eq!(
        sql(
            &pg,
            "mark",
            "SELECT trim_scale(used_today) FROM paydesk.my_payout_limit('MXN')"
        )
        .unwrap(),
        "100"
    );
    sql(&pg, "mark", &request("R7-F5-3", "50")).unwrap();
}

// ---------------------------------------------------------------------------------
// F7: a signer does not shrink the day's payouts every signer's worker sums.

const MER: i64 = common::MER as i64;

/// The claim a signer's psql session takes on an entry (0038: a status changes only
/// under the session's own claim, as the desk's `pg:<backend pid>:…`).
const MINE: &str = "claimed_by = 'pg:' || pg_backend_pid() || ':psql', \
     claimed_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000";

/// A journal entry of a payout of `amount` MXN, as a signer's psql writes one: written
/// pending (never sent) or sending, then moved to `status` as a send's outcome moves it
/// (0035: a new entry is pending or sending), under the session's own claim.
fn journal_entry(no: &str, amount: &str, status: &str, at: i64, sent: Option<i64>) -> String {
    let written = if sent.is_some() { "sending" } else { "pending" };
    let then = if status == written {
        String::new()
    } else {
        format!(
            "; UPDATE paydesk.journal SET status = '{status}', {MINE} WHERE mer_order_no = '{no}'"
        )
    };
    format!("{}{then}", journal_insert(no, amount, written, at, sent))
}

/// The INSERT of [`journal_entry`] alone, in `status`.
fn journal_insert(no: &str, amount: &str, status: &str, at: i64, sent: Option<i64>) -> String {
    let sent = sent.map_or("NULL".to_string(), |s| s.to_string());
    format!(
        "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
         attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'team', 'v2.payout', '{no}', \
         '{{\"merOrderNo\":\"{no}\",\"sourceAmount\":\"{amount}\",\"currencyCode\":\"MXN\"}}', \
         'payout {amount} MXN', '{status}', 1, {at}, {at}, 'fp-{no}', {sent})"
    )
}

/// What the day's payouts since `since` add up to, read as `begin_within` reads them
/// (the counted statuses, sent or else written since), summed by the test.
fn day_used(pg: &TestPg, since: i64) -> rust_decimal::Decimal {
    owner_sql(
        pg,
        &format!(
            "SELECT request FROM paydesk.journal WHERE mer_no = {MER} AND operation = 'v2.payout' \
             AND status IN ('pending', 'sending', 'accepted', 'unknown') \
             AND COALESCE(sent_at, created_at) >= {since}"
        ),
    )
    .lines()
    .filter(|l| !l.trim().is_empty())
    .map(|l| {
        let v: serde_json::Value = serde_json::from_str(l.trim()).unwrap();
        v["sourceAmount"]
            .as_str()
            .unwrap()
            .parse::<rust_decimal::Decimal>()
            .unwrap()
    })
    .sum()
}

#[test]
fn a_signer_cannot_take_the_days_payouts_out_of_the_day_sum() {
    let pg = team_db();
    let now: i64 = owner_sql(
        &pg,
        "SELECT (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
    )
    .parse()
    .unwrap();
    let since = now - 60_000;
    let d = |s: &str| s.parse::<rust_decimal::Decimal>().unwrap();
    // Each a row of an approved request sam's worker executes (0039).
    for (no, amount) in [("R7-F7-A", "700"), ("R7-F7-P", "200"), ("R7-F7-S", "50")] {
        executing_row(&pg, "mark", "ann", "sam", no, amount);
    }
    // Today: one accepted payout, one queued and never sent (no send time), one in flight.
    sql(
        &pg,
        "sam",
        &journal_entry("R7-F7-A", "700", "accepted", now, Some(now)),
    )
    .unwrap();
    sql(
        &pg,
        "sam",
        &journal_entry("R7-F7-P", "200", "pending", now, None),
    )
    .unwrap();
    sql(
        &pg,
        "sam",
        &journal_entry("R7-F7-S", "50", "sending", now, Some(now)),
    )
    .unwrap();
    let all = d("700") + d("200") + d("50");
    assert_eq!(day_used(&pg, since), all);

    // Another signer, with psql: the send times back to 1970 or cleared, the written
    // time moved, the accepted payout marked refused or queued again.
    for q in [
        "UPDATE paydesk.journal SET sent_at = 0",
        "UPDATE paydesk.journal SET sent_at = NULL",
        &format!("UPDATE paydesk.journal SET sent_at = {}", since - 1),
    ] {
        sql(&pg, "sid", q).unwrap();
        assert_eq!(day_used(&pg, since), all, "after {q}");
    }
    refused(
        sql(&pg, "sid", "UPDATE paydesk.journal SET created_at = 0"),
        "the written time moved",
        "permission denied",
    );
    for to in ["rejected", "pending", "unknown", "sending"] {
        refused(
            sql(
                &pg,
                "sid",
                &format!(
                    "UPDATE paydesk.journal SET status = '{to}' WHERE mer_order_no = 'R7-F7-A'"
                ),
            ),
            &format!("the accepted payout made {to}"),
            "an accepted send is final",
        );
    }
    // An upsert is an update too.
    refused(
        sql(
            &pg,
            "sid",
            &format!(
                "{}; {} ON CONFLICT (mer_no, operation, mer_order_no) DO UPDATE SET status = 'rejected'",
                claim_request_sql("R7-F7-A"),
                journal_entry("R7-F7-A", "700", "pending", now, None)
            ),
        ),
        "the accepted payout refused by an upsert",
        "an accepted send is final",
    );
    assert_eq!(day_used(&pg, since), all);

    // The desk's own steps still go (each under the session's own claim, 0038): the
    // queued one sent (its send time the database's clock, whatever the desk says),
    // refused, then found accepted after all; the one in flight unknown, then proven
    // absent (pending: once the team's not-found grace is over, set short here by the
    // owner) and sent again later.
    owner_sql(
        &pg,
        "UPDATE paydesk.team SET not_found_grace_ms = 0 WHERE id = 1",
    );
    let before = db_ms(&pg);
    let steps = [
        format!(
            "UPDATE paydesk.journal SET status = 'sending', sent_at = {}, {MINE} WHERE mer_order_no = 'R7-F7-P'",
            now - 5_000
        ),
        format!(
            "UPDATE paydesk.journal SET status = 'rejected', {MINE} WHERE mer_order_no = 'R7-F7-P'"
        ),
        format!(
            "UPDATE paydesk.journal SET status = 'accepted', {MINE} WHERE mer_order_no = 'R7-F7-P'"
        ),
        format!(
            "UPDATE paydesk.journal SET status = 'unknown', {MINE} WHERE mer_order_no = 'R7-F7-S'"
        ),
        format!(
            "UPDATE paydesk.journal SET status = 'pending', {MINE} WHERE mer_order_no = 'R7-F7-S'"
        ),
        format!(
            "UPDATE paydesk.journal SET status = 'sending', sent_at = {}, {MINE} WHERE mer_order_no = 'R7-F7-S'",
            now + 1_000
        ),
    ];
    // One session for all six (each statement its own transaction): a claim taken by
    // one psql session is another's until its backend has gone, which on a loaded
    // machine can be after the next psql has started.
    sql(&pg, "sam", &steps.join(";\n")).unwrap();
    let after = db_ms(&pg);
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT string_agg(mer_order_no || ' ' || status || ' ' || (sent_at = created_at) || ' ' \
                 || (sent_at BETWEEN {before} AND {after}), ', ' ORDER BY mer_order_no) FROM paydesk.journal"
            )
        ),
        "R7-F7-A accepted true false, R7-F7-P accepted false true, R7-F7-S sending false true"
    );
    assert_eq!(day_used(&pg, since), all);
}

// ---------------------------------------------------------------------------------
// F4: with payee approval on, a payout goes to an approved payee of the book only.

/// A card payout of one row carrying its own (sealed) card number, as a maker's psql
/// writes it.
fn card_request(no: &str) -> String {
    format!(
        "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
         VALUES ('payout', 'MXN', 100, 1, '100 MXN to card 411111******1111') RETURNING id) \
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
         SELECT id, 1, '{no}', 100, \
         '{{\"kind\":\"CARD\",\"merOrderNo\":\"{no}\",\"amount\":\"100\",\"currency\":\"MXN\",\"sealedCardNo\":\"{}==\"}}', \
         'CARD 411111******1111' FROM r",
        "S".repeat(342)
    )
}

/// A payout of one row naming payee `id` by its seal's hash, as a maker's psql writes it.
fn payee_request(no: &str, id: i64, hash: &str) -> String {
    format!(
        "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
         VALUES ('payout', 'MXN', 100, 1, '100 MXN') RETURNING id) \
         INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
         SELECT id, 1, '{no}', 100, \
         '{{\"kind\":\"CLABE\",\"merOrderNo\":\"{no}\",\"amount\":\"100\",\"currency\":\"MXN\",\"payeeId\":{id},\"payeeSealedSha256\":\"{hash}\"}}', \
         'CLABE 002010********7771 (BANAMEX), payee acme' FROM r"
    )
}

#[test]
fn with_payee_approval_on_a_maker_pays_only_an_approved_payee_of_the_book() {
    let pg = team_db();
    // Approval off: a typed account is paid as before.
    sql(&pg, "mark", &request("R7-F4-0", "100")).unwrap();
    sql(&pg, "mark", &card_request("R7-F4-C0")).unwrap();
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET payee_approval = true WHERE id = 1",
    )
    .unwrap();
    // On: the maker's typed CLABE, or a sealed card number of their own, is refused.
    refused(
        sql(&pg, "mark", &request("R7-F4-1", "100")),
        "a typed CLABE with payee approval on",
        "goes to an approved payee of the book",
    );
    refused(
        sql(&pg, "mark", &card_request("R7-F4-C1")),
        "a card number of the maker's with payee approval on",
        "goes to an approved payee of the book",
    );
    // A payee the maker adds waits for another member; approved by ann, it is paid.
    let seal = format!("{}==", "Q".repeat(342));
    sql(
        &pg,
        "mark",
        &format!(
            "SELECT paydesk.add_beneficiary({MER}, 'acme', 'clabe', 'Acme', '', '002010********7771', '{seal}', 'BANAMEX', 'MX')"
        ),
    )
    .unwrap();
    let id: i64 = owner_sql(
        &pg,
        "SELECT id FROM paydesk.beneficiaries WHERE nickname = 'acme'",
    )
    .parse()
    .unwrap();
    let hash = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(seal.as_bytes()))
    };
    refused(
        sql(&pg, "mark", &payee_request("R7-F4-2", id, &hash)),
        "a payee awaiting approval",
        "waits for another member's approval",
    );
    sql(
        &pg,
        "ann",
        &format!("SELECT paydesk.approve_beneficiary({MER}, {id}, '{hash}')"),
    )
    .unwrap();
    sql(&pg, "mark", &payee_request("R7-F4-3", id, &hash)).unwrap();
    // Off again: typed accounts go again.
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET payee_approval = false WHERE id = 1",
    )
    .unwrap();
    sql(&pg, "mark", &request("R7-F4-4", "100")).unwrap();
}

// ---------------------------------------------------------------------------------
// F12: the book's functions are granted to the roles that use them only.

#[test]
fn only_makers_and_admins_may_call_the_books_add_and_remove() {
    let pg = team_db();
    let granted = |f: &str, role: &str| {
        owner_sql(
            &pg,
            &format!("SELECT has_function_privilege('{role}', '{f}', 'EXECUTE')"),
        ) == "t"
    };
    let add = "paydesk.add_beneficiary(bigint, text, text, text, text, text, text, text, text)";
    let remove = "paydesk.remove_beneficiary(bigint, text)";
    let approve = "paydesk.approve_beneficiary(bigint, bigint, text)";
    for (role, adds, approves) in [
        ("paydesk_viewer", false, false),
        ("paydesk_support", false, false),
        ("paydesk_maker", true, false),
        ("paydesk_approver", false, true),
        ("paydesk_signer", false, true),
        ("paydesk_admin", true, true),
    ] {
        assert_eq!(granted(add, role), adds, "{role} adds");
        assert_eq!(granted(remove, role), adds, "{role} removes");
        assert_eq!(granted(approve, role), approves, "{role} approves");
    }
    // As the members themselves, with psql.
    for user in ["vic", "ann", "sam"] {
        refused(
            sql(
                &pg,
                user,
                &format!("SELECT paydesk.remove_beneficiary({MER}, 'x')"),
            ),
            &format!("{user} removes a payee"),
            "permission denied for function remove_beneficiary",
        );
    }
    assert_eq!(
        sql(
            &pg,
            "mark",
            &format!("SELECT paydesk.remove_beneficiary({MER}, 'x')")
        )
        .unwrap(),
        "f"
    );
}

// ---------------------------------------------------------------------------------
// F6: a maker's open transaction holds no payee against removal and no setting against
// an admin.

fn add_payee_sql(nick: &str, seal: &str) -> String {
    format!(
        "SELECT paydesk.add_beneficiary({MER}, '{nick}', 'clabe', 'Acme', '', '002010********7771', '{seal}', 'BANAMEX', 'MX')"
    )
}

/// Runs `q` as `user` and says how long it took.
fn timed(pg: &TestPg, user: &str, q: &str) -> (Result<String, String>, Duration) {
    let start = Instant::now();
    let out = sql(pg, user, q);
    (out, start.elapsed())
}

#[test]
fn a_makers_open_transaction_holds_no_payee_and_no_setting_of_the_admins() {
    let pg = team_db();
    // Approval off: mark's payee is approved as added.
    let seal = format!("{}==", "Q".repeat(342));
    sql(&pg, "mark", &add_payee_sql("acme", &seal)).unwrap();
    let id: i64 = owner_sql(
        &pg,
        "SELECT id FROM paydesk.beneficiaries WHERE nickname = 'acme'",
    )
    .parse()
    .unwrap();
    let hash = {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(seal.as_bytes()))
    };
    // Mark requests a payout to it and keeps the transaction open (busy, so no idle
    // bound ends it).
    let hold = format!(
        "BEGIN; {}; SELECT pg_sleep(30) AS f6_row; COMMIT",
        payee_request("R7-F6-1", id, &hash)
    );
    std::thread::scope(|s| {
        let held = s.spawn(|| sql(&pg, "mark", &hold));
        wait_running(&pg, "mark", "f6_row");
        // Alice removes the payee meanwhile: at once, not after a lock wait.
        let (out, took) = timed(
            &pg,
            "alice",
            &format!("SELECT paydesk.remove_beneficiary({MER}, 'acme')"),
        );
        assert_eq!(out.unwrap(), "t");
        assert!(took < Duration::from_secs(5), "{took:?}");
        pg.psql_super(
            DB,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'mark'",
        )
        .unwrap();
        let _ = held.join();
    });

    // Mark adds a payee and keeps the transaction open: alice turns approval on at once.
    let hold = format!(
        "BEGIN; {}; SELECT pg_sleep(30) AS f6_add; COMMIT",
        add_payee_sql("beta", &format!("{}==", "R".repeat(342)))
    );
    std::thread::scope(|s| {
        let held = s.spawn(|| sql(&pg, "mark", &hold));
        wait_running(&pg, "mark", "f6_add");
        let (out, took) = timed(
            &pg,
            "alice",
            "UPDATE paydesk.team SET payee_approval = true WHERE id = 1",
        );
        out.unwrap();
        assert!(took < Duration::from_secs(5), "{took:?}");
        pg.psql_super(
            DB,
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = 'mark'",
        )
        .unwrap();
        let _ = held.join();
    });
    // A payee added now waits for another member's approval.
    sql(
        &pg,
        "mark",
        &add_payee_sql("gamma", &format!("{}==", "S".repeat(342))),
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT string_agg(nickname || ' ' || (approved_by IS NULL), ',') FROM paydesk.beneficiaries"
        ),
        "gamma true"
    );
}

// ---------------------------------------------------------------------------------
// Review r7, R7-1: a signer's INSERT into the journal no longer shrinks the day sum.

#[test]
fn a_signer_writes_no_journal_entry_the_day_sum_would_misread() {
    let pg = team_db();
    let now = db_ms(&pg);
    // A day that began five minutes ago (a new entry is never written before that).
    let since = now - 300_000;
    let entry = |no: &str, request: &str, status: &str, fp: &str, at: i64, sent: &str| {
        format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'team', 'v2.payout', '{no}', \
             '{request}', 's', '{status}', 1, {at}, {at}, '{fp}', {sent})"
        )
    };
    let mxn = |amount: &str| format!(r#"{{"currencyCode":"MXN","sourceAmount":{amount}}}"#);
    // A payout of nothing or less, or of no readable amount: refused, by every way of
    // writing it (v1's card payout too).
    for (what, request) in [
        ("negative", mxn(r#""-1000000000""#)),
        ("negative number", mxn("-5")),
        ("zero", mxn(r#""0""#)),
        ("not a number", mxn(r#""lots""#)),
        ("no amount", r#"{"currencyCode":"MXN"}"#.to_string()),
        ("not JSON", "x".to_string()),
        // Review r8 R8-1: keys the day's sum does not read. The amount under `amount`
        // with the currency under either key, or the currency only under `currency`:
        // the sum would count nothing of what the worker then sends through it.
        (
            "an amount keyed `amount`",
            r#"{"currency":"MXN","amount":"100000"}"#.to_string(),
        ),
        (
            "an amount keyed `amount` in MXN",
            r#"{"currencyCode":"MXN","amount":"100000"}"#.to_string(),
        ),
        (
            "a currency keyed `currency`",
            r#"{"currency":"MXN","sourceAmount":"100000"}"#.to_string(),
        ),
        (
            "an empty currency",
            r#"{"currencyCode":" ","sourceAmount":"100000"}"#.to_string(),
        ),
    ] {
        refused(
            sql(
                &pg,
                "sam",
                &entry("R7-1-N", &request, "sending", "fp", now, &now.to_string()),
            ),
            &format!("a payout of {what}"),
            "names the positive amount it sends",
        );
    }
    refused(
        sql(
            &pg,
            "sam",
            &entry("R7-1-N", &mxn(r#""-1""#), "pending", "fp", now, "NULL")
                .replace("v2.payout", "v1.payout"),
        ),
        "a card payout of -1",
        "names the positive amount it sends",
    );
    // An outcome written, not found by a send.
    for status in ["accepted", "rejected", "unknown"] {
        refused(
            sql(
                &pg,
                "sid",
                &entry(
                    "R7-1-S",
                    &mxn(r#""9000000""#),
                    status,
                    "fp",
                    now,
                    &now.to_string(),
                ),
            ),
            &format!("a new entry {status}"),
            "written pending or sending",
        );
    }
    // A planted entry without a fingerprint (the worker would take it up for its send).
    refused(
        sql(
            &pg,
            "sid",
            &entry("R7-1-F", &mxn(r#""0.01""#), "pending", "", now, "NULL"),
        ),
        "a queued entry without a fingerprint",
        "carries its request's fingerprint",
    );
    // Times far ahead of the database's clock (the day sum would count it every day).
    for (at, sent) in [
        (now, 9_000_000_000_000_000_i64.to_string()),
        (9_000_000_000_000_000, "NULL".to_string()),
        (now + 600_000, (now + 600_000).to_string()),
    ] {
        refused(
            sql(
                &pg,
                "sid",
                &entry("R7-1-T", &mxn(r#""100""#), "sending", "fp", at, &sent),
            ),
            &format!("an entry written at {at}, sent at {sent}"),
            "more than five minutes ahead",
        );
    }
    assert_eq!(
        owner_sql(&pg, "SELECT count(*) FROM paydesk.journal"),
        "0",
        "nothing above was written"
    );
    // Each a row of an approved request the signer's worker executes (0039).
    for (no, amount, signer) in [
        ("R7-1-Y", "300", "sid"),
        ("R7-1-Q", "200", "sam"),
        ("R7-1-A", "50", "sam"),
    ] {
        executing_row(&pg, "mark", "ann", signer, no, amount);
    }
    // A desk clock set back a day: the entry counts today all the same (written at the
    // database's clock at the earliest).
    let day = 86_400_000;
    sql(
        &pg,
        "sid",
        &entry(
            "R7-1-Y",
            &mxn(r#""300""#),
            "sending",
            "fp",
            now - day,
            &(now - day).to_string(),
        ),
    )
    .unwrap();
    // What the desk writes goes as written: queued, and sent a little ahead of the
    // database's clock.
    sql(
        &pg,
        "sam",
        &entry("R7-1-Q", &mxn(r#""200""#), "pending", "fp-q", now, "NULL"),
    )
    .unwrap();
    sql(
        &pg,
        "sam",
        &entry(
            "R7-1-A",
            &mxn(r#""50""#),
            "sending",
            "fp-a",
            now + 2_000,
            &(now + 2_000).to_string(),
        ),
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT string_agg(mer_order_no || ' ' || (created_at >= {since}) || ' ' || (sent_at IS NULL), ', ' \
                 ORDER BY mer_order_no) FROM paydesk.journal"
            )
        ),
        "R7-1-A true false, R7-1-Q true true, R7-1-Y true false"
    );
    // Kept as written, or raised to the database's clock if that has passed it meanwhile
    // (review r8, R8-3: a slow machine can take longer than the 2 s between).
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT (created_at >= {a}) || ' ' || (sent_at = created_at) || ' ' \
                 || (created_at <= (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 2000) \
                 FROM paydesk.journal WHERE mer_order_no = 'R7-1-A'",
                a = now + 2_000
            )
        ),
        "true true true"
    );
    let d = |s: &str| s.parse::<rust_decimal::Decimal>().unwrap();
    assert_eq!(day_used(&pg, since), d("300") + d("200") + d("50"));
}

// ---------------------------------------------------------------------------------
// Review r7, R7-3: a send time is never pushed far ahead, and the owner voids what was.

#[test]
fn a_send_time_never_runs_far_ahead_and_the_owner_voids_a_poisoned_entry() {
    let pg = team_db();
    let now = db_ms(&pg);
    let since = now - 60_000;
    for (no, amount) in [("R7-3-A", "700"), ("R7-3-U", "40")] {
        executing_row(&pg, "mark", "ann", "sam", no, amount);
    }
    sql(
        &pg,
        "sam",
        &journal_entry("R7-3-A", "700", "accepted", now, Some(now)),
    )
    .unwrap();
    sql(
        &pg,
        "sam",
        &journal_entry("R7-3-U", "40", "unknown", now, Some(now)),
    )
    .unwrap();
    // Another signer pushes the send times ahead: far, or ten minutes.
    for ahead in [9_000_000_000_000_000_i64, now + 600_000] {
        refused(
            sql(
                &pg,
                "sid",
                &format!("UPDATE paydesk.journal SET sent_at = {ahead}"),
            ),
            &format!("the send times moved to {ahead}"),
            "more than five minutes ahead",
        );
    }
    // A send again a little ahead of the database's clock (a desk's clock) still goes,
    // once the team's not-found grace is over (set short here by the owner, 0038).
    owner_sql(
        &pg,
        "UPDATE paydesk.team SET not_found_grace_ms = 0 WHERE id = 1",
    );
    sql(
        &pg,
        "sid",
        &format!(
            "{}; UPDATE paydesk.journal SET status = 'pending', {MINE} WHERE mer_order_no = 'R7-3-U'; \
             UPDATE paydesk.journal SET status = 'sending', sent_at = {}, {MINE} WHERE mer_order_no = 'R7-3-U'",
            claim_request_sql("R7-3-U"),
            now + 3_000
        ),
    )
    .unwrap();
    let d = |s: &str| s.parse::<rust_decimal::Decimal>().unwrap();
    assert_eq!(day_used(&pg, since), d("740"));

    // An entry poisoned before 0035 (written here by the owner, whom the triggers do not
    // hold on insert): accepted, 1e9 MXN, sent in the year 2255. It counts every day.
    owner_sql(
        &pg,
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'team', 'v2.payout', 'R7-3-P', \
             '{{\"currencyCode\":\"MXN\",\"sourceAmount\":\"1000000000\"}}', 's', 'accepted', 1, {now}, {now}, 'fp', 9000000000000)"
        ),
    );
    assert_eq!(day_used(&pg, now + 86_400_000 * 365), d("1000000000"));
    let id = owner_sql(
        &pg,
        "SELECT id FROM paydesk.journal WHERE mer_order_no = 'R7-3-P'",
    );
    // No member undoes it: not by the steps the desk takes, not through the owner's
    // repair (not granted), not by naming the repair's setting themselves.
    for user in ["sid", "alice"] {
        refused(
            sql(
                &pg,
                user,
                &format!("SELECT paydesk.journal_void({id}, 'mine')"),
            ),
            &format!("{user} voids an entry"),
            "permission denied for function journal_void",
        );
    }
    refused(
        sql(
            &pg,
            "sid",
            &format!(
                "SET paydesk.voiding = '{id}'; UPDATE paydesk.journal SET status = 'rejected' WHERE id = {id}"
            ),
        ),
        "a signer naming the repair's setting",
        "an accepted send is final",
    );
    // The owner voids it, saying why, and the audit log says so.
    assert!(
        pg.psql_owner(DB, &format!("SELECT paydesk.journal_void({id}, ' ')"))
            .is_err()
    );
    owner_sql(
        &pg,
        &format!(
            "SELECT paydesk.journal_void({id}, 'planted by a signer: the order list has no such payout', force => true)"
        ),
    );
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT status || ' ' || (sent_at = created_at) || ' ' || resolution FROM paydesk.journal WHERE id = {id}"
            )
        ),
        "rejected true voided by the database's owner: planted by a signer: the order list has no such payout"
    );
    assert_eq!(day_used(&pg, now + 86_400_000 * 365), d("0"));
    assert_eq!(day_used(&pg, since), d("740"));
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT operation || ' ' || result FROM paydesk.audit_log WHERE operation = 'team.journal.void'"
        ),
        "team.journal.void planted by a signer: the order list has no such payout"
    );
    // The repair is for that entry only: the others' kept columns stay kept after it.
    refused(
        sql(
            &pg,
            "sid",
            "UPDATE paydesk.journal SET status = 'rejected' WHERE mer_order_no = 'R7-3-A'",
        ),
        "the accepted payout refused after a repair",
        "an accepted send is final",
    );
}

// ---------------------------------------------------------------------------------
// Review r7, R7-2: turning payee approval on is a cut-off again, and nobody waits for it.

/// `nick`'s approver as the book shows it to `user` ("-" while it awaits approval).
fn approver_of(pg: &TestPg, user: &str, nick: &str) -> String {
    sql(
        pg,
        user,
        &format!(
            "SELECT coalesce(approved_by, '-') || ' ' || needs_approval FROM paydesk.beneficiaries_shown WHERE nickname = '{nick}'"
        ),
    )
    .unwrap()
}

#[test]
fn a_payee_a_maker_commits_after_approval_was_turned_on_waits_for_another_member() {
    let pg = team_db();
    let seal = |c: char| format!("{}==", c.to_string().repeat(342));
    let hash = |s: &str| {
        use sha2::Digest;
        hex::encode(sha2::Sha256::digest(s.as_bytes()))
    };
    let id_of = |nick: &str| -> i64 {
        owner_sql(
            &pg,
            &format!("SELECT id FROM paydesk.beneficiaries WHERE nickname = '{nick}'"),
        )
        .parse()
        .unwrap()
    };
    // Added and committed while approval is off: approved as added, and stays so.
    sql(&pg, "mark", &add_payee_sql("early", &seal('E'))).unwrap();

    // a) READ COMMITTED: mark adds a payee (approval off) and holds the transaction open
    // (busy) while alice turns approval on; alice does not wait; mark commits after.
    let hold = format!(
        "BEGIN; {}; SELECT pg_sleep(3) AS r72_rc; COMMIT",
        add_payee_sql("late", &seal('L'))
    );
    std::thread::scope(|s| {
        let held = s.spawn(|| sql(&pg, "mark", &hold));
        wait_running(&pg, "mark", "r72_rc");
        let (out, took) = timed(
            &pg,
            "alice",
            "UPDATE paydesk.team SET payee_approval = true WHERE id = 1",
        );
        out.unwrap();
        assert!(took < Duration::from_secs(2), "{took:?}");
        held.join().unwrap().unwrap();
    });
    // The payee committed after the switch awaits another member, as every member reads
    // the book; the one committed before keeps its approval.
    for user in ["alice", "mark", "ann", "sam", "vic"] {
        assert_eq!(approver_of(&pg, user, "late"), "- true", "{user}");
        assert_eq!(approver_of(&pg, user, "early"), "mark false", "{user}");
    }
    // The signer's worker reads it the same way (schema 0036's check, as the worker's
    // read makes it).
    assert_eq!(
        sql(
            &pg,
            "sam",
            &format!(
                "SELECT coalesce(CASE WHEN paydesk.payee_approved_late(id) THEN NULL ELSE approved_by END, '-') \
                 FROM paydesk.beneficiaries WHERE id = {}",
                id_of("late")
            )
        )
        .unwrap(),
        "-"
    );
    // Mark cannot pay it; the payee added before is paid.
    let (late, late_seal) = (id_of("late"), seal('L'));
    refused(
        sql(
            &pg,
            "mark",
            &payee_request("R7-2-1", late, &hash(&late_seal)),
        ),
        "a payee self-approved after approval was on",
        "waits for another member's approval",
    );
    sql(
        &pg,
        "mark",
        &payee_request("R7-2-0", id_of("early"), &hash(&seal('E'))),
    )
    .unwrap();
    // Approved by another member (ann), it is paid.
    sql(
        &pg,
        "ann",
        &format!(
            "SELECT paydesk.approve_beneficiary({MER}, {late}, '{}')",
            hash(&late_seal)
        ),
    )
    .unwrap();
    assert_eq!(approver_of(&pg, "mark", "late"), "ann true");
    sql(
        &pg,
        "mark",
        &payee_request("R7-2-2", late, &hash(&late_seal)),
    )
    .unwrap();

    // b) REPEATABLE READ: mark's snapshot is taken while approval is off, and the add
    // comes after alice turned it on (both reads inside the add see "off").
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET payee_approval = false WHERE id = 1",
    )
    .unwrap();
    let hold = format!(
        "BEGIN ISOLATION LEVEL REPEATABLE READ; SELECT count(*) FROM paydesk.team; \
         SELECT pg_sleep(3) AS r72_rr; {}; COMMIT",
        add_payee_sql("snap", &seal('N'))
    );
    std::thread::scope(|s| {
        let held = s.spawn(|| sql(&pg, "mark", &hold));
        wait_running(&pg, "mark", "r72_rr");
        sql(
            &pg,
            "alice",
            "UPDATE paydesk.team SET payee_approval = true WHERE id = 1",
        )
        .unwrap();
        held.join().unwrap().unwrap();
    });
    assert_eq!(approver_of(&pg, "alice", "snap"), "- true");
    refused(
        sql(
            &pg,
            "mark",
            &payee_request("R7-2-3", id_of("snap"), &hash(&seal('N'))),
        ),
        "a payee self-approved from a snapshot before approval was on",
        "waits for another member's approval",
    );
    // The admin cannot move the cut-off by hand.
    refused(
        sql(
            &pg,
            "alice",
            "UPDATE paydesk.team SET payee_approval_on = NULL WHERE id = 1",
        ),
        "the admin clearing the cut-off",
        "permission denied",
    );
}
