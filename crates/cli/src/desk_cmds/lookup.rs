//! `paydesk orders lookup`: many numbers at once, through `Orders::bulk_lookup`.

use std::io::Write as _;

use paydesk_core::desk::{Found, GatewayAsked, LookupOptions, LookupReport};
use paydesk_reports::lookup::write_csv as write_lookup_csv;

use super::*;

/// The most bytes a numbers file (or stdin) may hold.
const MAX_INPUT: u64 = 4 * 1024 * 1024;

#[derive(Debug, Args)]
pub struct LookupArgs {
    /// A text or CSV file of numbers, or `-` for stdin.
    #[arg(long)]
    file: PathBuf,
    /// Do not ask the gateway: the cache's answers only.
    #[arg(long)]
    offline: bool,
    /// Also read the orders the cache holds again at the gateway (and update the cache).
    #[arg(long)]
    refresh: bool,
    /// `text` (a table) or `csv` (to stdout; notes to stderr).
    #[arg(long, value_enum, default_value_t = LookupFormat::Text)]
    format: LookupFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum LookupFormat {
    Text,
    Csv,
}

/// What the gateway part came to, in a sentence.
pub fn gateway_note(r: &LookupReport) -> String {
    match r.gateway {
        GatewayAsked::Asked => format!(
            "the gateway was asked in {} list requests of up to {} numbers",
            r.requests, r.batch_size
        ),
        GatewayAsked::NotNeeded => "the cache held every number: the gateway was not asked".into(),
        GatewayAsked::Offline => {
            "offline: the gateway was not asked; numbers the cache lacks are 'not asked', not absent"
                .into()
        }
        GatewayAsked::Stopped => "stopped: the numbers left are 'not asked'".into(),
        GatewayAsked::Failed => format!(
            "the gateway failed ({}): the numbers left are 'not asked'",
            r.gateway_error.as_deref().unwrap_or("no reason given")
        ),
    }
}

fn summary(r: &LookupReport) -> Vec<String> {
    let count = |f: Found| r.rows.iter().filter(|x| x.found == f).count();
    let mut out = vec![format!(
        "{} numbers: {} in cache, {} at the gateway, {} not found, {} not asked, {} unreadable, {} not listed yet (sent by this desk within the not-found grace); {} repeated lines dropped",
        r.rows.len(),
        count(Found::Cache),
        count(Found::Gateway),
        count(Found::NotFound),
        count(Found::NotAsked),
        count(Found::Unreadable),
        count(Found::NotListedYet),
        r.duplicates
    )];
    out.push(gateway_note(r));
    if r.cache_updated > 0 {
        out.push(format!("{} cached orders updated", r.cache_updated));
    }
    for x in &r.rejected {
        out.push(format!("line {}: {:?}: {}", x.line, x.text, x.rule));
    }
    out
}

pub async fn run(desk: &Desk, args: LookupArgs, g: &Global) -> Result<(), Failure> {
    let text = if args.file.as_os_str() == "-" {
        paydesk_core::input::read_stdin(MAX_INPUT)
    } else {
        paydesk_core::input::read_text(&args.file, MAX_INPUT)
    }
    .map_err(|e| Failure::Input(format!("--file: {e}")))?;
    let opts = LookupOptions {
        ask_gateway: !args.offline,
        refresh: args.refresh,
    };
    let pb = bar(0, "looking up");
    if g.json || args.format == LookupFormat::Csv {
        pb.set_draw_target(indicatif::ProgressDrawTarget::hidden());
    }
    let r = desk
        .orders()
        .bulk_lookup(&text, opts, Arc::new(AtomicBool::new(false)), |p| {
            pb.set_length(u64::from(p.to_ask));
            pb.set_position(u64::from(p.asked));
        })
        .await;
    pb.finish_and_clear();
    let r = r?;
    if args.format == LookupFormat::Csv && !g.json {
        let mut out = std::io::stdout().lock();
        write_lookup_csv(&r, &mut out)?;
        out.flush().map_err(|e| Failure::Other(e.to_string()))?;
        for line in summary(&r) {
            eprintln!("{}", paydesk_gateway::redact::terminal_safe(&line, 400));
        }
        return Ok(());
    }
    print(g, &r, || {
        let given = |o: &Option<String>| o.clone().unwrap_or_else(|| "not given".into());
        let mut out = vec![format!(
            "{:<26} {:<16} {:<22} {:<26} {:<15} {}",
            "NUMBER", "FOUND", "TRADE NO", "MER ORDER NO", "STATE", "AMOUNT"
        )];
        for x in &r.rows {
            let state = match (x.state, x.meaning) {
                (Some(_), Some(m)) => m.as_str().to_string(),
                (Some(s), None) => format!("unknown {s}"),
                _ => "not given".into(),
            };
            let amount = match (&x.amount, &x.currency) {
                (Some(a), Some(c)) => format!("{a} {c}"),
                (Some(a), None) => format!("{a} (currency not given)"),
                _ => "not given".into(),
            };
            let mut line = format!(
                "{:<26} {:<16} {:<22} {:<26} {:<15} {}",
                x.number,
                x.found.label(),
                given(&x.trade_no),
                given(&x.mer_order_no),
                state,
                amount
            );
            if !x.also.is_empty() {
                line.push_str(&format!("  (also names {})", x.also.join(", ")));
            }
            if x.unlisted {
                line.push_str("  (the gateway's list did not show it)");
            }
            if let (Found::NotListedYet, Some(until)) = (x.found, x.grace_until) {
                line.push_str(&format!(
                    "  (sent by this desk; the gateway may list it until {})",
                    chrono::DateTime::from_timestamp_millis(until)
                        .map(|t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string())
                        .unwrap_or_default()
                ));
            }
            out.push(line);
        }
        out.extend(summary(&r));
        out.join("\n")
    })
}
