//! The team's shared journal on PostgreSQL: the same [`JournalStore`] as the desk's
//! SQLite journal, written by the team's signers from any number of machines.
//!
//! Entries are the merchant's (`mer_no`), not a profile's: each desk keeps its profile's
//! name on what it writes, for information, but finds every entry of its team whatever
//! the other desks call their profile.
//!
//! What SQLite gets from its single writer, the team gets from locks:
//!
//! - [`JournalStore::begin`] and [`JournalStore::queue`] run in one transaction that
//!   first takes an advisory lock on the merchant order number, then one on the
//!   fingerprint: two desks beginning the same number get one `Send` and one `Exists`,
//!   and two beginning the same intent under two numbers get one `Send` and one
//!   `Duplicate`. The locks are always taken in that order, so they cannot deadlock.
//! - A claim is `pg:<backend pid>:<nonce>` and is live while its lease has not run out
//!   on the database's clock (one clock for every desk) and its server process still
//!   runs: a desk killed outright loses its connection, its server process ends, and
//!   its claims die with it. Both are checked by the database in the statement that
//!   takes the claim, so two desks cannot both take it. (This needs each link to be a
//!   server connection of its own: a transaction-pooling proxy in between would make
//!   the pid another client's.)

use serde_json::Value;
use sha2::{Digest, Sha256};
use tokio_postgres::Row;
use tokio_postgres::types::FromSql;

use super::run::Run;
use super::{PgLink, Tx};
use paydesk_store::dialect::statuses;
use paydesk_store::error::{CoreError, CoreResult};
use paydesk_store::journal::{
    Begin, CLAIM_LEASE_MS, Claim, DAY_COUNTS, DayLimit, Entry, Guard, Intent, JournalOperation,
    JournalStore, Outcome, OverDay, Status, day_sum, goes_now, mask_request, new_claim,
};

/// The columns of an [`Entry`], in the order [`entry`] reads them. Read from
/// `paydesk.journal_shown` (migration 0022), which leaves a card payout's holder out of
/// `request` and `summary` for a member who may not read it (a viewer, support, an
/// admin, a maker of another request); the signer's locking read alone reads the table.
const COLUMNS: &str = "id, profile, operation, mer_order_no, request, summary, status, trade_no, code, message, attempts::bigint, created_at, updated_at, next_check_at, fingerprint, sent_at, lookups::bigint, resolution, purpose, purpose_ref";

/// The database's time in UTC millis, the clock every desk's claims are measured on.
const DB_NOW: &str = "(extract(epoch FROM statement_timestamp()) * 1000)::bigint";

/// True (in SQL, on a journal row) while the row's claim may still be at work: its
/// lease has not run out and the server process of the link that took it still runs.
/// A holder not written by this module is trusted until its lease ends.
fn claim_live_sql() -> String {
    format!(
        "(claimed_by IS NOT NULL AND claimed_until IS NOT NULL AND claimed_until > {DB_NOW}
          AND CASE WHEN claimed_by ~ '^pg:[0-9]{{1,9}}:'
                   THEN EXISTS (SELECT 1 FROM pg_stat_activity a
                                 WHERE a.pid = split_part(claimed_by, ':', 2)::integer)
                   ELSE true END)"
    )
}

/// The journal of the team of merchant `mer_no`.
#[derive(Debug, Clone)]
pub struct PgJournal<'a> {
    link: &'a PgLink,
    mer_no: i64,
    now: paydesk_store::Now,
}

fn get<'a, T: FromSql<'a>>(r: &'a Row, i: usize) -> CoreResult<T> {
    r.try_get(i)
        .map_err(|e| CoreError::storage(format!("the team's journal, column {i}: {e}")))
}

