//! What the eighth hostile review found in the team journal's rules (notes: review-r8,
//! R8-2, R8-3, R8-8, L1, L2; migration 0038), each hole attacked as the member who would
//! use it, with plain SQL (psql, their own password), on a team owned by a role that is
//! not a superuser. Every expected sum and time is the test's own.

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::journal::{Begin, Guard, Intent, Outcome, Status};
use paydesk_core::store::prelude::*;
use paydesk_store_pg::PgLink;
use paydesk_store_pg::journal::PgJournal;
use paydesk_team::TeamRole;
use paydesk_testpg::{Options, TestPg};

use common::team::{
    PASSWORD, cfg, claim_request_sql, db_ms, executing_row, owner_sql, refused, sql,
};

const MER: i64 = common::MER as i64;
const DAY: i64 = 86_400_000;

/// Admin alice, maker mark, approver ann, signers sam and sid, viewer vic; MXN payouts
/// above 10,000 need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
            ("sid", TeamRole::Signer),
            ("vic", TeamRole::Viewer),
        ],
        "10000",
    )
}

/// The claim a signer's psql session takes on an entry, as the desk's claims read
/// (`pg:<backend pid>:…`, live for a minute).
const MINE: &str = "claimed_by = 'pg:' || pg_backend_pid() || ':psql', \
     claimed_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000";

/// A row of an approved payout request numbered `no`, of `amount` MXN, that `signer`'s
/// worker executes (a signer journals a payout only so, 0039).
fn row(pg: &TestPg, signer: &str, no: &str, amount: &str) -> i64 {
    executing_row(pg, "mark", "ann", signer, no, amount)
}

/// A new journal entry of a payout of `amount` MXN, as a signer's psql writes one.
fn entry(no: &str, amount: &str, status: &str, at: i64, sent: Option<i64>) -> String {
    let sent = sent.map_or("NULL".to_string(), |s| s.to_string());
    format!(
        "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
         attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'team', 'v2.payout', '{no}', \
         '{{\"merOrderNo\":\"{no}\",\"sourceAmount\":\"{amount}\",\"currencyCode\":\"MXN\"}}', \
         'payout {amount} MXN', '{status}', 1, {at}, {at}, 'fp-{no}', {sent})"
    )
}

/// An accepted payout written (by the owner, whom the rules for a new entry do not
/// hold) at `at`, sent then, with trade number `trade` (or none).
fn accepted_by_owner(pg: &TestPg, no: &str, amount: &str, at: i64, sent: i64, trade: &str) {
    owner_sql(
        pg,
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at, trade_no) VALUES ({MER}, 'team', 'v2.payout', \
             '{no}', '{{\"sourceAmount\":\"{amount}\",\"currencyCode\":\"MXN\"}}', 's', 'accepted', 1, {at}, {at}, \
             'fp-{no}', {sent}, {trade})"
        ),
    );
}

fn id_of(pg: &TestPg, no: &str) -> i64 {
    owner_sql(
        pg,
        &format!("SELECT id FROM paydesk.journal WHERE mer_order_no = '{no}'"),
    )
    .parse()
    .unwrap()
}

/// What the day's payouts since `since` add up to, read as `begin_within` reads them,
/// summed by the test.
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

fn d(s: &str) -> rust_decimal::Decimal {
    s.parse().unwrap()
}

// ---------------------------------------------------------------------------------
// R8-2: a send time moves only when an entry is taken up for a send; the owner's void
// sticks, and is not for a payout whose money may have left; the owner's repair of a
// poisoned send time.

