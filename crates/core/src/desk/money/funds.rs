//! Checked before it leaves (issue 35): the balance a payout comes out of, the fees this
//! desk knows, what is left, and the profile's limits; for one payout's confirmation
//! ([`Money::payout_funds`]) and for a bulk run's plan ([`Desk::hold_beyond_funds`]).
//!
//! The gateway states no fee before a payout is made: a fee is known only from the last
//! cached payout of the currency (never invented). A balance is fresh when the gateway
//! answered it within [`FRESH_SECS`]; an older snapshot is shown with its age. Only a
//! fresh balance short of the amount and its known fee refuses a payout, before anything
//! is journaled; a balance that cannot be read does not (the gateway still refuses).

use std::collections::{BTreeMap, HashSet};

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::bulk::{self, RowAction, RowReason};
use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::journal::Status;
use crate::limits::OverLimit;
use crate::store::balances::BalanceSnapshot;
use crate::store::now_ms;

/// The journal's payout operations: what a day's limit counts.
pub(in crate::desk) const PAYOUTS: [&str; 2] = ["v2.payout", "v1.payout"];

/// A balance answered within this many seconds is fresh.
pub const FRESH_SECS: i64 = 120;

/// What one currency's balance says about money about to leave.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Funds {
    pub currency: String,
    /// The available balance (decimal string); `None` when the desk has none.
    pub balance: Option<String>,
    /// When the balance was answered (UTC millis).
    pub taken_at: Option<i64>,
    /// Its age in seconds when this was made.
    pub age_secs: Option<i64>,
    /// Answered within [`FRESH_SECS`].
    pub fresh: bool,
    /// Why the balance could not be read now (the cached one is shown instead).
    pub refresh_error: Option<String>,
    /// What leaves: the amount(s) (decimal string).
    pub amount: String,
    /// The fees this desk knows for it; `None`: fee not known.
    pub fee: Option<String>,
    /// The payout the fee is read from.
    pub fee_from: Option<String>,
    /// Amount plus the known fees.
    pub total: String,
    /// Balance minus total; `None` without a balance.
    pub left: Option<String>,
    /// The balance is short of the total.
    pub short: bool,
    /// The profile's limits for this currency (decimal strings) and what today's payouts
    /// already add up to (in the profile's business zone).
    pub limit_per_payout: Option<String>,
    pub limit_per_day: Option<String>,
    pub used_today: String,
}

fn dec(v: &serde_json::Value) -> Option<Decimal> {
    match v {
        serde_json::Value::String(s) => s.parse().ok(),
        serde_json::Value::Number(n) => n.to_string().parse().ok(),
        _ => None,
    }
}

impl Desk {
    /// When today (the business day in the profile's zone) began, in UTC millis.
    fn day_start(&self) -> CoreResult<i64> {
        let zone = self.orders().reporting().zone();
        let now = self.clock.now_ms();
        let today = chrono::NaiveDate::parse_from_str(&zone.day_of(now), "%Y-%m-%d")
            .map_err(|e| CoreError::internal(format!("today in the business zone: {e}")))?;
        Ok(zone.start_of(today).unwrap_or(now - 86_400_000))
    }

    /// A payout request's per-day limit as the journal checks it in the transaction that
    /// writes the intent ([`crate::store::journal::JournalStore::begin_within`]): `None`
    /// for an operation that is no payout or a currency without a per-day limit.
    pub(in crate::desk) fn day_limit_of(
        &self,
        operation: &str,
        body: &serde_json::Value,
    ) -> CoreResult<Option<(String, Decimal, Decimal, i64)>> {
        if !PAYOUTS.contains(&operation) {
            return Ok(None);
        }
        let Some(currency) = body.get("currencyCode").and_then(|c| c.as_str()) else {
            return Ok(None);
        };
        let currency = currency.trim().to_ascii_uppercase();
        let Some(per_day) = self.money().limits().of(&currency).1 else {
            return Ok(None);
        };
        let Some(amount) = body.get("sourceAmount").and_then(dec) else {
            return Ok(None);
        };
        Ok(Some((currency, amount, per_day, self.day_start()?)))
    }

