//! `paydesk report`: statements of a period (CSV, XLSX, PDF), for a scheduler, and the
//! reconciliation of a balance between two snapshots (the app's Balances → Reconcile).

use super::*;
use paydesk_reports::DeskReports;

#[path = "report_failures.rs"]
mod failures;

#[derive(Debug, Subcommand)]
pub enum ReportCmd {
    /// The statement of the days --from to --to (both included), written to --out (.csv,
    /// .xlsx or .pdf). The period's orders are read again from the gateway first (every
    /// window, and the amounts of chargebacks), unless --offline: then the figures are
    /// as of the last sync, and the output says when that was.
    Statement {
        /// First day, YYYY-MM-DD.
        #[arg(long, allow_hyphen_values = true)]
        from: String,
        /// Last day, YYYY-MM-DD (included).
        #[arg(long, allow_hyphen_values = true)]
        to: String,
        /// One currency, e.g. USD (default: every currency).
        #[arg(long, allow_hyphen_values = true)]
        currency: Option<String>,
        /// The time zone the days are in and dates are written in: a zone name such as
        /// Europe/Berlin or America/New_York (daylight saving honoured), UTC, or an
        /// offset such as +08:00. Default: the profile's business zone (`paydesk report
        /// settings`).
        #[arg(long, allow_hyphen_values = true)]
        tz: Option<String>,
        /// The file to write: .csv, .xlsx or .pdf.
        #[arg(long)]
        out: PathBuf,
        /// Replace the file if it exists (otherwise an existing file is refused).
        #[arg(long)]
        force: bool,
        /// Build from the local cache as it is, without reading the period again.
        #[arg(long)]
        offline: bool,
    },
    /// The reconciliation of a currency's available balance between two balance
    /// snapshots: the movement observed, what the orders explain line by line, and the
    /// difference (as Balances → Reconcile shows it). By default from the latest snapshot
    /// to now: the change horizon's orders are read again and a new snapshot is taken.
    Reconcile {
        /// The currency, e.g. MXN.
        #[arg(long, allow_hyphen_values = true)]
        currency: String,
        /// The earlier snapshot's takenAt (UTC millis); default: the one before --to.
        #[arg(long, allow_hyphen_values = true)]
        from: Option<String>,
        /// The later snapshot's takenAt (UTC millis), or `now` (the default: read the
        /// orders again and take a snapshot now; with --offline, the latest snapshot).
        #[arg(long, allow_hyphen_values = true)]
        to: Option<String>,
        /// The time zone the snapshots' times are written in (a zone name, UTC or an
        /// offset). Default: the profile's business zone.
        #[arg(long, allow_hyphen_values = true)]
        tz: Option<String>,
        /// Use the local cache and snapshots as they are (no request to the gateway).
        #[arg(long)]
        offline: bool,
    },
    /// Why money did not come in: the success rate of the days --from to --to by
    /// method, currency and day, and the failed and closed orders by the gateway's
    /// reason and message with their amounts per currency, beside the period of the same
    /// length just before. Success rate = succeeded / (succeeded + failed + closed);
    /// pending orders and states the profile's dictionary does not know are left out and
    /// counted apart. The period (and the one before) is read again from the gateway
    /// first, unless --offline.
    Failures {
        /// First day, YYYY-MM-DD (default: 6 days before --to).
        #[arg(long, allow_hyphen_values = true)]
        from: Option<String>,
        /// Last day, YYYY-MM-DD, included (default: today).
        #[arg(long, allow_hyphen_values = true)]
        to: Option<String>,
        /// The time zone the days are in (a zone name, UTC or an offset such as +08:00).
        /// Default: the profile's business zone.
        #[arg(long, allow_hyphen_values = true)]
        tz: Option<String>,
        /// Build from the local cache as it is, without reading the periods again.
        #[arg(long)]
        offline: bool,
    },
    /// The profile's reporting settings: its business time zone (the days of statements,
    /// exports and charts) and its change horizon (days within which finished orders are
    /// read again). Shows them; sets what is given.
    Settings {
        /// A zone name such as Europe/Berlin or America/Mexico_City, or UTC.
        #[arg(long, allow_hyphen_values = true)]
        zone: Option<String>,
        /// 1 to 3650 days (default 120).
        #[arg(long, allow_hyphen_values = true)]
        horizon_days: Option<String>,
    },
}

/// The zone asked for, else the profile's business zone.
fn zone_or_profile(
    tz: Option<&str>,
    g: &Global,
) -> Result<paydesk_reports::statement::Zone, Failure> {
    match tz {
        Some(t) => Ok(paydesk_reports::statement::parse_zone("tz", t)?),
        None => {
            let s = session()?;
            let name = match g.profile.as_deref() {
                Some(p) => p.to_string(),
                None => s.active_profile()?,
            };
            Ok(s.home().reporting(&name)?.zone())
        }
    }
}

