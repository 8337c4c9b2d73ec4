//! `BalanceStore`'s contract: snapshots read back as written (the gateway's decimal
//! text, never rounded), oldest first, and the latest of each currency.

use paydesk_store::balances::BalanceSnapshot;
use paydesk_store::prelude::BalanceStore;

use super::Facts;

fn snapshot(currency: &str, balance: &str, taken_at: i64) -> BalanceSnapshot {
    BalanceSnapshot {
        currency: currency.into(),
        balance: balance.into(),
        un_checked_balance: "0.00".into(),
        total_balance: balance.into(),
        taken_at,
    }
}

pub fn snapshots_read_back_as_written_oldest_first_and_latest_per_currency(
    b: &dyn BalanceStore,
    facts: Facts,
) {
    let n = facts.name;
    assert!(b.latest().unwrap().is_empty(), "{n}");
    let later = snapshot("MXN", "1234567.89", 3_000);
    let earlier = snapshot("MXN", "10.50", 1_000);
    let usd = snapshot("USD", "0.000001", 2_000);
    b.add(&later).unwrap();
    b.add(&usd).unwrap();
    b.add(&earlier).unwrap();
    assert_eq!(
        b.history("MXN").unwrap(),
        vec![earlier.clone(), later.clone()],
        "{n}"
    );
    assert_eq!(b.history("EUR").unwrap(), Vec::new(), "{n}");
    assert_eq!(b.latest().unwrap(), vec![later, usd], "{n}");
}
