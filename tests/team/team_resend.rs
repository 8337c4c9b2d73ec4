//! A bulk file sent again, on a real PostgreSQL server: after an approver rejected it,
//! the corrected file is accepted, its unchanged rows under the same numbers, and paid
//! once; while a batch holding its numbers is waiting, approved, executing or done, the
//! same file is refused with a message naming that request; two makers racing the same
//! file after a rejection get exactly one batch, and so does a maker racing a
//! transaction the pre-check cannot see yet (the database's index decides).

#![allow(clippy::unwrap_used)]

mod common;

use std::sync::{Arc, Barrier};

use paydesk_core::{CoreError, Desk, Endpoint, Profile};
use paydesk_store_pg::AsPgLink;
use paydesk_store_pg::team::TeamTables;
use paydesk_store_pg::{PgLink, init_team};
use paydesk_team::{self as team, RequestState, RowState, Team, TeamRole};
use paydesk_testpg::TestPg;

use common::team::{CLABE, DB, PASSWORD, cfg, member};

/// A team with two makers, an approver and a signer; payouts above 1,000 MXN need one
/// approval.
fn team_db() -> TestPg {
    common::team::team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("mia", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "1000",
    )
}

/// A payroll file of `amounts`, rows without numbers (the team derives them).
fn payroll(amounts: &[&str]) -> Vec<u8> {
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for a in amounts {
        csv.push_str(&format!("clabe,{a},MXN,{CLABE},,,MX\n"));
    }
    csv.into_bytes()
}

fn numbers(team: &Team, id: i64) -> Vec<String> {
    team.rows(id)
        .unwrap()
        .into_iter()
        .map(|r| r.mer_order_no)
        .collect()
}

/// The refusal of a request whose number `request` holds in `state`.
fn refused_by(r: Result<team::Request, CoreError>, request: i64, state: &str, hint: &str) {
    match r {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "merOrderNo", "{rule}");
            assert!(
                rule.contains(&format!("is already in request #{request} ({state})")),
                "{rule}"
            );
            assert!(rule.contains(hint), "{rule}");
            assert!(!rule.contains("duplicate key"), "{rule}");
        }
        other => panic!("not refused for request #{request} ({state}): {other:?}"),
    }
}

const AGAIN: &str = "a file sent again is refused";

