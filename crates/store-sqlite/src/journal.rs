//! The journal: what this desk sent or is about to send, for every call that moves money
//! or submits data. The intent is committed (synchronous=FULL) before the request
//! leaves, with its `merOrderNo` fixed once; the outcome is recorded as accepted,
//! rejected or unknown. Card numbers are stored masked; file contents not at all.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::journal::*;

use std::ops::Deref;

use rusqlite::{Connection, OptionalExtension, params};
use serde_json::Value;

use crate::Db;
use paydesk_store::dialect::statuses;
use paydesk_store::error::{CoreError, CoreResult};

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Entry> {
    let request: String = r.get(4)?;
    let status: String = r.get(6)?;
    let name: String = r.get(2)?;
    let operation = JournalOperation::from_name(&name).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            2,
            rusqlite::types::Type::Text,
            format!("journal operation {name:?} is not one this PayDesk knows (written by a newer version?)").into(),
        )
    })?;
    // Before `can_be_looked_up`, "never" was written as the largest time: read as none.
    let next_check_at: Option<i64> = r.get::<_, Option<i64>>(13)?.filter(|t| *t != i64::MAX);
    Ok(Entry {
        can_be_looked_up: operation.can_be_looked_up(),
        id: r.get(0)?,
        profile: r.get(1)?,
        operation,
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
        next_check_at,
        fingerprint: r.get(14)?,
        sent_at: r.get(15)?,
        lookups: r.get(16)?,
        resolution: r.get(17)?,
        purpose: purpose_of(r.get(18)?, r.get(19)?),
    })
}

const COLUMNS: &str = "id, profile, operation, mer_order_no, request, summary, status, trade_no, code, message, attempts, created_at, updated_at, next_check_at, fingerprint, sent_at, lookups, resolution, purpose, purpose_ref";

/// True while `holder` (a claim) may still be at work: its lease has not run out, and
/// its process has not been seen to exit (on Linux a process that died, e.g. by
/// `kill -9`, gives its claims up at once; elsewhere when the lease ends).
fn claim_live(holder: Option<&str>, until: Option<i64>, now: i64) -> bool {
    let (Some(holder), Some(until)) = (holder, until) else {
        return false;
    };
    if until <= now {
        return false;
    }
    let pid = holder.split(':').next().and_then(|p| p.parse::<u32>().ok());
    match pid {
        Some(pid) if pid == std::process::id() => true,
        Some(pid) if cfg!(target_os = "linux") => {
            std::path::Path::new(&format!("/proc/{pid}")).exists()
        }
        _ => true,
    }
}

/// The journal of one database (a connection or a transaction).
#[derive(Debug, Clone)]
pub struct Journal<C> {
    conn: C,
    /// The times it writes and measures: the desk's clock ([`Journal::at`]).
    now: super::Now,
}

impl<C: Deref<Target = Connection>> Journal<C> {
    pub fn on(conn: C) -> Self {
        Journal {
            conn,
            now: super::Now::system(),
        }
    }

    /// This journal on the clock `now` (the desk's).
    pub fn at(self, now: super::Now) -> Self {
        Journal { now, ..self }
    }