/// A row of [`COLUMNS`] as an entry.
fn entry(r: &Row) -> CoreResult<Entry> {
    let name: String = get(r, 2)?;
    let operation = JournalOperation::from_name(&name).ok_or_else(|| {
        CoreError::storage(format!(
            "journal operation {name:?} is not one this PayDesk knows (written by a newer version?)"
        ))
    })?;
    let request: String = get(r, 4)?;
    let status: String = get(r, 6)?;
    Ok(Entry {
        can_be_looked_up: operation.can_be_looked_up(),
        id: get(r, 0)?,
        profile: get(r, 1)?,
        operation,
        mer_order_no: get(r, 3)?,
        request: serde_json::from_str(&request).unwrap_or(Value::Null),
        summary: get(r, 5)?,
        status: Status::parse(&status),
        trade_no: get(r, 7)?,
        code: get(r, 8)?,
        message: get(r, 9)?,
        attempts: get(r, 10)?,
        created_at: get(r, 11)?,
        updated_at: get(r, 12)?,
        next_check_at: get(r, 13)?,
        fingerprint: get(r, 14)?,
        sent_at: get(r, 15)?,
        lookups: get(r, 16)?,
        resolution: get(r, 17)?,
        purpose: paydesk_store::journal::purpose_of(get(r, 18)?, get(r, 19)?),
    })
}

fn entries(rows: Vec<Row>) -> CoreResult<Vec<Entry>> {
    rows.iter().map(entry).collect()
}

/// An advisory lock key of its own for each (kind, merchant, value): the first 8 bytes
/// of a SHA-256, so it is the same on every desk and every server version.
fn lock_key(kind: &str, mer_no: i64, value: &str) -> i64 {
    let mut h = Sha256::new();
    h.update(format!("paydesk.journal.{kind}\x1f{mer_no}\x1f{value}").as_bytes());
    let digest = h.finalize();
    let mut bytes = [0u8; 8];
    bytes.copy_from_slice(&digest[..8]);
    i64::from_be_bytes(bytes)
}

/// Held until the transaction ends: first the number's lock, then the intent's, each
/// through the team's function (a row lock on `paydesk.desk_locks`, which only that
/// function takes; a signer's session left idle holding one is ended after 5 s).
fn lock_intent(tx: &Tx<'_>, mer_no: i64, intent: &Intent<'_>) -> CoreResult<()> {
    let number = lock_key("number", mer_no, intent.mer_order_no);
    let fingerprint = lock_key("fingerprint", mer_no, intent.fingerprint);
    tx.execute("SELECT paydesk.advisory_xact_lock($1)", &[&number])?;
    tx.execute("SELECT paydesk.advisory_xact_lock($1)", &[&fingerprint])?;
    Ok(())
}

fn by_id(run: &impl Run, mer_no: i64, id: i64) -> CoreResult<Option<Entry>> {
    run.row(
        &format!("SELECT {COLUMNS} FROM paydesk.journal_shown WHERE id = $1 AND mer_no = $2"),
        &[&id, &mer_no],
    )?
    .as_ref()
    .map(entry)
    .transpose()
}

fn by_key(
    run: &impl Run,
    mer_no: i64,
    operation: &str,
    mer_order_no: &str,
) -> CoreResult<Option<Entry>> {
    run.row(
        &format!(
            "SELECT {COLUMNS} FROM paydesk.journal_shown
              WHERE mer_no = $1 AND operation = $2 AND mer_order_no = $3"
        ),
        &[&mer_no, &operation, &mer_order_no],
    )?
    .as_ref()
    .map(entry)
    .transpose()
}

fn same_intent_on(
    run: &impl Run,
    mer_no: i64,
    fingerprint: &str,
    window_ms: i64,
    except: &[&str],
    now: i64,
) -> CoreResult<Option<Entry>> {
    run.row(
        &format!(
            "SELECT {COLUMNS} FROM paydesk.journal_shown WHERE mer_no = $1 AND fingerprint = $2
               AND (status IN ({live})
                    OR (status = 'accepted' AND updated_at > $3))
               AND NOT (mer_order_no = ANY($4::text[]))
             ORDER BY id DESC LIMIT 1",
            live = statuses(&Status::LIVE)
        ),
        &[&mer_no, &fingerprint, &(now - window_ms), &except],
    )?
    .as_ref()
    .map(entry)
    .transpose()
}