async fn signer_desk(f: &common::Fixture, pg: &TestPg, user: &str) -> Desk {
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(pg, user)),
            ..p
        })
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rejected_file_corrected_and_sent_again_is_paid_once_and_a_live_one_is_refused() {
    let pg = team_db();
    let f = common::Fixture::new("resend").await;
    let desk = signer_desk(&f, &pg, "sam").await;
    let (mark, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));

    let first = payroll(&["2000.00", "2001.00", "2002.00", "2003.00", "2004.00"]);
    let rejected = mark.request_bulk("payroll.csv", &first).unwrap();
    assert_eq!(rejected.state, RequestState::Waiting);
    let old_numbers = numbers(&mark, rejected.id);
    // While it waits, the same file is refused, naming it and the first row's line.
    let e = mark.request_bulk("payroll.csv", &first);
    refused_by(e, rejected.id, "waiting", AGAIN);
    let e = mark.request_bulk("payroll.csv", &first).unwrap_err();
    assert!(
        e.to_string().contains(&format!(
            "5 rows have numbers already requested; the first, line 2: merOrderNo {} ",
            old_numbers[0]
        )),
        "{e}"
    );
    ann.reject(rejected.id, "line 4: the amount is 2302")
        .unwrap();

    // The corrected file: one row changed. The unchanged ones keep their numbers.
    let fixed = payroll(&["2000.00", "2001.00", "2302.00", "2003.00", "2004.00"]);
    let batch = mark.request_bulk("payroll-fixed.csv", &fixed).unwrap();
    assert_eq!(batch.state, RequestState::Waiting);
    assert_eq!(batch.total, "10310");
    let new_numbers = numbers(&mark, batch.id);
    for i in [0, 1, 3, 4] {
        assert_eq!(new_numbers[i], old_numbers[i], "row {} renumbered", i + 1);
    }
    assert_ne!(new_numbers[2], old_numbers[2]);
    // The rejected batch keeps its rows, as they were, never paid.
    assert_eq!(numbers(&mark, rejected.id), old_numbers);
    assert_eq!(
        mark.request(rejected.id).unwrap().state,
        RequestState::Rejected
    );

    // Now the corrected file is live: refused again while it waits, is approved, is done.
    refused_by(
        mark.request_bulk("payroll-fixed.csv", &fixed),
        batch.id,
        "waiting",
        AGAIN,
    );
    // The first file too: four of its rows are the live batch's.
    let e = mark.request_bulk("payroll.csv", &first).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("merOrderNo: 4 rows have numbers already requested"),
        "{e}"
    );
    ann.approve(batch.id).unwrap();
    refused_by(
        member(&pg, "mia").request_bulk("payroll-fixed.csv", &fixed),
        batch.id,
        "approved",
        AGAIN,
    );
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(done.request, batch.id);
    assert!(done.done && done.accepted == 5, "{done:?}");
    assert_eq!(team::execute_next(&desk, &sam).await.unwrap(), None);
    refused_by(
        mark.request_bulk("payroll-fixed.csv", &fixed),
        batch.id,
        "done",
        AGAIN,
    );
    for row in mark.rows(batch.id).unwrap() {
        assert_eq!(row.state, RowState::Accepted, "{row:?}");
        assert_eq!(
            f.running
                .sandbox
                .orders_numbered(common::MER, &row.mer_order_no),
            1,
            "row {} paid other than once",
            row.row_no
        );
    }
    // The rejected row that was corrected never reached the gateway.
    assert_eq!(
        f.running
            .sandbox
            .orders_numbered(common::MER, &old_numbers[2]),
        0
    );
    assert!(
        mark.rows(rejected.id)
            .unwrap()
            .iter()
            .all(|r| r.state == RowState::Waiting)
    );

    // A single request: an explicit number of a rejected request goes again; one of an
    // executing request is refused, as is one of a waiting request.
    let single = |no: &str, amount: &str| {
        let mut form = paydesk_core::forms::PayoutForm::new(
            paydesk_core::forms::PayoutKind::Clabe,
            no,
            amount,
            "MXN",
        );
        form.clabe = CLABE.into();
        form
    };
    let once = "an order number is requested once";
    let doubtful = mark.request_payout(&single("T-ONE-1", "1500")).unwrap();
    refused_by(
        mark.request_payout(&single("T-ONE-1", "1500")),
        doubtful.id,
        "waiting",
        once,
    );
    ann.reject(doubtful.id, "wrong amount").unwrap();
    let again = mark.request_payout(&single("T-ONE-1", "1600")).unwrap();
    assert_eq!(again.state, RequestState::Waiting);
    ann.approve(again.id).unwrap();
    // Claimed by the signer (executing), as a worker that is still sending it.
    let claimed = TeamTables::on(sam.link().pg())
        .claim_next(30)
        .unwrap()
        .unwrap();
    assert_eq!(claimed.id, again.id);
    assert_eq!(claimed.state, RequestState::Executing);
    refused_by(
        mark.request_payout(&single("T-ONE-1", "1600")),
        again.id,
        "executing",
        once,
    );
    // A rejection frees nothing of a request that reached the signer, even by plain SQL.
    let e = pg
        .psql_super(
            DB,
            &format!(
                "UPDATE paydesk.request_rows SET live = false WHERE request_id = {}",
                again.id
            ),
        )
        .map(|_| ())
        .unwrap_err();
    assert!(e.to_string().contains("freed only by"), "{e}");
    let free_again = pg
        .psql_super(
            DB,
            &format!(
                "UPDATE paydesk.request_rows SET live = true WHERE request_id = {}",
                rejected.id
            ),
        )
        .map(|_| ())
        .unwrap_err();
    assert!(
        free_again.to_string().contains("never taken back"),
        "{free_again}"
    );
    // A number in the signers' journal is refused too, named as the journal's.
    refused_journal(&mark, &first_sent(&desk, &mark, &ann, &sam).await);
}

