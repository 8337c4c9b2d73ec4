//! What the tenth hostile review found in the journal's approval check, the request
//! rows' rules, the request's end and the owner's void (notes: review-r10, R10-1, R10-2,
//! R10-5, R10-3 item 1, R10-9, R10-10, R10-11; migration 0041), each hole attacked as the
//! member who would use it, with plain SQL (psql, their own password; two sessions at
//! once where the hole is a race), on a team owned by a role that is not a superuser.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use paydesk_team::TeamRole;
use paydesk_testpg::{Options, TestPg};

use common::team::{db_ms, executing_row, owner_sql, refused, sql};

const MER: i64 = common::MER as i64;

/// The claim a signer's psql session takes on an entry, as the desk's claims read
/// (`pg:<backend pid>:…`, live for a minute).
const MINE: &str = "claimed_by = 'pg:' || pg_backend_pid() || ':psql', \
     claimed_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000";

/// Admin alice, maker mark, approver ann, signers sam and sid; MXN payouts above 10,000
/// need one approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
            ("sid", TeamRole::Signer),
        ],
        "10000",
    )
}

/// A payout entry of `amount` MXN under `no` in `status` (pending or sending), as a
/// signer's desk journals one: under this session's own claim.
fn entry(no: &str, amount: &str, status: &str) -> String {
    format!(
        "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
         attempts, created_at, updated_at, fingerprint, claimed_by, claimed_until) VALUES ({MER}, 'team', \
         'v2.payout', '{no}', '{{\"merOrderNo\":\"{no}\",\"sourceAmount\":\"{amount}\",\"currencyCode\":\"MXN\"}}', \
         's', '{status}', 1, 0, 0, 'fp-{no}', 'pg:' || pg_backend_pid() || ':desk', \
         (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000)"
    )
}

/// Row `no`'s outcome written by `who` with plain SQL.
fn outcome_sql(no: &str, status: &str) -> String {
    format!(
        "UPDATE paydesk.request_rows SET status = '{status}', message = 'by hand' WHERE mer_order_no = '{no}'"
    )
}

fn row_status(pg: &TestPg, no: &str) -> String {
    owner_sql(
        pg,
        &format!("SELECT status FROM paydesk.request_rows WHERE mer_order_no = '{no}'"),
    )
}

fn entry_status(pg: &TestPg, no: &str) -> String {
    owner_sql(
        pg,
        &format!(
            "SELECT coalesce(string_agg(status, ','), 'none') FROM paydesk.journal WHERE mer_order_no = '{no}'"
        ),
    )
}

/// `first` runs in a session of its own as `who`, holding its transaction open 2 s;
/// `second` runs as `who` in another session half a second later: both answers, and
/// how long `second` took.
fn two_sessions(
    pg: &TestPg,
    who: &str,
    first: &str,
    second: &str,
) -> (Result<String, String>, Result<String, String>, Duration) {
    std::thread::scope(|s| {
        let held = s.spawn(|| {
            sql(
                pg,
                who,
                &format!("BEGIN; {first}; SELECT pg_sleep(2); COMMIT;"),
            )
        });
        std::thread::sleep(Duration::from_millis(500));
        let at = Instant::now();
        let later = sql(pg, who, second);
        let took = at.elapsed();
        (held.join().unwrap(), later, took)
    })
}

