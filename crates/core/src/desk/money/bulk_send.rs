//! A bulk run's rows sent at the gateway's pace: a bounded number of requests in flight
//! (the profile's `sync.payoutsInFlight`, each request still kept under its rate limit),
//! the journal and the audit log written in groups. What does not change: every row is
//! `sending` and claimed in a committed transaction before its request leaves (a second
//! desk or process finds it claimed and never sends it), every answer is recorded as
//! the single payout's is (a lost answer stays unknown and is looked up, never sent
//! again blind), and every call has its row in the audit chain.
//!
//! Each turn: the rows there is room for are taken up in one transaction and their
//! requests leave (signed on the runtime's threads); then the desk waits for one answer,
//! takes every other answer already in, and records them together: their audit rows in
//! one commit, their outcomes in another, the orders made cached. A turn takes as many
//! rows as came back during the turn before, so the groups grow while the writes are the
//! slower part and stay small while the gateway is.

use std::collections::{HashMap, VecDeque};
use std::time::Instant;

use paydesk_gateway::GatewayError;
use paydesk_gateway::wire::{self, Operation};
use serde_json::Value;

use crate::desk::{Desk, money_identifiers, plain_failure, unusable_success};
use crate::error::{CoreError, CoreResult};
use crate::forms::PayoutOp;
use crate::journal::{Begin, Claim, Entry, Intent, Outcome, Status};

/// How long a turn waits for more answers after its first one.
const GATHER: std::time::Duration = std::time::Duration::from_millis(20);

/// A row to send: its index in the run's plan, the payout, its fingerprint.
pub(in crate::desk) type Row = (usize, PayoutOp, String);

type Answer = Result<paydesk_gateway::Answer<wire::PayoutResult>, GatewayError>;

/// The journal's request (unsigned) and the summary line of a bulk row.
pub(in crate::desk) fn intent_parts(p: &PayoutOp) -> CoreResult<(Value, String)> {
    let internal = |e: serde_json::Error| CoreError::internal(e.to_string());
    Ok(match p {
        PayoutOp::Clabe(o) => (
            serde_json::to_value(o).map_err(internal)?,
            format!(
                "bulk payout CLABE {} {} to {}",
                o.source_amount,
                o.currency_code,
                paydesk_gateway::validate::mask_card(&o.clabe)
            ),
        ),
        PayoutOp::Card(o) => (
            serde_json::to_value(o).map_err(internal)?,
            format!(
                "bulk payout CARD {} {} to {} {} {}",
                o.source_amount,
                o.currency_code,
                o.ben_first_name,
                o.ben_last_name,
                paydesk_gateway::validate::mask_card(&o.card_no)
            ),
        ),
    })
}

fn method_of(p: &PayoutOp) -> &'static str {
    match p {
        PayoutOp::Clabe(_) => "CLABE",
        PayoutOp::Card(_) => "CARD",
    }
}

fn name_of(p: &PayoutOp) -> &'static str {
    match p {
        PayoutOp::Clabe(_) => wire::V2Payout::NAME,
        PayoutOp::Card(_) => wire::V1CardPayout::NAME,
    }
}

/// A request out: its entry, the claim it left under, when it left, the payout.
struct Flying {
    entry: Entry,
    claim: Claim,
    started: Instant,
    payout: PayoutOp,
}

impl Desk {
    /// Sends bulk rows whose intents are in the journal (queued), at most
    /// `sync.payoutsInFlight` at once; `on_row(index, entry or error)` as each row's
    /// outcome is recorded. A row another desk holds, or whose entry is not pending any
    /// more, goes the single payout's way ([`Desk::submit`]) after the others.
    pub(in crate::desk) async fn send_bulk_rows(
        &self,
        rows: Vec<Row>,
        on_row: &mut impl FnMut(usize, CoreResult<Entry>),
    ) -> CoreResult<()> {
        let mut one_by_one = Vec::new();
        // The keyring's anchor, read once a run: the groups' audit rows continue the
        // chain only if the log still reaches it (another desk may have written since,
        // or the log was set aside and started again). This desk's own stands only if
        // the log reaches it further along the same chain.
        if self.profile.team.is_none()
            && let Ok(Some(kept)) = self.secrets.audit_anchor(&self.profile.name)
        {
            let ours = crate::desk::lock(&self.audit_anchor).clone();
            if !ours.is_some_and(|o| self.ours_is_later(Some(&kept), &o)) {
                *crate::desk::lock(&self.audit_anchor) = Some(kept);
            }
        }
        let r = if self.profile.team.is_some() {
            // A team's money moves only as approved requests: the single way refuses it.
            one_by_one.extend(rows.into_iter().map(|(i, p, _)| (i, p)));
            Ok(())
        } else {
            self.send_in_groups(rows, on_row, &mut one_by_one).await
        };
        // Once more at the end (whatever stopped the run): the keyring's anchor of the
        // audit chain.
        self.anchor_audit();
        r?;
        for (i, payout) in one_by_one {
            let r = match payout {
                PayoutOp::Clabe(o) => self.money().payout_clabe(o).await,
                PayoutOp::Card(o) => self.money().payout_card(o).await,
            };
            on_row(i, r.map(|s| s.entry));
        }
        Ok(())
    }