#[test]
fn a_signer_moves_no_send_time_and_the_owners_void_sticks() {
    let pg = team_db();
    let now = db_ms(&pg);
    let since = now - 60_000;
    // Yesterday's payouts: one the gateway answered (a trade number), one without.
    accepted_by_owner(&pg, "R8-2-A", "700", now - DAY, now - DAY, "'T-1'");
    accepted_by_owner(&pg, "R8-2-B", "300", now - DAY, now - DAY, "NULL");
    assert_eq!(day_used(&pg, since), d("0"));

    // A signer moves every payout's send time to now, alone or while taking a claim:
    // the send times stay, and today's sum with them.
    let to_now = "sent_at = (extract(epoch FROM clock_timestamp()) * 1000)::bigint";
    for q in [
        format!("UPDATE paydesk.journal SET {to_now}"),
        format!("UPDATE paydesk.journal SET {to_now}, {MINE}"),
        format!("UPDATE paydesk.journal SET {to_now}, status = status, {MINE}"),
    ] {
        sql(&pg, "sid", &q).unwrap();
        assert_eq!(day_used(&pg, since), d("0"), "after {q}");
    }
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT string_agg((sent_at = created_at)::text, ',') FROM paydesk.journal"
        ),
        "true,true"
    );
    // A queued entry gets no send time but by being sent.
    row(&pg, "sam", "R8-2-Q", "50");
    sql(&pg, "sam", &entry("R8-2-Q", "50", "pending", now, None)).unwrap();
    sql(
        &pg,
        "sid",
        &format!("UPDATE paydesk.journal SET {to_now}, {MINE} WHERE mer_order_no = 'R8-2-Q'"),
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT sent_at IS NULL FROM paydesk.journal WHERE mer_order_no = 'R8-2-Q'"
        ),
        "t"
    );

    // The owner's repair of a send time poisoned before this (written by the owner
    // here): put back to when the entry was written, its status kept, audited. Nobody
    // else may call it.
    accepted_by_owner(&pg, "R8-2-P", "5000", now - DAY, now, "'T-2'");
    assert_eq!(day_used(&pg, since), d("5000") + d("50"));
    let poisoned = id_of(&pg, "R8-2-P");
    for user in ["sid", "alice"] {
        refused(
            sql(
                &pg,
                user,
                &format!("SELECT paydesk.journal_reset_sent_at({poisoned}, 'mine')"),
            ),
            &format!("{user} puts a send time back"),
            "permission denied for function journal_reset_sent_at",
        );
    }
    assert!(
        pg.psql_owner(
            common::team::DB,
            &format!("SELECT paydesk.journal_reset_sent_at({poisoned}, ' ')")
        )
        .is_err()
    );
    owner_sql(
        &pg,
        &format!(
            "SELECT paydesk.journal_reset_sent_at({poisoned}, 'moved to today by a signer: paid yesterday')"
        ),
    );
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT status || ' ' || (sent_at = created_at) || ' ' || trade_no FROM paydesk.journal WHERE id = {poisoned}"
            )
        ),
        "accepted true T-2"
    );
    assert_eq!(day_used(&pg, since), d("50"));
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT result FROM paydesk.audit_log WHERE operation = 'team.journal.reset_sent_at'"
        ),
        "moved to today by a signer: paid yesterday"
    );

    // The void: not for a payout the gateway answered, nor one in flight, unless forced.
    let answered = id_of(&pg, "R8-2-A");
    row(&pg, "sam", "R8-2-S", "40");
    sql(
        &pg,
        "sam",
        &entry("R8-2-S", "40", "sending", now, Some(now)),
    )
    .unwrap();
    let in_flight = id_of(&pg, "R8-2-S");
    for id in [answered, in_flight] {
        assert!(
            pg.psql_owner(
                common::team::DB,
                &format!("SELECT paydesk.journal_void({id}, 'looks planted')")
            )
            .unwrap_err()
            .to_string()
            .contains("its money may have left"),
            "entry {id} voided without force"
        );
    }
    owner_sql(
        &pg,
        &format!(
            "SELECT paydesk.journal_void({in_flight}, 'the order list has no such payout', force => true)"
        ),
    );
    // A planted "accepted" payout without a trade number is voided with force too
    // (review r10 R10-9: accepted, its money may have left; a top-up never has one).
    let planted = id_of(&pg, "R8-2-B");
    assert!(
        pg.psql_owner(
            common::team::DB,
            &format!("SELECT paydesk.journal_void({planted}, 'planted: not in the order list')")
        )
        .unwrap_err()
        .to_string()
        .contains("its money may have left"),
        "an accepted entry voided without force"
    );
    owner_sql(
        &pg,
        &format!(
            "SELECT paydesk.journal_void({planted}, 'planted: not in the order list', force => true)"
        ),
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT string_agg(mer_order_no || ' ' || status || ' ' || voided, ', ' ORDER BY mer_order_no) \
             FROM paydesk.journal WHERE voided"
        ),
        "R8-2-B rejected true, R8-2-S rejected true"
    );
    // No member turns a void back: not found accepted after all, not its resolution,
    // not the mark (no right on it).
    for (q, needle) in [
        (
            format!("UPDATE paydesk.journal SET status = 'accepted', {MINE} WHERE id = {planted}"),
            "voided by the team database's owner",
        ),
        (
            format!(
                "UPDATE paydesk.journal SET resolution = 'found after all' WHERE id = {planted}"
            ),
            "voided by the team database's owner",
        ),
        (
            format!("UPDATE paydesk.journal SET voided = false WHERE id = {planted}"),
            "permission denied",
        ),
    ] {
        refused(sql(&pg, "sid", &q), &q, needle);
    }
    assert_eq!(
        owner_sql(
            &pg,
            &format!("SELECT status || ' ' || voided FROM paydesk.journal WHERE id = {planted}")
        ),
        "rejected true"
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT count(*) FROM paydesk.audit_log WHERE operation = 'team.journal.void'"
        ),
        "2"
    );
    // A new entry is never voided, whatever its writer says.
    row(&pg, "sid", "R8-2-V", "10");
    sql(
        &pg,
        "sid",
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, voided) VALUES ({MER}, 'team', 'v2.payout', 'R8-2-V', \
             '{{\"sourceAmount\":\"10\",\"currencyCode\":\"MXN\"}}', 's', 'pending', 0, {now}, {now}, 'fp-v', true)"
        ),
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT voided FROM paydesk.journal WHERE mer_order_no = 'R8-2-V'"
        ),
        "f"
    );
}

