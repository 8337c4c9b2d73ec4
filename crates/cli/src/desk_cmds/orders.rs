//! `paydesk orders`: sync, list, show, export.

use super::*;
use paydesk_reports::DeskReports;

#[derive(Debug, Subcommand)]
pub enum OrdersCmd {
    /// Pull the order list into the local cache.
    Sync {
        /// How many days back (1 to 3650).
        #[arg(long, default_value_t = 90, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(1..=paydesk_core::sync::MAX_SYNC_DAYS))]
        days: i64,
        /// Re-read windows an earlier sync completed.
        #[arg(long)]
        full: bool,
        /// Hours per window (1 to 744).
        #[arg(long, default_value_t = 24, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(1..=744))]
        window_hours: i64,
    },
    /// List cached orders.
    List {
        #[command(flatten)]
        filter: FilterArgs,
        /// Rows to show (1 to 10000).
        #[arg(long, default_value_t = 50, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(1..=10_000))]
        limit: i64,
        /// Rows to skip (0 or more).
        #[arg(long, default_value_t = 0, allow_negative_numbers = true,
              value_parser = clap::value_parser!(i64).range(0..))]
        offset: i64,
    },
    /// One order: the cached row, its timeline, and a live query with its signature status.
    Show { trade_no: String },
    /// Export the filtered orders (all of them) to .csv or .xlsx.
    Export {
        path: PathBuf,
        /// Replace the file if it exists (otherwise an existing file is refused).
        #[arg(long)]
        force: bool,
        #[command(flatten)]
        filter: FilterArgs,
        /// The time zone of the date column: a zone name such as Europe/Berlin (each
        /// order's time with the daylight saving of its day), UTC, or an offset such as
        /// +08:00 (default UTC).
        #[arg(long, default_value = "+00:00")]
        tz: String,
    },
    /// Look many order or trade numbers up at once (one a line; a CSV's merOrderNo or
    /// tradeNo column): the cache first, then the gateway in batched list requests.
    Lookup(super::lookup::LookupArgs),
    /// The built-in sandbox only (the app's order page's sandbox actions): move an order
    /// as its gateway would (pay, fail, expire, settle, refund, chargeback, ...); the
    /// order is then read again into the cache.
    Simulate {
        trade_no: String,
        /// The action's name, as `paydesk orders simulate --help` or the app lists them.
        #[arg(long)]
        action: String,
        /// For refund and chargeback: the amount (blank: all that is left).
        #[arg(long)]
        amount: Option<String>,
    },
    /// The saved views of the Orders screen (the app's), for `--view`.
    Views,
    /// The built-in sandbox only (`paydesk sandbox --seed-orders` for its own sandbox):
    /// add this many demo orders of the last 90 days; `orders sync` brings them in.
    Seed {
        #[arg(long, default_value_t = 1000)]
        count: u32,
    },
}

#[derive(Debug, Args)]
pub struct FilterArgs {
    /// A saved view of the Orders screen by name (the app's saved views; its dates
    /// resolved today in the business zone): its filter and sort, instead of the flags
    /// below. `paydesk orders views` lists them.
    #[arg(long, conflicts_with_all = ["state", "currency", "method", "kind", "search", "min_amount", "max_amount", "from", "to", "desc"])]
    view: Option<String>,
    /// States, e.g. 5 or 2,5.
    #[arg(long, value_delimiter = ',')]
    state: Vec<i64>,
    #[arg(long, value_delimiter = ',')]
    currency: Vec<String>,
    #[arg(long, value_delimiter = ',')]
    method: Vec<String>,
    /// Kinds, as the journal knows them: payin, payout, top-up, withdraw (orders this
    /// desk did not make have none).
    #[arg(long, value_delimiter = ',')]
    kind: Vec<KindArg>,
    /// A fragment of the order or trade number.
    #[arg(long)]
    search: Option<String>,
    #[arg(long, allow_hyphen_values = true)]
    min_amount: Option<String>,
    #[arg(long, allow_hyphen_values = true)]
    max_amount: Option<String>,
    /// YYYY-MM-DD, inclusive.
    #[arg(long)]
    from: Option<String>,
    /// YYYY-MM-DD, inclusive.
    #[arg(long)]
    to: Option<String>,
    /// created, amount, state or trade-no.
    #[arg(long, default_value = "created")]
    sort: String,
    #[arg(long)]
    desc: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum KindArg {
    Payin,
    Payout,
    TopUp,
    Withdraw,
}

impl From<KindArg> for OrderKind {
    fn from(k: KindArg) -> Self {
        match k {
            KindArg::Payin => OrderKind::Payin,
            KindArg::Payout => OrderKind::Payout,
            KindArg::TopUp => OrderKind::TopUp,
            KindArg::Withdraw => OrderKind::Withdraw,
        }
    }
}

/// How the list names a kind: as the `--kind` argument does, `-` when not known.
fn kind_name(k: Option<OrderKind>) -> &'static str {
    match k {
        Some(OrderKind::Payin) => "payin",
        Some(OrderKind::Payout) => "payout",
        Some(OrderKind::TopUp) => "top-up",
        Some(OrderKind::Withdraw) => "withdraw",
        None => "-",
    }
}

