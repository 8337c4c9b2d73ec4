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

use super::{Desk, money_identifiers, plain_failure, unusable_success};
use crate::error::{CoreError, CoreResult};
use crate::forms::PayoutOp;
use crate::journal::{Begin, Claim, Entry, Intent, Outcome, Status};

/// How long a turn waits for more answers after its first one.
const GATHER: std::time::Duration = std::time::Duration::from_millis(20);

/// A row to send: its index in the run's plan, the payout, its fingerprint.
pub(super) type Row = (usize, PayoutOp, String);

type Answer = Result<paydesk_gateway::Answer<wire::PayoutResult>, GatewayError>;

/// The journal's request (unsigned) and the summary line of a bulk row.
pub(super) fn intent_parts(p: &PayoutOp) -> CoreResult<(Value, String)> {
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
    pub(super) async fn send_bulk_rows(
        &self,
        rows: Vec<Row>,
        on_row: &mut impl FnMut(usize, CoreResult<Entry>),
    ) -> CoreResult<()> {
        let mut one_by_one = Vec::new();
        // The keyring's anchor, read once a run: the groups' audit rows continue the
        // chain only if the log still reaches it (another desk may have written since).
        if self.profile.team.is_none()
            && let Ok(Some(kept)) = self.secrets.audit_anchor(&self.profile.name)
        {
            let mut ours = super::lock(&self.audit_anchor);
            if ours.as_ref().is_none_or(|a| a.count < kept.count) {
                *ours = Some(kept);
            }
        }
        let r = if self.profile.team.is_some() {
            // A team's money moves only as approved requests: the single way refuses it.
            one_by_one.extend(rows.into_iter().map(|(i, p, _)| (i, p)));
            Ok(())
        } else {
            self.send_in_groups(rows, on_row, &mut one_by_one).await
        };
        // Once a run (whatever stopped it): the keyring's anchor of the audit chain.
        self.anchor_audit();
        r?;
        for (i, payout) in one_by_one {
            let r = match payout {
                PayoutOp::Clabe(o) => self.payout_clabe(o).await,
                PayoutOp::Card(o) => self.payout_card(o).await,
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
        let client = self.client()?.clone();
        // Never more out than a second's worth under the profile's rate limit.
        let limit = match self.profile.sync.rate_limit {
            0 => self.profile.sync.payouts_in_flight,
            rate => self.profile.sync.payouts_in_flight.min(rate),
        }
        .clamp(1, 64) as usize;
        let mut waiting: VecDeque<Row> = rows.into();
        // Dropped (the run stopped), it aborts the requests still out: their entries stay
        // `sending`, an unknown outcome the next run looks up.
        let mut out: tokio::task::JoinSet<(usize, Answer)> = tokio::task::JoinSet::new();
        let mut tasks: HashMap<tokio::task::Id, usize> = HashMap::new();
        let mut flying: HashMap<usize, Flying> = HashMap::new();
        // The answers of the turn before, written with this turn's rows.
        let mut answered: Vec<Plain> = Vec::new();
        loop {
            let room = limit.saturating_sub(out.len()).min(waiting.len());
            let group: Vec<Row> = waiting.drain(..room).collect();
            let parts = group
                .iter()
                .map(|(_, p, _)| intent_parts(p))
                .collect::<CoreResult<Vec<_>>>()?;
            let intents: Vec<Intent<'_>> = group
                .iter()
                .zip(&parts)
                .map(|((_, p, fp), (body, summary))| Intent {
                    operation: name_of(p),
                    mer_order_no: p.mer_order_no(),
                    request: body,
                    summary,
                    fingerprint: fp,
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
                let task = out.spawn(async move {
                    let answer = match &op {
                        PayoutOp::Clabe(o) => client.send(o).await,
                        PayoutOp::Card(o) => client.send(o).await,
                    };
                    (i, answer)
                });
                tasks.insert(task.id(), i);
                flying.insert(
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
            let mut made = Vec::new();
            for p in answered.drain(..) {
                let entry = self.store.journal().get(p.f.entry.id)?;
                if let Some(e) = &entry
                    && e.status == Status::Accepted
                {
                    made.push((e.clone(), method_of(&p.f.payout), p.pay_code));
                }
                on_row(
                    p.i,
                    entry.ok_or_else(|| CoreError::internal("journal entry vanished")),
                );
            }
            self.cache_made_many(&made);
            if out.is_empty() {
                if waiting.is_empty() {
                    return Ok(());
                }
                // Every row of the group was another desk's: the next group.
                continue;
            }
            // One answer, then more until every request out is in (or a moment passed):
            // a commit costs a disk flush, so a turn records as many rows as it can
            // without leaving the answers in waiting for long.
            let want = out.len();
            let mut answers = Vec::new();
            answers.extend(out.join_next_with_id().await);
            let until = tokio::time::Instant::now() + GATHER;
            while answers.len() < want {
                match tokio::time::timeout_at(until, out.join_next_with_id()).await {
                    Ok(Some(more)) => answers.push(more),
                    _ => break,
                }
            }
            while let Some(more) = out.try_join_next_with_id() {
                answers.push(more);
            }
            for r in answers {
                let (i, answer) = match r {
                    Ok((_, (i, answer))) => (i, answer),
                    // The task failed (it never does but by a panic): what it sent is
                    // unknown.
                    Err(e) => match tasks.get(&e.id()) {
                        Some(i) => (
                            *i,
                            Err(GatewayError::OutcomeUnknown {
                                reason: format!("the request's task stopped: {e}"),
                            }),
                        ),
                        None => continue,
                    },
                };
                let Some(f) = flying.remove(&i) else {
                    continue;
                };
                match plain(i, f, answer) {
                    Ok(p) => answered.push(p),
                    // More than an outcome to write: the single payout's way, now.
                    Err(more) => {
                        let (f, answer) = *more;
                        let method = Some(method_of(&f.payout));
                        let r = match f.payout {
                            PayoutOp::Clabe(_) => {
                                self.record_answer::<wire::V2Payout>(
                                    f.entry, f.claim, answer, method, f.started,
                                )
                                .await
                            }
                            PayoutOp::Card(_) => {
                                self.record_answer::<wire::V1CardPayout>(
                                    f.entry, f.claim, answer, method, f.started,
                                )
                                .await
                            }
                        };
                        on_row(i, r.map(|s| s.entry));
                    }
                }
            }
        }
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
        let anchor = super::lock(&self.audit_anchor).clone();
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
                    *super::lock(&self.audit_anchor) = Some(a);
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
fn plain(i: usize, f: Flying, answer: Answer) -> Result<Plain, Box<(Flying, Answer)>> {
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
        Err(GatewayError::Rejected { .. }) if f.entry.attempts > 1 => Err(Box::new((f, answer))),
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