/// R10-1: the executing signer's psql holds `row -> failed` open while a payout is
/// journaled under the row's number (or the other way round): one waits for the other
/// and is refused; the row is never failed (re-requestable) while its entry is sending.
#[test]
fn a_row_failed_and_its_payout_journaled_at_once_never_both_pass() {
    let pg = team_db();
    // The row failed first (uncommitted), the journaling second: it waits, then sees
    // the row failed, and refuses.
    executing_row(&pg, "mark", "ann", "sam", "R10-1-1", "100");
    let (held, later, took) = two_sessions(
        &pg,
        "sam",
        &outcome_sql("R10-1-1", "failed"),
        &entry("R10-1-1", "100", "sending"),
    );
    held.unwrap();
    refused(
        later,
        "a payout journaled under a row failed meanwhile",
        "not a row of an approved request",
    );
    assert!(
        took >= Duration::from_millis(1000),
        "the journaling waited: {took:?}"
    );
    assert_eq!(row_status(&pg, "R10-1-1"), "failed");
    assert_eq!(entry_status(&pg, "R10-1-1"), "none");

    // The journaling first (uncommitted), the row failed second: it waits for the entry,
    // then sees it, and refuses.
    executing_row(&pg, "mark", "ann", "sam", "R10-1-2", "100");
    let (held, later, took) = two_sessions(
        &pg,
        "sam",
        &entry("R10-1-2", "100", "sending"),
        &outcome_sql("R10-1-2", "failed"),
    );
    held.unwrap();
    refused(
        later,
        "a row failed while its payout is being journaled",
        "not what its journal entry",
    );
    assert!(
        took >= Duration::from_millis(1000),
        "the outcome waited: {took:?}"
    );
    assert_eq!(row_status(&pg, "R10-1-2"), "waiting");
    assert_eq!(entry_status(&pg, "R10-1-2"), "sending");
    // A snapshot of its own (taken before the entry's commit) reads no journal: refused.
    refused(
        sql(
            &pg,
            "sam",
            &format!(
                "BEGIN ISOLATION LEVEL REPEATABLE READ; {}; COMMIT;",
                outcome_sql("R10-1-2", "failed")
            ),
        ),
        "a row's outcome at repeatable read",
        "READ COMMITTED",
    );
    // The worker's own way, the outcome after the entry's commit, passes.
    sql(&pg, "sam", &outcome_sql("R10-1-2", "unknown")).unwrap();
    assert_eq!(row_status(&pg, "R10-1-2"), "unknown");
}

/// R10-2 + R10-5: no member refuses an unknown entry (its money may have left), and a
/// sending one only under the claim that sent it; a row is refused only on such a
/// refusal, or the owner's void. The desk's own refusal (its send's, under its claim)
/// still passes, and its row with it.
#[test]
fn only_the_sending_claim_refuses_an_entry_and_only_then_its_row() {
    let pg = team_db();
    // Journaled and sent by one session (its claim gone with it), then unknown.
    executing_row(&pg, "mark", "ann", "sam", "R10-2-1", "100");
    sql(&pg, "sam", &entry("R10-2-1", "100", "sending")).unwrap();
    sql(
        &pg,
        "sam",
        &format!(
            "UPDATE paydesk.journal SET status = 'unknown', {MINE} WHERE mer_order_no = 'R10-2-1'"
        ),
    )
    .unwrap();
    for who in ["sam", "sid"] {
        refused(
            sql(
                &pg,
                who,
                &format!(
                    "UPDATE paydesk.journal SET status = 'rejected', {MINE} WHERE mer_order_no = 'R10-2-1'"
                ),
            ),
            &format!("{who} refuses an unknown payout"),
            "only the team database's owner refuses it",
        );
    }
    refused(
        sql(&pg, "sam", &outcome_sql("R10-2-1", "rejected")),
        "a row refused while its entry is unknown",
        "not what its journal entry",
    );
    // Sent by a session now gone: nobody else's claim refuses it.
    executing_row(&pg, "mark", "ann", "sam", "R10-2-2", "100");
    sql(&pg, "sam", &entry("R10-2-2", "100", "sending")).unwrap();
    for who in ["sam", "sid"] {
        refused(
            sql(
                &pg,
                who,
                &format!(
                    "UPDATE paydesk.journal SET status = 'rejected', {MINE} WHERE mer_order_no = 'R10-2-2'"
                ),
            ),
            &format!("{who} refuses a payout another claim sent"),
            "refused only by the claim that sent it",
        );
    }
    // Nor are the trigger's columns a member's to write.
    refused(
        sql(
            &pg,
            "sam",
            "UPDATE paydesk.journal SET sent_claim = NULL, refused_on_send = true WHERE mer_order_no = 'R10-2-2'",
        ),
        "a signer writes who sent an entry",
        "permission denied",
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT refused_on_send::text || ' ' || (sent_claim IS NOT NULL)::text FROM paydesk.journal \
             WHERE mer_order_no = 'R10-2-2'"
        ),
        "false true"
    );
    assert_eq!(entry_status(&pg, "R10-2-2"), "sending");
    // The desk's way: refused under the claim that sent it, then its row.
    executing_row(&pg, "mark", "ann", "sam", "R10-2-3", "100");
    sql(
        &pg,
        "sam",
        &format!(
            "{}; UPDATE paydesk.journal SET status = 'rejected', claimed_by = NULL, claimed_until = NULL \
             WHERE mer_order_no = 'R10-2-3'",
            entry("R10-2-3", "100", "sending")
        ),
    )
    .unwrap();
    sql(&pg, "sam", &outcome_sql("R10-2-3", "rejected")).unwrap();
    assert_eq!(row_status(&pg, "R10-2-3"), "rejected");
    // The owner's void of the unknown one (forced, after checking the order list) lets
    // its row be refused.
    let id = owner_sql(
        &pg,
        "SELECT id FROM paydesk.journal WHERE mer_order_no = 'R10-2-1'",
    );
    owner_sql(
        &pg,
        &format!("SELECT paydesk.journal_void({id}, 'not in the order list', force => true)"),
    );
    sql(&pg, "sam", &outcome_sql("R10-2-1", "rejected")).unwrap();
    assert_eq!(row_status(&pg, "R10-2-1"), "rejected");
}

