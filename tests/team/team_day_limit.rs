//! A signer's worker sends an approved request's rows several at once; the profile's
//! per-day limit still holds: each row is summed against the day in the team journal's
//! write transaction (under a lock per merchant and currency), so only as many rows are
//! paid as the limit reaches, and the others are refused naming it with nothing journaled
//! (review-money-r5 F1).

#![allow(clippy::unwrap_used)]

mod common;

use paydesk_core::limits::{CurrencyLimit, Limits};
use paydesk_core::{Desk, Endpoint, Profile};
use paydesk_team::{self as team, RowState, TeamRole};
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
                    desk.journal()
                        .entry_by_number(&row.mer_order_no)
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

/// Review r6 R6-6: an approved row whose journal entry was never sent (`pending`: its
/// signer was killed before sending it and the lookups found nothing), refused now over
/// the day's limit, is refused for good naming the limit: the request ends, and nothing
/// sends the row by itself later, when the limit would allow it, without a new approval.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_never_sent_and_refused_over_the_day_limit_ends_refused_and_is_not_sent_later() {
    let pg = team_db_of(
        paydesk_testpg::Options::default(),
        &[
            ("mark", TeamRole::Maker),
            ("ann", TeamRole::Approver),
            ("sam", TeamRole::Signer),
        ],
        "0",
    );
    let f = common::Fixture::new("teamdaypending").await;
    let p = f.home.get(&f.name).unwrap();
    f.home
        .put(Profile {
            team: Some(cfg(&pg, "sam")),
            ..p
        })
        .unwrap();
    f.secrets.set_team_password(&f.name, PASSWORD).unwrap();
    let desk = Desk::open(&f.home, f.secrets.clone(), &f.name, Endpoint::Profile).unwrap();
    let (maker, ann, sam) = (member(&pg, "mark"), member(&pg, "ann"), member(&pg, "sam"));
    let owner = |q: &str| pg.psql_owner(common::team::DB, q).unwrap();
    let request = |amount: &str| {
        let mut form = paydesk_core::forms::PayoutForm::new(
            paydesk_core::forms::PayoutKind::Clabe,
            "",
            amount,
            "MXN",
        );
        form.clabe = CLABE.into();
        let r = maker.request_payout(&form).unwrap();
        ann.approve(r.id).unwrap();
        r
    };

    // Row B (50 MXN): its send never reaches the gateway (it answers 503 first), so the
    // row is unknown and its request given back.
    let b = request("50.00");
    f.running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            error_rate: 1.0,
            ..Default::default()
        },
    );
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.request, done.unknown), (b.id, 1), "{done:?}");
    let number = maker.rows(b.id).unwrap()[0].mer_order_no.clone();
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, &number), 0);
    // As the lookups of a second signer would prove it: never sent, `pending`.
    owner(&format!(
        "UPDATE paydesk.journal SET status = 'pending', claimed_by = NULL, claimed_until = NULL WHERE mer_order_no = '{number}'"
    ));
    f.running
        .sandbox
        .set_fault("/v2/payout", paydesk_sandbox::Fault::default());

    // Row A (80 MXN) is paid; then the day's limit is set at 100.
    let a = request("80.00");
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!((done.request, done.accepted), (a.id, 1), "{done:?}");
    let set_limit = |per_day: Option<&str>| {
        f.home
            .set_limits(
                &f.name,
                Limits {
                    currencies: vec![CurrencyLimit {
                        currency: "MXN".into(),
                        per_payout: None,
                        per_day: per_day.map(str::to_string),
                    }],
                },
            )
            .unwrap();
    };
    set_limit(Some("100.00"));

    // B taken up again: 80 + 50 passes the day's 100. The row is refused naming the limit
    // and the request ends.
    let due = format!(
        "UPDATE paydesk.requests SET claimed_at = now() - interval '1 hour' WHERE id = {}",
        b.id
    );
    owner(&due);
    let done = team::execute_next(&desk, &sam).await.unwrap().unwrap();
    assert_eq!(done.request, b.id);
    assert_eq!(
        (done.failed, done.unknown, done.done),
        (1, 0, true),
        "{done:?}"
    );
    let row = &maker.rows(b.id).unwrap()[0];
    assert_eq!(row.state, RowState::Failed, "{row:?}");
    let why = row.message.clone().unwrap_or_default();
    assert!(why.contains("100"), "{why}");
    // Another day (the limit lifted): nothing takes the row up and sends it.
    set_limit(None);
    owner(&due);
    assert!(team::execute_next(&desk, &sam).await.unwrap().is_none());
    assert_eq!(f.running.sandbox.orders_numbered(common::MER, &number), 0);
}