    async fn send_in_groups(
        &self,
        rows: Vec<Row>,
        on_row: &mut impl FnMut(usize, CoreResult<Entry>),
        one_by_one: &mut Vec<(usize, PayoutOp)>,
    ) -> CoreResult<()> {
        // Dropped (the run stopped), it aborts the requests still out: their entries stay
        // `sending`, an unknown outcome the next run looks up.
        let mut out = Out {
            set: tokio::task::JoinSet::new(),
            tasks: HashMap::new(),
            flying: HashMap::new(),
        };
        let r = self.turns(rows, &mut out, on_row, one_by_one).await;
        if r.is_err() {
            // A turn's commit failed (the file locked by another process for longer than
            // the busy timeout, the disk full): no more rows leave, but the requests
            // already at the gateway are waited for (each bounded by the client's
            // timeout) and each answer recorded on its own, its audit row and outcome,
            // before the error is said.
            while let Some(joined) = out.set.join_next_with_id().await {
                let Some((i, answer)) = out.answer(joined) else {
                    continue;
                };
                let Some(f) = out.flying.remove(&i) else {
                    continue;
                };
                let r = self.record_flying(f, answer).await;
                on_row(i, r);
            }
            self.anchor_audit();
        }
        r
    }

    async fn turns(
        &self,
        rows: Vec<Row>,
        out: &mut Out,
        on_row: &mut impl FnMut(usize, CoreResult<Entry>),
        one_by_one: &mut Vec<(usize, PayoutOp)>,
    ) -> CoreResult<()> {
        let client = self.client()?.clone();
        // Never more out than a second's worth under the profile's rate limit.
        let limit = match self.profile.sync.rate_limit {
            0 => self.profile.sync.payouts_in_flight,
            rate => self.profile.sync.payouts_in_flight.min(rate),
        }
        .clamp(1, 64) as usize;
        let mut waiting: VecDeque<Row> = rows.into();
        // The answers of the turn before, written with this turn's rows.
        let mut answered: Vec<Plain> = Vec::new();
        loop {
            let room = limit.saturating_sub(out.set.len()).min(waiting.len());
            let mut group: Vec<Row> = Vec::with_capacity(room);
            let mut parts = Vec::with_capacity(room);
            for (i, p, fp) in waiting.drain(..room) {
                // A row whose request cannot be written down is that row's error, never
                // the run's (the others' answers are still to be recorded).
                match intent_parts(&p) {
                    Ok(part) => {
                        parts.push(part);
                        group.push((i, p, fp));
                    }
                    Err(e) => on_row(i, Err(e)),
                }
            }
            let intents: Vec<Intent<'_>> = group
                .iter()
                .zip(&parts)
                .map(|((_, p, fp), (body, summary))| Intent {
                    operation: name_of(p),
                    mer_order_no: p.mer_order_no(),
                    request: body,
                    summary,
                    fingerprint: fp,
                    // Queued with its purpose before the run began (`bulk_payouts`):
                    // begun here as that entry.
                    purpose: None,
                })
                .collect();
            let begun = self.write_turn(&answered, &intents)?;
            for ((i, payout, _), b) in group.into_iter().zip(begun) {
                let (entry, claim) = match b {
                    Begin::Send(e, c) | Begin::Resend(e, c) => (e, c),
                    _ => {
                        one_by_one.push((i, payout));
                        continue;
                    }
                };
                let client = client.clone();
                let op = payout.clone();
                let task = out.set.spawn(async move {
                    let answer = match &op {
                        PayoutOp::Clabe(o) => client.send(o).await,
                        PayoutOp::Card(o) => client.send(o).await,
                    };
                    (i, answer)
                });
                out.tasks.insert(task.id(), i);
                out.flying.insert(
                    i,
                    Flying {
                        entry,
                        claim,
                        started: Instant::now(),
                        payout,
                    },
                );
            }
            // While those requests are out: the rows just recorded, their orders cached.
            self.report(&mut answered, on_row);
            if out.set.is_empty() {
                if waiting.is_empty() {
                    return Ok(());
                }
                // Every row of the group was another desk's: the next group.
                continue;
            }
            // One answer, then more until every request out is in (or a moment passed):
            // a commit costs a disk flush, so a turn records as many rows as it can
            // without leaving the answers in waiting for long.
            let want = out.set.len();
            let mut answers = Vec::new();
            answers.extend(out.set.join_next_with_id().await);
            let until = tokio::time::Instant::now() + GATHER;
            while answers.len() < want {
                match tokio::time::timeout_at(until, out.set.join_next_with_id()).await {
                    Ok(Some(more)) => answers.push(more),
                    _ => break,
                }
            }
            while let Some(more) = out.set.try_join_next_with_id() {
                answers.push(more);
            }
            let mut more_to_do = Vec::new();
            for joined in answers {
                let Some((i, answer)) = out.answer(joined) else {
                    continue;
                };
                let Some(f) = out.flying.remove(&i) else {
                    continue;
                };
                match plain(i, f, answer, &self.conventions.duplicate_codes) {
                    Ok(p) => answered.push(p),
                    Err(more) => more_to_do.push((i, *more)),
                }
            }
            if more_to_do.is_empty() {
                continue;
            }
            // More than an outcome to write (a lookup, each up to the client's timeout):
            // the plain answers are committed first, so their claims are not left to
            // lapse while the lookups run.
            if !answered.is_empty() {
                self.write_turn(&answered, &[])?;
                self.report(&mut answered, on_row);
            }
            for (i, (f, answer)) in more_to_do {
                let r = self.record_flying(f, answer).await;
                on_row(i, r);
            }
        }
    }

