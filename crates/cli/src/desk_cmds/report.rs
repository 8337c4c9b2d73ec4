//! `paydesk report`: statements of a period (CSV, XLSX, PDF), for a scheduler.

use super::*;

#[derive(Debug, Subcommand)]
pub enum ReportCmd {
    /// The statement of the days --from to --to (both included) from the local cache,
    /// written to --out (.csv, .xlsx or .pdf). Sync first (`paydesk orders sync`) for figures
    /// as of now.
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
        /// The time zone the days are in and dates are written in: UTC or an offset
        /// such as +08:00.
        #[arg(long, default_value = "UTC", allow_hyphen_values = true)]
        tz: String,
        /// The file to write: .csv, .xlsx or .pdf.
        #[arg(long)]
        out: PathBuf,
        /// Replace the file if it exists (otherwise an existing file is refused).
        #[arg(long)]
        force: bool,
    },
}

fn date(field: &str, s: &str) -> Result<chrono::NaiveDate, Failure> {
    chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d")
        .map_err(|_| Failure::Input(format!("--{field}: must be a date YYYY-MM-DD, got {s:?}")))
}

pub fn report(cmd: ReportCmd, g: &Global) -> Result<(), Failure> {
    let ReportCmd::Statement {
        from,
        to,
        currency,
        tz,
        out,
        force,
    } = cmd;
    // The arguments are checked before a desk is opened.
    let zone = paydesk_core::statement::parse_zone("tz", &tz)?;
    let period =
        paydesk_core::statement::Period::days(date("from", &from)?, date("to", &to)?, zone)?;
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
            export: &'a paydesk_core::statement::export::StatementExport,
            statement: &'a paydesk_core::statement::Statement,
        }
        let written = Written {
            path: out.display().to_string(),
            export: &made,
            statement: &statement,
        };
        print(g, &written, || {
            let mut lines = vec![format!(
                "wrote the statement of {from} to {to} ({}) to {}: {} orders, sha256 {}",
                made.time_zone,
                out.display(),
                made.rows,
                made.sha256
            )];
            for c in &statement.currencies {
                lines.push(format!(
                    "{}: paid payins {} ({}), fees {}, refunds {}, chargebacks {}, payouts {} ({}), net {}",
                    c.currency,
                    c.payins.succeeded.amount,
                    c.payins.succeeded.count,
                    c.payin_fees.total,
                    c.refunds.amount,
                    c.chargebacks.amount,
                    c.payouts.succeeded.amount,
                    c.payouts.succeeded.count,
                    c.net
                ));
                if c.unknown_kind.all.count > 0 {
                    lines.push(format!(
                        "{}: {} orders of {} whose kind the gateway did not give, in no figure above: tell payouts from payins with the conventions' kindRules",
                        c.currency, c.unknown_kind.all.count, c.unknown_kind.all.amount
                    ));
                }
            }
            lines.join("\n")
        })
    })
}
