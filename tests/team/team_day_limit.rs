//! A signer's worker sends an approved request's rows several at once; the profile's
//! per-day limit still holds: each row is summed against the day in the team journal's
//! write transaction (under a lock per merchant and currency), so only as many rows are
//! paid as the limit reaches, and the others are refused naming it with nothing journaled
//! (review-money-r5 F1).

#![allow(clippy::unwrap_used)]

#[path = "../../crates/core/tests/common/mod.rs"]
mod common;

use paydesk_core::limits::{CurrencyLimit, Limits};
use paydesk_core::team::{self, RowState, TeamRole};
use paydesk_core::{Desk, Endpoint, Profile};
use rust_decimal::Decimal;

use common::team::{CLABE, PASSWORD, cfg, member, team_db_of};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_requests_rows_sent_at_once_pay_only_as_far_as_the_day_limit_reaches() {
    let pg = team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "0",
    );
    let f = common::Fixture::new("teamday").await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(&pg, "sam")),
            sync: paydesk_core::profile::SyncSettings {
                payouts_in_flight: 16,
                ..p.sync.clone()
            },
            ..p
        })
        .unwrap();
    let per_day: Decimal = "100.00".parse().unwrap();
    f.home
        .set_limits(
            &f.name,
            Limits {
                currencies: vec![CurrencyLimit {
                    currency: "MXN".into(),
                    per_payout: None,
                    per_day: Some(per_day.to_string()),
                }],
            },
        )
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    let sam = member(&pg, "sam");

    // Eight rows, distinct amounts: any three fit the day's 100, no four do.
    let amounts: Vec<Decimal> = (1..=8)
        .map(|i| "25.00".parse::<Decimal>().unwrap() + Decimal::new(i, 2))
        .collect();
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for a in &amounts {
        csv.push_str(&format!("clabe,{a},MXN,{CLABE},,,MX\n"));
    }
    let maker = member(&pg, "mark");
    let batch = maker.request_bulk("payroll.csv", csv.as_bytes()).unwrap();
    member(&pg, "ann").approve(batch.id).unwrap();

    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(done.request, batch.id);
    assert_eq!((done.accepted, done.unknown), (3, 0), "{done:?}");

    let mut paid = Decimal::ZERO;
    let rows = maker.rows(batch.id).unwrap();
    for row in &rows {
        let amount: Decimal = row.amount.parse().unwrap();
        match row.state {
            RowState::Accepted => {
                paid += amount;
                assert_eq!(
                    f.running
                        .sandbox
                        .orders_numbered(common::MER, &row.mer_order_no),
                    1
                );
            }
            _ => {
                assert_eq!(
                    f.running
                        .sandbox
                        .orders_numbered(common::MER, &row.mer_order_no),
                    0,
                    "row {} refused yet sent",
                    row.row_no
                );
                assert!(
                    desk.journal_entry_by_number(&row.mer_order_no)
                        .unwrap()
                        .is_none(),
                    "row {} refused yet journaled",
                    row.row_no
                );
            }
        }
    }
    assert!(paid <= per_day, "{paid}");
    for row in rows.iter().filter(|r| r.state != RowState::Accepted) {
        let amount: Decimal = row.amount.parse().unwrap();
        assert!(
            paid + amount > per_day,
            "row {} refused with room left",
            row.row_no
        );
    }
}
