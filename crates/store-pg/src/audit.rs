//! The team's audit log on PostgreSQL: append-only, numbered and chained by the
//! database (`paydesk.audit_seal`), each row with the database user who wrote it.
//!
//! The seal is a plain SHA-256 the database computes, over the previous row's hash and
//! the row's fields (its `db_user` too) joined by U+001F. No desk holds a key for it, so
//! the keyring's audit key plays no part here; `verify` recomputes every seal in Rust,
//! so a row changed behind the triggers' back (by the table's owner, with the triggers
//! disabled) is found even though the database let it through. What the owner could do
//! unseen with plain SHA-256 (cut the chain, or rebuild it with seals that match) is
//! caught by the anchor: each desk keeps the head it last verified in its keyring and
//! checks, when it connects ([`PgAudit::check_from`]), that the chain still holds it.
//!
//! A step's row goes first to `paydesk.audit_inbox` and is chained by whoever seals
//! next (`paydesk.audit_seal_pending`, never waiting on a lock), so no member's open
//! transaction makes another member's step wait (schema 0009).

use sha2::{Digest, Sha256};
use tokio_postgres::Row;
use tokio_postgres::types::FromSql;

use super::PgLink;
use paydesk_store::audit::{Anchor, AuditEntry, AuditFilter, AuditStore, ChainCheck, Record};
use paydesk_store::error::{CoreError, CoreResult};
use paydesk_store::now_ms;

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

/// Where a walk of the chain ended: the check, and the last row read (id and hash).
struct Walked {
    check: ChainCheck,
    head: Option<(i64, String)>,
}

fn ok_check(rows: i64, anchor: Option<&Anchor>) -> ChainCheck {
    ChainCheck {
        rows,
        ok: true,
        broken_at: None,
        problem: None,
        keyed_from: None,
        anchored_rows: anchor.map(|a| a.last_id),
        alert: None,
    }
}

impl PgAudit<'_> {
    /// Chains what waits in the team's inbox (rows of steps taken while another session
    /// was sealing); never waits for anybody.
    pub fn seal_pending(&self) -> CoreResult<()> {
        self.link
            .query_one("SELECT paydesk.audit_seal_pending()", &[])
            .map(|_| ())
    }

    /// Walks the chain from row `from` (1: the whole chain) in one snapshot: ids without
    /// gaps, each row linked to the one before (from the second row read), each row's seal
    /// recomputed here. With `anchor` (the head a desk last verified, from its keyring):
    /// the anchored row must still be there with the hash the desk saw, so a chain cut
    /// below it, or rebuilt (even with seals that match), is reported.
    fn walk(&self, from: i64, anchor: Option<&Anchor>) -> CoreResult<Walked> {
        // Rows of steps taken while another session sealed are chained first, if nobody
        // seals now (a member's open transaction holding the head only delays them).
        self.seal_pending()?;
        self.link.atomic(|tx| {
            // Every page from the same snapshot, even while other desks append.
            tx.batch("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY")?;
            let mut prev: Option<String> = (from <= 1).then(String::new);
            let mut expected_id = from.max(1);
            let mut n = 0_i64;
            let mut head: Option<(i64, String)> = None;
            let mut anchored_seen = false;
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
                        return Ok(Walked {
                            check: broken(n, expected_id, format!("row {expected_id} is missing")),
                            head,
                        });
                    }
                    let before = prev.clone().unwrap_or_else(|| e.prev_hash.clone());
                    if e.prev_hash != before {
                        return Ok(Walked {
                            check: broken(
                                n,
                                e.id,
                                format!("row {} does not follow the row before it", e.id),
                            ),
                            head,
                        });
                    }
                    if seal(&before, &s) != e.hash {
                        return Ok(Walked {
                            check: broken(
                                n,
                                e.id,
                                format!(
                                    "row {} was changed after it was written (its seal does not match)",
                                    e.id
                                ),
                            ),
                            head,
                        });
                    }
                    if let Some(a) = anchor
                        && a.last_id == e.id
                    {
                        anchored_seen = true;
                        if !a.last_hash.eq_ignore_ascii_case(&e.hash) {
                            return Ok(Walked {
                                check: broken(
                                    n,
                                    e.id,
                                    format!(
                                        "the team's audit history was rewritten: row {} is not the row this desk verified (its hash was {}, it is now {})",
                                        e.id, a.last_hash, e.hash
                                    ),
                                ),
                                head,
                            });
                        }
                    }
                    prev = Some(e.hash.clone());
                    head = Some((e.id, e.hash.clone()));
                    expected_id += 1;
                }
            }
            if let Some(a) = anchor
                && a.last_id > 0
                && !anchored_seen
            {
                let last: i64 = tx
                    .query_one(
                        "SELECT coalesce(max(id), 0)::bigint FROM paydesk.audit_log",
                        &[],
                    )?
                    .get(0);
                return Ok(Walked {
                    check: broken(
                        n,
                        last + 1,
                        format!(
                            "the team's audit history was cut: this desk verified {} rows, the database's chain ends at row {last}",
                            a.last_id
                        ),
                    ),
                    head,
                });
            }
            Ok(Walked {
                check: ok_check(n, anchor),
                head,
            })
        })
    }

    /// The check a desk makes when it connects: the chain from the head it last verified
    /// (`anchor`, from its keyring; the whole chain when it has none) to the end. Returns
    /// the check and, when the chain holds, the anchor to keep in the keyring now.
    pub fn check_from(&self, anchor: Option<&Anchor>) -> CoreResult<(ChainCheck, Option<Anchor>)> {
        let from = anchor.map_or(1, |a| a.last_id.max(1));
        let w = self.walk(from, anchor)?;
        let next = match (&w.check.ok, w.head) {
            (true, Some((id, hash))) => Some(Anchor {
                first_keyed: id,
                count: id,
                last_id: id,
                last_hash: hash,
            }),
            _ => None,
        };
        Ok((w.check, next))
    }
}

