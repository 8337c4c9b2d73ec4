//! What the ninth hostile review found in the signer's worker's handling of a row whose
//! journal entry is `rejected` when the worker's own call did not see the gateway refuse
//! it (notes: review-r9, R9-1, R9-2, R9-6, R9-7, R9-10), on the real sandbox over HTTP
//! and a scratch PostgreSQL; a hostile signer's writes are plain SQL as that signer
//! (psql, their own password, the schema's triggers on).

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::{Desk, Endpoint, Profile};
use paydesk_sandbox::Behaviour;
use paydesk_team::{self as team, RowState, TeamRole};
use paydesk_testpg::TestPg;

use common::team::{CLABE, DB, PASSWORD, cfg, member, owner_sql, sql, team_db_of};

const MER: u64 = common::MER;

/// The claim a signer's psql session takes on an entry, as the desk's claims read
/// (`pg:<backend pid>:…`, live for a minute): schema 0038 lets a member change a status
/// only under a claim of its own.
const MINE: &str = "claimed_by = 'pg:' || pg_backend_pid() || ':psql', \
     claimed_until = (extract(epoch FROM clock_timestamp()) * 1000)::bigint + 60000";

struct World {
    pg: TestPg,
    f: common::Fixture,
    desk: Desk,
}

/// Maker mark, approver ann, signer sam (every MXN payout needs one approval); signer
/// sam's desk on the sandbox, with the gateway's conventions `conventions` and no
/// not-found grace (the profile's, and the team's in the database): whatever the grace
/// would prove is proven at the first lookup.
async fn world(name: &str, conventions: Option<paydesk_gateway::Conventions>) -> World {
    let pg = team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "0",
    );
    owner_sql(&pg, "UPDATE paydesk.team SET not_found_grace_ms = 0");
    let f = common::Fixture::new(name).await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(&pg, "sam")),
            safety: paydesk_core::profile::Safety {
                not_found_grace_secs: 0,
                not_found_lookups: 1,
                ..p.safety.clone()
            },
            ..p
        })
        .unwrap();
    if let Some(c) = conventions {
        f.home.set_conventions(&f.name, c).unwrap();
    }
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    World { pg, f, desk }
}

/// Request `no` of `amount` MXN to the CLABE, made by mark, approved by ann: its id.
fn approved(pg: &TestPg, no: &str, amount: &str) -> i64 {
    let mut form = PayoutForm::new(PayoutKind::Clabe, no, amount, "MXN");
    form.clabe = CLABE.into();
    let id = member(pg, "mark").request_payout(&form).unwrap().id;
    member(pg, "ann").approve(id).unwrap();
    id
}

/// As if the worker had died with row `no` out: its journal entry as `entry_sql` sets
/// it, the row waiting, the request approved and claimed by nobody (the database's
/// superuser, the schema's triggers off for this session).
fn died_with_row_out(pg: &TestPg, id: i64, no: &str, entry_sql: &str) {
    pg.psql_super(
        DB,
        &format!(
            "SET session_replication_role = replica;
             UPDATE paydesk.journal SET {entry_sql} WHERE mer_order_no = '{no}';
             UPDATE paydesk.request_rows SET status = 'waiting', trade_no = NULL, message = NULL
              WHERE request_id = {id};
             UPDATE paydesk.requests SET state = 'approved', claimed_by = NULL, claimed_pid = NULL,
                    claimed_at = NULL, finished_at = NULL, outcome = NULL
              WHERE id = {id};"
        ),
    )
    .unwrap();
}

/// The request given back with rows unknown, taken up again now (not 30 s later).
fn taken_up_again(pg: &TestPg, id: i64) {
    pg.psql_super(
        DB,
        &format!(
            "SET session_replication_role = replica;
             UPDATE paydesk.requests SET state = 'approved', claimed_by = NULL, claimed_pid = NULL,
                    claimed_at = NULL, finished_at = NULL, outcome = NULL
              WHERE id = {id};"
        ),
    )
    .unwrap();
}

/// Entry `no` marked refused by hand, with a code and a message. Signer sam's psql is
/// refused that since schema 0041 (review r10 R10-2: no member refuses an unknown
/// entry, only the claim that sent it refuses a sending one), so the flip is written as
/// one written before 0041 was (the database's superuser, the triggers off; the entries
/// refused then count as their senders' refusals): the worker must not trust it either.
fn flipped_by_sam(pg: &TestPg, no: &str) {
    let flip = format!(
        "UPDATE paydesk.journal SET status = 'rejected', code = 'E_X', message = 'refused', {MINE} \
         WHERE mer_order_no = '{no}'"
    );
    let refused = sql(pg, "sam", &flip).unwrap_err();
    assert!(
        refused.contains("refused only by the claim that sent it")
            || refused.contains("only the team database's owner refuses it"),
        "{refused}"
    );
    pg.psql_super(
        DB,
        &format!(
            "SET session_replication_role = replica;
             UPDATE paydesk.journal SET status = 'rejected', code = 'E_X', message = 'refused',
                    claimed_by = NULL, claimed_until = NULL, refused_on_send = true
              WHERE mer_order_no = '{no}';"
        ),
    )
    .unwrap();
    assert_eq!(journal(pg, no, "status"), "rejected");
}

