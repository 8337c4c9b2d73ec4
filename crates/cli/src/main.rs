//! `paydesk`: PayDesk from a terminal.
//!
//! Exit codes:
//! - 0: success.
//! - 1: the answer is no: a signature is not valid (`verify`), the gateway rejected the
//!   request, the audit chain is broken, `alerts` has alerts to show.
//! - 2: bad input or usage (a one-line reason on stderr).
//! - 3: the outcome is unknown (the request may have reached the gateway); run
//!   `paydesk journal reconcile`.
//! - 4: the keyring is unavailable or a secret is missing.
//! - 5: anything else (not sent, storage).

use std::process::ExitCode;

use clap::{Parser, Subcommand};

mod desk_cmds;
mod keys;
mod sandbox;

#[derive(Debug, Parser)]
#[command(
    name = "paydesk",
    version,
    about = "PayDesk, the payment gateway back office, from a terminal"
)]
struct Cli {
    #[command(flatten)]
    global: desk_cmds::Global,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Sign a JSON object read from stdin; prints {"canonical": ..., "sign": ...}.
    Sign(keys::SignArgs),
    /// Verify a signature over a JSON object read from stdin (exit 0 valid, 1 invalid, 2 bad input).
    Verify(keys::VerifyArgs),
    /// Generate an RSA key pair: PKCS#8 private key (mode 0600) and SPKI public key, PEM.
    Keygen(keys::KeygenArgs),
    /// Serve the sandbox gateway on 127.0.0.1 with a demo merchant, for trying PayDesk out.
    Sandbox(sandbox::SandboxArgs),
    /// Profiles and their keys (kept in the OS keyring).
    #[command(subcommand)]
    Profile(desk_cmds::ProfileCmd),
    /// The local order cache: sync, list, show, export.
    #[command(subcommand)]
    Orders(desk_cmds::OrdersCmd),
    /// Reports: statements of a period (CSV, XLSX, PDF) and balance reconciliation.
    #[command(subcommand)]
    Report(desk_cmds::ReportCmd),
    /// Scheduled reports: statements or orders exports written to a folder daily,
    /// weekly or monthly (run by the app or the team's worker while it runs; `run-due`
    /// for cron).
    #[command(subcommand)]
    Schedule(desk_cmds::ScheduleCmd),
    /// The book of payees: list, add, remove (a payout names one with --beneficiary).
    #[command(subcommand)]
    Beneficiaries(desk_cmds::BeneficiariesCmd),
    /// Payins.
    #[command(subcommand)]
    Payin(PayinCmd),
    /// Payouts, through the journal.
    #[command(subcommand)]
    Payout(desk_cmds::PayoutCmd),
    /// Refund query (V1).
    #[command(subcommand)]
    Refund(RefundCmd),
    /// Balances per currency (every answer is kept for the history); `history` and
    /// `upcoming` read what is kept.
    #[command(args_conflicts_with_subcommands = true)]
    Balance {
        /// Currencies (default: every currency in the cache).
        #[arg(long, value_delimiter = ',')]
        currency: Vec<String>,
        #[command(subcommand)]
        what: Option<desk_cmds::BalanceCmd>,
    },
    /// Every profile's last balances, last sync and unknown outcomes, with totals.
    Overview(desk_cmds::OverviewArgs),
    /// Card top-up and withdraw, through the journal.
    #[command(subcommand)]
    Card(desk_cmds::CardCmd),
    /// Review documents for bank-transfer orders.
    #[command(subcommand)]
    Review(ReviewCmd),
    /// The journal of money-moving calls.
    #[command(subcommand)]
    Journal(desk_cmds::JournalCmd),
    /// The audit log.
    #[command(subcommand)]
    Audit(desk_cmds::AuditCmd),
    /// Notifications from the gateway.
    #[command(subcommand)]
    Events(desk_cmds::EventsCmd),
    /// A team on a shared PostgreSQL database: schema, members, rules, requests, the
    /// signer's worker.
    #[command(subcommand)]
    Team(desk_cmds::TeamCmd),
    /// Requests waiting for approval: list, show, approve, reject.
    #[command(subcommand)]
    Approvals(desk_cmds::ApprovalsCmd),
    /// Alerts (the app's inbox): approvals waiting for you, unknown outcomes, low
    /// balances, chargebacks and refusals, the sync, the signer's worker. Exits 1 when
    /// there are alerts, 0 when none (for monitoring scripts).
    Alerts(desk_cmds::AlertsArgs),
}

#[derive(Debug, Subcommand)]
enum PayinCmd {
    /// Create a payin with any method.
    Create(desk_cmds::PayinArgs),
}

