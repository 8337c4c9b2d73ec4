//! The team's audit log on PostgreSQL: append-only, numbered and chained by the
//! database (`paydesk.audit_seal`), each row with the database user who wrote it.
//!
//! The seal is a plain SHA-256 the database computes, over the previous row's hash and
//! the row's fields (its `db_user` too) joined by U+001F. No desk holds a key for it, so
//! the keyring's audit key and anchor play no part here; [`PgAudit::verify`] recomputes
//! every seal in Rust, so a row changed behind the triggers' back (by the table's owner,
//! with the triggers disabled) is found even though the database let it through.

use sha2::{Digest, Sha256};
use tokio_postgres::Row;
use tokio_postgres::types::FromSql;

use super::PgLink;
use crate::error::{CoreError, CoreResult};
use crate::store::audit::{Anchor, AuditEntry, AuditFilter, AuditStore, ChainCheck, Record};
use crate::store::now_ms;

/// Rows read at a time by [`PgAudit::verify`].
const PAGE: i64 = 5_000;

/// The columns [`sealed`] reads, in its order.
const COLUMNS: &str = "id, at, profile, operator, operation, identifiers, result, latency_ms, db_user, prev_hash, hash";

#[derive(Debug, Clone, Copy)]
pub struct PgAudit<'a> {
    link: &'a PgLink,
}

/// A row as stored: the entry and who wrote it.
struct Sealed {
    entry: AuditEntry,
    db_user: String,
}

fn get<'a, T: FromSql<'a>>(r: &'a Row, i: usize) -> CoreResult<T> {
    r.try_get(i)
        .map_err(|e| CoreError::storage(format!("the team's audit log, column {i}: {e}")))
}

fn sealed(r: &Row) -> CoreResult<Sealed> {
    Ok(Sealed {
        entry: AuditEntry {
            id: get(r, 0)?,
            at: get(r, 1)?,
            profile: get(r, 2)?,
            operator: get(r, 3)?,
            operation: get(r, 4)?,
            identifiers: get(r, 5)?,
            result: get(r, 6)?,
            latency_ms: get(r, 7)?,
            prev_hash: get(r, 9)?,
            hash: get(r, 10)?,
            db_user: Some(get(r, 8)?),
        },
        db_user: get(r, 8)?,
    })
}

