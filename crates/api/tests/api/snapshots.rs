//! The policies the one API owns, against the built-in sandbox with the real keyring and
//! SQLite files: an accepted payout is followed by a balance snapshot of its currency
//! (on a task of its own for the app, before the call returns for the CLI), and a sync
//! by a snapshot of every currency the cache holds.

#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use paydesk_api::money::After;
use paydesk_core::forms::{PayoutForm, PayoutKind};
use paydesk_core::journal::Status;
use paydesk_core::{Home, KeyringStore};
use paydesk_session::{Session, builtin};

/// A session on `dir` with a keyring service of its own (gnome-keyring may still be
/// starting: probed briefly first).
fn session(dir: &std::path::Path) -> Session {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let service = format!(
        "PayDesk-api-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
    for _ in 0..50 {
        if KeyringStore::open(&service).is_ok() {
            return Session::new(Home::at(dir), &service);
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!("the OS keyring is not available: run under /work/tools/ktest or cargo xtask test");
}

fn payout(no: &str, amount: &str) -> PayoutForm {
    let mut form = PayoutForm::new(PayoutKind::Clabe, no, amount, "MXN");
    form.clabe = "002010077777777771".into();
    form
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn money_moved_and_syncs_are_followed_by_a_balance_snapshot() {
    let dir = tempfile::tempdir().unwrap();
    let session = session(dir.path());
    builtin::ensure_profile(session.home(), &session.secrets().unwrap()).unwrap();
    let desk = session.open(Some("sandbox")).await.unwrap();
    assert!(desk.money().balance_history("MXN").unwrap().is_empty());

    // The CLI's way: the snapshot is there when the call returns.
    let r = paydesk_api::money::payout(&desk, &payout("API-1", "10.00"), false, false, After::Wait)
        .await
        .unwrap();
    assert_eq!(r.entry.status, Status::Accepted);
    // The last one kept is the balance the payout left (the balance check before sending
    // may keep the one it read first): asked again now, the gateway says the same.
    let kept = desk.money().balance_history("MXN").unwrap();
    let last = kept.last().expect("a snapshot after the payout");
    let now = desk.money().balance("MXN").await.unwrap();
    assert_eq!(last.balance, now.balance, "{kept:?}");

    // The app's way: on a task of its own, soon after the answer.
    let r = paydesk_api::money::payout(
        &desk,
        &payout("API-2", "11.00"),
        false,
        false,
        After::Background,
    )
    .await
    .unwrap();
    assert_eq!(r.entry.status, Status::Accepted);
    // Waited for: a snapshot of a balance other than the one before this payout.
    let deadline = Instant::now() + Duration::from_secs(10);
    while desk
        .money()
        .balance_history("MXN")
        .unwrap()
        .last()
        .is_none_or(|s| s.balance == now.balance)
    {
        assert!(Instant::now() < deadline, "no snapshot after the payout");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let moved = desk
        .money()
        .balance_history("MXN")
        .unwrap()
        .last()
        .unwrap()
        .clone();
    assert_eq!(
        moved.balance,
        desk.money().balance("MXN").await.unwrap().balance
    );

    // A payout refused before sending moves nothing and keeps no snapshot.
    let before = desk.money().balance_history("MXN").unwrap().len();
    let refused =
        paydesk_api::money::payout(&desk, &payout("API-3", "-1"), false, false, After::Wait).await;
    assert!(refused.is_err());
    assert_eq!(desk.money().balance_history("MXN").unwrap().len(), before);

    // A sync: then a snapshot of every currency the cache holds.
    let days = desk.orders().sync_options(400);
    let (report, failed) =
        paydesk_api::orders::sync(&desk, &days, Arc::new(AtomicBool::new(false)), |_| {})
            .await
            .unwrap();
    assert!(failed.is_none(), "{failed:?}");
    assert!(report.progress.orders > 0);
    let currencies = desk.money().currencies().unwrap();
    assert!(currencies.len() > 1, "{currencies:?}");
    for c in &currencies {
        assert!(
            !desk.money().balance_history(c).unwrap().is_empty(),
            "no snapshot of {c} after the sync"
        );
    }
    assert_eq!(
        desk.money().balance_history("MXN").unwrap().len(),
        before + 1
    );
}