#[derive(Debug, Subcommand)]
enum RefundCmd {
    /// Show a refund of an order.
    Show {
        #[arg(long)]
        trade_no: String,
        #[arg(long, default_value = "")]
        refund_no: String,
    },
    /// Refunds and chargebacks cached from earlier queries.
    List {
        #[arg(long)]
        trade_no: Option<String>,
    },
}

#[derive(Debug, Subcommand)]
enum ReviewCmd {
    /// Submit information items and files (read, checked and encoded here); each file
    /// sent is printed with its size and SHA-256, the evidence the desk keeps.
    Submit(desk_cmds::ReviewArgs),
    /// The bank-transfer orders that need or have review documents, with status and age.
    Queue,
    /// Match files to the queue's orders by the order number in their names.
    Match {
        /// The files (full paths).
        #[arg(required = true)]
        files: Vec<String>,
    },
}

/// A failure with the exit code it maps to.
#[derive(Debug)]
pub enum Failure {
    /// Exit 1: the command ran and the answer is "no".
    Check(String),
    /// Exit 2: the input or the arguments are wrong.
    Input(String),
    /// Exit 3: the outcome is unknown.
    Unknown(String),
    /// Exit 4: keyring.
    Keyring(String),
    /// Exit 5: anything else.
    Other(String),
    /// Exit 6: the same payment is already in the journal under another order number
    /// (unresolved, or accepted lately); nothing was sent.
    Duplicate(String),
}

