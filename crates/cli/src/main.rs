//! `paydesk`: PayDesk from a terminal.
//!
//! Exit codes:
//! - 0: success.
//! - 1: the answer is no: a signature is not valid (`verify`), the gateway rejected the
//!   request, the audit chain is broken.
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
    /// Payins.
    #[command(subcommand)]
    Payin(PayinCmd),
    /// Payouts, through the journal.
    #[command(subcommand)]
    Payout(desk_cmds::PayoutCmd),
    /// Refund query (V1).
    #[command(subcommand)]
    Refund(RefundCmd),
    /// Balances per currency (every answer is kept for the history).
    Balance {
        /// Currencies (default: every currency in the cache).
        #[arg(long, value_delimiter = ',')]
        currency: Vec<String>,
    },
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
        Command::Payout(c) => desk_cmds::payout(c, g),
        Command::Refund(RefundCmd::Show {
            trade_no,
            refund_no,
        }) => desk_cmds::refund(trade_no, refund_no, g),
        Command::Refund(RefundCmd::List { trade_no }) => desk_cmds::reversals(trade_no, g),
        Command::Events(c) => desk_cmds::events(c, g),
        Command::Balance { currency } => desk_cmds::balance(currency, g),
        Command::Card(c) => desk_cmds::card(c, g),
        Command::Review(ReviewCmd::Submit(a)) => desk_cmds::review(a, g),
        Command::Review(ReviewCmd::Queue) => desk_cmds::review_queue(g),
        Command::Review(ReviewCmd::Match { files }) => desk_cmds::review_match(files, g),
        Command::Journal(c) => desk_cmds::journal(c, g),
        Command::Audit(c) => desk_cmds::audit(c, g),
        Command::Team(c) => desk_cmds::team(c, g),
        Command::Approvals(c) => desk_cmds::approvals(c, g),
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