impl<'a> PgJournal<'a> {
    pub fn on(link: &'a PgLink, mer_no: i64) -> Self {
        PgJournal {
            link,
            mer_no,
            now: paydesk_store::Now::system(),
        }
    }

    /// This journal on the clock `now` (the desk's) for the times it writes and the
    /// duplicate window; claims stay on the database's clock (one for every desk).
    pub fn at(self, now: paydesk_store::Now) -> Self {
        PgJournal { now, ..self }
    }

    /// A new claim of this link: `pg:<backend pid>:<nonce>`.
    fn new_claim(&self) -> Claim {
        Claim(format!("pg:{}:{}", self.link.backend_pid(), new_claim()))
    }

    fn begin_in(
        &self,
        tx: &Tx<'_>,
        profile: &str,
        intent: Intent<'_>,
        guard: Guard,
    ) -> CoreResult<Begin> {
        lock_intent(tx, self.mer_no, &intent)?;
        // Locked for the transaction too, so an outcome written meanwhile waits.
        let existing = tx
            .query_opt(
                &format!(
                    "SELECT {COLUMNS} FROM paydesk.journal WHERE mer_no = $1 AND mer_order_no = $2
                      ORDER BY operation = $3 DESC, id LIMIT 1 FOR UPDATE"
                ),
                &[&self.mer_no, &intent.mer_order_no, &intent.operation],
            )?
            .as_ref()
            .map(entry)
            .transpose()?;
        let now = self.now.ms();
        let claim = self.new_claim();
        let out = match existing {
            None => {
                if !guard.allow_duplicate
                    && let Some(earlier) = same_intent_on(
                        tx,
                        self.mer_no,
                        intent.fingerprint,
                        guard.window_ms,
                        &[],
                        now,
                    )?
                {
                    return Ok(Begin::Duplicate(earlier));
                }
                // A request row's number takes the maker's purpose in the database
                // (migration 0023), whatever is given here.
                let (purpose, purpose_ref) =
                    paydesk_store::journal::purpose_columns(intent.purpose);
                let row = tx.query_one(
                    &format!(
                        "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, attempts,
                                created_at, updated_at, fingerprint, claimed_by, claimed_until, sent_at,
                                purpose, purpose_ref)
                         VALUES ($1, $2, $3, $4, $5, $6, 'sending', 1, $7, $7, $8, $9, {DB_NOW} + $10, $7, $11, $12)
                         RETURNING {COLUMNS}"
                    ),
                    &[
                        &self.mer_no,
                        &profile,
                        &intent.operation,
                        &intent.mer_order_no,
                        &mask_request(intent.request).to_string(),
                        &intent.summary,
                        &now,
                        &intent.fingerprint,
                        &claim.0,
                        &CLAIM_LEASE_MS,
                        &purpose,
                        &purpose_ref,
                    ],
                )?;
                Begin::Send(entry(&row)?, claim)
            }
            Some(e)
                if e.operation.name() != intent.operation
                    || (!e.fingerprint.is_empty() && e.fingerprint != intent.fingerprint) =>
            {
                Begin::Mismatch(e)
            }
            // A queued entry under this number that sends another amount (written by
            // hand: the desk queues the request it sends) is not taken up.
            Some(e)
                if e.status == Status::Pending
                    && !paydesk_store::journal::same_amount(&e.request, intent.request) =>
            {
                Begin::Mismatch(e)
            }
            Some(e) if e.status == Status::Pending => {
                let row = tx.query_one(
                    &format!(
                        "UPDATE paydesk.journal SET status = 'sending', attempts = attempts + 1, updated_at = $2,
                                claimed_by = $3, claimed_until = {DB_NOW} + $4, sent_at = $2, lookups = 0,
                                next_check_at = NULL
                          WHERE id = $1
                         RETURNING {COLUMNS}"
                    ),
                    &[&e.id, &now, &claim.0, &CLAIM_LEASE_MS],
                )?;
                Begin::Resend(entry(&row)?, claim)
            }
            Some(e) => Begin::Exists(e),
        };
        Ok(out)
    }

    /// Gives `claim` up, on `run`.
    fn release_on(&self, run: &impl Run, id: i64, claim: &Claim) -> CoreResult<()> {
        run.exec(
            "UPDATE paydesk.journal SET claimed_by = NULL, claimed_until = NULL
              WHERE id = $1 AND mer_no = $2 AND claimed_by = $3",
            &[&id, &self.mer_no, &claim.0],
        )?;
        Ok(())
    }
}