    /// Says the outcome of each answer recorded (their orders cached).
    fn report(&self, answered: &mut Vec<Plain>, on_row: &mut impl FnMut(usize, CoreResult<Entry>)) {
        let mut made = Vec::new();
        for p in answered.drain(..) {
            let entry = match self.store.journal().get(p.f.entry.id) {
                Ok(Some(e)) => Ok(e),
                Ok(None) => Err(CoreError::internal("journal entry vanished")),
                Err(e) => Err(e),
            };
            if let Ok(e) = &entry
                && e.status == Status::Accepted
            {
                made.push((e.clone(), method_of(&p.f.payout), p.pay_code));
            }
            on_row(p.i, entry);
        }
        self.cache_made_many(&made);
    }

    /// An answer recorded the single payout's way: its audit row and outcome in commits
    /// of their own.
    async fn record_flying(&self, f: Flying, answer: Answer) -> CoreResult<Entry> {
        let method = Some(method_of(&f.payout));
        // A bulk run's own desk (a team's payouts go one by one, `send_bulk_rows`): its
        // journal has one writer, and a queued row's first send is taken up as a resend
        // of its `pending` entry, so its attempts tell a send again.
        let resend = f.entry.attempts > 1;
        let r = match f.payout {
            PayoutOp::Clabe(_) => {
                self.record_answer::<wire::V2Payout>(
                    f.entry, f.claim, answer, method, f.started, resend,
                )
                .await
            }
            PayoutOp::Card(_) => {
                self.record_answer::<wire::V1CardPayout>(
                    f.entry, f.claim, answer, method, f.started, resend,
                )
                .await
            }
        };
        r.map(|s| s.entry)
    }

