//! A manager's view across profiles: every profile's last balance of each currency, its
//! last sync and its unknown outcomes, read from each profile's own store (nothing is
//! asked of any gateway), with totals per currency. Currencies are never converted
//! unless the user gives rates, and then the converted total says which rates it used.

use std::collections::BTreeMap;
use std::sync::Arc;

use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};
use crate::profile::{Home, Profile};
use crate::secrets::Secrets;
use crate::store::Store;
use crate::store::balances::BalanceSnapshot;

/// One profile's figures.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileFigures {
    pub profile: String,
    pub mer_no: u64,
    /// The built-in sandbox: no real money.
    pub sandbox: bool,
    /// A team profile (its figures are the team's database's).
    pub team: bool,
    /// The last snapshot of each currency; empty when none was ever taken.
    pub balances: Vec<BalanceSnapshot>,
    /// UTC millis of the last sync; none when the profile never synced.
    pub last_sync: Option<i64>,
    /// Journal entries whose outcome is not known yet.
    pub unknown_outcomes: u32,
    /// The profile was never opened on this machine (no store yet).
    pub never_opened: bool,
    /// Why the profile's figures could not be read (its store, its team's database).
    pub error: Option<String>,
}

/// The total of one currency over the profiles that hold it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencySum {
    pub currency: String,
    /// Decimal strings: the sums of the profiles' last snapshots.
    pub balance: String,
    pub total_balance: String,
    /// How many profiles hold a snapshot of it.
    pub profiles: u32,
    /// The oldest snapshot summed (UTC millis): a total is as old as its oldest part.
    pub oldest: i64,
}

/// A rate the user gave: one unit of `currency` is `rate` of the target currency.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConversionRate {
    pub currency: String,
    /// Decimal string.
    pub rate: String,
}

/// The totals converted to one currency with the user's rates.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConvertedTotal {
    pub currency: String,
    /// Decimal string: the sum of the totals whose currency has a rate (or is the
    /// target itself).
    pub total_balance: String,
    /// Currencies left out for want of a rate.
    pub missing: Vec<String>,
}

#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Overview {
    pub profiles: Vec<ProfileFigures>,
    pub totals: Vec<CurrencySum>,
    pub converted: Option<ConvertedTotal>,
}

/// Every profile's figures from its own store. A team profile is read from its team's
/// database with the member's password from the keyring; one that cannot be read says
/// why in its row, and the others are still shown.
pub fn overview(
    home: &Home,
    secrets: &Secrets,
    to: Option<(&str, &[ConversionRate])>,
) -> CoreResult<Overview> {
    let mut profiles = Vec::new();
    for p in home.profiles()? {
        profiles.push(figures_of(home, secrets, &p));
    }
    let totals = totals(&profiles)?;
    let converted = to
        .map(|(target, rates)| convert(&totals, target, rates))
        .transpose()?;
    Ok(Overview {
        profiles,
        totals,
        converted,
    })
}

fn figures_of(home: &Home, secrets: &Secrets, p: &Profile) -> ProfileFigures {
    let mut f = ProfileFigures {
        profile: p.name.clone(),
        mer_no: p.mer_no,
        sandbox: p.is_sandbox(),
        team: p.team.is_some(),
        balances: vec![],
        last_sync: None,
        unknown_outcomes: 0,
        never_opened: false,
        error: None,
    };
    let store = match &p.team {
        Some(cfg) => secrets.team_password(&p.name).and_then(|password| {
            let link = Arc::new(crate::store::pg::PgLink::connect(cfg, password.expose())?);
            Store::open_team(link.clone(), link, p.mer_no as i64)
        }),
        None => {
            let path = home.database(&p.name);
            if !path.exists() {
                f.never_opened = true;
                return f;
            }
            Store::open_sqlite(&path)
        }
    };
    let read = store.and_then(|s| {
        let balances = s.balances().latest()?;
        let last_sync = s.sync_state().last_synced(&p.name)?;
        let unknown = s.journal().unresolved(&p.name)?.len();
        Ok((balances, last_sync, unknown))
    });
    match read {
        Ok((balances, last_sync, unknown)) => {
            f.balances = balances;
            f.last_sync = last_sync;
            f.unknown_outcomes = u32::try_from(unknown).unwrap_or(u32::MAX);
        }
        Err(e) => f.error = Some(e.to_string()),
    }
    f
}

fn dec(field: &str, s: &str) -> CoreResult<Decimal> {
    s.trim()
        .parse()
        .map_err(|_| CoreError::validation(field, format!("{s:?} is not a decimal amount")))
}

