//! The audit log's contract ([`AuditStore`]): rows appended read back as written,
//! newest first and filtered; the chain verifies over every row; an anchor the log no
//! longer reaches (rows cut from its end) is reported.

use paydesk_store::audit::{Anchor, AuditFilter, Record};
use paydesk_store::prelude::AuditStore;

use super::Facts;

const KEY: &[u8] = b"an audit key of thirty-two bytes";

fn record<'a>(operation: &'a str, identifiers: &str, latency_ms: i64) -> Record<'a> {
    Record {
        profile: "acme",
        operator: "ann",
        operation,
        identifiers: identifiers.to_string(),
        result: format!("ok {identifiers}"),
        latency_ms,
    }
}

/// Rows appended one by one and as a group read back newest first, as written
/// (operation, identifiers, result, latency, profile), filtered by operation, by text
/// and by a limit; the chain verifies over all of them.
pub fn appended_rows_read_back_and_verify(a: &dyn AuditStore, facts: Facts) {
    let mut anchor: Option<Anchor> = None;
    let mut ids = Vec::new();
    for (i, op) in ["payout.create", "sync", "payout.create"]
        .iter()
        .enumerate()
    {
        let (row, next) = a
            .append(
                record(op, &format!("PO-{i}"), i as i64),
                KEY,
                anchor.as_ref(),
            )
            .unwrap();
        assert_eq!(row.operation, *op, "{}", facts.name);
        ids.push(row.id);
        if facts.database_seals_audit {
            assert_eq!(
                next.count,
                anchor.as_ref().map_or(0, |a| a.count),
                "{}: anchor kept",
                facts.name
            );
        } else {
            assert_eq!(
                next.count,
                i as i64 + 1,
                "{}: the anchor counts the rows",
                facts.name
            );
            assert_eq!(next.last_id, row.id);
        }
        anchor = Some(next);
    }
    let group = vec![record("bulk.row", "B-1", 5), record("bulk.row", "B-2", 6)];
    let after = a.append_many(group, KEY, anchor.as_ref()).unwrap();
    if !facts.database_seals_audit {
        assert_eq!(after.as_ref().map(|a| a.count), Some(5), "{}", facts.name);
    }
    let anchor = if facts.database_seals_audit {
        None
    } else {
        after
    };

    let all = a.list(&AuditFilter::default()).unwrap();
    let written: Vec<(&str, &str, &str, i64)> = all
        .iter()
        .map(|e| {
            (
                e.operation.as_str(),
                e.identifiers.as_str(),
                e.result.as_str(),
                e.latency_ms,
            )
        })
        .collect();
    assert_eq!(
        written,
        [
            ("bulk.row", "B-2", "ok B-2", 6),
            ("bulk.row", "B-1", "ok B-1", 5),
            ("payout.create", "PO-2", "ok PO-2", 2),
            ("sync", "PO-1", "ok PO-1", 1),
            ("payout.create", "PO-0", "ok PO-0", 0),
        ],
        "{}: newest first, as written",
        facts.name
    );
    assert!(all.iter().all(|e| e.profile == "acme"), "{}", facts.name);
    assert!(all.windows(2).all(|w| w[0].id > w[1].id), "{}", facts.name);
    assert!(
        all.iter().all(|e| !e.hash.is_empty()),
        "{}: every row sealed",
        facts.name
    );

    let creates = a
        .list(&AuditFilter {
            operation: Some("payout.create".into()),
            ..AuditFilter::default()
        })
        .unwrap();
    assert_eq!(
        creates.iter().map(|e| e.id).collect::<Vec<_>>(),
        [ids[2], ids[0]],
        "{}",
        facts.name
    );
    let text = a
        .list(&AuditFilter {
            text: Some("PO-1".into()),
            ..AuditFilter::default()
        })
        .unwrap();
    assert_eq!(text.len(), 1, "{}: by text", facts.name);
    assert_eq!(text[0].operation, "sync");
    let one = a
        .list(&AuditFilter {
            limit: Some(1),
            ..AuditFilter::default()
        })
        .unwrap();
    assert_eq!(one.len(), 1);
    assert_eq!(one[0].identifiers, "B-2");

    let check = a.verify(KEY, anchor.as_ref()).unwrap();
    assert!(check.ok, "{}: {check:?}", facts.name);
    assert_eq!(check.rows, 5, "{}", facts.name);
    assert_eq!(check.broken_at, None);
}

/// A keyring anchor past the log's end (rows cut from it since): the log is reported
/// broken, naming why, not read as whole.
pub fn an_anchor_past_the_end_is_reported(a: &dyn AuditStore, facts: Facts) {
    let mut anchor = None;
    for i in 0..3 {
        anchor = Some(
            a.append(record("sync", &format!("S-{i}"), 1), KEY, anchor.as_ref())
                .unwrap()
                .1,
        );
    }
    let head = a.list(&AuditFilter::default()).unwrap()[0].clone();
    assert!(a.verify(KEY, None).unwrap().ok, "{}", facts.name);
    let cut = Anchor {
        first_keyed: 1,
        count: 5,
        last_id: head.id + 2,
        last_hash: "ab".repeat(32),
    };
    let check = a.verify(KEY, Some(&cut)).unwrap();
    assert!(!check.ok, "{}: {check:?}", facts.name);
    assert!(
        check.problem.as_deref().is_some_and(|p| !p.is_empty()),
        "{}: {check:?}",
        facts.name
    );
    let _ = anchor;
}
