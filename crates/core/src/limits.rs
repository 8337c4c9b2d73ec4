//! Payout limits per currency (issue 35): the most one payout may be, and the most the
//! payouts of one business day (in the profile's business zone) may add up to. Kept per
//! profile in the home beside its reporting settings ([`crate::Home::limits`]); checked
//! by the desk before anything is journaled ([`crate::Money::payout`], a bulk run's plan).

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};

/// One currency's limits; a limit left out is no limit.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct CurrencyLimit {
    /// ISO 4217 code, upper case.
    pub currency: String,
    /// The most one payout may be (decimal string).
    pub per_payout: Option<String>,
    /// The most the payouts of one business day may add up to (decimal string).
    pub per_day: Option<String>,
}

/// A profile's payout limits.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Limits {
    pub currencies: Vec<CurrencyLimit>,
}

/// Which limit a payout is over.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum LimitKind {
    PerPayout,
    PerDay,
}

impl LimitKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::PerPayout => "per payout",
            Self::PerDay => "per day",
        }
    }
}

/// A payout found over a limit: which, its value, and (per day) what the day's payouts
/// already add up to before this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OverLimit {
    pub kind: LimitKind,
    pub currency: String,
    pub limit: Decimal,
    pub used_today: Decimal,
}

impl OverLimit {
    /// The refusal: a keyed rule on `amount` naming the limit and its value.
    pub fn error(&self) -> CoreError {
        match self.kind {
            LimitKind::PerPayout => CoreError::keyed(
                "amount",
                format!(
                    "is over this profile's limit per payout of {} {}",
                    self.limit, self.currency
                ),
                "limitPerPayout",
                &[
                    ("limit", self.limit.to_string()),
                    ("currency", self.currency.clone()),
                ],
            ),
            LimitKind::PerDay => CoreError::keyed(
                "amount",
                format!(
                    "would take today's payouts over this profile's limit per day of {} {} ({} {} paid or on the way today)",
                    self.limit, self.currency, self.used_today, self.currency
                ),
                "limitPerDay",
                &[
                    ("limit", self.limit.to_string()),
                    ("currency", self.currency.clone()),
                    ("used", self.used_today.to_string()),
                ],
            ),
        }
    }
}

fn amount(field: &str, text: &str) -> CoreResult<Decimal> {
    match text.trim().parse::<Decimal>() {
        Ok(d) if d > Decimal::ZERO => Ok(d),
        _ => Err(CoreError::keyed(
            field,
            format!("must be an amount above zero, got {text:?}"),
            "limitAmount",
            &[("got", text.to_string())],
        )),
    }
}

impl Limits {
    /// Checks the values a user types: a currency code once each, amounts above zero.
    pub fn validate(&self) -> CoreResult<()> {
        let mut seen = std::collections::HashSet::new();
        for (i, c) in self.currencies.iter().enumerate() {
            let code = c.currency.trim();
            if code.len() != 3 || !code.chars().all(|ch| ch.is_ascii_alphabetic()) {
                return Err(CoreError::keyed(
                    format!("limits.{i}.currency"),
                    format!("must be a three-letter currency code, got {:?}", c.currency),
                    "limitCurrency",
                    &[("got", c.currency.clone())],
                ));
            }
            if !seen.insert(code.to_ascii_uppercase()) {
                return Err(CoreError::keyed(
                    format!("limits.{i}.currency"),
                    format!("{code} has limits set twice"),
                    "limitCurrencyTwice",
                    &[("currency", code.to_string())],
                ));
            }
            if let Some(v) = &c.per_payout {
                amount(&format!("limits.{i}.perPayout"), v)?;
            }
            if let Some(v) = &c.per_day {
                amount(&format!("limits.{i}.perDay"), v)?;
            }
        }
        Ok(())
    }