// ---------------------------------------------------------------------------------
// R8-3 and L1: the database's clock stamps the times, and holds the not-found grace.

#[test]
fn the_database_stamps_the_times_and_holds_the_not_found_grace() {
    let pg = team_db();
    let now = db_ms(&pg);
    // A desk four minutes behind (0035 kept its times): written and sent at the
    // database's time at the earliest.
    let behind = now - 240_000;
    row(&pg, "sam", "R8-3-S", "100");
    row(&pg, "sam", "R8-3-Q", "100");
    sql(
        &pg,
        "sam",
        &entry("R8-3-S", "100", "sending", behind, Some(behind)),
    )
    .unwrap();
    sql(&pg, "sam", &entry("R8-3-Q", "100", "pending", behind, None)).unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT string_agg(mer_order_no || ' ' || (created_at >= {now}) || ' ' || coalesce((sent_at >= {now})::text, '-'), ', ' \
                 ORDER BY mer_order_no) FROM paydesk.journal"
            )
        ),
        "R8-3-Q true -, R8-3-S true true"
    );
    // Taken up for a send by that desk: sent at the database's clock.
    let before = db_ms(&pg);
    sql(
        &pg,
        "sam",
        &format!(
            "UPDATE paydesk.journal SET status = 'sending', sent_at = {behind}, {MINE} WHERE mer_order_no = 'R8-3-Q'"
        ),
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT sent_at >= {before} FROM paydesk.journal WHERE mer_order_no = 'R8-3-Q'"
            )
        ),
        "t"
    );
    // A lookup (on a desk whose clock runs ahead, or by hand) calls a send made just now
    // never received: refused within the team's grace, from sending or unknown.
    sql(
        &pg,
        "sam",
        &format!(
            "UPDATE paydesk.journal SET status = 'unknown', {MINE} WHERE mer_order_no = 'R8-3-Q'"
        ),
    )
    .unwrap();
    for no in ["R8-3-S", "R8-3-Q"] {
        refused(
            sql(
                &pg,
                "sid",
                &format!(
                    "UPDATE paydesk.journal SET status = 'pending', {MINE} WHERE mer_order_no = '{no}'"
                ),
            ),
            &format!("{no} called never received at once"),
            "the team's not-found grace",
        );
    }
    // The grace is the owner's to set, not an admin's.
    refused(
        sql(
            &pg,
            "alice",
            "UPDATE paydesk.team SET not_found_grace_ms = 0 WHERE id = 1",
        ),
        "the admin shortens the grace",
        "permission denied",
    );
    owner_sql(
        &pg,
        "UPDATE paydesk.team SET not_found_grace_ms = 1000 WHERE id = 1",
    );
    std::thread::sleep(std::time::Duration::from_millis(1_200));
    for no in ["R8-3-S", "R8-3-Q"] {
        sql(
            &pg,
            "sid",
            &format!(
                "UPDATE paydesk.journal SET status = 'pending', {MINE} WHERE mer_order_no = '{no}'"
            ),
        )
        .unwrap();
    }
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT string_agg(status, ',' ORDER BY mer_order_no) FROM paydesk.journal"
        ),
        "pending,pending"
    );
}