    /// One commit: the audit rows and outcomes of the answers in, and the next rows
    /// taken up. Should the audit log refuse its rows, they are written (or the failure
    /// recorded) as the single payout does, and the journal's part goes on its own.
    fn write_turn(&self, answered: &[Plain], intents: &[Intent<'_>]) -> CoreResult<Vec<Begin>> {
        let rows: Vec<(&str, String, String, Instant)> = answered
            .iter()
            .map(|p| {
                let ids = money_identifiers(
                    &p.f.entry,
                    p.trade_no.clone().filter(|_| p.status == Status::Accepted),
                );
                (name_of(&p.f.payout), ids, p.result.clone(), p.f.started)
            })
            .collect();
        let outcomes: Vec<(i64, &Claim, Outcome<'_>)> = answered
            .iter()
            .map(|p| {
                (
                    p.f.entry.id,
                    &p.f.claim,
                    Outcome {
                        status: p.status,
                        trade_no: p.trade_no.as_deref(),
                        code: p.code.as_deref(),
                        message: Some(&p.message),
                    },
                )
            })
            .collect();
        let records = self.audit_records(rows.clone());
        let anchor = crate::desk::lock(&self.audit_anchor).clone();
        match self.store.bulk_turn(
            records,
            self.audit_key.expose(),
            anchor.as_ref(),
            &outcomes,
            &self.profile.name,
            intents,
            self.guard(false),
        ) {
            Ok((anchor, begun)) => {
                if let Some(a) = anchor
                    && self.profile.team.is_none()
                {
                    *crate::desk::lock(&self.audit_anchor) = Some(a);
                    // The keyring's anchor follows the log turn by turn (one write a
                    // turn): a run killed or dropped midway leaves at most its last
                    // turn's rows past it, not the whole run's.
                    self.anchor_audit();
                }
                Ok(begun)
            }
            Err(e) if !rows.is_empty() => {
                tracing::warn!(error = %e, "a bulk turn's commit failed; its parts written one by one");
                self.audit_group(rows);
                self.store.journal().finish_many(&outcomes)?;
                self.store
                    .journal()
                    .begin_many(&self.profile.name, intents, self.guard(false))
            }
            Err(e) => Err(e),
        }
    }
}

/// The requests out: their tasks, and what each left as.
struct Out {
    set: tokio::task::JoinSet<(usize, Answer)>,
    tasks: HashMap<tokio::task::Id, usize>,
    flying: HashMap<usize, Flying>,
}

impl Out {
    /// A finished task's row and answer; a task that failed (it never does but by a
    /// panic) sent what is unknown.
    fn answer(
        &self,
        joined: Result<(tokio::task::Id, (usize, Answer)), tokio::task::JoinError>,
    ) -> Option<(usize, Answer)> {
        match joined {
            Ok((_, r)) => Some(r),
            Err(e) => self.tasks.get(&e.id()).map(|i| {
                (
                    *i,
                    Err(GatewayError::OutcomeUnknown {
                        reason: format!("the request's task stopped: {e}"),
                    }),
                )
            }),
        }
    }
}

/// An answer whose recording is its outcome and its audit row.
struct Plain {
    i: usize,
    f: Flying,
    status: Status,
    trade_no: Option<String>,
    code: Option<String>,
    message: String,
    pay_code: Option<i64>,
    /// The audit row's result.
    result: String,
}

/// The answer's outcome as the single payout records it, when recording it needs
/// nothing more; otherwise the answer back (a success without a usable trade number, a
/// refused resend that may have arrived after all).
/// A refusal under a duplicate code ("this number is already used") is never plain, on
/// any attempt (review r9 R9-10).
fn plain(
    i: usize,
    f: Flying,
    answer: Answer,
    duplicate: &[String],
) -> Result<Plain, Box<(Flying, Answer)>> {
    let result = Desk::result_code(&answer);
    match &answer {
        Ok(a) if unusable_success(&f.entry, &a.data).is_none() => Ok(Plain {
            i,
            status: Status::Accepted,
            trade_no: Some(a.data.trade_no.clone()),
            code: Some(paydesk_gateway::redact::terminal_safe(&a.code, 40)),
            message: paydesk_gateway::redact::terminal_safe(&a.message, 500),
            pay_code: Some(a.data.pay_code),
            result,
            f,
        }),
        Ok(_) => Err(Box::new((f, answer))),
        Err(GatewayError::Rejected { code, .. })
            if f.entry.attempts > 1 || duplicate.contains(code) =>
        {
            Err(Box::new((f, answer)))
        }
        Err(e) => {
            let (status, code) = plain_failure(e);
            Ok(Plain {
                i,
                status,
                trade_no: None,
                code,
                message: e.to_string(),
                pay_code: None,
                result,
                f,
            })
        }
    }
}
