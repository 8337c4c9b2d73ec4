//! A signer's worker sends the rows of an approved batch a bounded number at a time (the
//! profile's payouts in flight, as a bulk run does), each row still through the journal:
//! paid once at the gateway, recorded accepted with its trade number.

#![allow(clippy::unwrap_used)]

mod common;

use std::time::{Duration, Instant};

use paydesk_core::{Desk, Endpoint, Profile};
use paydesk_team::{self as team, RowState, TeamRole};

use common::team::{CLABE, DB, PASSWORD, cfg, member, team_db_of};

/// Every payout answered after this long, by the sandbox.
const LATENCY_MS: u64 = 400;
const ROWS: usize = 12;
/// The signer profile's payouts in flight.
const IN_FLIGHT: u32 = 4;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_signer_sends_a_batchs_rows_a_bounded_number_at_once_each_paid_once() {
    let pg = team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "0",
    );
    let f = common::Fixture::new("rowsatonce").await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(&pg, "sam")),
            sync: paydesk_core::profile::SyncSettings {
                payouts_in_flight: IN_FLIGHT,
                ..p.sync.clone()
            },
            ..p
        })
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    let sam = member(&pg, "sam");
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: LATENCY_MS,
            ..Default::default()
        },
    );

    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in 0..ROWS {
        csv.push_str(&format!("clabe,{}.00,MXN,{CLABE},,,MX\n", 10 + i));
    }
    let maker = member(&pg, "mark");
    let batch = maker.request_bulk("payroll.csv", csv.as_bytes()).unwrap();
    member(&pg, "ann").approve(batch.id).unwrap();

    let t = Instant::now();
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    let took = t.elapsed();
    assert_eq!(done.request, batch.id);
    assert_eq!(
        (done.accepted, done.rejected, done.failed, done.unknown),
        (ROWS as u32, 0, 0, 0)
    );
    assert!(done.done);
    // One row after another cannot take less than every answer's wait added up.
    let one_at_a_time = Duration::from_millis(LATENCY_MS * ROWS as u64);
    assert!(
        took < one_at_a_time,
        "{ROWS} rows took {took:?}: not faster than one at a time ({one_at_a_time:?})"
    );
    // Four at a time: at least three answers' waits one after another (all at once
    // would take one).
    let bounded = Duration::from_millis(LATENCY_MS * (ROWS as u64).div_ceil(IN_FLIGHT as u64));
    assert!(
        took >= bounded,
        "{ROWS} rows took {took:?}: more than {IN_FLIGHT} were out at once (at least {bounded:?})"
    );

    for row in maker.rows(batch.id).unwrap() {
        assert_eq!(row.state, RowState::Accepted, "{row:?}");
        assert_eq!(
            f.running
                .sandbox
                .orders_numbered(common::MER, &row.mer_order_no),
            1,
            "row {} paid other than once",
            row.row_no
        );
        let entry = desk
            .journal()
            .entry_by_number(&row.mer_order_no)
            .unwrap()
            .unwrap();
        assert_eq!(entry.trade_no, row.trade_no);
        assert!(row.trade_no.is_some());
    }
    // The worker's calls appended their audit rows unchecked; the chain was checked once
    // a group and at the end, and the keyring's anchor moved to the head it verified:
    // past the last row of the desk's calls to the gateway (the request's end, recorded
    // by the database after it, is anchored at the next check).
    let head: i64 = pg
        .psql_owner(
            DB,
            "SELECT max(id) FROM paydesk.audit_log WHERE operation LIKE 'v2.%' AND db_user = 'sam'",
        )
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let anchor = f.secrets.audit_anchor(&f.name).unwrap().unwrap();
    assert!(
        anchor.last_id >= head,
        "the keyring's anchor (row {}) is short of the worker's last call (row {head})",
        anchor.last_id
    );
    assert_eq!(desk.journal().team_chain_problem(), None);
    assert!(team::execute_next(&desk, &sam).await.unwrap().is_none());
}

/// Review r6 R6-4: two rows of one approved request pay the same money to the same
/// account (two invoices of one supplier). The approvers approved both: both are paid,
/// once each, whichever is journaled first (one at a time here, so the second always
/// meets the first in the journal), never one failed as a "possible duplicate" of its
/// sibling.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_rows_of_one_request_paying_the_same_money_to_one_account_are_both_paid() {
    let pg = team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "0",
    );
    let f = common::Fixture::new("siblings").await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(&pg, "sam")),
            sync: paydesk_core::profile::SyncSettings {
                payouts_in_flight: 1,
                ..p.sync.clone()
            },
            ..p
        })
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    let csv = format!(
        "type,amount,currency,account,firstName,lastName,country\n\
         clabe,5000.00,MXN,{CLABE},Invoice,A-17,MX\n\
         clabe,5000.00,MXN,{CLABE},Invoice,A-18,MX\n"
    );
    let maker = member(&pg, "mark");
    let batch = maker.request_bulk("invoices.csv", csv.as_bytes()).unwrap();
    member(&pg, "ann").approve(batch.id).unwrap();
    let done = team::execute_next(&desk, &member(&pg, "sam"))
        .await
        .unwrap()
        .unwrap();
    let rows = maker.rows(batch.id).unwrap();
    assert_eq!((done.accepted, done.failed), (2, 0), "{rows:?}");
    for row in &rows {
        assert_eq!(row.state, RowState::Accepted, "{row:?}");
        assert_eq!(
            f.running
                .sandbox
                .orders_numbered(common::MER, &row.mer_order_no),
            1
        );
    }
}