fn day(field: &str, s: &str) -> Result<i64, Failure> {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map(|d| {
            d.and_hms_opt(0, 0, 0)
                .unwrap_or_default()
                .and_utc()
                .timestamp_millis()
        })
        .map_err(|_| Failure::Input(format!("--{field}: must be a date YYYY-MM-DD, got {s:?}")))
}

impl FilterArgs {
    fn filter(self, desk: &paydesk_core::Desk) -> Result<OrderFilter, Failure> {
        if let Some(name) = &self.view {
            let name = name.trim();
            let views = desk.orders().views(paydesk_core::views::Screen::Orders)?;
            let v = views
                .iter()
                .find(|v| v.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| {
                    let names: Vec<&str> = views.iter().map(|v| v.name.as_str()).collect();
                    Failure::Input(format!(
                        "--view: no saved view of the orders named {name:?} (saved: {})",
                        if names.is_empty() {
                            "none".to_string()
                        } else {
                            names.join(", ")
                        }
                    ))
                })?;
            let mut f = v.spec.order_filter.clone().unwrap_or_default();
            f.from = v.from;
            f.to = v.to;
            return Ok(f);
        }
        let sort = match self.sort.as_str() {
            "created" => SortKey::Created,
            "amount" => SortKey::Amount,
            "state" => SortKey::State,
            "trade-no" => SortKey::TradeNo,
            other => {
                return Err(Failure::Input(format!(
                    "--sort: must be created, amount, state or trade-no, got {other:?}"
                )));
            }
        };
        Ok(OrderFilter {
            from: self.from.as_deref().map(|s| day("from", s)).transpose()?,
            to: self
                .to
                .as_deref()
                .map(|s| day("to", s).map(|t| t + 86_400_000))
                .transpose()?,
            states: self.state,
            currencies: self.currency,
            methods: self.method,
            kinds: self.kind.into_iter().map(OrderKind::from).collect(),
            min_amount: self.min_amount,
            max_amount: self.max_amount,
            search: self.search,
            sort,
            descending: self.desc,
            ..OrderFilter::default()
        })
    }
}

/// The sync's progress bar: orders read of those expected.
fn sync_bar() -> indicatif::ProgressBar {
    let pb = indicatif::ProgressBar::new(0);
    pb.set_style(
        indicatif::ProgressStyle::with_template(
            "{spinner} syncing [{bar:30}] {pos}/{len} orders {msg}",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    pb
}

/// The rest of the sync's progress line: days read, rate, time left.
fn sync_line(p: &paydesk_core::sync::SyncProgress) -> String {
    let left = match p.eta_seconds {
        Some(s) if s.is_finite() => format!("{} left", human_secs(s)),
        _ => "time left not known yet".into(),
    };
    format!(
        "· {} of {} days read · {:.0} orders/s · {left}",
        p.windows_done, p.windows_total, p.orders_per_second
    )
}

/// Seconds as "42 s", "3 min 5 s" or "1 h 2 min".
fn human_secs(s: f64) -> String {
    let s = s.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s % 3600 / 60),
    }
}

