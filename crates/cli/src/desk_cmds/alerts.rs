//! `paydesk alerts`: the same alerts as the app's inbox, for scripts and monitoring.
//! Exit code 0 when there is none, 1 when there are alerts (after printing them).

use clap::{Args, Subcommand};
use paydesk_core::alerts::{Alert, AlertKind, AlertTarget, QuietHours};

use super::{Global, open, print, runtime, session};
use crate::Failure;

#[derive(Debug, Args)]
pub struct AlertsArgs {
    /// Only the alerts not marked read (what a monitoring script counts).
    #[arg(long)]
    unread: bool,
    #[command(subcommand)]
    cmd: Option<AlertsCmd>,
}

#[derive(Debug, Subcommand)]
pub enum AlertsCmd {
    /// Mark alerts read (by key, as listed).
    Read {
        #[arg(required = true)]
        keys: Vec<String>,
    },
    /// Dismiss alerts: they leave the list until their condition ends and comes back.
    Dismiss {
        #[arg(required = true)]
        keys: Vec<String>,
    },
    /// The profile's thresholds: shows them; sets what is given.
    Settings(SettingsArgs),
}

#[derive(Debug, Args)]
pub struct SettingsArgs {
    /// An outcome still unknown this many minutes after sending is an alert.
    #[arg(long)]
    unknown_after_minutes: Option<u32>,
    /// A currency's threshold, `MXN=1000.00` (repeat for each; `MXN=` removes it).
    #[arg(long)]
    low_balance: Vec<String>,
    /// No sync for this many hours is an alert.
    #[arg(long)]
    sync_stale_hours: Option<u32>,
    /// Chargebacks and refusals of the last this many days are alerts.
    #[arg(long)]
    recent_days: Option<u32>,
    /// Approved team requests waiting this many minutes for a signer's worker.
    #[arg(long)]
    worker_wait_minutes: Option<u32>,
    /// Quiet hours `22:00-07:00` in the profile's business zone (`off` for none).
    #[arg(long)]
    quiet_hours: Option<String>,
    /// The system's notifications in the app: on or off.
    #[arg(long)]
    system_notifications: Option<bool>,
}

fn settings(
    a: SettingsArgs,
    profile: &str,
    home: &paydesk_core::Home,
    g: &Global,
) -> Result<(), Failure> {
    let mut s = home.alert_settings(profile)?;
    let given = a.unknown_after_minutes.is_some()
        || !a.low_balance.is_empty()
        || a.sync_stale_hours.is_some()
        || a.recent_days.is_some()
        || a.worker_wait_minutes.is_some()
        || a.quiet_hours.is_some()
        || a.system_notifications.is_some();
    if let Some(v) = a.unknown_after_minutes {
        s.unknown_after_minutes = v;
    }
    for pair in &a.low_balance {
        let Some((currency, amount)) = pair.split_once('=') else {
            return Err(Failure::Input(format!(
                "--low-balance {pair:?}: must be CURRENCY=AMOUNT (MXN=1000.00)"
            )));
        };
        if amount.trim().is_empty() {
            s.low_balance.remove(currency.trim());
        } else {
            s.low_balance
                .insert(currency.trim().to_string(), amount.trim().to_string());
        }
    }
    if let Some(v) = a.sync_stale_hours {
        s.sync_stale_hours = v;
    }
    if let Some(v) = a.recent_days {
        s.recent_days = v;
    }
    if let Some(v) = a.worker_wait_minutes {
        s.worker_wait_minutes = v;
    }
    if let Some(q) = &a.quiet_hours {
        s.quiet_hours = if q == "off" {
            None
        } else {
            let Some((from, to)) = q.split_once('-') else {
                return Err(Failure::Input(format!(
                    "--quiet-hours {q:?}: must be HH:MM-HH:MM (22:00-07:00) or off"
                )));
            };
            Some(QuietHours {
                from: from.trim().into(),
                to: to.trim().into(),
            })
        };
    }
    if let Some(v) = a.system_notifications {
        s.system_notifications = v;
    }
    if given {
        home.set_alert_settings(profile, s.clone())?;
    }
    print(g, &s, || {
        let mut lines = vec![
            format!("unknown outcome after {} min", s.unknown_after_minutes),
            format!("no sync for {} h", s.sync_stale_hours),
            format!(
                "chargebacks and refusals of the last {} days",
                s.recent_days
            ),
            format!(
                "approved requests waiting {} min for a worker",
                s.worker_wait_minutes
            ),
            format!(
                "quiet hours {} (the profile's business zone)",
                s.quiet_hours
                    .as_ref()
                    .map(|q| format!("{}-{}", q.from, q.to))
                    .unwrap_or_else(|| "none".into())
            ),
            format!(
                "system notifications {}",
                if s.system_notifications { "on" } else { "off" }
            ),
        ];
        for (c, t) in &s.low_balance {
            lines.push(format!("low balance {c} under {t}"));
        }
        lines.join("\n")
    })
}

/// Where opening the alert leads, in words (the app opens it).
fn opens(a: &Alert) -> String {
    match &a.target {
        AlertTarget::Entry { id, .. } if a.kind == AlertKind::OutcomeUnknown => {
            format!("journal reconcile --id {id}")
        }
        AlertTarget::Entry { .. } => "journal list --status rejected".into(),
        AlertTarget::Order { trade_no } => format!("orders show {trade_no}"),
        AlertTarget::Balances { currency } => format!("balance --currency {currency}"),
        AlertTarget::Sync => "orders sync".into(),
        AlertTarget::Request { id } => format!("approvals show {id}"),
    }
}

fn line(a: &Alert) -> String {
    let when = chrono::DateTime::from_timestamp_millis(a.at)
        .map(|t| t.format("%Y-%m-%d %H:%M UTC").to_string())
        .unwrap_or_default();
    format!(
        "{} {:<16} {when}  {}\n      key {}; see: paydesk {}",
        if a.read { " " } else { "*" },
        a.kind.as_str(),
        a.text,
        a.key,
        opens(a)
    )
}

pub fn alerts(args: AlertsArgs, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let s = session()?;
        let desk = open(g).await?;
        let home = s.home();
        if let Some(cmd) = args.cmd {
            let (keys, dismiss) = match cmd {
                AlertsCmd::Read { keys } => (keys, false),
                AlertsCmd::Dismiss { keys } => (keys, true),
                AlertsCmd::Settings(a) => return settings(a, &desk.profile.name, home, g),
            };
            let known: Vec<String> = home.alerts(&desk)?.into_iter().map(|a| a.key).collect();
            if let Some(k) = keys.iter().find(|k| !known.contains(k)) {
                return Err(Failure::Input(format!(
                    "no current alert has the key {k:?} (`paydesk alerts` lists them)"
                )));
            }
            home.mark_alerts(&desk.profile.name, &keys, dismiss, desk.now_ms())?;
            return print(g, &keys, || {
                format!(
                    "{} {} alert(s)",
                    if dismiss { "dismissed" } else { "marked read" },
                    keys.len()
                )
            });
        }
        let list: Vec<Alert> = home
            .alerts(&desk)?
            .into_iter()
            .filter(|a| !args.unread || !a.read)
            .collect();
        print(g, &list, || {
            if list.is_empty() {
                "no alerts".into()
            } else {
                list.iter().map(line).collect::<Vec<_>>().join("\n")
            }
        })?;
        if list.is_empty() {
            Ok(())
        } else {
            Err(Failure::Check(format!("{} alert(s)", list.len())))
        }
    })
}
