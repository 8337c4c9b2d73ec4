//! The audit log: every operation with time, profile, operator, identifiers, result and
//! latency. Each row's `hash` is SHA-256 over the previous row's hash and this row's
//! content, and a head row records the last hash and the count, so an edited, deleted
//! or truncated row is detected by [`verify`].

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::db::now_ms;
use crate::error::CoreResult;

const GENESIS: &str = "0000000000000000000000000000000000000000000000000000000000000000";

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuditEntry {
    pub id: i64,
    pub at: i64,
    pub profile: String,
    pub operator: String,
    pub operation: String,
    /// `merOrderNo=...`, `tradeNo=...` and the like; never secrets or full card numbers.
    pub identifiers: String,
    /// `ok`, a gateway code, or an error kind.
    pub result: String,
    pub latency_ms: i64,
    pub prev_hash: String,
    pub hash: String,
}

fn content_hash(prev: &str, e: &AuditEntry) -> String {
    let content = serde_json::json!([
        e.id,
        e.at,
        e.profile,
        e.operator,
        e.operation,
        e.identifiers,
        e.result,
        e.latency_ms
    ]);
    let mut h = Sha256::new();
    h.update(prev.as_bytes());
    h.update(b"\n");
    h.update(content.to_string().as_bytes());
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
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
    })
}

/// What to record.
#[derive(Debug, Clone)]
pub struct Record<'a> {
    pub profile: &'a str,
    pub operator: &'a str,
    pub operation: &'a str,
    pub identifiers: String,
    pub result: String,
    pub latency_ms: i64,
}

/// Appends a row to the chain, in its own immediate transaction.
pub fn append(conn: &mut Connection, r: Record<'_>) -> CoreResult<AuditEntry> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let head: Option<(i64, String, i64)> = tx
        .query_row(
            "SELECT last_id, last_hash, count FROM audit_head WHERE one = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    let (last_id, prev, count) = head.unwrap_or((0, GENESIS.to_string(), 0));
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
    };
    e.hash = content_hash(&e.prev_hash, &e);
    tx.execute(
        "INSERT INTO audit_log (id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
        params![e.id, e.at, e.profile, e.operator, e.operation, e.identifiers, e.result, e.latency_ms, e.prev_hash, e.hash],
    )?;
    tx.execute(
        "INSERT INTO audit_head (one, last_id, last_hash, count) VALUES (1, ?1, ?2, ?3)
         ON CONFLICT (one) DO UPDATE SET last_id = excluded.last_id, last_hash = excluded.last_hash, count = excluded.count",
        params![e.id, e.hash, count + 1],
    )?;
    tx.commit()?;
    Ok(e)
}

/// The result of checking the chain.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChainCheck {
    pub rows: i64,
    pub ok: bool,
    /// The first row where the chain breaks, and why.
    pub broken_at: Option<i64>,
    pub problem: Option<String>,
}

/// Walks the whole chain.
pub fn verify(conn: &Connection) -> CoreResult<ChainCheck> {
    let mut stmt = conn.prepare(
        "SELECT id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash FROM audit_log ORDER BY id",
    )?;
    let mut rows = stmt.query([])?;
    let mut prev = GENESIS.to_string();
    let mut expected_id = 1;
    let mut n = 0;
    let broken = |id: i64, n: i64, why: String| ChainCheck {
        rows: n,
        ok: false,
        broken_at: Some(id),
        problem: Some(why),
    };
    while let Some(r) = rows.next()? {
        let e = row_entry(r)?;
        n += 1;
        if e.id != expected_id {
            return Ok(broken(
                expected_id,
                n,
                format!("row {expected_id} is missing"),
            ));
        }
        if e.prev_hash != prev {
            return Ok(broken(
                e.id,
                n,
                format!("row {} does not follow the row before it", e.id),
            ));
        }
        if content_hash(&prev, &e) != e.hash {
            return Ok(broken(
                e.id,
                n,
                format!("row {} was changed after it was written", e.id),
            ));
        }
        prev = e.hash;
        expected_id += 1;
    }
    let head: Option<(i64, String, i64)> = conn
        .query_row(
            "SELECT last_id, last_hash, count FROM audit_head WHERE one = 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .optional()?;
    match head {
        Some((last_id, last_hash, count))
            if last_id != expected_id - 1 || last_hash != prev || count != n =>
        {
            Ok(broken(
                expected_id,
                n,
                format!(
                    "the log ends at row {} but {count} rows up to row {last_id} were written",
                    expected_id - 1
                ),
            ))
        }
        None if n > 0 => Ok(broken(1, n, "the chain's head record is missing".into())),
        _ => Ok(ChainCheck {
            rows: n,
            ok: true,
            broken_at: None,
            problem: None,
        }),
    }
}

/// Filters of the Activity screen and `paydesk audit list`.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AuditFilter {
    pub operation: Option<String>,
    pub text: Option<String>,
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub limit: Option<i64>,
}

pub fn list(conn: &Connection, f: &AuditFilter) -> CoreResult<Vec<AuditEntry>> {
    let mut stmt = conn.prepare(
        "SELECT id, at, profile, operator, operation, identifiers, result, latency_ms, prev_hash, hash FROM audit_log
         WHERE (?1 IS NULL OR operation = ?1)
           AND (?2 IS NULL OR identifiers LIKE '%' || ?2 || '%' OR result LIKE '%' || ?2 || '%')
           AND (?3 IS NULL OR at >= ?3) AND (?4 IS NULL OR at < ?4)
         ORDER BY id DESC LIMIT ?5",
    )?;
    let rows = stmt.query_map(
        params![f.operation, f.text, f.from, f.to, f.limit.unwrap_or(500)],
        row_entry,
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}
