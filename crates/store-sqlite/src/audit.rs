//! The audit log: every operation with time, profile, operator, identifiers, result and
//! latency, as a chain that someone with write access to the database cannot rewrite
//! or shorten unnoticed:
//!
//! - each row's `hash` is an HMAC-SHA-256, under a per-profile key kept in the OS
//!   keyring (`audit-key`), over the previous row's hash and this row's content: a row
//!   cannot be changed, inserted or re-chained without the key;
//! - after each append the row count and the last row's hash are recorded in the keyring
//!   too (the [`Anchor`]): rows deleted from the end, or both tables emptied, no longer
//!   reach the count the keyring holds;
//! - `audit_head` in the database keeps the same count and hash for a quick check.
//!
//! Rows written before the key existed (an older version) were chained with plain
//! SHA-256; [`verify`] checks those by hash and says from which row the keyed chain
//! starts.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::audit::*;

use std::ops::Deref;

use rusqlite::{Connection, OptionalExtension, params};
use sha2::{Digest, Sha256};

use super::now_ms;
use crate::Db;
use paydesk_store::error::{CoreError, CoreResult};

const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

fn content(e: &AuditEntry) -> String {
    serde_json::json!([
        e.id,
        e.at,
        e.profile,
        e.operator,
        e.operation,
        e.identifiers,
        e.result,
        e.latency_ms
    ])
    .to_string()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The hash of rows written before the chain was keyed.
fn plain_hash(prev: &str, e: &AuditEntry) -> String {
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(content(e).as_bytes());
    hex(&h.finalize())
}

fn keyed_hash(key: &[u8], prev: &str, e: &AuditEntry) -> String {
    let key = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, key);
    let text = format!("{prev}\n{}", content(e));
    hex(aws_lc_rs::hmac::sign(&key, text.as_bytes()).as_ref())
}

fn same(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && aws_lc_rs::constant_time::verify_slices_are_equal(a.as_bytes(), b.as_bytes()).is_ok()
}

fn row_entry(r: &rusqlite::Row<'_>) -> rusqlite::Result<AuditEntry> {
    Ok(AuditEntry {
        id: r.get(0)?,
        at: r.get(1)?,
        profile: r.get(2)?,
        operator: r.get(3)?,
        operation: r.get(4)?,
        identifiers: r.get(5)?,
        result: r.get(6)?,
        latency_ms: r.get(7)?,
        prev_hash: r.get(8)?,
        hash: r.get(9)?,
        db_user: None,
    })
}

fn db_head(conn: &Connection) -> CoreResult<Option<(i64, String, i64)>> {
    conn.query_row(
        "SELECT last_id, last_hash, count FROM audit_head WHERE one = 1",
        [],
        |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
    )
    .optional()
    .db()
}

/// Why the log cannot be continued: what the keyring recorded is no longer in the
/// database (rows cut from the end, the tables emptied, the anchored row rewritten).
fn continuity(conn: &Connection, count: i64, anchor: &Anchor) -> CoreResult<Option<String>> {
    if count < anchor.count {
        return Ok(Some(format!(
            "the log holds {count} rows, but the keyring recorded {} rows: rows {} to {} were removed",
            anchor.count,
            count + 1,
            anchor.last_id
        )));
    }
    let hash: Option<String> = conn
        .query_row(
            "SELECT hash FROM audit_log WHERE id = ?1",
            [anchor.last_id],
            |r| r.get(0),
        )
        .optional()
        .db()?;
    if hash.as_deref().is_none_or(|h| !same(h, &anchor.last_hash)) {
        return Ok(Some(format!(
            "row {} is not the row the keyring recorded",
            anchor.last_id
        )));
    }
    Ok(None)
}

/// Whether the log still reaches `anchor`: it holds at least its count of rows and its
/// last row as recorded (what an append checks before continuing the chain).
pub fn reaches(conn: &Connection, anchor: &Anchor) -> CoreResult<bool> {
    let count = db_head(conn)?.map_or(0, |(_, _, count)| count);
    Ok(continuity(conn, count, anchor)?.is_none())
}

