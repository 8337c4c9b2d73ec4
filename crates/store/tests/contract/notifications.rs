//! `NotificationStore`'s contract: notifications kept as received (body and whether
//! their signature verified), the latest newest first up to a limit, an order's oldest
//! first.

use paydesk_store::prelude::NotificationStore;

use super::Facts;

pub fn notifications_are_kept_as_received_and_listed_both_ways(
    s: &dyn NotificationStore,
    facts: Facts,
) {
    let n = facts.name;
    s.add("payin", "T1", r#"{"tradeNo":"T1","state":1}"#, true)
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    s.add("payout", "T2", r#"{"tradeNo":"T2"}"#, false).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    s.add("payin", "T1", r#"{"tradeNo":"T1","state":2}"#, true)
        .unwrap();

    let latest = s.latest(2).unwrap();
    assert_eq!(latest.len(), 2, "{n}: the limit");
    assert_eq!(
        latest[0].body, r#"{"tradeNo":"T1","state":2}"#,
        "{n}: newest first"
    );
    assert_eq!(
        (
            latest[1].kind.as_str(),
            latest[1].trade_no.as_str(),
            latest[1].signature_ok
        ),
        ("payout", "T2", false),
        "{n}"
    );
    let t1 = s.of_order("T1").unwrap();
    assert_eq!(
        t1.iter().map(|x| x.body.as_str()).collect::<Vec<_>>(),
        [
            r#"{"tradeNo":"T1","state":1}"#,
            r#"{"tradeNo":"T1","state":2}"#
        ],
        "{n}: an order's, oldest first"
    );
    assert!(t1.iter().all(|x| x.signature_ok), "{n}");
    assert!(t1[0].received_at <= t1[1].received_at, "{n}");
    assert!(s.of_order("T3").unwrap().is_empty(), "{n}");
}