/// The sums per currency, in currency order.
pub fn totals(profiles: &[ProfileFigures]) -> CoreResult<Vec<CurrencySum>> {
    let mut by: BTreeMap<String, (Decimal, Decimal, u32, i64)> = BTreeMap::new();
    for p in profiles {
        for b in &p.balances {
            let e =
                by.entry(b.currency.clone())
                    .or_insert((Decimal::ZERO, Decimal::ZERO, 0, i64::MAX));
            e.0 += dec("balance", &b.balance)?;
            e.1 += dec("totalBalance", &b.total_balance)?;
            e.2 += 1;
            e.3 = e.3.min(b.taken_at);
        }
    }
    Ok(by
        .into_iter()
        .map(|(currency, (balance, total, n, oldest))| CurrencySum {
            currency,
            balance: balance.to_string(),
            total_balance: total.to_string(),
            profiles: n,
            oldest,
        })
        .collect())
}

/// The totals in `target` with the user's `rates` (the target's own total counts as
/// is; a currency without a rate is left out and named).
pub fn convert(
    totals: &[CurrencySum],
    target: &str,
    rates: &[ConversionRate],
) -> CoreResult<ConvertedTotal> {
    let target = target.trim().to_ascii_uppercase();
    paydesk_gateway::money::Currency::parse(&target)
        .map_err(|rule| CoreError::validation("currency", rule))?;
    let mut given = BTreeMap::new();
    for r in rates {
        let rate = dec("rate", &r.rate)?;
        if rate <= Decimal::ZERO {
            return Err(CoreError::validation(
                "rate",
                format!("the rate of {} must be more than 0", r.currency),
            ));
        }
        given.insert(r.currency.trim().to_ascii_uppercase(), rate);
    }
    let mut sum = Decimal::ZERO;
    let mut missing = Vec::new();
    for t in totals {
        let amount = dec("totalBalance", &t.total_balance)?;
        if t.currency == target {
            sum += amount;
        } else if let Some(rate) = given.get(&t.currency) {
            sum += amount * rate;
        } else {
            missing.push(t.currency.clone());
        }
    }
    Ok(ConvertedTotal {
        currency: target,
        total_balance: sum.round_dp(8).normalize().to_string(),
        missing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snap(currency: &str, balance: &str, total: &str, at: i64) -> BalanceSnapshot {
        BalanceSnapshot {
            currency: currency.into(),
            balance: balance.into(),
            un_checked_balance: "0".into(),
            total_balance: total.into(),
            taken_at: at,
        }
    }

    fn profile(name: &str, balances: Vec<BalanceSnapshot>) -> ProfileFigures {
        ProfileFigures {
            profile: name.into(),
            mer_no: 1,
            sandbox: false,
            team: false,
            balances,
            last_sync: None,
            unknown_outcomes: 0,
            never_opened: false,
            error: None,
        }
    }

    #[test]
    fn totals_add_each_currency_apart_and_keep_the_oldest_snapshot() {
        let t = totals(&[
            profile(
                "a",
                vec![snap("MXN", "100.50", "120.50", 5), snap("USD", "1", "1", 9)],
            ),
            profile("b", vec![snap("MXN", "0.25", "0.25", 3)]),
            profile("c", vec![]),
        ])
        .unwrap();
        assert_eq!(t.len(), 2);
        assert_eq!(t[0].currency, "MXN");
        assert_eq!(t[0].balance, "100.75");
        assert_eq!(t[0].total_balance, "120.75");
        assert_eq!(t[0].profiles, 2);
        assert_eq!(t[0].oldest, 3);
        assert_eq!(t[1].total_balance, "1");
    }

    #[test]
    fn nothing_is_converted_without_a_rate() {
        let t = totals(&[profile(
            "a",
            vec![
                snap("MXN", "100", "100", 1),
                snap("USD", "10", "10", 1),
                snap("BRL", "5", "5", 1),
            ],
        )])
        .unwrap();
        let c = convert(
            &t,
            "usd",
            &[ConversionRate {
                currency: "MXN".into(),
                rate: "0.05".into(),
            }],
        )
        .unwrap();
        assert_eq!(c.currency, "USD");
        assert_eq!(c.total_balance, "15", "10 USD + 100 MXN at 0.05");
        assert_eq!(c.missing, ["BRL"]);
        let bad = convert(
            &t,
            "USD",
            &[ConversionRate {
                currency: "MXN".into(),
                rate: "-1".into(),
            }],
        );
        assert!(matches!(bad, Err(CoreError::Validation { field, .. }) if field == "rate"));
    }
}