/// Appends a row to the chain, sealed with `key`, in its own immediate transaction.
/// `anchor` is what the keyring holds now: a database that no longer reaches it is not
/// continued (the append fails, so a cut end cannot be papered over by the next row). Returns the row and the anchor to record in the
/// keyring once it is committed.
///
/// A failed append leaves the log incomplete; the desk records that in the keyring
/// (`audit-alert`) and [`verify`] reports it.
pub(super) fn append(
    tx: &Connection,
    r: Record<'_>,
    key: &[u8],
    anchor: Option<&Anchor>,
) -> CoreResult<(AuditEntry, Anchor)> {
    if key.len() < 32 {
        return Err(CoreError::internal("the audit key is too short"));
    }
    let (last_id, prev, count) = db_head(tx)?.unwrap_or((0, GENESIS.to_string(), 0));
    if let Some(a) = anchor
        && let Some(problem) = continuity(tx, count, a)?
    {
        return Err(CoreError::storage(format!(
            "the audit log is not continued: {problem}"
        )));
    }
    let first_keyed = anchor.map(|a| a.first_keyed);
    let mut e = AuditEntry {
        id: last_id + 1,
        at: now_ms(),
        profile: r.profile.to_string(),
        operator: r.operator.to_string(),
        operation: r.operation.to_string(),
        identifiers: r.identifiers,
        result: r.result,
        latency_ms: r.latency_ms,
        prev_hash: prev,
        hash: String::new(),
        db_user: None,
    };
    e.hash = keyed_hash(key, &e.prev_hash, &e);
    tx.execute(
        "INSERT INTO audit_log (id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![e.id, e.at, e.profile, e.operator, e.operation, e.identifiers, e.result, e.latency_ms, e.prev_hash, e.hash],
    ).db()?;
    tx.execute(
        "INSERT INTO audit_head (one, last_id, last_hash, count) VALUES (1, ?1, ?2, ?3)
         ON CONFLICT (one) DO UPDATE SET last_id = excluded.last_id, last_hash = excluded.last_hash, count = excluded.count",
        params![e.id, e.hash, count + 1],
    ).db()?;
    let anchor = Anchor {
        first_keyed: first_keyed.unwrap_or(e.id).min(e.id),
        count: count + 1,
        last_id: e.id,
        last_hash: e.hash.clone(),
    };
    Ok((e, anchor))
}

/// Walks the whole chain: ids without gaps, each row linked to the one before, each
/// row's seal (keyed from `anchor.first_keyed`), the database's head record, and the
/// keyring's `anchor` (count and last hash: nothing cut from the end).
fn verify(conn: &Connection, key: &[u8], anchor: Option<&Anchor>) -> CoreResult<ChainCheck> {
    // The whole chain's check always answers.
    verify_from(conn, key, anchor, None)?
        .ok_or_else(|| CoreError::internal("the audit chain was not checked"))
}

/// The whole chain's check (`since` `None`), or the check of the rows after `since`
/// (`None` when its row is not there with its hash).
fn verify_from(
    conn: &Connection,
    key: &[u8],
    anchor: Option<&Anchor>,
    since: Option<(i64, &str)>,
) -> CoreResult<Option<ChainCheck>> {
    if !conn.is_autocommit() {
        // Inside the caller's transaction: its snapshot already.
        return verify_in(conn, key, anchor, since);
    }
    // One read transaction: the rows and the head record from the same snapshot, even
    // while another desk appends.
    let tx = conn.unchecked_transaction().db()?;
    let check = verify_in(&tx, key, anchor, since)?;
    tx.finish().db()?;
    Ok(check)
}

