//! What a maker's desk checks before it submits a request (issue 35 item 1): the
//! member's own payout limits, which the team's database enforces (schema 0025/0028),
//! read first so the desk says which limit a payout would pass, naming it, before
//! anything is written. The database still decides (a request made meanwhile by the
//! same member on another desk counts there).

use rust_decimal::Decimal;

use super::Team;
use crate::error::{CoreError, CoreResult};

impl Team {
    /// Refuses payouts of `amounts` in `currency` that would pass this member's limit
    /// per payout or per day, naming the limit; nothing when the member has none.
    pub(crate) fn check_my_limit(&self, currency: &str, amounts: &[&str]) -> CoreResult<()> {
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