/// R10-3 item 1: a second signer sets no trade number on another signer's executing
/// row (the worker's real one was then refused and its request stranded).
#[test]
fn no_other_signer_plants_a_rows_trade_number() {
    let pg = team_db();
    executing_row(&pg, "mark", "ann", "sam", "R10-3-1", "100");
    refused(
        sql(
            &pg,
            "sid",
            "UPDATE paydesk.request_rows SET trade_no = 'PLANTED' WHERE mer_order_no = 'R10-3-1'",
        ),
        "another signer's trade number on a waiting row",
        "only by the signer executing its request",
    );
    assert_eq!(
        owner_sql(
            &pg,
            "SELECT coalesce(trade_no, 'none') FROM paydesk.request_rows WHERE mer_order_no = 'R10-3-1'"
        ),
        "none"
    );
}

/// R10-10: a request is done only once none of its rows is waiting or unknown.
#[test]
fn a_request_is_done_only_with_every_rows_outcome() {
    let pg = team_db();
    let id = executing_row(&pg, "mark", "ann", "sam", "R10-10-1", "100");
    let done =
        format!("UPDATE paydesk.requests SET state = 'done', outcome = 'ok' WHERE id = {id}");
    refused(
        sql(&pg, "sam", &done),
        "done with a waiting row",
        "done only once every row has its outcome",
    );
    sql(&pg, "sam", &outcome_sql("R10-10-1", "unknown")).unwrap();
    refused(
        sql(&pg, "sam", &done),
        "done with an unknown row",
        "done only once every row has its outcome",
    );
    sql(&pg, "sam", &outcome_sql("R10-10-1", "failed")).unwrap();
    sql(&pg, "sam", &done).unwrap();
    assert_eq!(
        owner_sql(
            &pg,
            &format!("SELECT state FROM paydesk.requests WHERE id = {id}")
        ),
        "done"
    );
}

/// R10-9: the owner's void asks for `force` for an accepted entry, trade number or not
/// (a card top-up has none, and its money has left).
#[test]
fn the_owners_void_of_an_accepted_entry_needs_force() {
    let pg = team_db();
    let now = db_ms(&pg);
    owner_sql(
        &pg,
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'team', 'v2.card.topUp', \
             'R10-9-1', '{{}}', 's', 'accepted', 1, {now}, {now}, 'fp-R10-9-1', {now})"
        ),
    );
    let id = owner_sql(
        &pg,
        "SELECT id FROM paydesk.journal WHERE mer_order_no = 'R10-9-1'",
    );
    let err = pg
        .psql_owner(
            common::team::DB,
            &format!("SELECT paydesk.journal_void({id}, 'a mistake')"),
        )
        .map(|s| s.trim().to_string())
        .map_err(|e| e.to_string());
    refused(err, "an accepted top-up voided", "its money may have left");
    assert_eq!(entry_status(&pg, "R10-9-1"), "accepted");
    owner_sql(
        &pg,
        &format!("SELECT paydesk.journal_void({id}, 'the card shows no top-up', force => true)"),
    );
    assert_eq!(entry_status(&pg, "R10-9-1"), "rejected");
}