fn main() -> ExitCode {
    // clap quotes what was typed in its errors: printed safely like everything else.
    let cli = Cli::try_parse().unwrap_or_else(|e| {
        let text = e.render().to_string();
        let safe: Vec<String> = text
            .split('\n')
            .map(|line| paydesk_gateway::redact::terminal_safe(line, 4_000))
            .collect();
        if e.use_stderr() {
            eprint!("{}", safe.join("\n"));
        } else {
            print!("{}", safe.join("\n"));
        }
        std::process::exit(e.exit_code());
    });
    let g = &cli.global;
    let result = match cli.command {
        Command::Sign(a) => keys::sign(a),
        Command::Verify(a) => keys::verify(a),
        Command::Keygen(a) => keys::keygen(a),
        Command::Sandbox(a) => sandbox::run(a),
        Command::Profile(c) => desk_cmds::profile(c, g),
        Command::Orders(c) => desk_cmds::orders(c, g),
        Command::Report(c) => desk_cmds::report(c, g),
        Command::Schedule(c) => desk_cmds::schedule(c, g),
        Command::Payin(PayinCmd::Create(a)) => desk_cmds::payin(a, g),
        Command::Beneficiaries(c) => desk_cmds::beneficiaries(c, g),
        Command::Payout(c) => desk_cmds::payout(c, g),
        Command::Refund(RefundCmd::Show {
            trade_no,
            refund_no,
        }) => desk_cmds::refund(trade_no, refund_no, g),
        Command::Refund(RefundCmd::List { trade_no }) => desk_cmds::reversals(trade_no, g),
        Command::Events(c) => desk_cmds::events(c, g),
        Command::Balance { what: Some(w), .. } => desk_cmds::balance_cmd(w, g),
        Command::Balance { currency, .. } => desk_cmds::balance(currency, g),
        Command::Overview(a) => desk_cmds::overview(a, g),
        Command::Card(c) => desk_cmds::card(c, g),
        Command::Review(ReviewCmd::Submit(a)) => desk_cmds::review(a, g),
        Command::Review(ReviewCmd::Queue) => desk_cmds::review_queue(g),
        Command::Review(ReviewCmd::Match { files }) => desk_cmds::review_match(files, g),
        Command::Journal(c) => desk_cmds::journal(c, g),
        Command::Audit(c) => desk_cmds::audit(c, g),
        Command::Team(c) => desk_cmds::team(c, g),
        Command::Approvals(c) => desk_cmds::approvals(c, g),
        Command::Alerts(a) => desk_cmds::alerts(a, g),
    };
    let (code, msg) = match result {
        Ok(()) => return ExitCode::SUCCESS,
        Err(Failure::Check(m)) => (1, m),
        Err(Failure::Input(m)) => (2, format!("error: {m}")),
        Err(Failure::Unknown(m)) => (3, format!("outcome unknown: {m}")),
        Err(Failure::Keyring(m)) => (4, format!("keyring: {m}")),
        Err(Failure::Other(m)) => (5, format!("error: {m}")),
        Err(Failure::Duplicate(m)) => (6, format!("not sent: {m}")),
    };
    // A message may quote the gateway: printed safely, and cut if it is long.
    eprintln!(
        "{}",
        paydesk_gateway::redact::terminal_safe(&msg.replace('\n', " "), 4_000)
    );
    ExitCode::from(code)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The words a POSIX shell (`sh`) makes of `line`, with the variables the app's
    /// copied commands use in place of an account number set in its environment.
    fn shell_words(line: &str, env: &[(&str, &str)]) -> Vec<String> {
        // `paydesk` is replaced by a function that prints its words NUL-separated: the
        // line is run by the shell exactly as copied, but nothing runs.
        let script =
            format!("paydesk() {{ printf 'paydesk\\0'; printf '%s\\0' \"$@\"; }}\n{line}\n");
        let out = std::process::Command::new("sh")
            .arg("-c")
            .arg(script)
            .env_clear()
            .envs(env.iter().copied())
            .output()
            .expect("sh runs");
        assert!(out.status.success(), "sh refused {line}: {out:?}");
        let text = String::from_utf8(out.stdout).expect("UTF-8 words");
        text.split_terminator('\0').map(str::to_string).collect()
    }

    /// Every line of the app's "Copy as command" fixture (ui/src/lib/cliCommand.fixture.json,
    /// which the builder's unit test checks the app produces) is accepted by this CLI's
    /// parser once a shell has read it, with the values it was built from.
    #[test]
    fn copied_commands_parse() {
        let path = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../../ui/src/lib/cliCommand.fixture.json"
        );
        let text = std::fs::read_to_string(path).expect("the fixture");
        let lines: std::collections::BTreeMap<String, String> =
            serde_json::from_str(&text).expect("a JSON object of lines");
        assert!(lines.len() >= 16, "{} lines", lines.len());
        let clabe = "646180157000000004";
        let env = [("CLABE", clabe), ("ACCOUNT", clabe), ("HOME", "/nowhere")];
        for (name, line) in &lines {
            let words = shell_words(line, &env);
            let cli = Cli::try_parse_from(&words)
                .unwrap_or_else(|e| panic!("{name}: {line}\n{words:?}\n{e}"));
            let shown = format!("{cli:?}");
            assert!(shown.contains("profile: Some("), "{name}: {shown}");
            match name.as_str() {
                "payoutClabe" => {
                    assert!(shown.contains("profile: Some(\"Acme Payroll\")"), "{shown}");
                    assert!(shown.contains("amount: \"1234.50\""), "{shown}");
                    assert!(shown.contains(&format!("clabe: \"{clabe}\"")), "{shown}");
                    // Why (issue 35): the purpose and its reference reach the payout.
                    assert!(shown.contains("purpose: \"March payroll\""), "{shown}");
                    assert!(shown.contains("reference: \"INV-1042\""), "{shown}");
                    assert!(matches!(
                        cli.command,
                        Command::Payout(desk_cmds::PayoutCmd::Clabe { .. })
                    ));
                }
                "payoutBeneficiary" => {
                    assert!(shown.contains("beneficiary: Some(\"rent\")"), "{shown}");
                    assert!(shown.contains("clabe: \"\""), "{shown}");
                }
                "payoutCard" => {
                    assert!(shown.contains("last_name: \"O'Brien\""), "{shown}");
                    assert!(shown.contains("card_no: None"), "{shown}");
                }
                "cardWithdraw" => {
                    assert!(shown.contains("reference: Some(\"WD-1\")"), "{shown}");
                    assert!(shown.contains("purpose: \"Float for O'Hara\""), "{shown}");
                    assert!(shown.contains("purpose_ref: \"T-88\""), "{shown}");
                }
                "bulk" => assert!(shown.contains("purpose: \"Payroll November\""), "{shown}"),
                "payinWechatV1" => assert!(shown.contains("product: \"Tea; rm -rf ~\""), "{shown}"),
                "statement" => assert!(shown.contains("\"/tmp/Statement $HOME.pdf\""), "{shown}"),
                "reviewSubmit" => {
                    assert!(shown.contains(r#"1=Invoice 55, \"paid\""#), "{shown}");
                    assert!(
                        shown.contains("21=/home/ana/scans/pass port.png"),
                        "{shown}"
                    );
                }
                "resendPayout" => assert!(shown.contains(&format!("account: Some(\"{clabe}\")"))),
                "balanceHistory" => assert!(matches!(
                    &cli.command,
                    Command::Balance {
                        what: Some(desk_cmds::BalanceCmd::History { currency }),
                        ..
                    } if currency == "MXN"
                )),
                "overview" => assert!(
                    matches!(&cli.command, Command::Overview(a)
                        if a.to.as_deref() == Some("MXN") && a.rates == ["USD=17.05"]),
                    "{shown}"
                ),
                _ => {}
            }
        }
        // The parser is strict: a flag the CLI does not have is refused, so the lines
        // above are accepted for what they say.
        let bad = shell_words(
            "paydesk --profile main payout clabe --amount 1 --currency MXN --clabe 1 --iban 2",
            &[],
        );
        assert!(Cli::try_parse_from(&bad).is_err());
    }
}
