//! The journal: what this desk sent or is about to send, for every call that moves money
//! or submits data. The intent is committed (synchronous=FULL) before the request
//! leaves, with its `merOrderNo` fixed once; the outcome is recorded as accepted,
//! rejected or unknown. Card numbers are stored masked; file contents not at all.

use rusqlite::{Connection, OptionalExtension, params};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::db::now_ms;
use crate::error::{CoreError, CoreResult};

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Written, not sent (or known not to have reached the gateway): safe to send.
    Pending,
    /// The request is leaving or left; no answer recorded yet.
    Sending,
    /// The gateway accepted it (`trade_no` set).
    Accepted,
    /// The gateway refused it (`code`, `message` set).
    Rejected,
    /// It may or may not have reached the gateway: reconciled by querying before
    /// anything is sent again.
    Unknown,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Sending => "sending",
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
            Self::Unknown => "unknown",
        }
    }

    fn parse(s: &str) -> Self {
        match s {
            "pending" => Self::Pending,
            "sending" => Self::Sending,
            "accepted" => Self::Accepted,
            "rejected" => Self::Rejected,
            _ => Self::Unknown,
        }
    }
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    pub id: i64,
    pub profile: String,
    /// The operation's name, e.g. `v2.payout`.
    pub operation: String,
    /// Fixed once, reused by every resubmission.
    pub mer_order_no: String,
    /// The request as sent, card numbers masked and file contents left out.
    pub request: Value,
    /// One line for people: amount, currency, beneficiary, masked account.
    pub summary: String,
    pub status: Status,
    pub trade_no: Option<String>,
    pub code: Option<String>,
    pub message: Option<String>,
    pub attempts: i64,
    pub created_at: i64,
    pub updated_at: i64,
    pub next_check_at: Option<i64>,
}

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
    let request: String = r.get(4)?;
    let status: String = r.get(6)?;
    Ok(Entry {
        id: r.get(0)?,
        profile: r.get(1)?,
        operation: r.get(2)?,
        mer_order_no: r.get(3)?,
        request: serde_json::from_str(&request).unwrap_or(Value::Null),
        summary: r.get(5)?,
        status: Status::parse(&status),
        trade_no: r.get(7)?,
        code: r.get(8)?,
        message: r.get(9)?,
        attempts: r.get(10)?,
        created_at: r.get(11)?,
        updated_at: r.get(12)?,
        next_check_at: r.get(13)?,
    })
}

const COLUMNS: &str = "id, profile, operation, mer_order_no, request, summary, status, trade_no, code, message, attempts, created_at, updated_at, next_check_at";

/// Masks what must never be stored: card numbers and CLABEs (first 6, last 4), and
/// replaces file contents by their size.
pub fn mask_request(v: &Value) -> Value {
    match v {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, _)| *k != "sign" && *k != "sing")
                .map(|(k, v)| {
                    let masked = match (k.as_str(), v) {
                        ("cardNo" | "clabe", Value::String(s)) => {
                            Value::String(paydesk_gateway::validate::mask_card(s))
                        }
                        ("fileContent", Value::String(s)) => {
                            Value::String(format!("<{} base64 characters>", s.len()))
                        }
                        _ => mask_request(v),
                    };
                    (k.clone(), masked)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(mask_request).collect()),
        other => other.clone(),
    }
}

/// What [`begin`] found.
#[derive(Debug, Clone, PartialEq)]
pub enum Begin {
    /// A new intent, written as `sending`: send it now.
    Send(Entry),
    /// An existing entry that was safe to send again (`pending`), now `sending`.
    Resend(Entry),
    /// An entry that must not be sent now: finished, in flight, or unknown.
    Exists(Entry),
}

/// Writes the intent (or takes up the existing one) in one immediate transaction, so
/// two clicks or two processes cannot both send.
pub fn begin(
    conn: &mut Connection,
    profile: &str,
    operation: &str,
    mer_order_no: &str,
    request: &Value,
    summary: &str,
) -> CoreResult<Begin> {
    let tx = conn.transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)?;
    let existing = tx
        .query_row(
            &format!("SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND operation = ?2 AND mer_order_no = ?3"),
            params![profile, operation, mer_order_no],
            row,
        )
        .optional()?;
    let now = now_ms();
    let out = match existing {
        None => {
            tx.execute(
                "INSERT INTO journal (profile, operation, mer_order_no, request, summary, status, attempts, created_at, updated_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'sending', 1, ?6, ?6)",
                params![profile, operation, mer_order_no, mask_request(request).to_string(), summary, now],
            )?;
            let id = tx.last_insert_rowid();
            Begin::Send(tx.query_row(
                &format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"),
                [id],
                row,
            )?)
        }
        Some(e) if e.status == Status::Pending => {
            tx.execute(
                "UPDATE journal SET status = 'sending', attempts = attempts + 1, updated_at = ?2 WHERE id = ?1",
                params![e.id, now],
            )?;
            Begin::Resend(tx.query_row(
                &format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"),
                [e.id],
                row,
            )?)
        }
        Some(e) => Begin::Exists(e),
    };
    tx.commit()?;
    Ok(out)
}