/// R10-11: a signer moves no entry's `updated_at` back (the duplicate guard's 24 h
/// window reads it) nor far ahead.
#[test]
fn a_signer_moves_no_entrys_time_out_of_the_duplicate_window() {
    let pg = team_db();
    let now = db_ms(&pg);
    owner_sql(
        &pg,
        &format!(
            "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, \
             attempts, created_at, updated_at, fingerprint, sent_at) VALUES ({MER}, 'team', 'v2.payout', \
             'R10-11-1', '{{\"sourceAmount\":\"100\",\"currencyCode\":\"MXN\"}}', 's', 'accepted', 1, {now}, {now}, \
             'fp-R10-11-1', {now})"
        ),
    );
    let at = |pg: &TestPg| -> i64 {
        owner_sql(
            pg,
            "SELECT updated_at FROM paydesk.journal WHERE mer_order_no = 'R10-11-1'",
        )
        .parse()
        .unwrap()
    };
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.journal SET updated_at = 0 WHERE mer_order_no = 'R10-11-1'",
    )
    .unwrap();
    assert_eq!(at(&pg), now, "moved back");
    sql(
        &pg,
        "sam",
        "UPDATE paydesk.journal SET updated_at = 9000000000000000 WHERE mer_order_no = 'R10-11-1'",
    )
    .unwrap();
    let ahead = at(&pg) - db_ms(&pg);
    assert!(ahead <= 300_000, "moved {ahead} ms ahead");
}

/// R10-1 with the signer's own worker: signer sam's psql holds its request's row failed
/// (uncommitted) while sam's worker takes the request up and journals the row. The
/// journaling waits for the row, sees it failed, and nothing is sent: the row failed
/// (requestable again) is never a payout that left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_workers_journaling_waits_for_a_row_failed_by_hand_and_sends_nothing() {
    use paydesk_core::forms::{PayoutForm, PayoutKind};
    use paydesk_core::{Desk, Endpoint, Profile};
    use paydesk_team as team;

    let pg = common::team::team_db_of(
        Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "0",
    );
    let f = common::Fixture::new("r10race").await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(common::team::cfg(&pg, "sam")),
            ..p
        })
        .unwrap();
    f.secrets
        .set_team_password(&f.name, common::team::PASSWORD)
        .unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    let mut form = PayoutForm::new(PayoutKind::Clabe, "R10-1-W", "100", "MXN");
    form.clabe = common::team::CLABE.into();
    let id = common::team::member(&pg, "mark")
        .request_payout(&form)
        .unwrap()
        .id;
    common::team::member(&pg, "ann").approve(id).unwrap();
    // Sam's psql takes the request (its claim gone with that session), then another of
    // its sessions fails the row and holds it 3 s.
    sql(&pg, "sam", &common::team::claim_request_sql("R10-1-W")).unwrap();
    let sam = common::team::member(&pg, "sam");
    let pg_ref = &pg;
    let held = std::thread::scope(|s| {
        let held = s.spawn(move || {
            sql(
                pg_ref,
                "sam",
                &format!(
                    "BEGIN; {}; SELECT pg_sleep(3); COMMIT;",
                    outcome_sql("R10-1-W", "failed")
                ),
            )
        });
        std::thread::sleep(Duration::from_millis(500));
        let rt = tokio::runtime::Handle::current();
        let _ = tokio::task::block_in_place(|| rt.block_on(team::execute_next(&desk, &sam)));
        held.join().unwrap()
    });
    held.unwrap();
    assert_eq!(row_status(&pg, "R10-1-W"), "failed");
    assert_eq!(entry_status(&pg, "R10-1-W"), "none");
    assert_eq!(
        f.running.sandbox.orders_numbered(common::MER, "R10-1-W"),
        0,
        "nothing was sent"
    );
}