/// A payout the signers sent (requested, approved, executed by the worker): its number
/// is in the shared journal. A signer's desk sends nothing on its own on a team profile.
async fn first_sent(desk: &Desk, maker: &Team, approver: &Team, signer: &Team) -> String {
    let mut form = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Clabe,
        "T-DESK-1",
        "120",
        "MXN",
    );
    form.clabe = CLABE.into();
    match desk.money().payout(&form).await {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "team");
            assert!(rule.contains("request"), "{rule}");
        }
        other => panic!("a signer's desk paid on its own: {other:?}"),
    }
    let req = maker.request_payout(&form).unwrap();
    if req.state == RequestState::Waiting {
        approver.approve(req.id).unwrap();
    }
    let done = team::execute_next(desk, signer).await.unwrap().unwrap();
    assert_eq!(done.accepted, 1, "{done:?}");
    "T-DESK-1".into()
}

fn refused_journal(maker: &Team, no: &str) {
    let mut form = paydesk_core::forms::PayoutForm::new(
        paydesk_core::forms::PayoutKind::Clabe,
        no,
        "120",
        "MXN",
    );
    form.clabe = CLABE.into();
    match maker.request_payout(&form) {
        Err(CoreError::Validation { field, rule }) => {
            assert_eq!(field, "merOrderNo");
            assert!(
                rule.contains("is already in the signers' journal (accepted)")
                    || rule.contains("(done); an order number is requested once"),
                "{rule}"
            );
        }
        other => panic!("a number the journal holds was requested: {other:?}"),
    }
}

