//! `CardStore`'s contract: card operations read back as written (the card masked as
//! given, the amounts as the gateway's decimal text), newest first.

use paydesk_store::cards::NewCardOperation;
use paydesk_store::prelude::CardStore;

use super::Facts;

pub fn card_operations_read_back_as_written_newest_first(c: &dyn CardStore, facts: Facts) {
    let n = facts.name;
    assert!(c.latest().unwrap().is_empty(), "{n}");
    c.add(NewCardOperation {
        journal_id: 7,
        kind: "topUp",
        card: "411111******1111",
        amount: "150.00",
        currency: "MXN",
        fee: Some("1.50"),
        trade_no: Some("T1"),
        outcome: "accepted",
    })
    .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(3));
    c.add(NewCardOperation {
        journal_id: 8,
        kind: "withdraw",
        card: "411111******1111",
        amount: "20",
        currency: "MXN",
        fee: None,
        trade_no: None,
        outcome: "unknown",
    })
    .unwrap();
    let ops = c.latest().unwrap();
    assert_eq!(ops.len(), 2, "{n}");
    let (last, first) = (&ops[0], &ops[1]);
    assert_eq!(
        (
            last.kind.as_str(),
            last.amount.as_str(),
            last.fee.as_deref()
        ),
        ("withdraw", "20", None),
        "{n}: newest first"
    );
    assert_eq!(last.trade_no, None, "{n}");
    assert_eq!(last.journal_id, Some(8), "{n}");
    assert_eq!(
        (
            first.card.as_str(),
            first.amount.as_str(),
            first.fee.as_deref(),
            first.currency.as_str()
        ),
        ("411111******1111", "150.00", Some("1.50"), "MXN"),
        "{n}"
    );
    assert_eq!(
        (first.trade_no.as_deref(), first.outcome.as_str()),
        (Some("T1"), "accepted"),
        "{n}"
    );
    assert!(first.at <= last.at, "{n}");
}
