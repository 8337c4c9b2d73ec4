//! `--purpose` and `--reference` on the money commands (issue 35, item 3): kept with
//! the journal entry and shown by `journal list`; `profile require-purpose on` makes a
//! payout without one a refusal naming the field, with nothing journaled; a bulk run's
//! `--purpose` fills the rows whose `purpose` column is empty.

#![allow(clippy::unwrap_used)]

use crate::common;

use serde_json::Value;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn purposes_travel_from_the_command_line_and_a_required_one_is_asked_for() {
    let (mut env, _running, _key) = common::setup().await;
    let paid: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "payout",
        "clabe",
        "--amount",
        "12.00",
        "--currency",
        "MXN",
        "--clabe",
        "002010077777777771",
        "--mer-order-no",
        "PO-CLI-WHY-1",
        "--purpose",
        "Rent, December",
        "--reference",
        "INV-77",
    ]))
    .unwrap();
    assert_eq!(paid["entry"]["status"], "accepted");
    assert_eq!(paid["entry"]["purpose"]["text"], "Rent, December");
    assert_eq!(paid["entry"]["purpose"]["reference"], "INV-77");
    let listed = env.ok(&["journal", "list"]);
    let line = listed.lines().find(|l| l.contains("PO-CLI-WHY-1")).unwrap();
    assert!(
        line.contains("purpose: Rent, December [ref INV-77]"),
        "{line}"
    );

    // Required by the profile: refused naming the field, nothing journaled or sent.
    env.ok(&["profile", "require-purpose", "on"]);
    let refused = env.run(
        &[
            "payout",
            "clabe",
            "--amount",
            "1.00",
            "--currency",
            "MXN",
            "--clabe",
            "002010077777777771",
            "--mer-order-no",
            "PO-CLI-WHY-2",
        ],
        "",
    );
    assert_eq!(refused.status.code(), Some(2));
    let said = String::from_utf8_lossy(&refused.stderr);
    assert!(
        said.contains("purpose") && said.contains("required"),
        "{said}"
    );
    let db = rusqlite::Connection::open(env.db()).unwrap();
    let n: i64 = db
        .query_row(
            "SELECT count(*) FROM journal WHERE mer_order_no = 'PO-CLI-WHY-2'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(n, 0, "nothing journaled");

    // A bulk run: the run's purpose for the rows without their own.
    let file = env.home.path().join("run.csv");
    std::fs::write(
        &file,
        "type,amount,currency,account,merOrderNo,purpose,reference\n\
         clabe,3.00,MXN,002010077777777771,PO-CLI-B1,Bonus Ana,EMP-1\n\
         clabe,4.00,MXN,002010077777777771,PO-CLI-B2,,EMP-2\n",
    )
    .unwrap();
    env.ok(&[
        "payout",
        "bulk",
        file.to_str().unwrap(),
        "--yes",
        "--purpose",
        "November bonus",
    ]);
    let kept = |no: &str| -> (Option<String>, Option<String>) {
        db.query_row(
            "SELECT purpose, purpose_ref FROM journal WHERE mer_order_no = ?1",
            [no],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap()
    };
    assert_eq!(
        kept("PO-CLI-B1"),
        (Some("Bonus Ana".into()), Some("EMP-1".into()))
    );
    assert_eq!(
        kept("PO-CLI-B2"),
        (Some("November bonus".into()), Some("EMP-2".into()))
    );
}