impl JournalStore for PgJournal<'_> {
    fn same_intent(
        &self,
        _profile: &str,
        fingerprint: &str,
        window_ms: i64,
        except: &[&str],
    ) -> CoreResult<Option<Entry>> {
        same_intent_on(
            self.link,
            self.mer_no,
            fingerprint,
            window_ms,
            except,
            self.now.ms(),
        )
    }

    fn same_intents(
        &self,
        _profile: &str,
        fingerprint: &str,
        window_ms: i64,
    ) -> CoreResult<Vec<Entry>> {
        entries(self.link.query(
            &format!(
                "SELECT {COLUMNS} FROM paydesk.journal_shown WHERE mer_no = $1 AND fingerprint = $2
                   AND (status IN ({live})
                        OR (status = 'accepted' AND updated_at > $3))
                 ORDER BY id DESC LIMIT 100",
                live = statuses(&Status::LIVE)
            ),
            &[&self.mer_no, &fingerprint, &(self.now.ms() - window_ms)],
        )?)
    }

    fn with_fingerprint(
        &self,
        _profile: &str,
        operation: &str,
        fingerprint: &str,
    ) -> CoreResult<Vec<Entry>> {
        entries(self.link.query(
            &format!(
                "SELECT {COLUMNS} FROM paydesk.journal_shown
                 WHERE mer_no = $1 AND fingerprint = $2 AND operation = $3 ORDER BY id"
            ),
            &[&self.mer_no, &fingerprint, &operation],
        )?)
    }

    fn begin(&self, profile: &str, intent: Intent<'_>, guard: Guard) -> CoreResult<Begin> {
        self.link
            .atomic(|tx| self.begin_in(tx, profile, intent, guard))
    }

    fn begin_within(
        &self,
        profile: &str,
        intent: Intent<'_>,
        guard: Guard,
        day: DayLimit<'_>,
    ) -> CoreResult<Result<Begin, OverDay>> {
        self.link.atomic(|tx| {
            // Each statement on a snapshot of its own, whatever the role's default: the
            // sum after the day's lock sees what the lock's last holder committed.
            tx.batch("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")?;
            // The intent's locks first (as every begin), then the day's of this merchant
            // and currency: two signers' payouts in one currency sum and write one at a
            // time (always in this order, so they cannot deadlock).
            lock_intent(tx, self.mer_no, &intent)?;
            let key = lock_key(
                "day",
                self.mer_no,
                &day.currency.trim().to_ascii_uppercase(),
            );
            tx.execute("SELECT paydesk.advisory_xact_lock($1)", &[&key])?;
            let existing = tx
                .query_opt(
                    &format!(
                        "SELECT {COLUMNS} FROM paydesk.journal WHERE mer_no = $1 AND mer_order_no = $2
                          ORDER BY operation = $3 DESC, id LIMIT 1"
                    ),
                    &[&self.mer_no, &intent.mer_order_no, &intent.operation],
                )?
                .as_ref()
                .map(entry)
                .transpose()?;
            if let Some(except) = goes_now(existing.as_ref(), &intent) {
                let ops: Vec<String> = day.operations.iter().map(|o| o.to_string()).collect();
                let rows = tx.query(
                    &format!(
                        "SELECT request FROM paydesk.journal WHERE mer_no = $1
                            AND operation = ANY($2) AND status IN ({})
                            AND COALESCE(sent_at, created_at) >= $3
                            AND ($4::bigint IS NULL OR id <> $4)",
                        statuses(&DAY_COUNTS)
                    ),
                    &[&self.mer_no, &ops, &day.since_ms, &except],
                )?;
                let requests = rows
                    .iter()
                    .map(|r| get::<String>(r, 0))
                    .collect::<CoreResult<Vec<_>>>()?;
                let used = day_sum(requests.iter().map(String::as_str), day.currency);
                if used + day.amount > day.per_day {
                    return Ok(Err(OverDay { used }));
                }
            }
            self.begin_in(tx, profile, intent, guard).map(Ok)
        })
    }

    fn queue(&self, profile: &str, intent: Intent<'_>) -> CoreResult<Entry> {
        let now = self.now.ms();
        self.link.atomic(|tx| {
            // The same locks as `begin`: a queued entry is seen by a begin of its number
            // or of its intent, never written beside one.
            lock_intent(tx, self.mer_no, &intent)?;
            let (purpose, purpose_ref) = paydesk_store::journal::purpose_columns(intent.purpose);
            tx.execute(
                "INSERT INTO paydesk.journal (mer_no, profile, operation, mer_order_no, request, summary, status, attempts,
                        created_at, updated_at, fingerprint, purpose, purpose_ref)
                 VALUES ($1, $2, $3, $4, $5, $6, 'pending', 0, $7, $7, $8, $9, $10)
                 ON CONFLICT (mer_no, operation, mer_order_no) DO NOTHING",
                &[
                    &self.mer_no,
                    &profile,
                    &intent.operation,
                    &intent.mer_order_no,
                    &mask_request(intent.request).to_string(),
                    &intent.summary,
                    &now,
                    &intent.fingerprint,
                    &purpose,
                    &purpose_ref,
                ],
            )?;
            by_key(tx, self.mer_no, intent.operation, intent.mer_order_no)?
                .ok_or_else(|| CoreError::internal("queued entry vanished"))
        })
    }

    fn claim(&self, id: i64) -> CoreResult<Option<(Entry, Claim)>> {
        let claim = self.new_claim();
        // One statement: a second claimer waits for the first one's row lock, then finds
        // its claim live.
        let row = self.link.query_opt(
            &format!(
                "UPDATE paydesk.journal SET claimed_by = $3, claimed_until = {DB_NOW} + $4
                  WHERE id = $1 AND mer_no = $2 AND NOT {live}
                 RETURNING {COLUMNS}",
                live = claim_live_sql()
            ),
            &[&id, &self.mer_no, &claim.0, &CLAIM_LEASE_MS],
        )?;
        row.map(|r| Ok((entry(&r)?, claim))).transpose()
    }

    fn release(&self, id: i64, claim: &Claim) -> CoreResult<()> {
        self.release_on(self.link, id, claim)
    }

    fn finish(&self, id: i64, claim: &Claim, o: Outcome<'_>) -> CoreResult<bool> {
        let now = self.now.ms();
        let next_check = (o.status == Status::Unknown).then_some(now);
        self.link.atomic(|tx| {
            // A send called never received (`pending`, to be sent again) before the
            // team's not-found grace has passed since it left, by the database's clock,
            // stays unknown and is looked up again when the grace ends (schema 0038
            // refuses a member's move; a desk's own word that it never left is not
            // proof; the database's owner, whom it does not hold, is not held here).
            if o.status == Status::Pending
                && let Some(r) = tx.query_opt(
                    "SELECT COALESCE(sent_at, created_at)
                            + COALESCE((SELECT t.not_found_grace_ms FROM paydesk.team t WHERE t.id = 1), 300000)
                       FROM paydesk.journal
                      WHERE id = $1 AND mer_no = $2 AND status IN ('sending', 'unknown')
                        AND NOT paydesk.journal_owner_session()
                        AND (extract(epoch FROM clock_timestamp()) * 1000)::bigint
                            < COALESCE(sent_at, created_at)
                              + COALESCE((SELECT t.not_found_grace_ms FROM paydesk.team t WHERE t.id = 1), 300000)",
                    &[&id, &self.mer_no],
                )?
            {
                let grace_ends: i64 = get(&r, 0)?;
                let message = format!(
                    "{} (not sent again before the team's not-found grace ends: looked up again then)",
                    o.message.unwrap_or("not found")
                );
                tx.execute(
                    "UPDATE paydesk.journal SET status = 'unknown', code = $3, message = $4, updated_at = $5,
                            next_check_at = $6
                      WHERE id = $1 AND mer_no = $2 AND status IN ('sending', 'unknown')",
                    &[&id, &self.mer_no, &o.code, &message, &now, &grace_ends],
                )?;
                self.release_on(tx, id, claim)?;
                return Ok(false);
            }
            let changed = tx.execute(
                &format!("UPDATE paydesk.journal SET status = $3, trade_no = COALESCE($4, trade_no), code = $5, message = $6,
                        updated_at = $7, next_check_at = $8
                  WHERE id = $1 AND mer_no = $2 AND status IN ({})", statuses(&Status::finishing_as(o.status))),
                &[
                    &id,
                    &self.mer_no,
                    &o.status.as_str(),
                    &o.trade_no,
                    &o.code,
                    &o.message,
                    &now,
                    &next_check,
                ],
            )?;
            self.release_on(tx, id, claim)?;
            Ok(changed == 1)
        })
    }

    fn not_found_yet(
        &self,
        id: i64,
        claim: &Claim,
        next_check_at: i64,
        message: &str,
    ) -> CoreResult<()> {
        self.link.atomic(|tx| {
            tx.execute(
                &format!("UPDATE paydesk.journal SET status = 'unknown', lookups = lookups + 1, next_check_at = $3, message = $4,
                        code = 'not_found_yet', updated_at = $5
                  WHERE id = $1 AND mer_no = $2 AND status IN ({})", statuses(&Status::UNSETTLED)),
                &[&id, &self.mer_no, &next_check_at, &message, &self.now.ms()],
            )?;
            self.release_on(tx, id, claim)
        })
    }

    fn mark_answered(&self, id: i64) -> CoreResult<()> {
        self.link.execute(
            "UPDATE paydesk.journal SET answered_ok = true, updated_at = $3 WHERE id = $1 AND mer_no = $2",
            &[&id, &self.mer_no, &self.now.ms()],
        )?;
        Ok(())
    }

    fn answered(&self, id: i64) -> CoreResult<bool> {
        let row = self.link.query_opt(
            "SELECT answered_ok FROM paydesk.journal WHERE id = $1 AND mer_no = $2",
            &[&id, &self.mer_no],
        )?;
        Ok(match row {
            Some(r) => get(&r, 0)?,
            None => false,
        })
    }

    fn note(&self, id: i64, message: &str) -> CoreResult<()> {
        self.link.execute(
            "UPDATE paydesk.journal SET next_check_at = NULL, message = $3, updated_at = $4
              WHERE id = $1 AND mer_no = $2",
            &[&id, &self.mer_no, &message, &self.now.ms()],
        )?;
        Ok(())
    }

    fn defer(&self, id: i64, until: i64, message: &str) -> CoreResult<()> {
        self.link.execute(
            "UPDATE paydesk.journal SET next_check_at = $3, message = $4, updated_at = $5
              WHERE id = $1 AND mer_no = $2",
            &[&id, &self.mer_no, &until, &message, &self.now.ms()],
        )?;
        Ok(())
    }

    fn resolve(&self, id: i64, claim: &Claim, done: bool, resolution: &str) -> CoreResult<bool> {
        let status = if done { "accepted" } else { "pending" };
        self.link.atomic(|tx| {
            let changed = tx.execute(
                &format!("UPDATE paydesk.journal SET status = $3, resolution = $4, message = $4, code = 'resolved',
                        updated_at = $5, next_check_at = NULL
                  WHERE id = $1 AND mer_no = $2 AND status IN ({})", statuses(&Status::UNSETTLED)),
                &[&id, &self.mer_no, &status, &resolution, &self.now.ms()],
            )?;
            self.release_on(tx, id, claim)?;
            Ok(changed == 1)
        })
    }

    fn get(&self, id: i64) -> CoreResult<Option<Entry>> {
        by_id(self.link, self.mer_no, id)
    }

    fn of_order(
        &self,
        _profile: &str,
        trade_no: &str,
        mer_order_no: &str,
    ) -> CoreResult<Vec<Entry>> {
        entries(self.link.query(
            &format!(
                "SELECT {COLUMNS} FROM paydesk.journal_shown WHERE mer_no = $1
                   AND (($3 <> '' AND mer_order_no = $3) OR ($2 <> '' AND trade_no = $2))
                 ORDER BY id LIMIT 200"
            ),
            &[&self.mer_no, &trade_no, &mer_order_no],
        )?)
    }

    fn get_by_key(
        &self,
        _profile: &str,
        operation: &str,
        mer_order_no: &str,
    ) -> CoreResult<Option<Entry>> {
        by_key(self.link, self.mer_no, operation, mer_order_no)
    }

    fn get_by_number(&self, _profile: &str, mer_order_no: &str) -> CoreResult<Option<Entry>> {
        self.link
            .query_opt(
                &format!(
                    "SELECT {COLUMNS} FROM paydesk.journal_shown WHERE mer_no = $1 AND mer_order_no = $2
                      ORDER BY id LIMIT 1"
                ),
                &[&self.mer_no, &mer_order_no],
            )?
            .as_ref()
            .map(entry)
            .transpose()
    }

    fn list(
        &self,
        _profile: &str,
        statuses: &[Status],
        operations: &[&str],
        limit: i64,
    ) -> CoreResult<Vec<Entry>> {
        let statuses: Vec<&str> = statuses.iter().map(|s| s.as_str()).collect();
        // SQLite reads a negative limit as none; PostgreSQL refuses one, and takes NULL.
        let limit = (limit >= 0).then_some(limit);
        entries(self.link.query(
            &format!(
                "SELECT {COLUMNS} FROM paydesk.journal_shown WHERE mer_no = $1
                   AND (cardinality($2::text[]) = 0 OR status = ANY($2::text[]))
                   AND (cardinality($3::text[]) = 0 OR operation = ANY($3::text[]))
                 ORDER BY id DESC LIMIT $4"
            ),
            &[&self.mer_no, &statuses, &operations, &limit],
        )?)
    }

    fn purposes(
        &self,
        _profile: &str,
    ) -> CoreResult<Vec<(String, Option<String>, paydesk_store::journal::Purpose)>> {
        let rows = self.link.query(
            "SELECT mer_order_no, trade_no, purpose, purpose_ref FROM paydesk.journal_shown
              WHERE mer_no = $1 AND (purpose IS NOT NULL OR purpose_ref IS NOT NULL) ORDER BY id",
            &[&self.mer_no],
        )?;
        let mut out = Vec::with_capacity(rows.len());
        for r in &rows {
            if let Some(p) = paydesk_store::journal::purpose_of(get(r, 2)?, get(r, 3)?) {
                out.push((get(r, 0)?, get(r, 1)?, p));
            }
        }
        Ok(out)
    }

    fn live_or_recent(
        &self,
        _profile: &str,
        operations: &[&str],
        window_ms: i64,
        contains: Option<&str>,
    ) -> CoreResult<Vec<Entry>> {
        entries(self.link.query(
            &format!(
                "SELECT {COLUMNS} FROM paydesk.journal_shown WHERE mer_no = $1
                   AND operation = ANY($2::text[])
                   AND (status IN ({live}) OR (status = 'accepted' AND updated_at > $3))
                   AND ($4::text IS NULL OR strpos(request, $4) > 0)
                 ORDER BY id DESC",
                live = statuses(&Status::LIVE)
            ),
            &[
                &self.mer_no,
                &operations,
                &(self.now.ms() - window_ms),
                &contains,
            ],
        )?)
    }

    fn unresolved(&self, _profile: &str) -> CoreResult<Vec<Entry>> {
        entries(self.link.query(
            &format!(
                "SELECT {COLUMNS} FROM paydesk.journal_shown
                  WHERE mer_no = $1 AND status IN ({unsettled}) ORDER BY id",
                unsettled = statuses(&Status::UNSETTLED)
            ),
            &[&self.mer_no],
        )?)
    }
}