#[test]
fn two_makers_racing_the_same_file_after_a_rejection_get_one_batch() {
    let pg = team_db();
    let ann = member(&pg, "ann");
    let file = payroll(&["1500.00", "1501.00", "1502.00"]);
    let mut holder = member(&pg, "mark").request_bulk("a.csv", &file).unwrap();
    for round in 0..6 {
        ann.reject(holder.id, "round over, send it again").unwrap();
        let makers = [member(&pg, "mark"), member(&pg, "mia")];
        let start = Arc::new(Barrier::new(2));
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = makers
                .iter()
                .map(|m| {
                    let (start, file) = (start.clone(), &file);
                    s.spawn(move || {
                        start.wait();
                        m.request_bulk("a.csv", file)
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let (won, lost): (Vec<_>, Vec<_>) = results.into_iter().partition(|r| r.is_ok());
        assert_eq!(won.len(), 1, "round {round}: {lost:?}");
        let winner = won.into_iter().next().unwrap().unwrap();
        for l in lost {
            refused_by(l, winner.id, "waiting", AGAIN);
        }
        holder = winner;
    }
    // Every batch holds the same numbers; only the last one is live.
    let live: i64 = pg
        .psql_super(
            DB,
            "SELECT count(*) FROM paydesk.request_rows rr JOIN paydesk.requests q ON q.id = rr.request_id
              WHERE rr.live AND q.state <> 'rejected'",
        )
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(live, 3);
    let waiting = ann.requests(&[RequestState::Waiting], 100).unwrap();
    assert_eq!(waiting.len(), 1);
    assert_eq!(waiting[0].id, holder.id);
}

/// A maker whose check before the insert cannot see a number taken by a transaction
/// not yet committed: the database's index makes the insert wait, then refuses it, and
/// the refusal names the request that took the number.
#[test]
fn a_number_taken_by_a_transaction_not_yet_committed_is_refused_by_the_index() {
    let pg = team_db();
    let mark = member(&pg, "mark");
    let slow = std::thread::scope(|s| {
        let pg = &pg;
        let slow = s.spawn(move || {
            pg.psql_as(
                "mia",
                PASSWORD,
                DB,
                "BEGIN;
                 INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                      VALUES ('payout', 'MXN', 500, 1, 'slow maker');
                 INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
                      VALUES (currval('paydesk.requests_id_seq'), 1, 'T-RACE-1', 500,
                              '{\"kind\": \"CLABE\", \"amount\": \"500\", \"currency\": \"MXN\", \"merOrderNo\": \"T-RACE-1\"}'::jsonb, 'CLABE x');
                 SELECT pg_sleep(2);
                 COMMIT;",
            )
        });
        std::thread::sleep(std::time::Duration::from_millis(700));
        let mut form = paydesk_core::forms::PayoutForm::new(
            paydesk_core::forms::PayoutKind::Clabe,
            "T-RACE-1",
            "500",
            "MXN",
        );
        form.clabe = CLABE.into();
        let started = std::time::Instant::now();
        let r = mark.request_payout(&form);
        assert!(
            started.elapsed() > std::time::Duration::from_millis(800),
            "the insert did not wait for the other transaction"
        );
        let slow_id: i64 = pg
            .psql_super(
                DB,
                "SELECT request_id FROM paydesk.request_rows WHERE mer_order_no = 'T-RACE-1'",
            )
            .unwrap()
            .trim()
            .parse()
            .unwrap();
        refused_by(r, slow_id, "approved", "an order number is requested once");
        slow.join().unwrap()
    });
    slow.unwrap();
}

/// A team database of the previous version (0001 to 0003) with a rejected and a
/// waiting request: the migration frees the rejected request's number only.
#[test]
fn the_migration_frees_the_numbers_of_requests_rejected_before_it() {
    use paydesk_store_pg::TEAM_MIGRATIONS;
    let pg = TestPg::start().unwrap();
    pg.create_database(DB).unwrap();
    let su = |q: &str| pg.psql_owner(DB, q).unwrap();
    su("CREATE SCHEMA paydesk;
        CREATE TABLE paydesk.schema_migrations (
            version integer PRIMARY KEY,
            applied_at timestamptz NOT NULL DEFAULT now(),
            applied_by text NOT NULL DEFAULT session_user);");
    let before = 3;
    for (i, m) in TEAM_MIGRATIONS[..before].iter().enumerate() {
        su(&format!(
            "BEGIN;\n{}\nINSERT INTO paydesk.schema_migrations (version) VALUES ({});\nCOMMIT;",
            m.sql,
            i + 1
        ));
    }
    su(&format!(
        "INSERT INTO paydesk.team (id, mer_no) VALUES (1, {});
         INSERT INTO paydesk.rules (operation, currency, above, approvals) VALUES ('payout', 'MXN', 0, 1);
         CREATE ROLE mark LOGIN PASSWORD '{PASSWORD}'; GRANT paydesk_maker TO mark;
         CREATE ROLE ann LOGIN PASSWORD '{PASSWORD}'; GRANT paydesk_approver TO ann;",
        common::MER
    ));
    for no in ["T-OLD-R", "T-OLD-W"] {
        pg.psql_as(
            "mark",
            PASSWORD,
            DB,
            &format!(
                "BEGIN;
                 INSERT INTO paydesk.requests (operation, currency, total, row_count, summary)
                      VALUES ('payout', 'MXN', 2000, 1, 'before 0004');
                 INSERT INTO paydesk.request_rows (request_id, row_no, mer_order_no, amount, form, beneficiary)
                      VALUES (currval('paydesk.requests_id_seq'), 1, '{no}', 2000, '{{}}'::jsonb, 'CLABE x');
                 COMMIT;"
            ),
        )
        .unwrap();
    }
    let id_of = |no: &str| -> i64 {
        su(&format!(
            "SELECT request_id FROM paydesk.request_rows WHERE mer_order_no = '{no}'"
        ))
        .trim()
        .parse()
        .unwrap()
    };
    let (rejected, waiting) = (id_of("T-OLD-R"), id_of("T-OLD-W"));
    pg.psql_as(
        "ann",
        PASSWORD,
        DB,
        &format!(
            "INSERT INTO paydesk.decisions (request_id, decision, reason) VALUES ({rejected}, 'reject', 'wrong account')"
        ),
    )
    .unwrap();

    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password()).unwrap();
    assert_eq!(
        init_team(&owner, common::MER as i64).unwrap(),
        TEAM_MIGRATIONS.len() - before
    );
    let mark = member(&pg, "mark");
    let form = |no: &str| {
        let mut form = paydesk_core::forms::PayoutForm::new(
            paydesk_core::forms::PayoutKind::Clabe,
            no,
            "2000",
            "MXN",
        );
        form.clabe = CLABE.into();
        form
    };
    let again = mark.request_payout(&form("T-OLD-R")).unwrap();
    assert_eq!(again.state, RequestState::Waiting);
    refused_by(
        mark.request_payout(&form("T-OLD-W")),
        waiting,
        "waiting",
        "an order number is requested once",
    );
    refused_by(
        mark.request_payout(&form("T-OLD-R")),
        again.id,
        "waiting",
        "an order number is requested once",
    );
}
