//! `paydesk balance history|upcoming` and `paydesk overview`: what the app's Balances
//! screen and the manager's overview show, from the same API (`paydesk_api::balances`).
//! The reconciliation is `paydesk report reconcile`.

use super::*;
use paydesk_reports::overview::ConversionRate;

#[derive(Debug, Subcommand)]
pub enum BalanceCmd {
    /// Every balance snapshot kept of a currency, oldest first (as Balances → History):
    /// the balance queries, the snapshots after syncs and money movements, and the
    /// scheduled ones. No request to the gateway.
    History {
        /// The currency, e.g. MXN.
        #[arg(long, allow_hyphen_values = true)]
        currency: String,
    },
    /// Paid payins not settled yet and rolling reserve not released yet, per currency
    /// (from the cache; no request to the gateway).
    Upcoming {
        /// One currency, e.g. MXN (default: every currency).
        #[arg(long, allow_hyphen_values = true)]
        currency: Option<String>,
    },
}

/// `paydesk overview`: every profile's last balances, last sync and unknown outcomes,
/// with totals per currency (the manager's overview; read from each profile's own store,
/// no gateway asked).
#[derive(Debug, Args)]
pub struct OverviewArgs {
    /// Convert the totals to this currency, with the rates given by --rate only.
    #[arg(long, allow_hyphen_values = true)]
    pub to: Option<String>,
    /// CUR=RATE: one unit of CUR is RATE of the --to currency; repeatable.
    #[arg(long = "rate", value_name = "CUR=RATE", allow_hyphen_values = true)]
    pub rates: Vec<String>,
}

/// A moment in `zone`, with the zone's name.
fn at(zone: &paydesk_reports::statement::Zone, millis: i64) -> String {
    format!(
        "{} {}",
        zone.format(millis, "%Y-%m-%d %H:%M:%S"),
        zone.name()
    )
}

pub fn balance_cmd(cmd: BalanceCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let zone = desk.orders().reporting().zone();
        match cmd {
            BalanceCmd::History { currency } => {
                let list = paydesk_api::balances::history(&desk, &currency)?;
                print(g, &list, || {
                    if list.is_empty() {
                        return format!(
                            "no snapshot of {} yet: `paydesk balance --currency {}` takes one",
                            currency.trim().to_ascii_uppercase(),
                            currency.trim().to_ascii_uppercase()
                        );
                    }
                    list.iter()
                        .map(|b| {
                            format!(
                                "{}  {:<4} balance {:>16}  unchecked {:>16}  total {:>16}  (takenAt {})",
                                at(&zone, b.taken_at),
                                b.currency,
                                b.balance,
                                b.un_checked_balance,
                                b.total_balance,
                                b.taken_at
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            }
            BalanceCmd::Upcoming { currency } => {
                let list = paydesk_api::balances::upcoming(&desk, currency.as_deref())?;
                print(g, &list, || {
                    if list.is_empty() {
                        return "nothing waits to settle and no reserve is held".into();
                    }
                    list.iter()
                        .map(|u| {
                            format!(
                                "{:<4} unsettled {} payins {:>16} (net {:>16})  reserve {} payins {:>16}",
                                u.currency,
                                u.unsettled_count,
                                u.unsettled_amount,
                                u.unsettled_net,
                                u.reserve_count,
                                u.reserve_amount
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                })
            }
        }
    })
}

/// `CUR=RATE` as the overview takes it.
fn rate(text: &str) -> Result<ConversionRate, Failure> {
    match text.split_once('=') {
        Some((c, r)) if !c.trim().is_empty() && !r.trim().is_empty() => Ok(ConversionRate {
            currency: c.trim().to_ascii_uppercase(),
            rate: r.trim().to_string(),
        }),
        _ => Err(Failure::Input(format!(
            "--rate: must be CUR=RATE, e.g. USD=17.05, got {text:?}"
        ))),
    }
}

pub fn overview(a: OverviewArgs, g: &Global) -> Result<(), Failure> {
    let rates = a
        .rates
        .iter()
        .map(|r| rate(r))
        .collect::<Result<Vec<_>, _>>()?;
    let s = session()?;
    let (home, secrets) = (s.home().clone(), s.secrets()?);
    let o = runtime()?.block_on(paydesk_api::balances::overview(home, secrets, a.to, rates))?;
    print(g, &o, || {
        let utc = paydesk_reports::statement::Zone::UTC;
        let mut lines = Vec::new();
        for p in &o.profiles {
            let mut head = format!("{} (merchant {})", p.profile, p.mer_no);
            if p.sandbox {
                head.push_str(" sandbox");
            }
            if p.team {
                head.push_str(" team");
            }
            match (&p.error, p.never_opened) {
                (Some(e), _) => head.push_str(&format!(": not read: {e}")),
                (None, true) => head.push_str(": never opened on this machine"),
                (None, false) => {
                    head.push_str(&match p.last_sync {
                        Some(t) => format!(": last sync {}", at(&utc, t)),
                        None => ": never synced".into(),
                    });
                    head.push_str(&format!(", {} unknown outcome(s)", p.unknown_outcomes));
                }
            }
            lines.push(head);
            for b in &p.balances {
                lines.push(format!(
                    "  {:<4} balance {:>16}  total {:>16}  as of {}",
                    b.currency,
                    b.balance,
                    b.total_balance,
                    at(&utc, b.taken_at)
                ));
            }
        }
        lines.push("totals:".into());
        for t in &o.totals {
            lines.push(format!(
                "  {:<4} balance {:>16}  total {:>16}  over {} profile(s), oldest {}",
                t.currency,
                t.balance,
                t.total_balance,
                t.profiles,
                at(&utc, t.oldest)
            ));
        }
        if let Some(c) = &o.converted {
            let mut line = format!("  in {}: total {}", c.currency, c.total_balance);
            if !c.missing.is_empty() {
                line.push_str(&format!(" (left out, no rate: {})", c.missing.join(", ")));
            }
            lines.push(line);
        }
        lines.join("\n")
    })
}