    pub(super) fn begin_in(
        &self,
        profile: &str,
        intent: Intent<'_>,
        guard: Guard,
    ) -> CoreResult<Begin> {
        let tx: &Connection = &self.conn;
        let existing = tx
        .query_row(
            &format!("SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND mer_order_no = ?2 ORDER BY operation = ?3 DESC, id LIMIT 1"),
            params![profile, intent.mer_order_no, intent.operation],
            row,
        )
        .optional().db()?;
        let now = self.now.ms();
        let claim = Claim(new_claim());
        let out = match existing {
            None => {
                if !guard.allow_duplicate
                    && let Some(earlier) =
                        self.same_intent(profile, intent.fingerprint, guard.window_ms, &[])?
                {
                    return Ok(Begin::Duplicate(earlier));
                }
                let (purpose, purpose_ref) = purpose_columns(intent.purpose);
                tx.execute(
                "INSERT INTO journal (profile, operation, mer_order_no, request, summary, status, attempts, created_at, updated_at, fingerprint, claimed_by, claimed_until, sent_at, purpose, purpose_ref)
                 VALUES (?1, ?2, ?3, ?4, ?5, 'sending', 1, ?6, ?6, ?7, ?8, ?9, ?6, ?10, ?11)",
                params![profile, intent.operation, intent.mer_order_no, mask_request(intent.request).to_string(), intent.summary, now, intent.fingerprint, claim.0, now + CLAIM_LEASE_MS, purpose, purpose_ref],
            ).db()?;
                let id = tx.last_insert_rowid();
                Begin::Send(
                    tx.query_row(
                        &format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"),
                        [id],
                        row,
                    )
                    .db()?,
                    claim,
                )
            }
            Some(e)
                if e.operation.name() != intent.operation
                    || (!e.fingerprint.is_empty() && e.fingerprint != intent.fingerprint) =>
            {
                Begin::Mismatch(e)
            }
            Some(e) if e.status == Status::Pending => {
                tx.execute(
                "UPDATE journal SET status = 'sending', attempts = attempts + 1, updated_at = ?2,
                        claimed_by = ?3, claimed_until = ?4, sent_at = ?2, lookups = 0, next_check_at = NULL
                 WHERE id = ?1",
                params![e.id, now, claim.0, now + CLAIM_LEASE_MS],
            ).db()?;
                Begin::Resend(
                    tx.query_row(
                        &format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"),
                        [e.id],
                        row,
                    )
                    .db()?,
                    claim,
                )
            }
            Some(e) => Begin::Exists(e),
        };
        Ok(out)
    }