    /// [`Money::over_limit`], today's payouts numbered in `except` left out (a `pending`
    /// entry about to be sent is counted as this payout, not twice).
    fn over_limit_but(
        &self,
        currency: &str,
        amount: Decimal,
        except: &HashSet<String>,
    ) -> CoreResult<Option<OverLimit>> {
        let limits = self.money().limits();
        let (one, day) = limits.of(currency);
        if one.is_none() && day.is_none() {
            return Ok(None);
        }
        let used = self.money().paid_today(currency, except)?;
        Ok(limits.check(currency, amount, used))
    }

    /// The latest snapshot of `currency`'s balance this desk holds.
    fn cached_balance(&self, currency: &str) -> CoreResult<Option<BalanceSnapshot>> {
        Ok(self
            .store
            .balances()
            .latest()?
            .into_iter()
            .find(|b| b.currency.eq_ignore_ascii_case(currency)))
    }

    /// The checks a payout passes before it is journaled: the profile's limits, then a
    /// balance asked of the gateway now (when this desk holds the key): short of the
    /// amount and the known fee, it is refused naming the balance. A number already in
    /// the journal is not checked again (it goes nowhere new: the journal replays it),
    /// but for one still `pending` (never sent, or resolved as not there): it is about to
    /// leave, and is checked like a new one (review-money-r5 F3).
    pub(in crate::desk) async fn check_before_journal(
        &self,
        mer_order_no: &str,
        currency: &str,
        amount: Decimal,
    ) -> CoreResult<()> {
        let mut except = HashSet::new();
        match self
            .store
            .journal()
            .get_by_number(&self.profile.name, mer_order_no)?
        {
            Some(e) if e.status == Status::Pending => {
                except.insert(e.mer_order_no);
            }
            Some(_) => return Ok(()),
            None => {}
        }
        if let Some(over) = self.over_limit_but(currency, amount, &except)? {
            return Err(over.error());
        }
        // An amount no payout can have was refused by the request's rules before this.
        if self.client.is_none() {
            return Ok(());
        }
        let Ok(s) = self.money().balance(currency).await else {
            return Ok(());
        };
        let Ok(balance) = s.balance.parse::<Decimal>() else {
            return Ok(());
        };
        let fee = self
            .payout_fee_estimate(currency)
            .map(|(f, _)| f)
            .unwrap_or_default();
        let total = amount + fee;
        if balance < total {
            let cur = currency.to_ascii_uppercase();
            return Err(CoreError::keyed(
                "amount",
                format!(
                    "is more than the available balance: {balance} {cur} now, {total} {cur} needed with the fees this desk knows; nothing was sent"
                ),
                "balanceShort",
                &[
                    ("balance", balance.to_string()),
                    ("total", total.to_string()),
                    ("currency", cur),
                ],
            ));
        }
        Ok(())
    }

    /// [`Desk::check_before_journal`] of a payout about to leave again in the same call
    /// (review r6 R6-3): an unknown entry its lookups just proved absent is `pending`
    /// now, and goes only within the limits and the balance of now, as any payout sent
    /// again; its currency and amount as its request says. Other operations: nothing.
    pub(in crate::desk) async fn check_before_resend(
        &self,
        operation: &str,
        mer_order_no: &str,
        body: &serde_json::Value,
    ) -> CoreResult<()> {
        if !PAYOUTS.contains(&operation) {
            return Ok(());
        }
        let currency = body.get("currencyCode").and_then(|c| c.as_str());
        let amount = body.get("sourceAmount").and_then(dec);
        let (Some(currency), Some(amount)) = (currency, amount) else {
            return Ok(());
        };
        self.check_before_journal(mer_order_no, currency.trim(), amount)
            .await
    }

