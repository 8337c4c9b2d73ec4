//! `paydesk beneficiaries` and `--beneficiary` as an operator runs them: a payee added
//! with its account on stdin (never an argument), a payout by nickname reaching the
//! gateway at the payee's account, a bulk file by nickname, a new account noted.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;

const BBVA: &str = "012180001234567899";
const BANAMEX: &str = "002010077777777771";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payee_added_on_stdin_is_paid_by_nickname_alone_and_bulk_rows_name_it() {
    let (mut env, running, _) = setup().await;
    let out = env.run(
        &["beneficiaries", "add", "rent", "--first-name", "Casa Azul"],
        &format!("{BBVA}\n"),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let listed = env.ok(&["beneficiaries", "list"]);
    assert!(
        listed.contains("rent\tCasa Azul\t012180********7899\tBBVA MEXICO\tMX"),
        "{listed}"
    );
    assert!(!listed.contains(BBVA));

    let paid = env.run(
        &[
            "payout",
            "clabe",
            "--amount",
            "20.00",
            "--currency",
            "MXN",
            "--mer-order-no",
            "BEN-CLI-1",
            "--beneficiary",
            "RENT",
        ],
        "",
    );
    assert!(
        paid.status.success(),
        "{}",
        String::from_utf8_lossy(&paid.stderr)
    );
    assert!(!String::from_utf8_lossy(&paid.stderr).contains("not in the book"));
    let account = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| o.mer_order_no == "BEN-CLI-1")
            .map(|o| o.account.clone())
    });
    assert_eq!(account.as_deref(), Some("CLABE 012…7899"));

    // An account the book has never seen is noted.
    let other = env.run(
        &[
            "payout",
            "clabe",
            "--amount",
            "1.00",
            "--currency",
            "MXN",
            "--clabe",
            BANAMEX,
        ],
        "",
    );
    assert!(
        String::from_utf8_lossy(&other.stderr).contains("002010********7771 is not in the book")
    );

    // A bulk file: a row by nickname goes; an unknown nickname is named by line and field.
    let file = env.home.path().join("pay.csv");
    std::fs::write(
        &file,
        "amount,currency,beneficiary\n5.00,MXN,rent\n6.00,MXN,landlord\n",
    )
    .unwrap();
    let check = env.run(&["payout", "bulk", file.to_str().unwrap(), "--check"], "");
    let err = String::from_utf8_lossy(&check.stderr);
    assert!(!check.status.success());
    assert!(
        err.contains("line 3: beneficiary: no payee \"landlord\" in the book"),
        "{err}"
    );

    // Removed, the nickname no longer pays.
    env.ok(&["beneficiaries", "remove", "rent"]);
    let gone = env.run(
        &[
            "payout",
            "clabe",
            "--amount",
            "2.00",
            "--currency",
            "MXN",
            "--beneficiary",
            "rent",
        ],
        "",
    );
    assert!(!gone.status.success());
    assert_eq!(running.sandbox.orders_numbered(10001, "BEN-CLI-1"), 1);
}