    fn claim_in(&self, id: i64) -> CoreResult<Option<(Entry, Claim)>> {
        let tx: &Connection = &self.conn;
        let current: Option<(Option<String>, Option<i64>)> = tx
            .query_row(
                "SELECT claimed_by, claimed_until FROM journal WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .db()?;
        let Some((holder, until)) = current else {
            return Ok(None);
        };
        let now = self.now.ms();
        if claim_live(holder.as_deref(), until, now) {
            return Ok(None);
        }
        let claim = Claim(new_claim());
        tx.execute(
            "UPDATE journal SET claimed_by = ?2, claimed_until = ?3 WHERE id = ?1",
            params![id, claim.0, now + CLAIM_LEASE_MS],
        )
        .db()?;
        let entry = tx
            .query_row(
                &format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"),
                [id],
                row,
            )
            .db()?;
        Ok(Some((entry, claim)))
    }
}

impl<C: Deref<Target = Connection>> JournalStore for Journal<C> {
    fn same_intent(
        &self,
        profile: &str,
        fingerprint: &str,
        window_ms: i64,
        except: &[&str],
    ) -> CoreResult<Option<Entry>> {
        let except = serde_json::to_string(except).unwrap_or_else(|_| "[]".into());
        self.conn
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND fingerprint = ?2
                   AND (status IN ({live})
                        OR (status = 'accepted' AND updated_at > ?3))
                   AND mer_order_no NOT IN (SELECT value FROM json_each(?4))
                 ORDER BY id DESC LIMIT 1",
                    live = statuses(&Status::LIVE)
                ),
                params![profile, fingerprint, self.now.ms() - window_ms, except],
                row,
            )
            .optional()
            .db()
    }

    fn same_intents(
        &self,
        profile: &str,
        fingerprint: &str,
        window_ms: i64,
    ) -> CoreResult<Vec<Entry>> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND fingerprint = ?2
           AND (status IN ({live})
                OR (status = 'accepted' AND updated_at > ?3))
         ORDER BY id DESC LIMIT 100",
                live = statuses(&Status::LIVE)
            ))
            .db()?;
        let rows = stmt
            .query_map(
                params![profile, fingerprint, self.now.ms() - window_ms],
                row,
            )
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn with_fingerprint(
        &self,
        profile: &str,
        operation: &str,
        fingerprint: &str,
    ) -> CoreResult<Vec<Entry>> {
        let mut stmt = self.conn.prepare(&format!(
            "SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND fingerprint = ?2 AND operation = ?3
         ORDER BY id"
        )).db()?;
        let rows = stmt
            .query_map(params![profile, fingerprint, operation], row)
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn begin(&self, profile: &str, intent: Intent<'_>, guard: Guard) -> CoreResult<Begin> {
        super::committed(&self.conn, || self.begin_in(profile, intent, guard))
    }

    fn begin_within(
        &self,
        profile: &str,
        intent: Intent<'_>,
        guard: Guard,
        day: DayLimit<'_>,
    ) -> CoreResult<Result<Begin, OverDay>> {
        // BEGIN IMMEDIATE: the sum and the write are one step for every process.
        super::committed(&self.conn, || {
            let existing = self
                .conn
                .query_row(
                    &format!("SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND mer_order_no = ?2 ORDER BY operation = ?3 DESC, id LIMIT 1"),
                    params![profile, intent.mer_order_no, intent.operation],
                    row,
                )
                .optional()
                .db()?;
            if let Some(except) = goes_now(existing.as_ref(), &intent) {
                let mut stmt = self
                    .conn
                    .prepare(&format!(
                        "SELECT request FROM journal WHERE profile = ?1
                           AND operation IN (SELECT value FROM json_each(?2))
                           AND status IN ({})
                           AND COALESCE(sent_at, created_at) >= ?3 AND id IS NOT ?4",
                        statuses(&DAY_COUNTS)
                    ))
                    .db()?;
                let ops = serde_json::to_string(day.operations).unwrap_or_else(|_| "[]".into());
                let requests = stmt
                    .query_map(params![profile, ops, day.since_ms, except], |r| {
                        r.get::<_, String>(0)
                    })
                    .db()?
                    .collect::<Result<Vec<_>, _>>()
                    .db()?;
                let used = day_sum(requests.iter().map(String::as_str), day.currency);
                if used + day.amount > day.per_day {
                    return Ok(Err(OverDay { used }));
                }
            }
            self.begin_in(profile, intent, guard).map(Ok)
        })
    }

    fn queue_many(&self, profile: &str, intents: &[Intent<'_>]) -> CoreResult<()> {
        super::committed(&self.conn, || {
            for i in intents {
                self.queue(profile, *i)?;
            }
            Ok(())
        })
    }

    fn begin_many(
        &self,
        profile: &str,
        intents: &[Intent<'_>],
        guard: Guard,
    ) -> CoreResult<Vec<Begin>> {
        super::committed(&self.conn, || {
            intents
                .iter()
                .map(|i| self.begin_in(profile, *i, guard))
                .collect()
        })
    }

    fn finish_many(&self, outcomes: &[(i64, &Claim, Outcome<'_>)]) -> CoreResult<Vec<bool>> {
        super::committed(&self.conn, || {
            outcomes
                .iter()
                .map(|(id, claim, o)| self.finish(*id, claim, *o))
                .collect()
        })
    }

    fn queue(&self, profile: &str, intent: Intent<'_>) -> CoreResult<Entry> {
        let now = self.now.ms();
        let (purpose, purpose_ref) = purpose_columns(intent.purpose);
        self.conn.execute(
        "INSERT INTO journal (profile, operation, mer_order_no, request, summary, status, attempts, created_at, updated_at, fingerprint, purpose, purpose_ref)
         VALUES (?1, ?2, ?3, ?4, ?5, 'pending', 0, ?6, ?6, ?7, ?8, ?9)
         ON CONFLICT (profile, operation, mer_order_no) DO NOTHING",
        params![profile, intent.operation, intent.mer_order_no, mask_request(intent.request).to_string(), intent.summary, now, intent.fingerprint, purpose, purpose_ref],
    ).db()?;
        self.get_by_key(profile, intent.operation, intent.mer_order_no)?
            .ok_or_else(|| CoreError::internal("queued entry vanished"))
    }

    fn claim(&self, id: i64) -> CoreResult<Option<(Entry, Claim)>> {
        super::committed(&self.conn, || self.claim_in(id))
    }

    fn release(&self, id: i64, claim: &Claim) -> CoreResult<()> {
        self.conn.execute(
        "UPDATE journal SET claimed_by = NULL, claimed_until = NULL WHERE id = ?1 AND claimed_by = ?2",
        params![id, claim.0],
    ).db()?;
        Ok(())
    }

    fn finish(&self, id: i64, claim: &Claim, o: Outcome<'_>) -> CoreResult<bool> {
        let now = self.now.ms();
        let next_check = (o.status == Status::Unknown).then_some(now);
        let changed = self.conn.execute(
        &format!("UPDATE journal SET status = ?2, trade_no = COALESCE(?3, trade_no), code = ?4, message = ?5, updated_at = ?6, next_check_at = ?7
         WHERE id = ?1 AND status IN ({})", statuses(&Status::finishing_as(o.status))),
        params![id, o.status.as_str(), o.trade_no, o.code, o.message, now, next_check],
    ).db()?;
        self.release(id, claim)?;
        Ok(changed == 1)
    }

    fn not_found_yet(
        &self,
        id: i64,
        claim: &Claim,
        next_check_at: i64,
        message: &str,
    ) -> CoreResult<()> {
        self.conn.execute(
        &format!("UPDATE journal SET status = 'unknown', lookups = lookups + 1, next_check_at = ?2, message = ?3, code = 'not_found_yet', updated_at = ?4
         WHERE id = ?1 AND status IN ({})", statuses(&Status::UNSETTLED)),
        params![id, next_check_at, message, self.now.ms()],
    ).db()?;
        self.release(id, claim)
    }

    fn mark_answered(&self, id: i64) -> CoreResult<()> {
        self.conn
            .execute(
                "UPDATE journal SET answered_ok = 1, updated_at = ?2 WHERE id = ?1",
                params![id, self.now.ms()],
            )
            .db()?;
        Ok(())
    }

    fn answered(&self, id: i64) -> CoreResult<bool> {
        Ok(self
            .conn
            .query_row("SELECT answered_ok FROM journal WHERE id = ?1", [id], |r| {
                r.get::<_, i64>(0)
            })
            .optional()
            .db()?
            .unwrap_or(0)
            != 0)
    }

    fn note(&self, id: i64, message: &str) -> CoreResult<()> {
        self.conn.execute(
            "UPDATE journal SET next_check_at = NULL, message = ?2, updated_at = ?3 WHERE id = ?1",
            params![id, message, self.now.ms()],
        ).db()?;
        Ok(())
    }

    fn defer(&self, id: i64, until: i64, message: &str) -> CoreResult<()> {
        self.conn.execute(
            "UPDATE journal SET next_check_at = ?2, message = ?3, updated_at = ?4 WHERE id = ?1",
            params![id, until, message, self.now.ms()],
        ).db()?;
        Ok(())
    }

    fn refusal_looked_up(
        &self,
        id: i64,
        claim: &Claim,
        next_check_at: i64,
        message: &str,
    ) -> CoreResult<()> {
        self.conn.execute(
            "UPDATE journal SET lookups = lookups + 1, next_check_at = ?2, message = ?3, updated_at = ?4
              WHERE id = ?1 AND status = 'rejected'",
            params![id, next_check_at, message, self.now.ms()],
        ).db()?;
        self.release(id, claim)
    }

    fn resolve(&self, id: i64, claim: &Claim, done: bool, resolution: &str) -> CoreResult<bool> {
        let changed = self.conn.execute(
        &format!("UPDATE journal SET status = ?2, resolution = ?3, message = ?3, code = 'resolved', updated_at = ?4, next_check_at = NULL
         WHERE id = ?1 AND status IN ({})", statuses(&Status::UNSETTLED)),
        params![id, if done { "accepted" } else { "pending" }, resolution, self.now.ms()],
    ).db()?;
        self.release(id, claim)?;
        Ok(changed == 1)
    }

    fn get(&self, id: i64) -> CoreResult<Option<Entry>> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM journal WHERE id = ?1"),
                [id],
                row,
            )
            .optional()
            .db()
    }

    fn get_by_key(
        &self,
        profile: &str,
        operation: &str,
        mer_order_no: &str,
    ) -> CoreResult<Option<Entry>> {
        self
            .conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND operation = ?2 AND mer_order_no = ?3"),
            params![profile, operation, mer_order_no],
            row,
        )
        .optional().db()
    }

    fn get_by_number(&self, profile: &str, mer_order_no: &str) -> CoreResult<Option<Entry>> {
        self
            .conn
        .query_row(
            &format!("SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND mer_order_no = ?2 ORDER BY id LIMIT 1"),
            params![profile, mer_order_no],
            row,
        )
        .optional().db()
    }

    fn list(
        &self,
        profile: &str,
        statuses: &[Status],
        operations: &[&str],
        limit: i64,
    ) -> CoreResult<Vec<Entry>> {
        let statuses: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
        let json = |v: &[&str]| serde_json::to_string(v).unwrap_or_else(|_| "[]".into());
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM journal WHERE profile = ?1
           AND (?2 = '[]' OR status IN (SELECT value FROM json_each(?2)))
           AND (?3 = '[]' OR operation IN (SELECT value FROM json_each(?3)))
         ORDER BY id DESC LIMIT ?4"
            ))
            .db()?;
        let rows = stmt
            .query_map(
                params![profile, json(&statuses), json(operations), limit],
                row,
            )
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn of_order(
        &self,
        profile: &str,
        trade_no: &str,
        mer_order_no: &str,
    ) -> CoreResult<Vec<Entry>> {
        let mut stmt = self
            .conn
            .prepare_cached(&format!(
                "SELECT {COLUMNS} FROM journal WHERE profile = ?1
               AND ((?3 <> '' AND mer_order_no = ?3) OR (?2 <> '' AND trade_no = ?2))
             ORDER BY id LIMIT 200"
            ))
            .db()?;
        let rows = stmt
            .query_map(params![profile, trade_no, mer_order_no], row)
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn purposes(&self, profile: &str) -> CoreResult<Vec<(String, Option<String>, Purpose)>> {
        let mut stmt = self
            .conn
            .prepare(
                "SELECT mer_order_no, trade_no, purpose, purpose_ref FROM journal
              WHERE profile = ?1 AND (purpose IS NOT NULL OR purpose_ref IS NOT NULL) ORDER BY id",
            )
            .db()?;
        let rows = stmt
            .query_map([profile], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    purpose_of(r.get(2)?, r.get(3)?),
                ))
            })
            .db()?;
        let mut out = Vec::new();
        for r in rows {
            let (no, trade_no, p) = r.db()?;
            if let Some(p) = p {
                out.push((no, trade_no, p));
            }
        }
        Ok(out)
    }

    fn live_or_recent(
        &self,
        profile: &str,
        operations: &[&str],
        window_ms: i64,
        contains: Option<&str>,
    ) -> CoreResult<Vec<Entry>> {
        let ops = serde_json::to_string(operations).unwrap_or_else(|_| "[]".into());
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM journal WHERE profile = ?1
                   AND operation IN (SELECT value FROM json_each(?2))
                   AND (status IN ({live}) OR (status = 'accepted' AND updated_at > ?3))
                   AND (?4 IS NULL OR instr(request, ?4) > 0)
                 ORDER BY id DESC",
                live = statuses(&Status::LIVE)
            ))
            .db()?;
        let rows = stmt
            .query_map(
                params![profile, ops, self.now.ms() - window_ms, contains],
                row,
            )
            .db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }

    fn unresolved(&self, profile: &str) -> CoreResult<Vec<Entry>> {
        let mut stmt = self.conn.prepare(&format!(
        "SELECT {COLUMNS} FROM journal WHERE profile = ?1 AND status IN ({unsettled}) ORDER BY id",
        unsettled = statuses(&Status::UNSETTLED)
    )).db()?;
        let rows = stmt.query_map([profile], row).db()?;
        rows.collect::<Result<Vec<_>, _>>().db()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::now_ms;

    fn open() -> (tempfile::TempDir, Connection) {
        let dir = tempfile::tempdir().unwrap();
        let conn = crate::open(&dir.path().join("j.sqlite"), crate::Durability::Journal).unwrap();
        (dir, conn)
    }

    /// The names in the bindings are the names the journal stores.
    #[test]
    fn journal_operations_serialize_as_their_journal_names() {
        for op in JournalOperation::ALL {
            assert_eq!(
                serde_json::to_value(op).unwrap(),
                serde_json::json!(op.name())
            );
            assert_eq!(JournalOperation::from_name(op.name()), Some(op));
        }
        assert_eq!(JournalOperation::from_name("v9.payout"), None);
    }

    #[test]
    fn an_entry_of_an_operation_this_desk_does_not_know_is_an_error_naming_it() {
        let (_dir, mut conn) = open();
        let body = serde_json::json!({"sourceAmount": "1.00"});
        let (e, _) = sent(start(&mut conn, "v2.payout", "PO-9", &body));
        conn.execute(
            "UPDATE journal SET operation = 'v9.payout' WHERE id = ?1",
            [e.id],
        )
        .unwrap();
        let err = Journal::on(&conn).get(e.id).unwrap_err().to_string();
        assert!(err.contains("v9.payout"), "{err}");
    }

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    const GUARD: Guard = Guard {
        window_ms: 24 * 3_600_000,
        allow_duplicate: false,
    };

    fn start(conn: &mut Connection, op: &str, no: &str, body: &Value) -> Begin {
        let fp = fingerprint(KEY, op, body);
        Journal::on(conn)
            .begin(
                "p",
                Intent {
                    operation: op,
                    mer_order_no: no,
                    request: body,
                    summary: "s",
                    fingerprint: &fp,
                    purpose: None,
                },
                GUARD,
            )
            .unwrap()
    }

    fn sent(b: Begin) -> (Entry, Claim) {
        match b {
            Begin::Send(e, c) | Begin::Resend(e, c) => (e, c),
            other => panic!("{other:?}"),
        }
    }

    /// The day's sum of a per-day limit (in the write transaction) reads the day's rows
    /// by the journal's day index, not the whole journal.
    #[test]
    fn the_days_sum_reads_the_day_index() {
        let (_dir, conn) = open();
        let plan: Vec<String> = conn
            .prepare(&format!(
                "EXPLAIN QUERY PLAN SELECT request FROM journal WHERE profile = ?1
                   AND operation IN (SELECT value FROM json_each(?2))
                   AND status IN ({})
                   AND COALESCE(sent_at, created_at) >= ?3 AND id IS NOT ?4",
                statuses(&DAY_COUNTS)
            ))
            .unwrap()
            .query_map(params!["p", "[\"v2.payout\"]", 0, None::<i64>], |r| {
                r.get::<_, String>(3)
            })
            .unwrap()
            .map(Result::unwrap)
            .collect();
        assert!(plan.iter().any(|l| l.contains("journal_day")), "{plan:?}");
    }

    #[test]
    fn a_live_claim_keeps_others_out_and_a_dead_process_gives_it_up() {
        let (_dir, mut conn) = open();
        let (e, c) = sent(start(&mut conn, "v2.payout", "N1", &serde_json::json!({})));
        assert!(
            Journal::on(&conn).claim(e.id).unwrap().is_none(),
            "being sent"
        );
        Journal::on(&conn).release(e.id, &c).unwrap();
        assert!(Journal::on(&conn).claim(e.id).unwrap().is_some());
        // A claim left by a process that no longer runs (pid far past pid_max).
        conn.execute(
            "UPDATE journal SET claimed_by = '999999999:1-1', claimed_until = ?2 WHERE id = ?1",
            params![e.id, now_ms() + CLAIM_LEASE_MS],
        )
        .unwrap();
        if cfg!(target_os = "linux") {
            assert!(Journal::on(&conn).claim(e.id).unwrap().is_some());
        }
        // A lease that ran out.
        conn.execute(
            "UPDATE journal SET claimed_by = '1:1-1', claimed_until = ?2 WHERE id = ?1",
            params![e.id, now_ms() - 1],
        )
        .unwrap();
        assert!(Journal::on(&conn).claim(e.id).unwrap().is_some());
    }
}