/// Writes an intent as `pending` without sending (bulk payouts queue their rows).
pub fn queue(
    conn: &mut Connection,
    profile: &str,
    operation: &str,
    mer_order_no: &str,
    request: &Value,
    summary: &str,
) -> CoreResult<Entry> {
    let now = now_ms();
    conn.execute(
        "INSERT INTO journal (profile, operation, mer_order_no, request, summary, status, attempts, created_at, updated_at)
         VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, ?6, ?6)
         ON CONFLICT (profile, operation, mer_order_no) DO NOTHING",
        params![profile, operation, mer_order_no, mask_request(request).to_string(), summary, now],
    )?;
    get_by_key(conn, profile, operation, mer_order_no)?
        .ok_or_else(|| CoreError::internal("queued entry vanished"))
}

/// Records an answer (or the lack of one).
pub fn finish(
    conn: &Connection,
    id: i64,
    status: Status,
    trade_no: Option<&str>,
    code: Option<&str>,
    message: Option<&str>,
) -> CoreResult<()> {
    let now = now_ms();
    let next_check = (status == Status::Unknown).then_some(now);
    conn.execute(
        "UPDATE journal SET status = ?2, trade_no = COALESCE(?3, trade_no), code = ?4, message = ?5, updated_at = ?6, next_check_at = ?7
         WHERE id = ?1",
        params![id, status.as_str(), trade_no, code, message, now, next_check],
    )?;
    Ok(())
}

/// Puts off the next reconcile attempt of an unknown entry.
pub fn defer(conn: &Connection, id: i64, until: i64, message: &str) -> CoreResult<()> {
    conn.execute(
        "UPDATE journal SET next_check_at = ?2, message = ?3, updated_at = ?4 WHERE id = ?1",
        params![id, until, message, now_ms()],
    )?;
    Ok(())
}

pub fn get(conn: &Connection, id: i64) -> CoreResult<Option<Entry>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"),
            [id],
            row,
        )
        .optional()?)
}

pub fn get_by_key(
    conn: &Connection,
    profile: &str,
    operation: &str,
    mer_order_no: &str,
) -> CoreResult<Option<Entry>> {
    Ok(conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND operation = ?2 AND mer_order_no = ?3"),
            params![profile, operation, mer_order_no],
            row,
        )
        .optional()?)
}

/// Entries, newest first, optionally only of some statuses and some operations (both
/// filtered in the query, so `limit` counts matching entries).
pub fn list(
    conn: &Connection,
    profile: &str,
    statuses: &[Status],
    operations: &[&str],
    limit: i64,
) -> CoreResult<Vec<Entry>> {
    let statuses: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
    let json = |v: &[&str]| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM journal WHERE profile = ?1
           AND (?2 = '[]' OR status IN (SELECT value FROM json_each(?2)))
           AND (?3 = '[]' OR operation IN (SELECT value FROM json_each(?3)))
         ORDER BY id DESC LIMIT ?4"
    ))?;
    let rows = stmt.query_map(
        params![profile, json(&statuses), json(operations), limit],
        row,
    )?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

/// Entries whose outcome is not known: `unknown`, and `sending` left by a crash.
pub fn unresolved(conn: &Connection, profile: &str) -> CoreResult<Vec<Entry>> {
    let mut stmt = conn.prepare(&format!(
        "SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND status IN ('unknown', 'sending') ORDER BY id"
    ))?;
    let rows = stmt.query_map([profile], row)?;
    Ok(rows.collect::<Result<Vec<_>, _>>()?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_limit_counts_only_matching_entries() {
        let dir = tempfile::tempdir().unwrap();
        let mut conn =
            crate::db::open(&dir.path().join("j.sqlite"), crate::db::Durability::Journal).unwrap();
        let body = serde_json::json!({});
        let mut ids = Vec::new();
        for (i, op) in ["v2.payout", "v1.payment", "v1.payment", "v1.payment"]
            .iter()
            .enumerate()
        {
            match begin(&mut conn, "p", op, &format!("N{i}"), &body, "s").unwrap() {
                Begin::Send(e) => ids.push(e.id),
                other => panic!("{other:?}"),
            }
        }
        finish(&conn, ids[0], Status::Unknown, None, None, Some("lost")).unwrap();
        let payouts = list(&conn, "p", &[], &["v2.payout"], 1).unwrap();
        assert_eq!(
            payouts.len(),
            1,
            "the older payout is found past newer payins"
        );
        assert_eq!(payouts[0].mer_order_no, "N0");
        let unknown = list(&conn, "p", &[Status::Unknown], &[], 1).unwrap();
        assert_eq!(unknown[0].id, ids[0]);
        assert_eq!(list(&conn, "p", &[], &[], 10).unwrap().len(), 4);
        assert!(list(&conn, "other", &[], &[], 10).unwrap().is_empty());
    }
}
