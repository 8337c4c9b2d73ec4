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
        on_row: &mut dyn FnMut(usize, CoreResult<Entry>),
    ) -> CoreResult<()> {
        let mut one_by_one = Vec::new();
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
        on_row: &mut dyn FnMut(usize, CoreResult<Entry>),
        one_by_one: &mut Vec<(usize, PayoutOp)>,
    ) -> CoreResult<()> {
        let client = self.client()?.clone();
        let limit = self.profile.sync.payouts_in_flight.clamp(1, 64) as usize;
        let mut waiting: VecDeque<Row> = rows.into();
        // Dropped (the run stopped), it aborts the requests still out: their entries stay
        // `sending`, an unknown outcome the next run looks up.
        let mut out: tokio::task::JoinSet<(usize, Answer)> = tokio::task::JoinSet::new();
        let mut tasks: HashMap<tokio::task::Id, usize> = HashMap::new();
        let mut flying: HashMap<usize, Flying> = HashMap::new();
        loop {
            let room = limit.saturating_sub(out.len()).min(waiting.len());
            if room > 0 {
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
                let begun = self.store.journal().begin_many(
                    &self.profile.name,
                    &intents,
                    self.guard(false),
                )?;
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
            }
            if out.is_empty() {
                return Ok(());
            }
            let mut answers = Vec::new();
            let first = out.join_next_with_id().await;
            answers.extend(first);
            while let Some(more) = out.try_join_next_with_id() {
                answers.push(more);
            }
            let answers: Vec<(usize, Answer)> = answers
                .into_iter()
                .filter_map(|r| match r {
                    Ok((_, (i, answer))) => Some((i, answer)),
                    // The task failed (it never does but by a panic): what it sent is
                    // unknown.
                    Err(e) => tasks.get(&e.id()).map(|i| {
                        (
                            *i,
                            Err(GatewayError::OutcomeUnknown {
                                reason: format!("the request's task stopped: {e}"),
                            }),
                        )
                    }),
                })
                .collect();
            self.record_group(answers, &mut flying, on_row).await?;
        }
    }

    /// Records a group of answers: their audit rows in one commit, their outcomes in one
    /// more, the orders made cached; an answer that needs more than that (a success
    /// without a usable trade number, a resend refused that may have arrived) the single
    /// payout's way, one by one.
    async fn record_group(
        &self,
        answers: Vec<(usize, Answer)>,
        flying: &mut HashMap<usize, Flying>,
        on_row: &mut dyn FnMut(usize, CoreResult<Entry>),
    ) -> CoreResult<()> {
        struct Plain {
            i: usize,
            f: Flying,
            status: Status,
            trade_no: Option<String>,
            code: Option<String>,
            message: String,
            pay_code: Option<i64>,
            result: String,
        }
        let mut plain: Vec<Plain> = Vec::new();
        let mut closer: Vec<(usize, Flying, Answer)> = Vec::new();
        for (i, answer) in answers {
            let Some(f) = flying.remove(&i) else {
                continue;
            };
            let result = Self::result_code(&answer);
            match &answer {
                Ok(a) if unusable_success(&f.entry, &a.data).is_none() => plain.push(Plain {
                    i,
                    status: Status::Accepted,
                    trade_no: Some(a.data.trade_no.clone()),
                    code: Some(paydesk_gateway::redact::terminal_safe(&a.code, 40)),
                    message: paydesk_gateway::redact::terminal_safe(&a.message, 500),
                    pay_code: Some(a.data.pay_code),
                    result,
                    f,
                }),
                Err(GatewayError::Rejected { .. })
                    if f.entry.attempts > 1 && self.listable(&f.entry) =>
                {
                    closer.push((i, f, answer));
                }
                Ok(_) => closer.push((i, f, answer)),
                Err(e) => {
                    let (status, code) = plain_failure(e);
                    plain.push(Plain {
                        i,
                        status,
                        trade_no: None,
                        code,
                        message: e.to_string(),
                        pay_code: None,
                        result,
                        f,
                    });
                }
            }
        }
        // The audit rows of the calls recorded together, as the single payout writes
        // them (the others' are written by the single way).
        self.audit_group(
            plain
                .iter()
                .map(|p| {
                    let ids = money_identifiers(
                        &p.f.entry,
                        p.trade_no.clone().filter(|_| p.status == Status::Accepted),
                    );
                    (name_of(&p.f.payout), ids, p.result.clone(), p.f.started)
                })
                .collect(),
        );
        let outcomes: Vec<(i64, &Claim, Outcome<'_>)> = plain
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
        self.store.journal().finish_many(&outcomes)?;
        for p in plain {
            let entry = self.store.journal().get(p.f.entry.id)?;
            if let Some(e) = &entry
                && e.status == Status::Accepted
            {
                self.cache_made(e, Some(method_of(&p.f.payout)), p.pay_code);
            }
            on_row(
                p.i,
                entry.ok_or_else(|| CoreError::internal("journal entry vanished")),
            );
        }
        for (i, f, answer) in closer {
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
        Ok(())
    }
}