fn journal(pg: &TestPg, no: &str, what: &str) -> String {
    owner_sql(
        pg,
        &format!("SELECT {what} FROM paydesk.journal WHERE mer_order_no = '{no}'"),
    )
}

fn row(pg: &TestPg, id: i64) -> paydesk_team::RequestRow {
    member(pg, "mark").rows(id).unwrap().remove(0)
}

/// Payout calls the sandbox received.
fn payout_calls(w: &World) -> u64 {
    w.f.running
        .sandbox
        .traffic()
        .by_path
        .iter()
        .filter(|(path, _)| path.contains("payout"))
        .map(|(_, n)| n)
        .sum()
}

/// R9-7: a gateway that lists a refused payout as an order in a failed state (the
/// sandbox's order altered to state 3, "failed" in the conventions' dictionary). The
/// honest worker's finish wrote the refusal, and it died before the row's outcome was
/// recorded: the worker that takes the request up again finds the order failed, which
/// proves the refusal: the row is a final Rejected, never "paid" (the payee was not).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_listed_order_in_a_failed_state_proves_the_refusal() {
    let w = world("r9failed", None).await;
    let sam = member(&w.pg, "sam");
    let id = approved(&w.pg, "R9-7", "100");
    let done = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.request, done.accepted), (id, 1), "{done:?}");
    assert!(
        w.f.running
            .sandbox
            .alter_order(MER, "R9-7", |o| o.state = 3)
    );
    died_with_row_out(
        &w.pg,
        id,
        "R9-7",
        // The honest worker's finish (under the claim that sent it) wrote the refusal.
        "status = 'rejected', refused_on_send = true, trade_no = NULL, code = 'E2001', message = 'refused by the bank'",
    );
    let again = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    let r = row(&w.pg, id);
    assert_eq!(
        (again.accepted, again.rejected, again.unknown),
        (0, 1, 0),
        "{again:?} {r:?}"
    );
    assert_eq!(r.state, RowState::Rejected, "{r:?}");
    assert!(
        r.message.as_deref().unwrap_or("").contains("state 3"),
        "{r:?}"
    );
    assert_eq!(journal(&w.pg, "R9-7", "status"), "rejected");
    assert_eq!(w.f.running.sandbox.orders_numbered(MER, "R9-7"), 1);
}

/// R9-2: the gateway took payout `R9-2` and answered success without a usable trade
/// number (`answered_ok`), and its list shows new orders late (an hour here). Signer sam
/// marks the entry refused with plain SQL under a claim of its own (0038 allows it: the
/// entry was unknown). The grace is over and the list does not show the order, yet that
/// proves nothing: the entry was answered, and a row made refused would be requested
/// again under a new number, which the gateway cannot tell from this one. The row stays
/// unknown (never final, never sent again), the lookup is counted on the entry and the
/// next one is put off (backoff), and nothing more reached the gateway.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unseen_refusal_the_list_does_not_show_is_not_final() {
    let w = world("r9absent", None).await;
    let sam = member(&w.pg, "sam");
    let id = approved(&w.pg, "R9-2", "100");
    w.f.running.sandbox.set_behaviour(Behaviour {
        list_lag_ms: paydesk_sandbox::MAX_LIST_LAG_MS,
        ..Default::default()
    });
    let done = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.request, done.accepted), (id, 1), "{done:?}");
    died_with_row_out(
        &w.pg,
        id,
        "R9-2",
        "status = 'unknown', trade_no = NULL, answered_ok = true, lookups = 0, next_check_at = NULL",
    );
    flipped_by_sam(&w.pg, "R9-2");
    let calls = payout_calls(&w);
    let again = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    let r = row(&w.pg, id);
    assert_eq!(
        (again.rejected, again.unknown, again.done),
        (0, 1, false),
        "{again:?} {r:?}"
    );
    assert_eq!(r.state, RowState::Unknown, "{r:?}");
    assert_eq!(
        journal(&w.pg, "R9-2", "lookups"),
        "1",
        "the lookup is counted"
    );
    let wait: i64 = journal(
        &w.pg,
        "R9-2",
        "next_check_at - (extract(epoch FROM clock_timestamp()) * 1000)::bigint",
    )
    .parse()
    .unwrap();
    assert!(wait >= 20_000, "looked up again only {wait} ms later");
    // Taken up again at once: the backoff holds, no lookup, still unknown.
    taken_up_again(&w.pg, id);
    let third = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    assert_eq!((third.rejected, third.unknown), (0, 1), "{third:?}");
    assert_eq!(
        journal(&w.pg, "R9-2", "lookups"),
        "1",
        "no lookup before its time"
    );
    assert_eq!(payout_calls(&w), calls, "nothing was sent again");
    assert_eq!(w.f.running.sandbox.orders_numbered(MER, "R9-2"), 1);
}