fn settings(zone: Option<String>, horizon: Option<String>, g: &Global) -> Result<(), Failure> {
    let s = session()?;
    let name = match g.profile.as_deref() {
        Some(p) => p.to_string(),
        None => s.active_profile()?,
    };
    let mut r = s.home().reporting(&name)?;
    if let Some(z) = zone {
        r.business_zone = z.trim().to_string();
    }
    if let Some(h) = horizon {
        r.change_horizon_days = h.trim().parse().map_err(|_| {
            Failure::Input(format!(
                "--horizon-days: must be a whole number of days from 1 to 3650, got {h:?}"
            ))
        })?;
    }
    s.home().set_reporting(&name, r.clone())?;
    print(g, &r, || {
        format!(
            "{name}: business time zone {}, change horizon {} days",
            r.business_zone, r.change_horizon_days
        )
    })
}

/// A snapshot's takenAt, as given.
fn taken_at(field: &str, s: &str) -> Result<i64, Failure> {
    s.trim()
        .parse::<i64>()
        .ok()
        .filter(|t| *t > 0)
        .ok_or_else(|| {
            Failure::Input(format!(
                "--{field}: must be a snapshot's takenAt (UTC millis, as `paydesk --json balance` gives it){}, got {s:?}",
                if field == "to" { " or now" } else { "" }
            ))
        })
}

fn reconcile(
    currency: String,
    from: Option<String>,
    to: Option<String>,
    tz: Option<String>,
    offline: bool,
    g: &Global,
) -> Result<(), Failure> {
    let zone = zone_or_profile(tz.as_deref(), g)?;
    let currency = currency.trim().to_ascii_uppercase();
    paydesk_gateway::validate::currency("currency", &currency)
        .map_err(paydesk_core::CoreError::from)?;
    let from = from.as_deref().map(|s| taken_at("from", s)).transpose()?;
    let now = to
        .as_deref()
        .is_none_or(|t| t.trim().eq_ignore_ascii_case("now"));
    let to = if now {
        None
    } else {
        to.as_deref().map(|s| taken_at("to", s)).transpose()?
    };
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let mut to = to;
        if now && !offline {
            let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            desk.orders().refresh_horizon(cancel, |_| {}).await?;
            to = Some(desk.money().balance(&currency).await?.taken_at);
        }
        let r = desk.reconcile_snapshots(&currency, from, to)?;
        print(g, &r, || {
            let at = |t: i64| zone.format(t, "%Y-%m-%d %H:%M:%S");
            let mut lines = vec![
                format!(
                    "{} available balance from {} ({}) to {} ({}), {}",
                    r.currency,
                    at(r.from.taken_at),
                    r.from.balance,
                    at(r.to.taken_at),
                    r.to.balance,
                    zone.name()
                ),
                format!("observed movement {}", r.observed),
            ];
            for l in &r.lines {
                lines.push(format!(
                    "  {:<28} {:>6} orders {:>20}",
                    line_words(l.kind),
                    l.count,
                    l.effect
                ));
            }
            lines.push(format!("explained {}", r.explained));
            lines.push(format!(
                "difference {}{}",
                r.difference,
                if r.difference
                    .parse::<rust_decimal::Decimal>()
                    .is_ok_and(|d| d.is_zero())
                {
                    ": every movement is explained"
                } else {
                    ": not explained by the cached orders (see the lines' orders in the app)"
                }
            ));
            lines.join("\n")
        })
    })
}

/// A reconciliation line in a finance team's words.
fn line_words(k: paydesk_reports::reconcile::LineKind) -> &'static str {
    use paydesk_reports::reconcile::LineKind as L;
    match k {
        L::SettledPayins => "Settled payins",
        L::PayinHandlingFees => "Payin handling fees",
        L::PayinFixedFees => "Payin fixed fees",
        L::PayinExceptionFees => "Payin exception fees",
        L::ReserveHeld => "Rolling reserve held",
        L::Refunds => "Refunds",
        L::ReserveReleased => "Rolling reserve released",
        L::Chargebacks => "Chargebacks",
        L::Payouts => "Payouts",
        L::PayoutHandlingFees => "Payout handling fees",
        L::PayoutFixedFees => "Payout fixed fees",
        L::TopUps => "Card top-ups",
        L::Withdrawals => "Card withdrawals",
        L::WithdrawalFees => "Card withdrawal fees",
    }
}

/// A report's period error in the CLI's terms: its field named as the flag.
fn as_flags(e: paydesk_core::CoreError) -> Failure {
    e.in_terms(|f| match f {
        "from" => "--from",
        "to" => "--to",
        "tz" => "--tz",
        other => other,
    })
    .into()
}