    /// A bulk plan's rows against the balances and limits, in file order per currency:
    /// a row over a limit is held naming it; once a row's amount and known fee go beyond
    /// the balance (the latest snapshot), it and every later row of its currency are held.
    /// These holds stand whatever the operator confirmed (`include_held` does not send a
    /// row the money is not there for). Returns the funds of each currency the plan sends.
    pub(in crate::desk) fn hold_beyond_funds(
        &self,
        planned: &mut [bulk::Planned],
    ) -> CoreResult<Vec<bulk::CurrencyFunds>> {
        // Left out of "paid today" only the rows this plan sends (a row the journal holds
        // as queued is counted once, here): rows of the same file paid by an earlier run
        // count against the day like any other payout (review-money-r5 F2).
        let own: HashSet<String> = planned
            .iter()
            .filter(|p| p.action == RowAction::Send)
            .map(|p| p.payout.mer_order_no().to_string())
            .collect();
        let limits = self.money().limits();
        let latest = self.store.balances().latest()?;
        struct Run {
            balance: Option<(Decimal, i64)>,
            fee: Option<Decimal>,
            spent: Decimal,
            today: Decimal,
            cut: bool,
            held: u32,
        }
        let mut runs: BTreeMap<String, Run> = BTreeMap::new();
        // The rows any plan sends take the money first, in file order; only then the
        // repeats the operator confirmed (`include_held`) take what is left: a row shown
        // as going still goes when the held rows are sent too (review-money-r5 F4).
        let repeat = |p: &bulk::Planned| {
            matches!(
                p.why,
                RowReason::Changed { .. }
                    | RowReason::PaidDaysAgo { .. }
                    | RowReason::SameRecent { .. }
            )
        };
        let order: Vec<usize> = (0..planned.len())
            .filter(|i| !repeat(&planned[*i]))
            .chain((0..planned.len()).filter(|i| repeat(&planned[*i])))
            .collect();
        for i in order {
            let p = &mut planned[i];
            if p.action != RowAction::Send {
                continue;
            }
            let (currency, amount) = p.payout.money();
            let currency = currency.to_ascii_uppercase();
            if !runs.contains_key(&currency) {
                let balance = latest
                    .iter()
                    .find(|b| b.currency.eq_ignore_ascii_case(&currency))
                    .and_then(|b| Some((b.balance.parse().ok()?, b.taken_at)));
                let (one, day) = limits.of(&currency);
                let today = if one.is_some() || day.is_some() {
                    self.money().paid_today(&currency, &own)?
                } else {
                    Decimal::ZERO
                };
                runs.insert(
                    currency.clone(),
                    Run {
                        balance,
                        fee: self.payout_fee_estimate(&currency).map(|(f, _)| f),
                        spent: Decimal::ZERO,
                        today,
                        cut: false,
                        held: 0,
                    },
                );
            }
            let Some(run) = runs.get_mut(&currency) else {
                continue;
            };
            if let Some(over) = limits.check(&currency, amount, run.today) {
                p.action = RowAction::Held;
                p.why = RowReason::OverLimit {
                    limit: over.kind,
                    currency: currency.clone(),
                    value: over.limit.to_string(),
                };
                p.earlier = None;
                continue;
            }
            let need = amount + run.fee.unwrap_or_default();
            if let Some((balance, _)) = run.balance
                && (run.cut || run.spent + need > balance)
            {
                run.cut = true;
                run.held += 1;
                p.action = RowAction::Held;
                p.why = RowReason::BeyondBalance {
                    currency: currency.clone(),
                    balance: balance.to_string(),
                    needed: (run.spent + need).to_string(),
                };
                p.earlier = None;
                continue;
            }
            run.spent += need;
            run.today += amount;
        }
        let now = now_ms();
        Ok(runs
            .into_iter()
            .map(|(currency, r)| bulk::CurrencyFunds {
                balance: r.balance.map(|(b, _)| b.to_string()),
                taken_at: r.balance.map(|(_, t)| t),
                age_secs: r.balance.map(|(_, t)| ((now - t) / 1000).max(0)),
                fresh: r
                    .balance
                    .is_some_and(|(_, t)| (now - t) / 1000 <= FRESH_SECS),
                total: r.spent.to_string(),
                fee_known: r.fee.is_some(),
                left: r.balance.map(|(b, _)| (b - r.spent).to_string()),
                held_beyond_balance: r.held,
                currency,
            })
            .collect())
    }

