//! A manager's view across profiles: every profile's last balance of each currency, its
//! last sync and its unknown outcomes, read from each profile's own store (nothing is
//! asked of any gateway), with totals per currency. Currencies are never converted
//! unless the user gives rates, and then the converted total says which rates it used.

use std::collections::BTreeMap;

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
    /// Where its balances come from (the merchant at its gateway, or the team's
    /// database): profiles of one source are counted once in the totals.
    #[serde(skip)]
    pub source: String,
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
        source: match &p.team {
            Some(t) => format!("team:{}:{}/{}:{}", t.host, t.port, t.database, p.mer_no),
            None => format!(
                "gateway:{}:{}",
                p.base_url.as_deref().unwrap_or("sandbox"),
                p.mer_no
            ),
        },
    };
    let store = match &p.team {
        Some(cfg) => {
            paydesk_core::team_member::member_password(cfg, secrets, &p.name).and_then(|password| {
                paydesk_core::team_member::open_store(
                    cfg,
                    password.expose(),
                    p.mer_no as i64,
                    paydesk_core::team_member::Links::One,
                )
            })
        }
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
    s.trim().parse().map_err(|_| {
        CoreError::keyed(
            field,
            format!("{s:?} is not a decimal amount"),
            "amountDecimal",
            &[("got", s.to_string())],
        )
    })
}

/// The sums per currency, in currency order. The built-in sandbox's demo money is left
/// out, and a merchant reached by several profiles (a desk of its own and a team's, two
/// members of one team) is counted once, with its newest snapshot of each currency.
pub fn totals(profiles: &[ProfileFigures]) -> CoreResult<Vec<CurrencySum>> {
    let mut newest: BTreeMap<(String, String), &BalanceSnapshot> = BTreeMap::new();
    for p in profiles.iter().filter(|p| !p.sandbox) {
        for b in &p.balances {
            let key = (p.source.clone(), b.currency.clone());
            if newest.get(&key).is_none_or(|n| n.taken_at < b.taken_at) {
                newest.insert(key, b);
            }
        }
    }
    let mut by: BTreeMap<String, (Decimal, Decimal, u32, i64)> = BTreeMap::new();
    for ((_, currency), b) in newest {
        let e = by
            .entry(currency)
            .or_insert((Decimal::ZERO, Decimal::ZERO, 0, i64::MAX));
        e.0 += dec("balance", &b.balance)?;
        e.1 += dec("totalBalance", &b.total_balance)?;
        e.2 += 1;
        e.3 = e.3.min(b.taken_at);
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
        let rate: Decimal = r.rate.trim().parse().map_err(|_| {
            CoreError::keyed(
                "rate",
                format!(
                    "the rate of {} ({:?}) is not a decimal number",
                    r.currency, r.rate
                ),
                "rateDecimal",
                &[("currency", r.currency.clone()), ("got", r.rate.clone())],
            )
        })?;
        if rate <= Decimal::ZERO {
            return Err(CoreError::keyed(
                "rate",
                format!("the rate of {} must be more than 0", r.currency),
                "ratePositive",
                &[("currency", r.currency.clone())],
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
            sum = amount
                .checked_mul(*rate)
                .and_then(|v| sum.checked_add(v))
                .ok_or_else(|| {
                    CoreError::keyed(
                        "rate",
                        format!(
                            "the rate of {} makes a total too large to count",
                            t.currency
                        ),
                        "rateTooLarge",
                        &[("currency", t.currency.clone())],
                    )
                })?;
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
            source: format!("gateway:https://gw.example:{name}"),
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
    fn the_sandbox_is_left_out_and_one_merchant_counted_once() {
        let mut sandbox = profile("sandbox", vec![snap("MXN", "1000000", "1000000", 1)]);
        sandbox.sandbox = true;
        let mut desk = profile("acme", vec![snap("MXN", "100", "100", 5)]);
        let mut team = profile("acme-team", vec![snap("MXN", "120", "120", 9)]);
        desk.source = "gateway:https://gw.example:20001".into();
        team.source = desk.source.clone();
        let other = profile("beta", vec![snap("MXN", "1", "1", 2)]);
        let t = totals(&[sandbox, desk, team, other]).unwrap();
        assert_eq!(t.len(), 1);
        assert_eq!(
            t[0].total_balance, "121",
            "acme's newest (120) and beta's (1)"
        );
        assert_eq!(t[0].profiles, 2);
        assert_eq!(t[0].oldest, 2);
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