/// `text` as the team's log takes a profile or an operation: printable ASCII, any other
/// character escaped as Rust writes it (`\t`, `\n`, `\u{a0}`).
fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.bytes().all(|b| (b' '..=b'~').contains(&b)) {
        std::borrow::Cow::Borrowed(text)
    } else {
        std::borrow::Cow::Owned(text.chars().flat_map(char::escape_default).collect())
    }
}

/// Whether the team's log refuses `c` in a row's identifiers or result (migration 0022):
/// a control character (a line break, a tab, an escape) or an invisible or
/// direction-changing one, any of which lets a row print as lines it does not hold.
pub fn unshowable(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{feff}')
}

/// `text` as the team's log takes a row's identifiers or result: every character the
/// log refuses escaped as Rust writes it (`\n`, `\u{1b}`, `\u{202e}`), letters of any
/// script kept.
pub fn escaped(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(unshowable) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unshowable(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

impl AuditStore for PgAudit<'_> {
    /// Appends through `paydesk.audit_append`, which returns the row as the database
    /// sealed it (a member who may not read the log still learns its own row), or with
    /// id 0 and no hash while another session seals (the row is chained by the next
    /// sealer). The operator is the database user (the database refuses any other): the
    /// profile's operator name is not who the team knows. `key` is not used: the database
    /// seals the team's log. The anchor is not moved by an append (a desk anchors only a
    /// head it verified, when it connects): `anchor` comes back as it was.
    fn append(
        &self,
        r: Record<'_>,
        _key: &[u8],
        anchor: Option<&Anchor>,
    ) -> CoreResult<(AuditEntry, Anchor)> {
        // The database keeps a desk's row within bounds (2,000 characters of identifiers
        // and of result) and keeps profile `team` for the team's own rows: a longer text
        // is cut, saying so, and a desk profile named `team` is written as `team (desk)`.
        // Profile and operation are printable ASCII there (a tab or a no-break space
        // would let a desk's row pass for the team's own): any other character is
        // written escaped (`\t`, `\u{a0}`), as the database would refuse it; so are a
        // control or direction-changing character in identifiers and result.
        let profile = printable(r.profile);
        let profile = if profile.trim().eq_ignore_ascii_case("team") {
            "team (desk)".into()
        } else {
            profile
        };
        let operation = printable(r.operation);
        let row = self.link.query_one(
            &format!("SELECT {COLUMNS} FROM paydesk.audit_append($1, $2, $3, $4, $5, $6, $7)"),
            &[
                &now_ms(),
                &profile.as_ref(),
                &self.link.user(),
                &operation.as_ref(),
                &bounded(&escaped(&r.identifiers)),
                &bounded(&escaped(&r.result)),
                &r.latency_ms,
            ],
        )?;
        let e = sealed(&row)?.entry;
        let anchor = anchor.cloned().unwrap_or(Anchor {
            first_keyed: 0,
            count: 0,
            last_id: 0,
            last_hash: String::new(),
        });
        Ok((e, anchor))
    }

    /// Walks the whole chain in one snapshot (see `walk`), and checks it still holds the
    /// head this desk last verified.
    fn verify(&self, _key: &[u8], anchor: Option<&Anchor>) -> CoreResult<ChainCheck> {
        Ok(self.walk(1, anchor)?.check)
    }

    fn list(&self, f: &AuditFilter) -> CoreResult<Vec<AuditEntry>> {
        self.seal_pending()?;
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

/// `text` within the team log's bound of 2,000 characters: cut, saying so, when longer.
fn bounded(text: &str) -> std::borrow::Cow<'_, str> {
    const MAX: usize = 2000;
    const CUT: &str = " \u{2026} (cut)";
    if text.chars().count() <= MAX {
        return text.into();
    }
    let keep = MAX - CUT.chars().count();
    let mut out: String = text.chars().take(keep).collect();
    out.push_str(CUT);
    out.into()
}