    /// The limits as kept: codes upper case, amounts normalised, empty ones dropped.
    pub fn normalised(mut self) -> CoreResult<Self> {
        for c in &mut self.currencies {
            c.per_payout = c.per_payout.take().filter(|v| !v.trim().is_empty());
            c.per_day = c.per_day.take().filter(|v| !v.trim().is_empty());
        }
        self.validate()?;
        for c in &mut self.currencies {
            c.currency = c.currency.trim().to_ascii_uppercase();
            for v in [&mut c.per_payout, &mut c.per_day].into_iter().flatten() {
                *v = v
                    .trim()
                    .parse::<Decimal>()
                    .unwrap_or_default()
                    .normalize()
                    .to_string();
            }
        }
        self.currencies
            .retain(|c| c.per_payout.is_some() || c.per_day.is_some());
        Ok(self)
    }

    /// `currency`'s limits (per payout, per day), if any.
    pub fn of(&self, currency: &str) -> (Option<Decimal>, Option<Decimal>) {
        let parse = |v: &Option<String>| v.as_deref().and_then(|s| s.trim().parse().ok());
        self.currencies
            .iter()
            .find(|c| c.currency.eq_ignore_ascii_case(currency))
            .map(|c| (parse(&c.per_payout), parse(&c.per_day)))
            .unwrap_or((None, None))
    }

    /// Whether a payout of `amount` in `currency`, after `used_today` already paid or on
    /// the way today, stays within the limits; the first limit it is over otherwise.
    pub fn check(&self, currency: &str, amount: Decimal, used_today: Decimal) -> Option<OverLimit> {
        let (one, day) = self.of(currency);
        let over = |kind, limit| OverLimit {
            kind,
            currency: currency.to_ascii_uppercase(),
            limit,
            used_today,
        };
        if let Some(l) = one
            && amount > l
        {
            return Some(over(LimitKind::PerPayout, l));
        }
        if let Some(l) = day
            && used_today + amount > l
        {
            return Some(over(LimitKind::PerDay, l));
        }
        None
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn limits(per_payout: Option<&str>, per_day: Option<&str>) -> Limits {
        Limits {
            currencies: vec![CurrencyLimit {
                currency: "mxn".into(),
                per_payout: per_payout.map(str::to_string),
                per_day: per_day.map(str::to_string),
            }],
        }
        .normalised()
        .unwrap()
    }

    #[test]
    fn a_payout_at_the_limit_goes_and_one_cent_over_is_refused_naming_the_limit() {
        let l = limits(Some("1000.00"), None);
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        assert_eq!(l.check("MXN", d("1000.00"), Decimal::ZERO), None);
        let over = l.check("MXN", d("1000.01"), Decimal::ZERO).unwrap();
        assert_eq!(over.kind, LimitKind::PerPayout);
        let e = over.error().to_string();
        assert!(e.contains("1000 MXN") && e.contains("per payout"), "{e}");
        // Another currency has no limit.
        assert_eq!(l.check("USD", d("99999"), Decimal::ZERO), None);
    }

    #[test]
    fn the_day_counts_what_was_already_paid_today() {
        let l = limits(None, Some("500"));
        let d = |s: &str| s.parse::<Decimal>().unwrap();
        let used = d("120.50") + d("200");
        let room = d("500") - used;
        assert_eq!(l.check("MXN", room, used), None);
        let over = l.check("MXN", room + d("0.01"), used).unwrap();
        assert_eq!(over.kind, LimitKind::PerDay);
        assert_eq!(over.used_today, used);
        assert!(over.error().to_string().contains("320.50 MXN"));
    }

    #[test]
    fn bad_limits_are_refused_naming_the_field() {
        let bad = Limits {
            currencies: vec![CurrencyLimit {
                currency: "MXN".into(),
                per_payout: Some("-5".into()),
                per_day: None,
            }],
        };
        let e = bad.normalised().unwrap_err().to_string();
        assert!(e.contains("limits.0.perPayout"), "{e}");
        let twice = Limits {
            currencies: vec![
                CurrencyLimit {
                    currency: "MXN".into(),
                    per_payout: Some("5".into()),
                    per_day: None,
                },
                CurrencyLimit {
                    currency: "mxn".into(),
                    per_payout: None,
                    per_day: Some("5".into()),
                },
            ],
        };
        assert!(
            twice
                .validate()
                .unwrap_err()
                .to_string()
                .contains("limits.1.currency")
        );
    }
}
