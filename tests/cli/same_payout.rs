//! `paydesk payout card` run again after an unknown outcome, with its own fresh number
//! (the default) and the payee now by nickname (the book gives a country the first run
//! did not have): held as a possible duplicate, exit 6, nothing sent (review-money-r5
//! F2b).

#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use paydesk_sandbox::Fault;

const CARD: &str = "4111111111111111";

fn orders(running: &paydesk_sandbox::Running) -> usize {
    running.sandbox.with_state(|s| s.orders.len())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_payout_rerun_by_nickname_after_unknown_is_held_as_a_duplicate() {
    let (mut env, running, _) = setup().await;
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    m.opening.insert("MXN".into(), "100000".parse().unwrap());
    running.sandbox.add_merchant(m);

    // By account, no country, default number: made at the gateway, the answer lost.
    running.sandbox.set_fault(
        "/payout",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let card = |extra: &[&str]| {
        let mut args = vec!["payout", "card", "--amount", "500.00", "--currency", "MXN"];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_string).collect::<Vec<_>>()
    };
    let first = card(&["--first-name", "Ana", "--last-name", "Lopez"]);
    let first: Vec<&str> = first.iter().map(String::as_str).collect();
    env.run(&first, &format!("{CARD}\n"));
    running.sandbox.clear_faults();
    assert_eq!(orders(&running), 1, "the first run was made");

    let added = env.run(
        &[
            "beneficiaries",
            "add",
            "ana",
            "--first-name",
            "Ana",
            "--last-name",
            "Lopez",
            "--country",
            "MX",
            "--kind",
            "card",
        ],
        &format!("{CARD}\n"),
    );
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );

    // The same command by nickname: a fresh number, the same money to the same card.
    let again = card(&["--beneficiary", "ana"]);
    let again: Vec<&str> = again.iter().map(String::as_str).collect();
    let out = env.run(&again, "");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{err}");
    assert!(err.contains("--allow-duplicate"), "{err}");
    assert_eq!(orders(&running), 1, "nothing sent: {err}");
}