// ---------------------------------------------------------------------------------
// R8-8: a status changes only under the session's own claim, and a claim a desk holds
// is not taken from it.

#[test]
fn a_signer_changes_no_status_without_its_own_claim() {
    let pg = team_db();
    // Sam's desk begins a send (a payin: no approved request needed for this) and holds
    // its claim while the request is out.
    let link = PgLink::connect(&cfg(&pg, "sam"), PASSWORD).unwrap();
    let journal = PgJournal::on(&link, MER);
    let body =
        serde_json::json!({"merOrderNo": "R8-8-1", "sourceAmount": "10", "currencyCode": "MXN"});
    let begun = journal
        .begin(
            "desk",
            Intent {
                operation: "v2.payment",
                mer_order_no: "R8-8-1",
                request: &body,
                summary: "payin 10 MXN",
                fingerprint: "fp-r8-8",
                purpose: None,
            },
            Guard {
                window_ms: 60_000,
                allow_duplicate: false,
            },
        )
        .unwrap();
    let (e, claim) = match begun {
        Begin::Send(e, c) => (e, c),
        other => panic!("{other:?}"),
    };
    let id = e.id;
    // Sid, with psql: the send in flight marked refused, with or without a claim of
    // their own; the desk's claim cleared, cut short or replaced by another name.
    for (q, needle) in [
        (
            format!("UPDATE paydesk.journal SET status = 'rejected', code = 'E' WHERE id = {id}"),
            "changes only under this session's own claim",
        ),
        (
            format!("UPDATE paydesk.journal SET status = 'rejected', {MINE} WHERE id = {id}"),
            "claimed by another session at work on it",
        ),
        (
            format!(
                "UPDATE paydesk.journal SET claimed_by = NULL, claimed_until = NULL WHERE id = {id}"
            ),
            "claimed by another session at work on it",
        ),
        (
            format!("UPDATE paydesk.journal SET claimed_until = 0 WHERE id = {id}"),
            "claimed by another session at work on it",
        ),
        (
            format!(
                "UPDATE paydesk.journal SET claimed_by = 'desk:1', claimed_until = 9000000000000 WHERE id = {id}"
            ),
            "this session's own",
        ),
    ] {
        refused(sql(&pg, "sid", &q), &q, needle);
    }
    // Nor a new entry under a claim not its own.
    refused(
        sql(
            &pg,
            "sid",
            &format!(
                "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
                 attempts, created_at, updated_at, fingerprint, claimed_by, claimed_until) VALUES ({MER}, 'x', \
                 'v2.payment', 'R8-8-2', '{{}}', 's', 'pending', 0, 0, 0, 'fp', 'desk:1', 9000000000000)"
            ),
        ),
        "a new entry under another name's claim",
        "this session's own",
    );
    assert_eq!(
        owner_sql(
            &pg,
            &format!("SELECT status FROM paydesk.journal WHERE id = {id}")
        ),
        "sending"
    );
    // The desk records the outcome under its claim, and gives the claim up.
    assert!(
        journal
            .finish(
                id,
                &claim,
                Outcome {
                    status: Status::Unknown,
                    trade_no: None,
                    code: None,
                    message: Some("timed out"),
                },
            )
            .unwrap()
    );
    // Now nobody works on it: a member must still take its claim first (which names
    // their session, for every member to see).
    refused(
        sql(
            &pg,
            "sid",
            &format!("UPDATE paydesk.journal SET status = 'rejected' WHERE id = {id}"),
        ),
        "the unknown entry marked refused without a claim",
        "changes only under this session's own claim",
    );
    // The desk's lookup takes the claim, and its outcome goes under it.
    let (_, lookup) = journal.claim(id).unwrap().unwrap();
    journal
        .not_found_yet(id, &lookup, 0, "not listed yet")
        .unwrap();
    // Released, the claim is a member's to take (visible to every member), and a status
    // changes under it; never to refused (review r10 R10-2: only the owner's void
    // refuses an unknown entry).
    refused(
        sql(
            &pg,
            "sid",
            &format!("UPDATE paydesk.journal SET status = 'rejected', {MINE} WHERE id = {id}"),
        ),
        "an unknown entry refused by a member",
        "only the team database's owner refuses it",
    );
    sql(
        &pg,
        "sid",
        &format!("UPDATE paydesk.journal SET status = 'accepted', {MINE} WHERE id = {id}"),
    )
    .unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT status || ' ' || (claimed_by LIKE 'pg:%:psql') FROM paydesk.journal WHERE id = {id}"
            )
        ),
        "accepted true"
    );
}