pub fn orders(cmd: OrdersCmd, g: &Global) -> Result<(), Failure> {
    runtime()?.block_on(async {
        let desk = open(g).await?;
        match cmd {
            OrdersCmd::Sync { days, full, window_hours } => {
                let mut opts = desk.orders().sync_options(days);
                opts.full = full;
                opts.window_hours = window_hours;
                let pb = sync_bar();
                if g.json {
                    pb.set_draw_target(indicatif::ProgressDrawTarget::hidden());
                }
                // Then a balance snapshot, as every sync (`paydesk_api::orders::sync`).
                let report = paydesk_api::orders::sync(&desk, &opts, Arc::new(AtomicBool::new(false)), |p| {
                        // Orders against the gateway's count (estimated for the windows not
                        // counted yet), at the rate so far, with the time that leaves.
                        pb.set_length(p.orders_expected.unwrap_or(0).max(p.orders));
                        pb.set_position(p.orders);
                        pb.set_message(sync_line(p));
                    })
                    .await;
                pb.finish_and_clear();
                let (report, balances_failed) = report?;
                if let Some(e) = balances_failed {
                    eprintln!("note: the balances after the sync were not read: {e}");
                }
                print(g, &report, || {
                    let mut text = format!(
                        "synced {} orders in {} pages ({} windows, {} skipped as complete, {} changed) in {:.1} s ({:.0} orders/s; {} requests, {} of them asking a lost page again)",
                        report.progress.orders, report.progress.pages, report.progress.windows_total, report.windows_skipped, report.changed, report.seconds,
                        report.progress.orders as f64 / report.seconds.max(1e-3), report.requests, report.retries
                    );
                    if report.refused_count > 0 {
                        text.push_str(&format!(
                            "\n{} orders the gateway listed break the desk's rules and were not cached (their windows are read again next time):",
                            report.refused_count
                        ));
                        for why in &report.refused {
                            text.push_str(&format!("\n  {why}"));
                        }
                    }
                    if report.incomplete_count > 0 {
                        text.push_str(&format!(
                            "\n{} windows do not add up and were left incomplete (the next sync reads them again):",
                            report.incomplete_count
                        ));
                        for why in &report.incomplete {
                            text.push_str(&format!("\n  {why}"));
                        }
                        if report.incomplete_count > report.incomplete.len() as u64 {
                            text.push_str(&format!("\n  and {} more", report.incomplete_count - report.incomplete.len() as u64));
                        }
                    }
                    text
                })
            }
            OrdersCmd::List { filter, limit, offset } => {
                let page = desk.orders().page(&filter.filter(&desk)?, offset, limit)?;
                let dict = desk.dictionary().clone();
                print(g, &page, || {
                    let mut out = vec![format!("{} orders match; showing {}", page.total, page.rows.len())];
                    for o in &page.rows {
                        let meaning = dict.meaning(paydesk_gateway::StateField::OrderState, &o.state.to_string()).map_or("unknown", |m| m.as_str());
                        let method = if o.method.is_empty() { "-" } else { o.method.as_str() };
                        let mut line = format!("{:<22} {:<24} {:>14} {} {:<15} {:<8} {}", o.trade_no, o.mer_order_no, o.source_amount, o.currency, meaning, kind_name(o.kind), method);
                        // On a team: no request of the team made it (issue 30).
                        if o.outside_team {
                            line.push_str("  [made outside this team]");
                        }
                        out.push(line);
                    }
                    out.join("\n")
                })
            }
            OrdersCmd::Show { trade_no } => {
                let d = desk.orders().order_detail(&trade_no).await?;
                print(g, &d, || {
                    let covers = match d.signature {
                        Some(paydesk_gateway::SignatureStatus::Verified) => format!(
                            "the answer's signature verified with the gateway's key; it covers our request for {trade_no}, not the record, which was checked to be that order and to keep the desk's rules"
                        ),
                        Some(paydesk_gateway::SignatureStatus::Unchecked) => {
                            "the answer's signature was not checked: no gateway key is configured".into()
                        }
                        Some(paydesk_gateway::SignatureStatus::NotSigned) => "the answer is not signed".into(),
                        None => "no live answer".into(),
                    };
                    format!("{}\n{covers}", serde_json::to_string_pretty(&d).unwrap_or_default())
                })
            }
            OrdersCmd::Lookup(args) => super::lookup::run(&desk, args, g).await,
            OrdersCmd::Simulate {
                trade_no,
                action,
                amount,
            } => {
                let action: paydesk_session::SimulateAction = action.parse()?;
                let refund = desk.simulate(&trade_no, action, amount.as_deref()).await?;
                print(g, &refund, || match &refund {
                    Some(no) => format!("{action} on {trade_no}: done, refund {no}"),
                    None => format!("{action} on {trade_no}: done"),
                })
            }
            OrdersCmd::Views => {
                let views = desk.orders().views(paydesk_core::views::Screen::Orders)?;
                let names: Vec<&str> = views.iter().map(|v| v.name.as_str()).collect();
                print(g, &names, || {
                    if names.is_empty() {
                        "no saved views (save one on the app's Orders screen)".into()
                    } else {
                        names.join("\n")
                    }
                })
            }
            OrdersCmd::Seed { count } => {
                let n = desk.seed_sandbox(count)?;
                print(g, &n, || {
                    format!("{n} demo orders added to the sandbox: `paydesk orders sync` brings them in")
                })
            }
            OrdersCmd::Export {
                path,
                force,
                filter,
                tz,
            } => {
                let offset = paydesk_reports::statement::parse_zone("--tz", &tz)?;
                let pb = bar(0, "exporting");
                if g.json {
                    pb.set_draw_target(indicatif::ProgressDrawTarget::hidden());
                }
                let existing = paydesk_core::output::Existing::replace_if(force);
                let n = desk.export(&filter.filter(&desk)?, &path, existing, offset, |done, total| {
                    pb.set_length(total);
                    pb.set_position(done);
                });
                pb.finish_and_clear();
                let n = n?;
                print(g, &n, || format!("wrote {n} orders to {}", path.display()))
            }
        }
    })
}