/// The seal `paydesk.audit_seal` computes: the hex SHA-256 of the previous hash and the
/// row's fields, joined by U+001F (`concat_ws(E'\x1f', ...)`; no field is ever NULL).
fn seal(prev: &str, s: &Sealed) -> String {
    let e = &s.entry;
    let text = [
        prev,
        &e.id.to_string(),
        &e.at.to_string(),
        &e.profile,
        &e.operator,
        &e.operation,
        &e.identifiers,
        &e.result,
        &e.latency_ms.to_string(),
        &s.db_user,
    ]
    .join("\x1f");
    Sha256::digest(text.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

impl<'a> PgAudit<'a> {
    pub fn on(link: &'a PgLink) -> Self {
        PgAudit { link }
    }
}

fn broken(rows: i64, at: i64, why: String) -> ChainCheck {
    ChainCheck {
        rows,
        ok: false,
        broken_at: Some(at),
        problem: Some(why),
        keyed_from: None,
        anchored_rows: None,
        alert: None,
    }
}

impl AuditStore for PgAudit<'_> {
    /// Appends through `paydesk.audit_append`, which returns the row as the database
    /// sealed it (a member who may not read the log still learns its own row). The
    /// operator is the database user (the database refuses any other): the profile's
    /// operator name is not who the team knows. `key`
    /// and `anchor` are not used: the database seals the team's log. The anchor returned
    /// names the new row; the team's ids have no gaps, so its id is the row count.
    fn append(
        &self,
        r: Record<'_>,
        _key: &[u8],
        _anchor: Option<&Anchor>,
    ) -> CoreResult<(AuditEntry, Anchor)> {
        let row = self.link.query_one(
            &format!("SELECT {COLUMNS} FROM paydesk.audit_append($1, $2, $3, $4, $5, $6, $7)"),
            &[
                &now_ms(),
                &r.profile,
                &self.link.user(),
                &r.operation,
                &r.identifiers,
                &r.result,
                &r.latency_ms,
            ],
        )?;
        let e = sealed(&row)?.entry;
        let anchor = Anchor {
            first_keyed: e.id,
            count: e.id,
            last_id: e.id,
            last_hash: e.hash.clone(),
        };
        Ok((e, anchor))
    }

    /// Walks the whole chain in one snapshot: ids from 1 without gaps, each row linked
    /// to the one before, each row's seal recomputed here.
    fn verify(&self, _key: &[u8], _anchor: Option<&Anchor>) -> CoreResult<ChainCheck> {
        self.link.atomic(|tx| {
            // Every page from the same snapshot, even while other desks append.
            tx.batch("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")?;
            let mut prev = String::new();
            let mut expected_id = 1_i64;
            let mut n = 0_i64;
            loop {
                let rows = tx.query(
                    &format!(
                        "SELECT {COLUMNS} FROM paydesk.audit_log WHERE id >= $1 ORDER BY id LIMIT $2"
                    ),
                    &[&expected_id, &PAGE],
                )?;
                if rows.is_empty() {
                    break;
                }
                for r in &rows {
                    let s = sealed(r)?;
                    let e = &s.entry;
                    n += 1;
                    if e.id != expected_id {
                        return Ok(broken(
                            n,
                            expected_id,
                            format!("row {expected_id} is missing"),
                        ));
                    }
                    if e.prev_hash != prev {
                        return Ok(broken(
                            n,
                            e.id,
                            format!("row {} does not follow the row before it", e.id),
                        ));
                    }
                    if seal(&prev, &s) != e.hash {
                        return Ok(broken(
                            n,
                            e.id,
                            format!(
                                "row {} was changed after it was written (its seal does not match)",
                                e.id
                            ),
                        ));
                    }
                    prev.clone_from(&e.hash);
                    expected_id += 1;
                }
            }
            Ok(ChainCheck {
                rows: n,
                ok: true,
                broken_at: None,
                problem: None,
                keyed_from: None,
                anchored_rows: None,
                alert: None,
            })
        })
    }

    fn verify_with_alert(
        &self,
        key: &[u8],
        anchor: Option<&Anchor>,
        alert: Option<String>,
    ) -> CoreResult<ChainCheck> {
        let mut check = self.verify(key, anchor)?;
        if let Some(why) = alert {
            if check.ok {
                check.ok = false;
                check.broken_at = Some(check.rows + 1);
                check.problem = Some(format!(
                    "an entry could not be written, so the log is incomplete: {why}"
                ));
            }
            check.alert = Some(why);
        }
        Ok(check)
    }

    fn list(&self, f: &AuditFilter) -> CoreResult<Vec<AuditEntry>> {
        // SQLite reads a negative limit as none; PostgreSQL refuses one, and takes NULL.
        let limit = Some(f.limit.unwrap_or(500)).filter(|l| *l >= 0);
        let rows = self.link.query(
            &format!(
                "SELECT {COLUMNS} FROM paydesk.audit_log
                  WHERE ($1::text IS NULL OR operation = $1)
                    AND ($2::text IS NULL OR identifiers ILIKE '%' || $2 || '%' OR result ILIKE '%' || $2 || '%')
                    AND ($3::bigint IS NULL OR at >= $3) AND ($4::bigint IS NULL OR at < $4)
                  ORDER BY id DESC LIMIT $5"
            ),
            &[&f.operation, &f.text, &f.from, &f.to, &limit],
        )?;
        rows.iter().map(|r| Ok(sealed(r)?.entry)).collect()
    }
}