// ---------------------------------------------------------------------------------
// L2: a definer function of the owner's that writes the journal carries no member past
// the rules for a new entry.

#[test]
fn an_owners_definer_function_carries_no_member_past_the_journals_rules() {
    let pg = team_db();
    owner_sql(
        &pg,
        &format!(
            "CREATE FUNCTION paydesk.r8_plant() RETURNS void LANGUAGE sql SECURITY DEFINER \
             SET search_path = pg_catalog, paydesk, pg_temp AS $$ \
             INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'x', 'v2.payout', 'R8-L2', \
             '{{\"sourceAmount\":\"-1000000\",\"currencyCode\":\"MXN\"}}', 's', 'accepted', 1, 0, 0, '', 0) $$; \
             REVOKE ALL ON FUNCTION paydesk.r8_plant() FROM PUBLIC; \
             GRANT EXECUTE ON FUNCTION paydesk.r8_plant() TO sid"
        ),
    );
    refused(
        sql(&pg, "sid", "SELECT paydesk.r8_plant()"),
        "a member's entry written through the owner's definer function",
        "written pending or sending",
    );
    // The owner's own session is the owner's.
    owner_sql(&pg, "SELECT paydesk.r8_plant()");
    assert_eq!(owner_sql(&pg, "SELECT count(*) FROM paydesk.journal"), "1");
}

// ---------------------------------------------------------------------------------
// R8-9: a signer's session kept busy while holding the day's lock no longer stalls the
// other signers' payouts in that currency.

/// The key of the desk's day lock of merchant `mer` in `currency` (journal.rs
/// `lock_key("day", …)`: computable by anyone, as the attack needs).
fn day_key(mer: i64, currency: &str) -> i64 {
    use sha2::Digest;
    let digest =
        sha2::Sha256::digest(format!("paydesk.journal.day\x1f{mer}\x1f{currency}").as_bytes());
    i64::from_be_bytes(digest[..8].try_into().unwrap())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signer_holding_the_days_lock_busy_stalls_no_worker_for_long() {
    use paydesk_core::limits::{CurrencyLimit, Limits};
    use paydesk_core::{Desk, Endpoint, Profile};
    use paydesk_team::{self as team, RowState};
    use std::time::{Duration, Instant};

    let pg = common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
            ("sid", TeamRole::Signer),
        ],
        "0",
    );
    let f = common::Fixture::new("r8day").await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(&pg, "sam")),
            ..p
        })
        .unwrap();
    // A day's limit: each payout is summed under the day's lock of its currency.
    f.home
        .set_limits(
            &f.name,
            Limits {
                currencies: vec![CurrencyLimit {
                    currency: "MXN".into(),
                    per_payout: None,
                    per_day: Some("1000.00".into()),
                }],
            },
        )
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    let (maker, ann, sam) = (
        common::team::member(&pg, "mark"),
        common::team::member(&pg, "ann"),
        common::team::member(&pg, "sam"),
    );
    let mut form = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Clabe,
        "",
        "40.00",
        "MXN",
    );
    form.clabe = common::team::CLABE.into();
    let r = maker.request_payout(&form).unwrap();
    ann.approve(r.id).unwrap();

    // Sid, with psql, takes the day's lock of MXN and keeps the transaction busy.
    let hold = format!(
        "BEGIN; SELECT paydesk.advisory_xact_lock({}); SELECT pg_sleep(120) AS r89_hold; COMMIT",
        day_key(MER, "MXN")
    );
    let held = {
        let pg_conn = pg.conninfo("sid", PASSWORD, common::team::DB);
        let psql = pg.bin_dir().join("psql");
        std::thread::spawn(move || {
            std::process::Command::new(psql)
                .args([
                    pg_conn.as_str(),
                    "-X",
                    "-q",
                    "-v",
                    "ON_ERROR_STOP=1",
                    "-c",
                    &hold,
                ])
                .output()
                .unwrap()
        })
    };
    // Held, busy, for more than ten seconds.
    let start = Instant::now();
    loop {
        let old = owner_sql(
            &pg,
            "SELECT count(*) FROM pg_stat_activity WHERE usename = 'sid' AND state = 'active' \
             AND query LIKE '%r89_hold%' AND xact_start < clock_timestamp() - interval '10.5 seconds'",
        );
        if old == "1" {
            break;
        }
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "sid never held the lock"
        );
        std::thread::sleep(Duration::from_millis(200));
    }

    // Sam's worker pays the approved row within a bound: its wait for the lock (5 s),
    // then the busy holder is ended.
    let started = Instant::now();
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    let took = started.elapsed();
    assert_eq!((done.request, done.accepted), (r.id, 1), "{done:?}");
    assert!(took < Duration::from_secs(15), "{took:?}");
    let row = &maker.rows(r.id).unwrap()[0];
    assert_eq!(row.state, RowState::Accepted);
    assert_eq!(
        f.running
            .sandbox
            .orders_numbered(common::MER, &row.mer_order_no),
        1
    );
    let out = held.join().unwrap();
    assert!(!out.status.success(), "sid's transaction was ended");
    assert!(
        owner_sql(
            &pg,
            "SELECT string_agg(identifiers || ' ' || result, '; ') FROM paydesk.audit_log WHERE operation = 'team.stall.end'"
        )
        .contains("member=sid ended: a transaction busy for")
    );
}

