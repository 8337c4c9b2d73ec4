//! The audit log's contract ([`AuditStore`]): rows appended read back as written,
//! newest first and filtered; the chain verifies over every row; an anchor the log no
//! longer reaches (rows cut from its end) is reported. And a desk's log set aside
//! ([`Archive`]: after a keyring reset took its key): only a desk's SQLite file does it,
//! by design; a team's log is the team's database's, which one desk never sets aside.

use paydesk_store::CoreResult;
use paydesk_store::audit::{Anchor, AuditArchive, AuditEntry, AuditFilter, Record};
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

/// What setting a log aside returns: the archive, the new chain's first row, its anchor.
pub type SetAside = CoreResult<(AuditArchive, AuditEntry, Anchor)>;

/// A backend's audit log and its setting aside (no trait: one backend does it). The log
/// is opened for each use (`log`), as the desk does: an open log may hold the connection
/// that setting aside takes.
pub struct Archive<'a> {
    /// The audit log.
    pub log: &'a dyn Fn() -> Box<dyn AuditStore + 'a>,
    /// Sets the whole log aside and starts a new chain whose first row is `record`.
    pub set_aside: &'a dyn Fn(Record<'_>, &str, &[u8]) -> SetAside,
    /// The logs set aside, newest first.
    pub archives: &'a dyn Fn() -> CoreResult<Vec<AuditArchive>>,
    /// The rows of a log set aside, newest first, at most `limit`.
    pub rows: &'a dyn Fn(i64, i64) -> CoreResult<Vec<AuditEntry>>,
}

/// A log set aside keeps its rows as written, under a number the new chain's first row
/// names with the rows it counted; the new chain holds that row alone and verifies from
/// its own anchor; a second setting aside is listed first.
pub fn a_log_set_aside_keeps_its_rows_and_a_new_chain_starts(archive: &Archive<'_>, facts: Facts) {
    assert!((archive.archives)().unwrap().is_empty(), "{}", facts.name);
    let mut anchor = None;
    for i in 0..3 {
        anchor = Some(
            (archive.log)()
                .append(record("sync", &format!("S-{i}"), i), KEY, anchor.as_ref())
                .unwrap()
                .1,
        );
    }
    let before = (archive.log)().list(&AuditFilter::default()).unwrap();
    assert_eq!(before.len(), 3);

    let (first, row, anchor) =
        (archive.set_aside)(record("audit.new_log", "", 0), "keyring reset", KEY).unwrap();
    assert_eq!(
        (first.rows, first.sealed_rows, first.reason.as_str()),
        (3, 3, "keyring reset"),
        "{}",
        facts.name
    );
    assert_eq!(
        row.identifiers,
        format!("archive={} archivedRows=3 sealedRows=3", first.archive),
        "{}: the new chain's first row names what was set aside",
        facts.name
    );
    assert_eq!(row.operation, "audit.new_log");
    let now = (archive.log)().list(&AuditFilter::default()).unwrap();
    assert_eq!(
        now,
        std::slice::from_ref(&row),
        "{}: the new chain alone",
        facts.name
    );
    let check = (archive.log)().verify(KEY, Some(&anchor)).unwrap();
    assert!(check.ok, "{}: {check:?}", facts.name);
    assert_eq!(check.rows, 1);
    assert_eq!(
        (archive.archives)().unwrap(),
        std::slice::from_ref(&first),
        "{}",
        facts.name
    );
    assert_eq!(
        (archive.rows)(first.archive, 10).unwrap(),
        before,
        "{}: the rows as written, newest first",
        facts.name
    );
    assert_eq!(
        (archive.rows)(first.archive, 2).unwrap(),
        before[..2],
        "{}: at most the limit",
        facts.name
    );

    (archive.log)()
        .append(record("sync", "S-3", 1), KEY, Some(&anchor))
        .unwrap();
    let (second, _, _) = (archive.set_aside)(record("audit.new_log", "", 0), "again", KEY).unwrap();
    assert_eq!(second.rows, 2, "{}", facts.name);
    assert_eq!(
        (archive.archives)()
            .unwrap()
            .iter()
            .map(|a| a.archive)
            .collect::<Vec<_>>(),
        [second.archive, first.archive],
        "{}: newest first",
        facts.name
    );
    assert_eq!((archive.rows)(first.archive, 10).unwrap(), before);
}