pub fn report(cmd: ReportCmd, g: &Global) -> Result<(), Failure> {
    let (from, to, currency, tz, out, force, offline) = match cmd {
        ReportCmd::Reconcile {
            currency,
            from,
            to,
            tz,
            offline,
        } => return reconcile(currency, from, to, tz, offline, g),
        ReportCmd::Settings { zone, horizon_days } => return settings(zone, horizon_days, g),
        ReportCmd::Failures {
            from,
            to,
            tz,
            offline,
        } => return failures::run(from, to, tz, offline, g),
        ReportCmd::Statement {
            from,
            to,
            currency,
            tz,
            out,
            force,
            offline,
        } => (from, to, currency, tz, out, force, offline),
    };
    // The arguments are checked before a desk is opened.
    let zone = zone_or_profile(tz.as_deref(), g)?;
    // Read as the app reads them (`paydesk_api::reports`).
    let period = paydesk_api::reports::days(&from, &to, zone).map_err(as_flags)?;
    match out
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("csv" | "xlsx" | "pdf") => {}
        _ => {
            return Err(Failure::Input(format!(
                "--out: must end in .csv, .xlsx or .pdf, got {}",
                out.display()
            )));
        }
    }
    let currency = currency.map(|c| c.trim().to_ascii_uppercase());
    runtime()?.block_on(async {
        let desk = open(g).await?;
        let refreshed = if offline {
            None
        } else {
            let cancel = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
            Some(desk.orders().refresh_period(period, cancel, |_| {}).await?)
        };
        let as_of = match &refreshed {
            Some(r) => format!(
                "figures read from the gateway at {} ({} orders changed, {} chargebacks looked up{})",
                zone.format(r.at, "%Y-%m-%d %H:%M:%S"),
                r.changed,
                r.chargebacks_looked_up,
                if r.incomplete > 0 {
                    format!(", {} windows did not add up: see `paydesk orders sync`", r.incomplete)
                } else {
                    String::new()
                }
            ),
            None => match desk.orders().last_synced()? {
                Some(t) => format!(
                    "figures as of the sync at {} (offline: not read again)",
                    zone.format(t, "%Y-%m-%d %H:%M:%S")
                ),
                None => "figures from a cache never synced (offline)".to_string(),
            },
        };
        let (statement, made) = desk.export_statement(
            period,
            currency.as_deref(),
            &out,
            paydesk_core::output::Existing::replace_if(force),
            zone,
        )?;
        #[derive(Serialize)]
        #[serde(rename_all = "camelCase")]
        struct Written<'a> {
            path: String,
            export: &'a paydesk_reports::statement::export::StatementExport,
            statement: &'a paydesk_reports::statement::Statement,
            first_day: String,
            last_day: String,
            time_zone: String,
            refreshed: Option<&'a paydesk_core::desk::Refreshed>,
            as_of: &'a str,
        }
        let written = Written {
            path: out.display().to_string(),
            export: &made,
            statement: &statement,
            first_day: zone.day_of(period.from),
            last_day: period.last_day(&zone),
            time_zone: zone.name(),
            refreshed: refreshed.as_ref(),
            as_of: &as_of,
        };
        print(g, &written, || {
            let mut lines = vec![
                format!(
                    "wrote the statement of {} to {} (both included, {}) to {}: {} orders, SHA-256 of the orders {}",
                    written.first_day,
                    written.last_day,
                    zone.name_at(period.from),
                    out.display(),
                    made.rows,
                    made.sha256
                ),
                as_of.clone(),
            ];
            if statement.outside_team > 0 {
                lines.push(format!(
                    "{} orders were made outside this team (no request of the team made them): counted with the orders whose kind is not given, never as payins",
                    statement.outside_team
                ));
            }
            if statement.uncertain > 0 {
                lines.push(format!(
                    "{} orders cannot be placed exactly on a day in {} (the cache knows their hour or day only): counted where cached; read the period again (without --offline) to place them",
                    statement.uncertain,
                    zone.name()
                ));
            }
            for c in &statement.currencies {
                lines.push(format!(
                    "{}: paid payins {} ({}), fees {}, reserve held {}, refunds {} ({}), chargebacks {} ({}), paid payouts {} ({}), payout fees {}, pending payouts {} ({}) and their fees {}, card top-ups {}, card withdrawals {} less fees {}, net {}",
                    c.currency,
                    c.payins.succeeded.amount,
                    c.payins.succeeded.count,
                    c.payin_fees.total,
                    c.reserve_held.amount,
                    c.refunds.amount,
                    c.refunds.count,
                    c.chargebacks.amount,
                    c.chargebacks.count,
                    c.payouts.succeeded.amount,
                    c.payouts.succeeded.count,
                    c.payout_fees.total,
                    c.pending_payouts.amount,
                    c.pending_payouts.count,
                    c.pending_payout_fees.total,
                    c.card_top_ups.amount,
                    c.card_withdrawals.amount,
                    c.card_withdrawal_fees.total,
                    c.net
                ));
                if c.chargebacks_not_looked_up > 0 {
                    lines.push(format!(
                        "{}: {} chargebacks counted at the order's full amount (not looked up)",
                        c.currency, c.chargebacks_not_looked_up
                    ));
                }
                lines.push(format!(
                    "{}: {} orders of {} whose kind the gateway did not give, in no figure above (tell payouts from payins with the conventions' kindRules)",
                    c.currency, c.unknown_kind.all.count, c.unknown_kind.all.amount
                ));
            }
            lines.join("\n")
        })
    })
}