// ---------------------------------------------------------------------------------
// R8-5 (and R8-1, R8-6 with psql): a signer journals a payout only as a row of an
// approved request their worker executes, with the row's number, amount and currency.

#[test]
fn a_signer_journals_a_payout_only_as_a_row_their_worker_executes() {
    let pg = team_db();
    let now = db_ms(&pg);
    let plant = |no: &str, amount: &str, currency: &str, status: &str| {
        let sent = if status == "sending" {
            now.to_string()
        } else {
            "NULL".into()
        };
        format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'x', 'v2.payout', '{no}', \
             '{{\"sourceAmount\":\"{amount}\",\"currencyCode\":\"{currency}\"}}', 's', '{status}', 1, {now}, {now}, 'fp-{no}', {sent})"
        )
    };
    // No request at all: a payout the approvers never saw.
    refused(
        sql(&pg, "sid", &plant("R8-5-0", "100000", "MXN", "sending")),
        "a payout without a request",
        "not a row of an approved request",
    );
    // An approved row nobody executes yet: the R8-1/R8-6 plant of 0.01 under its number.
    sql(
        &pg,
        "mark",
        &format!(
            "WITH r AS (INSERT INTO paydesk.requests (operation, currency, total, row_count, summary) \
             VALUES ('payout', 'MXN', 100, 1, '100 MXN') RETURNING id) \
             INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary) \
             SELECT id, 1, 'R8-5-1', 100, \
             '{{\"kind\":\"CLABE\",\"merOrderNo\":\"R8-5-1\",\"amount\":\"100\",\"currency\":\"MXN\",\"clabe\":\"{}\"}}', \
             'CLABE 002010********7771' FROM r",
            common::team::CLABE
        ),
    )
    .unwrap();
    for status in ["pending", "sending"] {
        for amount in ["0.01", "100"] {
            refused(
                sql(&pg, "sid", &plant("R8-5-1", amount, "MXN", status)),
                &format!("a {status} plant of {amount} under an approved row nobody executes"),
                "not a row of an approved request",
            );
        }
    }
    // Sam's worker executes it: another signer still plants nothing under it.
    sql(&pg, "sam", &claim_request_sql("R8-5-1")).unwrap();
    refused(
        sql(&pg, "sid", &plant("R8-5-1", "100", "MXN", "pending")),
        "a plant under a row another signer executes",
        "not a row of an approved request",
    );
    // Sam: only the row's amount in the request's currency.
    for (amount, currency) in [("0.01", "MXN"), ("1000", "MXN"), ("100", "USD")] {
        refused(
            sql(&pg, "sam", &plant("R8-5-1", amount, currency, "sending")),
            &format!("{amount} {currency} under a row of 100 MXN"),
            "not a row of an approved request",
        );
    }
    sql(&pg, "sam", &plant("R8-5-1", "100.00", "mxn", "pending")).unwrap();
    // Queued, it is taken up for a send by the executing signer only.
    let send = format!(
        "UPDATE paydesk.journal SET status = 'sending', {MINE} WHERE mer_order_no = 'R8-5-1'"
    );
    refused(
        sql(&pg, "sid", &send),
        "another signer sends the queued row",
        "not a row of an approved request",
    );
    sql(&pg, "sam", &send).unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT string_agg(mer_order_no || ' ' || status, ',') FROM paydesk.journal"
        ),
        "R8-5-1 sending"
    );
    // The owner is not held (a repair).
    owner_sql(&pg, &plant("R8-5-9", "1", "MXN", "pending"));
}

