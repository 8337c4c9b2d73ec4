//! What a maker's desk checks before it submits a request (issue 35 item 1): the
//! member's own payout limits, which the team's database enforces (schema 0025/0028),
//! read first so the desk says which limit a payout would pass, naming it, before
//! anything is written. The database still decides (a request made meanwhile by the
//! same member on another desk counts there).

use rust_decimal::Decimal;

use super::{Team, TeamRole};
use crate::error::{CoreError, CoreResult};

impl Team {
    /// Refuses payouts of `amounts` in `currency` that would pass this member's limit
    /// per payout or per day, naming the limit; nothing when the member has none, or
    /// makes no requests (an approver's, a signer's or an admin's preview: the database
    /// keeps `my_payout_limit` to makers, and only a maker's requests are limited).
    pub(crate) fn check_my_limit(&self, currency: &str, amounts: &[&str]) -> CoreResult<()> {
        if !self.has_role(TeamRole::Maker) {
            return Ok(());
        }
        let currency = currency.trim().to_ascii_uppercase();
        let Some(l) = self.tables().my_payout_limit(&currency)? else {
            return Ok(());
        };
        let dec = |s: &str| s.trim().parse::<Decimal>().ok();
        let amounts: Vec<Decimal> = amounts.iter().filter_map(|a| dec(a)).collect();
        if let Some(max) = l.per_payout.as_deref().and_then(dec)
            && let Some((i, over)) = amounts.iter().enumerate().find(|(_, a)| **a > max)
        {
            let row = if amounts.len() > 1 {
                format!("row {}: ", i + 1)
            } else {
                String::new()
            };
            return Err(CoreError::keyed(
                "amount",
                format!(
                    "{row}{} {currency} is over your limit per payout of {} {currency} (set by the team's admin)",
                    over.normalize(),
                    max.normalize()
                ),
                "memberLimitPerPayout",
                &[
                    ("amount", over.normalize().to_string()),
                    ("limit", max.normalize().to_string()),
                    ("currency", currency.clone()),
                ],
            ));
        }
        if let Some(day) = l.per_day.as_deref().and_then(dec) {
            let used = dec(&l.used_today).unwrap_or_default();
            let asked: Decimal = amounts.iter().sum();
            if used + asked > day {
                let left = (day - used).max(Decimal::ZERO).normalize().to_string();
                return Err(CoreError::keyed(
                    "amount",
                    format!(
                        "{} {currency} would take your payouts today over your limit per day of {} {currency} ({} {currency} requested today, {} {currency} left; the day is {}'s)",
                        asked.normalize(),
                        day.normalize(),
                        used.normalize(),
                        left,
                        l.day_zone
                    ),
                    "memberLimitPerDay",
                    &[
                        ("amount", asked.normalize().to_string()),
                        ("limit", day.normalize().to_string()),
                        ("used", used.normalize().to_string()),
                        ("left", left.clone()),
                        ("currency", currency.clone()),
                        ("zone", l.day_zone.clone()),
                    ],
                ));
            }
        }
        Ok(())
    }
}

/// The rows of a payout request its signer's worker does not send because the balance,
/// asked once before any row goes, does not reach them (rows in order, by their amounts;
/// each row sent still has its own check with the fees the desk knows). A row already
/// in the journal (a request taken up again) is never held: it was sent, and is looked
/// up. Nothing held when the balance cannot be read (each row's own check still asks).
pub(super) async fn rows_beyond_balance(
    desk: &crate::desk::Desk,
    request: &crate::store::team::Request,
    rows: &[crate::store::team::RequestRow],
) -> std::collections::HashMap<i32, String> {
    let mut held = std::collections::HashMap::new();
    if request.operation != "payout" {
        return held;
    }
    let fresh: Vec<_> = rows
        .iter()
        .filter(|r| {
            desk.journal()
                .entry_by_number(&r.mer_order_no)
                .is_ok_and(|e| e.is_none())
        })
        .collect();
    if fresh.is_empty() {
        return held;
    }
    let balance = match desk.money().balance(&request.currency).await {
        Ok(s) => match s.balance.parse::<Decimal>() {
            Ok(b) => b,
            Err(_) => return held,
        },
        Err(e) => {
            tracing::warn!(error = %e, "the balance was not read before the request's rows");
            return held;
        }
    };
    let mut spent = Decimal::ZERO;
    for r in fresh {
        let Ok(amount) = r.amount.trim().parse::<Decimal>() else {
            continue;
        };
        if spent + amount > balance {
            held.insert(
                r.row_no,
                format!(
                    "beyond the available balance: {} {cur} when the worker took up this request, {} {cur} taken by the rows before it, this row {} {cur}; nothing was sent",
                    balance.normalize(),
                    spent.normalize(),
                    amount.normalize(),
                    cur = request.currency
                ),
            );
        } else {
            spent += amount;
        }
    }
    held
}
