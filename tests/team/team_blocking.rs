//! Blocking is explicit (issue 32): a team desk's store waits on the network, and the
//! one rule that says how (`paydesk_store_pg::off_workers`) keeps that wait off the
//! runtime's workers. A journal write blocked on a row another session of the team holds
//! must not stop the other tasks of the runtime, even on a runtime of one worker.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use paydesk_core::journal::{Begin, Guard, Intent, Outcome, Status, fingerprint};
use paydesk_core::store::Store;
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_testpg::TestPg;
use serde_json::json;

const MER_NO: i64 = 123;
const DB: &str = "team";

fn connect(pg: &TestPg) -> PgLink {
    let cfg = PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: DB.into(),
        user: pg.owner().into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    };
    PgLink::connect(&cfg, pg.owner_password()).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 1)]
async fn a_journal_write_waiting_on_a_row_lock_holds_no_runtime_worker() {
    let pg = TestPg::start().unwrap();
    pg.create_database(DB).unwrap();
    let link = Arc::new(connect(&pg));
    init_team(&link, MER_NO).unwrap();
    let store = Store::open_team(link, Arc::new(connect(&pg)), MER_NO).unwrap();

    // An entry being sent: its outcome is the write that will wait.
    let body = json!({"sourceAmount": "10.00", "merOrderNo": "B1"});
    let fp = fingerprint(b"0123456789abcdef0123456789abcdef", "v2.payout", &body);
    let begun = store
        .journal()
        .begin(
            "desk",
            Intent {
                operation: "v2.payout",
                mer_order_no: "B1",
                request: &body,
                summary: "s",
                fingerprint: &fp,
                purpose: None,
            },
            Guard {
                window_ms: 3_600_000,
                allow_duplicate: false,
            },
        )
        .unwrap();
    let (entry, claim) = match begun {
        Begin::Send(e, c) => (e, c),
        other => panic!("{other:?}"),
    };

    // A second session of the team holds the entry's row for 3 s.
    const HELD: &str = "SELECT pg_sleep(3)";
    let holder = {
        let pg_sql = format!(
            "BEGIN; SELECT 1 FROM paydesk.journal WHERE mer_order_no = 'B1' FOR UPDATE; {HELD}; COMMIT;"
        );
        let conninfo = pg.conninfo(pg.superuser(), pg.superuser_password(), DB);
        let psql = pg.bin_dir().join("psql");
        std::thread::spawn(move || {
            std::process::Command::new(psql)
                .args([conninfo.as_str(), "-v", "ON_ERROR_STOP=1", "-c", &pg_sql])
                .output()
                .unwrap()
        })
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let holding = pg
            .psql_super(
                DB,
                &format!(
                    "SELECT count(*) FROM pg_stat_activity WHERE query LIKE '%{HELD}%' AND state = 'active' AND pid <> pg_backend_pid()"
                ),
            )
            .unwrap();
        if holding.trim() == "1" {
            break;
        }
        assert!(Instant::now() < deadline, "the row is never held");
        std::thread::sleep(Duration::from_millis(50));
    }

    // The write, from a task of the runtime (as an async desk method calls the store).
    let started = Instant::now();
    let writer = {
        let store = store.clone();
        tokio::spawn(async move {
            let done = store.journal().finish(
                entry.id,
                &claim,
                Outcome {
                    status: Status::Accepted,
                    trade_no: None,
                    code: None,
                    message: None,
                },
            );
            (done, started.elapsed())
        })
    };
    // Let the write reach the database and wait there.
    std::thread::sleep(Duration::from_millis(300));
    // Another task of the same runtime runs while the write waits (its only worker is
    // not held). Measured by the clock, not by a tokio timer: a held worker would also
    // hold the timer.
    let asked = Instant::now();
    let other = tokio::spawn(async move { asked.elapsed() });
    let other_waited = other.await.unwrap();
    let (done, write_took) = writer.await.unwrap();
    let out = holder.join().unwrap();
    assert!(out.status.success(), "{out:?}");

    assert!(
        write_took >= Duration::from_millis(2000),
        "the write did wait for the row ({write_took:?}), so the check below means something"
    );
    assert!(
        other_waited < Duration::from_millis(1000),
        "another task waited {other_waited:?} for a runtime worker while the journal write waited on the database"
    );
    assert!(done.unwrap(), "the outcome is written once the row is free");
    let after = store.journal().get(entry.id).unwrap().unwrap();
    assert_eq!(after.status, Status::Accepted);
}