// ---------------------------------------------------------------------------------
// R8-7: after a logical restore (the payees' transaction ids are the old cluster's), the
// README's step keeps every payee approved as added approved.

#[test]
fn a_logical_restore_cleared_as_the_readme_says_keeps_the_payees_approval() {
    let pg = team_db();
    let seal = format!("{}==", "Q".repeat(342));
    sql(
        &pg,
        "mark",
        &format!(
            "SELECT paydesk.add_beneficiary({MER}, 'acme', 'clabe', 'Acme', '', '002010********7771', '{seal}', 'BANAMEX', 'MX')"
        ),
    )
    .unwrap();
    // As a dump restored into a younger cluster leaves it: the add's transaction id is
    // past every one this cluster has given out.
    owner_sql(
        &pg,
        "UPDATE paydesk.beneficiaries SET added_xact = '900000000000'::xid8",
    );
    sql(
        &pg,
        "alice",
        "UPDATE paydesk.team SET payee_approval = true WHERE id = 1",
    )
    .unwrap();
    let shown = || {
        sql(
            &pg,
            "alice",
            "SELECT coalesce(approved_by, '-') || ' ' || needs_approval FROM paydesk.beneficiaries_shown WHERE nickname = 'acme'",
        )
        .unwrap()
    };
    assert_eq!(shown(), "- true", "the stall the review found");
    // The restore's step (README, "A team on PostgreSQL").
    owner_sql(&pg, "UPDATE paydesk.beneficiaries SET added_xact = NULL");
    assert_eq!(shown(), "mark false");
}

/// The desk's side of the grace (journal.rs `finish`): a send its desk calls never
/// received within the team's grace (a connection refused, a lookup on a clock that runs
/// ahead) stays unknown, looked up again when the grace ends; after it, pending.
#[test]
fn a_send_called_never_received_within_the_grace_stays_unknown_until_it_ends() {
    let pg = team_db();
    let link = PgLink::connect(&cfg(&pg, "sam"), PASSWORD).unwrap();
    let journal = PgJournal::on(&link, MER);
    let body =
        serde_json::json!({"merOrderNo": "R8-3-D", "sourceAmount": "10", "currencyCode": "MXN"});
    let intent = Intent {
        operation: "v2.payment",
        mer_order_no: "R8-3-D",
        request: &body,
        summary: "payin 10 MXN",
        fingerprint: "fp-r8-3-d",
        purpose: None,
    };
    let guard = Guard {
        window_ms: 60_000,
        allow_duplicate: false,
    };
    let (e, claim) = match journal.begin("desk", intent, guard).unwrap() {
        Begin::Send(e, c) => (e, c),
        other => panic!("{other:?}"),
    };
    let not_sent = Outcome {
        status: Status::Pending,
        trade_no: None,
        code: Some("refused"),
        message: Some("connection refused"),
    };
    assert!(!journal.finish(e.id, &claim, not_sent).unwrap());
    let after = journal.get(e.id).unwrap().unwrap();
    assert_eq!(after.status, Status::Unknown);
    assert_eq!(after.next_check_at, after.sent_at.map(|s| s + 300_000));
    assert_eq!(
        owner_sql(
            &pg,
            &format!(
                "SELECT claimed_by IS NULL FROM paydesk.journal WHERE id = {}",
                e.id
            )
        ),
        "t"
    );
    // Once the grace is over (the owner's shorter one here), it is pending.
    owner_sql(
        &pg,
        "UPDATE paydesk.team SET not_found_grace_ms = 0 WHERE id = 1",
    );
    let (_, claim) = journal.claim(e.id).unwrap().unwrap();
    assert!(journal.finish(e.id, &claim, not_sent).unwrap());
    assert_eq!(journal.get(e.id).unwrap().unwrap().status, Status::Pending);
}