    /// Before a confirmed run writes anything: the balances asked again; if they no
    /// longer reach a row the plan sends, the run is refused whole (nothing journaled),
    /// naming the currency and its balance, for the plan to be checked again.
    pub(in crate::desk) async fn funds_still_there(
        &self,
        file: &bulk::BulkFile,
        planned: &[bulk::Planned],
    ) -> CoreResult<()> {
        if self.client.is_none() {
            return Ok(());
        }
        self.money().refresh_bulk_balances(file).await;
        let mut again = planned.to_vec();
        self.hold_beyond_funds(&mut again)?;
        let changed = planned
            .iter()
            .zip(&again)
            .find(|(p, a)| p.action == RowAction::Send && a.action == RowAction::Held);
        if let Some((_, a)) = changed {
            let (currency, balance) = match &a.why {
                RowReason::BeyondBalance {
                    currency, balance, ..
                } => (currency.clone(), balance.clone()),
                _ => (a.payout.money().0.to_ascii_uppercase(), String::new()),
            };
            return Err(CoreError::keyed(
                "file",
                format!(
                    "the {currency} balance is now {balance}: it no longer reaches every row confirmed (line {}); nothing was sent, check the file again",
                    a.line
                ),
                "bulkBalanceChanged",
                &[
                    ("currency", currency),
                    ("balance", balance),
                    ("line", a.line.to_string()),
                ],
            ));
        }
        Ok(())
    }
}

impl<'d> super::Money<'d> {
    /// The profile's payout limits as the home keeps them now (read for each check, so a
    /// change made elsewhere, e.g. `paydesk payout limits` while the app is open, holds
    /// at the next payout: review-money-r5 F7); the last ones read if the file cannot be.
    pub fn limits(&self) -> crate::limits::Limits {
        match self.desk.home.limits(&self.desk.profile.name) {
            Ok(l) => {
                *crate::desk::lock(&self.desk.limits) = l.clone();
                l
            }
            Err(e) => {
                tracing::warn!(error = %e, "the profile's limits not read again: the last ones read hold");
                crate::desk::lock(&self.desk.limits).clone()
            }
        }
    }

    /// Sets the profile's payout limits: checked, kept with the profile in the home the
    /// desk was opened from ([`crate::Home::set_limits`], where every check reads them),
    /// and held by this desk at once. Returns them as kept. (Was `use_limits`, which only
    /// changed this desk's copy until the next check read the home again: review r6.)
    pub fn set_limits(&self, limits: crate::limits::Limits) -> CoreResult<crate::limits::Limits> {
        let kept = self.desk.home.set_limits(&self.desk.profile.name, limits)?;
        *crate::desk::lock(&self.desk.limits) = kept.clone();
        Ok(kept)
    }

    /// What the payouts of today (the business day in the profile's zone) in `currency`
    /// add up to: every payout in the journal but those refused, and but `except`.
    pub fn paid_today(&self, currency: &str, except: &HashSet<String>) -> CoreResult<Decimal> {
        let start = self.desk.day_start()?;
        let entries = self.desk.store.journal().list(
            &self.desk.profile.name,
            &[
                Status::Pending,
                Status::Sending,
                Status::Accepted,
                Status::Unknown,
            ],
            &PAYOUTS,
            1_000_000,
        )?;
        Ok(entries
            .iter()
            // A payout counts on the day it was sent (written, if never sent).
            .filter(|e| e.sent_at.unwrap_or(e.created_at) >= start)
            .filter(|e| !except.contains(&e.mer_order_no))
            .filter(|e| {
                e.request
                    .get("currencyCode")
                    .and_then(|c| c.as_str())
                    .is_some_and(|c| c.eq_ignore_ascii_case(currency))
            })
            .filter_map(|e| e.request.get("sourceAmount").and_then(dec))
            .sum())
    }