fn verify_in(
    conn: &Connection,
    key: &[u8],
    anchor: Option<&Anchor>,
    since: Option<(i64, &str)>,
) -> CoreResult<Option<ChainCheck>> {
    let mut prev = GENESIS.to_string();
    let mut expected_id = 1;
    let mut n = 0;
    let mut anchored_hash = None;
    if let Some((id, hash)) = since {
        // The row checked before, still there with the hash it was checked with: the
        // chain up to it is taken as checked (ids 1 to `id`, as the check found them).
        let kept: Option<String> = conn
            .query_row("SELECT hash FROM audit_log WHERE id = ?1", [id], |r| {
                r.get(0)
            })
            .optional()
            .db()?;
        match kept {
            Some(h) if id >= 1 && same(&h, hash) => {
                prev = h;
                expected_id = id + 1;
                n = id;
            }
            _ => return Ok(None),
        }
        if let Some(a) = anchor
            && a.last_id <= id
        {
            anchored_hash = conn
                .query_row(
                    "SELECT hash FROM audit_log WHERE id = ?1",
                    [a.last_id],
                    |r| r.get::<_, String>(0),
                )
                .optional()
                .db()?;
        }
    }
    let mut stmt = conn.prepare_cached(
        "SELECT id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash FROM audit_log WHERE id >= ?1 ORDER BY id",
    ).db()?;
    let mut rows = stmt.query([expected_id]).db()?;
    let first_keyed = anchor.map(|a| a.first_keyed);
    let mut check = ChainCheck {
        rows: 0,
        ok: true,
        broken_at: None,
        problem: None,
        keyed_from: first_keyed,
        anchored_rows: anchor.map(|a| a.count),
        alert: None,
    };
    let broken = |mut c: ChainCheck, id: i64, n: i64, why: String| {
        c.rows = n;
        c.ok = false;
        c.broken_at = Some(id);
        c.problem = Some(why);
        c
    };
    while let Some(r) = rows.next().db()? {
        let e = row_entry(r).db()?;
        n += 1;
        if e.id != expected_id {
            return Ok(Some(broken(
                check,
                expected_id,
                n,
                format!("row {expected_id} is missing"),
            )));
        }
        if e.prev_hash != prev {
            return Ok(Some(broken(
                check,
                e.id,
                n,
                format!("row {} does not follow the row before it", e.id),
            )));
        }
        // From the first keyed row on, only the keyed seal counts; before it, a row may
        // be an older plain one (or keyed, written while another desk started the key).
        let sealed = same(&keyed_hash(key, &prev, &e), &e.hash)
            || (first_keyed.is_none_or(|k| e.id < k) && same(&plain_hash(&prev, &e), &e.hash));
        if !sealed {
            return Ok(Some(broken(
                check,
                e.id,
                n,
                format!(
                    "row {} was changed after it was written (its seal does not match)",
                    e.id
                ),
            )));
        }
        if anchor.is_some_and(|a| a.last_id == e.id) {
            anchored_hash = Some(e.hash.clone());
        }
        prev = e.hash;
        expected_id += 1;
    }
    if let Some(a) = anchor {
        if n < a.count {
            return Ok(Some(broken(
                check,
                n + 1,
                n,
                format!(
                    "the log ends at row {n}, but the keyring recorded {} rows: rows {} to {} were removed",
                    a.count,
                    n + 1,
                    a.last_id
                ),
            )));
        }
        if anchored_hash
            .as_deref()
            .is_none_or(|h| !same(h, &a.last_hash))
        {
            return Ok(Some(broken(
                check,
                a.last_id,
                n,
                format!("row {} is not the row the keyring recorded", a.last_id),
            )));
        }
    }
    match db_head(conn)? {
        Some((last_id, last_hash, count))
            if last_id != expected_id - 1 || last_hash != prev || count != n =>
        {
            check = broken(
                check,
                expected_id,
                n,
                format!(
                    "the log ends at row {} but its head record says {count} rows up to row {last_id}",
                    expected_id - 1
                ),
            );
            Ok(Some(check))
        }
        None if n > 0 => Ok(Some(broken(
            check,
            1,
            n,
            "the chain's head record is missing".into(),
        ))),
        _ => {
            check.rows = n;
            Ok(Some(check))
        }
    }
}

/// Rows of the log sealed with a key (not by plain SHA-256, as rows written before the
/// key existed are): `(rows, sealed)`. Without the key they cannot be checked.
pub fn sealed_rows(conn: &Connection) -> CoreResult<(i64, i64)> {
    let mut stmt = conn.prepare(
        "SELECT id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash FROM audit_log ORDER BY id",
    ).db()?;
    let mut rows = stmt.query([]).db()?;
    let mut prev = GENESIS.to_string();
    let (mut n, mut plain) = (0i64, 0i64);
    let mut still_plain = true;
    while let Some(r) = rows.next().db()? {
        let e = row_entry(r).db()?;
        n += 1;
        if still_plain && e.prev_hash == prev && same(&plain_hash(&prev, &e), &e.hash) {
            plain += 1;
        } else {
            still_plain = false;
        }
        prev = e.hash;
    }
    Ok((n, n - plain))
}