/// R9-1 and R9-6: a profile whose gateway's list does not show payouts (conventions
/// listShows.payouts false). The payout left and its answer was lost (`unknown`); signer
/// sam writes the review's statement with plain SQL under a claim of its own (0038 lets
/// an unknown entry's status change so): refused, with a code, as the desk itself would
/// write it. The gateway cannot be asked, and the columns prove nothing: the row stays
/// unknown (never re-requestable), however often it is taken up. A person settles it:
/// the team database's owner voids the entry (audited), and the row is refused then.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_written_refusal_the_gateway_cannot_prove_waits_for_a_person() {
    let mut conventions = paydesk_gateway::Conventions::sandbox();
    conventions.list_shows.payouts = false;
    let w = world("r9unlisted", Some(conventions)).await;
    let sam = member(&w.pg, "sam");
    let id = approved(&w.pg, "R9-1", "100");
    let done = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.request, done.accepted), (id, 1), "{done:?}");
    died_with_row_out(
        &w.pg,
        id,
        "R9-1",
        "status = 'unknown', trade_no = NULL, code = NULL, message = NULL",
    );
    flipped_by_sam(&w.pg, "R9-1");
    for round in 0..2 {
        if round > 0 {
            taken_up_again(&w.pg, id);
        }
        let again = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
        let r = row(&w.pg, id);
        assert_eq!(
            (again.rejected, again.unknown, again.done),
            (0, 1, false),
            "round {round}: {again:?} {r:?}"
        );
        assert_eq!(r.state, RowState::Unknown, "{r:?}");
        assert!(
            r.message.as_deref().unwrap_or("").contains("journal_void"),
            "the row says how a person settles it: {r:?}"
        );
    }
    // The person: the team database's owner, after checking the merchant's order list.
    let entry = journal(&w.pg, "R9-1", "id");
    owner_sql(
        &w.pg,
        &format!("SELECT paydesk.journal_void({entry}, 'not in the merchant order list')"),
    );
    taken_up_again(&w.pg, id);
    let settled = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    let r = row(&w.pg, id);
    assert_eq!(
        (settled.rejected, settled.unknown, settled.done),
        (1, 0, true),
        "{settled:?} {r:?}"
    );
    assert_eq!(r.state, RowState::Rejected, "{r:?}");
    assert!(
        r.message
            .as_deref()
            .unwrap_or("")
            .contains("not in the merchant order list"),
        "{r:?}"
    );
    assert_eq!(
        owner_sql(
            &w.pg,
            "SELECT count(*) FROM paydesk.audit_log WHERE operation = 'team.journal.void'"
        ),
        "1"
    );
    // Sent once, whatever happened to the entry.
    assert_eq!(w.f.running.sandbox.orders_numbered(MER, "R9-1"), 1);
}

/// R9-10: payout `R9-10` reached the gateway, its answer was lost, and the list shows it
/// late: the entry was called never received (`pending`, to be sent again under the
/// same number). Signer sam resets its attempts to 0 with plain SQL (a column it may
/// write). The worker sends it again, and the gateway refuses the number as already used
/// (E1011, the conventions' duplicate code): that is no refusal, whatever the attempts
/// say: the row stays unknown and is looked up, never a final Rejected that its maker
/// would request again under a new number. Paid once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_number_refusal_is_never_final() {
    let w = world("r9duplicate", None).await;
    let sam = member(&w.pg, "sam");
    let id = approved(&w.pg, "R9-10", "100");
    let done = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.request, done.accepted), (id, 1), "{done:?}");
    w.f.running.sandbox.set_behaviour(Behaviour {
        list_lag_ms: paydesk_sandbox::MAX_LIST_LAG_MS,
        ..Default::default()
    });
    died_with_row_out(
        &w.pg,
        id,
        "R9-10",
        "status = 'pending', trade_no = NULL, code = 'not_found', message = 'not at the gateway'",
    );
    sql(
        &w.pg,
        "sam",
        "UPDATE paydesk.journal SET attempts = 0 WHERE mer_order_no = 'R9-10'",
    )
    .unwrap();
    let calls = payout_calls(&w);
    let again = team::execute_next(&w.desk, &sam).await.unwrap().unwrap();
    let r = row(&w.pg, id);
    assert_eq!(
        payout_calls(&w),
        calls + 1,
        "sent again under the same number"
    );
    assert_eq!(
        (again.rejected, again.unknown, again.done),
        (0, 1, false),
        "{again:?} {r:?}"
    );
    assert_eq!(r.state, RowState::Unknown, "{r:?}");
    assert_eq!(journal(&w.pg, "R9-10", "status"), "unknown");
    assert_eq!(journal(&w.pg, "R9-10", "code"), "E1011");
    assert_eq!(w.f.running.sandbox.orders_numbered(MER, "R9-10"), 1);
    // Once the list shows it, the next lookup finds it: accepted, with its trade number.
    w.f.running.sandbox.set_behaviour(Behaviour::default());
    let entry = w.desk.journal().entry_by_number("R9-10").unwrap().unwrap();
    let found = w
        .desk
        .journal()
        .reconcile_entry(&entry, true)
        .await
        .unwrap();
    assert_eq!(
        found.status,
        paydesk_core::journal::Status::Accepted,
        "{found:?}"
    );
}