    /// A payout of `amount` in `currency` against the profile's limits: the first limit
    /// it is over, counting today's payouts.
    pub fn over_limit(&self, currency: &str, amount: Decimal) -> CoreResult<Option<OverLimit>> {
        self.desk.over_limit_but(currency, amount, &HashSet::new())
    }

    /// The confirmation's figures for a payout of `amount` in `currency`: the balance
    /// asked of the gateway now when `refresh` (the cached one with its age if that
    /// fails, or without `refresh`), the known fee, what is left, the limits.
    pub async fn payout_funds(
        self,
        currency: &str,
        amount: &str,
        refresh: bool,
    ) -> CoreResult<Funds> {
        let amount: Decimal = amount.trim().parse().map_err(|_| {
            CoreError::keyed(
                "amount",
                format!("must be an amount, got {amount:?}"),
                "limitAmount",
                &[("got", amount.to_string())],
            )
        })?;
        let mut refresh_error = None;
        let snapshot = if refresh && self.desk.client.is_some() {
            match self.balance(currency).await {
                Ok(s) => Some(s),
                Err(e) => {
                    refresh_error = Some(e.to_string());
                    self.desk.cached_balance(currency)?
                }
            }
        } else {
            self.desk.cached_balance(currency)?
        };
        let fee = self.desk.payout_fee_estimate(currency);
        let total = amount + fee.as_ref().map(|(f, _)| *f).unwrap_or_default();
        let balance = snapshot
            .as_ref()
            .and_then(|s| s.balance.parse::<Decimal>().ok());
        let age = snapshot
            .as_ref()
            .map(|s| ((now_ms() - s.taken_at) / 1000).max(0));
        let (one, day) = self.limits().of(currency);
        Ok(Funds {
            currency: currency.to_ascii_uppercase(),
            balance: balance.map(|b| b.to_string()),
            taken_at: snapshot.as_ref().map(|s| s.taken_at),
            age_secs: age,
            fresh: age.is_some_and(|a| a <= FRESH_SECS),
            refresh_error,
            amount: amount.to_string(),
            fee: fee.as_ref().map(|(f, _)| f.to_string()),
            fee_from: fee.map(|(_, from)| from),
            total: total.to_string(),
            left: balance.map(|b| (b - total).to_string()),
            short: balance.is_some_and(|b| b < total),
            limit_per_payout: one.map(|d| d.to_string()),
            limit_per_day: day.map(|d| d.to_string()),
            // The journal is read only when a limit asks what today's payouts add up to.
            used_today: if one.is_some() || day.is_some() {
                self.paid_today(currency, &HashSet::new())?.to_string()
            } else {
                "0".into()
            },
        })
    }

    /// The latest balance of each currency a bulk file pays in, asked of the gateway now
    /// (when this desk holds the key); a currency that cannot be read keeps its snapshot.
    pub async fn refresh_bulk_balances(self, file: &bulk::BulkFile) {
        if self.desk.client.is_none() {
            return;
        }
        let mut currencies: Vec<String> = file
            .rows
            .iter()
            .map(|(_, r)| r.money().0.to_ascii_uppercase())
            .collect();
        currencies.sort();
        currencies.dedup();
        for c in currencies {
            let _ = self.balance(&c).await;
        }
    }

    /// [`Money::bulk_plan`] on balances asked of the gateway now, as the run will ask
    /// them again before it sends (what a preview shows and its digest).
    pub async fn bulk_plan_fresh(self, file: &bulk::BulkFile) -> CoreResult<bulk::BulkPlan> {
        self.refresh_bulk_balances(file).await;
        self.bulk_plan(file)
    }
}