/// Sets the whole log aside (into `audit_archived_row`, under a new archive number) and
/// starts a new chain whose first row, sealed with `key`, records it: one transaction.
pub fn archive_and_restart(
    conn: &Connection,
    r: Record<'_>,
    reason: &str,
    key: &[u8],
) -> CoreResult<(AuditArchive, AuditEntry, Anchor)> {
    super::committed(conn, || {
        let (rows, sealed) = sealed_rows(conn)?;
        let archived_at = now_ms();
        conn.execute(
            "INSERT INTO audit_archive (archived_at, row_count, sealed_rows, reason) VALUES (?1, ?2, ?3, ?4)",
            params![archived_at, rows, sealed, reason],
        ).db()?;
        let archive = conn.last_insert_rowid();
        conn.execute(
            "INSERT INTO audit_archived_row (archive, id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash)
             SELECT ?1, id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash FROM audit_log",
            [archive],
        ).db()?;
        conn.execute("DELETE FROM audit_log", []).db()?;
        conn.execute("DELETE FROM audit_head", []).db()?;
        let record = Record {
            identifiers: format!("archive={archive} archivedRows={rows} sealedRows={sealed}"),
            ..r
        };
        let (entry, anchor) = append(conn, record, key, None)?;
        Ok((
            AuditArchive {
                archive,
                archived_at,
                rows,
                sealed_rows: sealed,
                reason: reason.to_string(),
            },
            entry,
            anchor,
        ))
    })
}

/// The logs set aside, newest first.
pub fn archives(conn: &Connection) -> CoreResult<Vec<AuditArchive>> {
    let mut stmt = conn.prepare(
        "SELECT archive, archived_at, row_count, sealed_rows, reason FROM audit_archive ORDER BY archive DESC",
    ).db()?;
    let rows = stmt
        .query_map([], |r| {
            Ok(AuditArchive {
                archive: r.get(0)?,
                archived_at: r.get(1)?,
                rows: r.get(2)?,
                sealed_rows: r.get(3)?,
                reason: r.get(4)?,
            })
        })
        .db()?;
    rows.collect::<Result<Vec<_>, _>>().db()
}

/// The rows of archive `archive`, as written (newest first, at most `limit`).
pub fn archived_rows(conn: &Connection, archive: i64, limit: i64) -> CoreResult<Vec<AuditEntry>> {
    let mut stmt = conn.prepare(
        "SELECT id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash
         FROM audit_archived_row WHERE archive = ?1 ORDER BY id DESC LIMIT ?2",
    ).db()?;
    let rows = stmt.query_map(params![archive, limit], row_entry).db()?;
    rows.collect::<Result<Vec<_>, _>>().db()
}

fn list(conn: &Connection, f: &AuditFilter) -> CoreResult<Vec<AuditEntry>> {
    let mut stmt = conn.prepare(
        "SELECT id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash FROM audit_log
         WHERE (?1 IS NULL OR operation = ?1)
           AND (?2 IS NULL OR identifiers LIKE '%' || ?2 || '%' OR result LIKE '%' || ?2 || '%')
           AND (?3 IS NULL OR at >= ?3) AND (?4 IS NULL OR at < ?4)
         ORDER BY id DESC LIMIT ?5",
    ).db()?;
    let rows = stmt
        .query_map(
            params![f.operation, f.text, f.from, f.to, f.limit.unwrap_or(500)],
            row_entry,
        )
        .db()?;
    rows.collect::<Result<Vec<_>, _>>().db()
}

/// The audit log of one database (a connection or a transaction).
#[derive(Debug, Clone, Copy)]
pub struct AuditLog<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> AuditLog<C> {
    pub fn on(conn: C) -> Self {
        AuditLog { conn }
    }
}

impl<C: Deref<Target = Connection>> AuditStore for AuditLog<C> {
    fn append(
        &self,
        r: Record<'_>,
        key: &[u8],
        anchor: Option<&Anchor>,
    ) -> CoreResult<(AuditEntry, Anchor)> {
        super::committed(&self.conn, || append(&self.conn, r, key, anchor))
    }

    fn append_many(
        &self,
        records: Vec<Record<'_>>,
        key: &[u8],
        anchor: Option<&Anchor>,
    ) -> CoreResult<Option<Anchor>> {
        super::committed(&self.conn, || {
            let mut anchor = anchor.cloned();
            for r in records {
                anchor = Some(append(&self.conn, r, key, anchor.as_ref())?.1);
            }
            Ok(anchor)
        })
    }

    fn verify(&self, key: &[u8], anchor: Option<&Anchor>) -> CoreResult<ChainCheck> {
        verify(&self.conn, key, anchor)
    }

    fn verify_since(
        &self,
        key: &[u8],
        anchor: Option<&Anchor>,
        since_id: i64,
        since_hash: &str,
    ) -> CoreResult<Option<ChainCheck>> {
        verify_from(&self.conn, key, anchor, Some((since_id, since_hash)))
    }

    fn list(&self, f: &AuditFilter) -> CoreResult<Vec<AuditEntry>> {
        list(&self.conn, f)
    }
}
