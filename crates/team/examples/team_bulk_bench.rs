//! Benchmark: a team's payroll, one approved request of ROWS CLABE payouts executed by
//! a signer's desk (`team::execute_next`, what the signer's worker runs: the request's
//! claim, each row through the team's journal on PostgreSQL with its intent committed
//! and claimed before its request leaves, its audit row, the signed request, the
//! verified answer, the row's outcome), side by side with the independent client of
//! `bulk_bench` (a Python program signing each payout with `cryptography`, one at a
//! time) against the same sandbox, which runs in a child process. PostgreSQL is a
//! scratch server from `paydesk-testpg` with its own durability settings.
//!
//! cargo run --release -p paydesk-team --example team_bulk_bench -- [ROWS]
//!
//! `TEAM_IN_FLIGHT` (default `16,1`) lists the profile's `sync.payoutsInFlight` values to
//! run with. `TEAM_BENCH_STATEMENTS=1` has the server log every statement and prints,
//! after each run, the statements of the signer's sessions counted by their first words
//! (what each row costs the team's database). The independent client runs before and after; the ratio is taken against
//! the mean of the two. Prints figures, asserts none.

use std::sync::Arc;
use std::time::Instant;

use paydesk_core::{Desk, Endpoint, Home, MemoryStore, Profile, Secrets};
use paydesk_gateway::PrivateKey;
use paydesk_store_pg::{PgConfig, PgLink, init_team};
use paydesk_team::{self as team, RuleInput, Team, TeamRole};
use paydesk_testpg::{Options, TestPg};

#[path = "../../core/examples/common/proc_stat.rs"]
mod proc_stat;
use proc_stat::cpu;

#[path = "../../core/examples/common/independent.rs"]
mod independent;
use independent::{MER, ORIGIN, TOKEN, independent, loadavg, serve, start_sandbox};

const DB: &str = "team";
const PROFILE: &str = "signer";
const PASSWORD: &str = "correct-horse-battery";

fn cfg(pg: &TestPg, user: &str) -> PgConfig {
    PgConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: DB.into(),
        user: user.into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    }
}

/// Transactions committed in the team's database so far (every session's, reads
/// included) and the server's WAL flushes (`wal_sync`: what a writing commit waits
/// for), the statistics flushed first.
fn commits(pg: &TestPg) -> Result<(i64, i64), Box<dyn std::error::Error>> {
    let out = pg.psql_super(
        DB,
        "SELECT pg_stat_force_next_flush(); SELECT xact_commit || ' ' || (SELECT wal_sync FROM pg_stat_wal) FROM pg_stat_database WHERE datname = current_database()",
    )?;
    let line = out
        .lines()
        .rfind(|l| l.trim().contains(' '))
        .ok_or("no commit count")?;
    let mut n = line.split_whitespace().map(str::parse::<i64>);
    match (n.next(), n.next()) {
        (Some(Ok(c)), Some(Ok(w))) => Ok((c, w)),
        _ => Err(format!("unreadable counts: {line}").into()),
    }
}

/// A payroll of `rows` CLABE rows, amounts from `first` cents up (each row a payout of
/// its own, and no two runs alike: the duplicate guard never holds one).
fn payroll(rows: usize, first: usize) -> String {
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in first..first + rows {
        csv.push_str(&format!(
            "clabe,{}.{:02},MXN,002010077777777771,,,MX\n",
            10 + i / 100,
            i % 100
        ));
    }
    csv
}

/// The signer's statements in `log` counted by their first words, most frequent first,
/// per row.
fn print_statements(log: &str, rows: usize) {
    let mut counts = std::collections::HashMap::<String, usize>::new();
    for line in log.lines() {
        let Some(rest) = line.strip_prefix("sam ") else {
            continue;
        };
        // Simple queries log `statement: `, prepared ones `execute <name>: `.
        let text = match (rest.find("statement: "), rest.find("execute ")) {
            (Some(at), _) => &rest[at + 11..],
            (None, Some(at)) => match rest[at..].find(": ") {
                Some(colon) => &rest[at + colon + 2..],
                None => continue,
            },
            _ => continue,
        };
        let words: Vec<&str> = text.split_whitespace().take(6).collect();
        *counts.entry(words.join(" ")).or_default() += 1;
    }
    let mut counts: Vec<_> = counts.into_iter().collect();
    counts.sort_by_key(|c| std::cmp::Reverse(c.1));
    for (what, n) in counts.iter().take(40) {
        println!("  {:6.2} a row  {what}", *n as f64 / rows as f64);
    }
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        return serve().await;
    }
    let rows: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let in_flights: Vec<u32> = std::env::var("TEAM_IN_FLIGHT")
        .unwrap_or_else(|_| "16,1".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let merchant = PrivateKey::generate(2048)?;
    let (mut child, to_child, base, gateway_pem) = start_sandbox(&merchant)?;
    let sandbox = child.id().to_string();

    // The team's database: a maker, an approver, a signer, and one rule.
    let statements = std::env::var("TEAM_BENCH_STATEMENTS").is_ok_and(|v| v == "1");
    let mut options = Options::default().durable();
    if statements {
        options = options
            .setting("log_statement", "all")
            .setting("log_line_prefix", "%u %x ");
    }
    let pg = TestPg::start_with(options)?;
    pg.create_database(DB)?;
    let owner = PgLink::connect(&cfg(&pg, pg.owner()), pg.owner_password())?;
    init_team(&owner, MER as i64)?;
    Team::on(Arc::new(owner))?.add_member("alice", TeamRole::Admin, PASSWORD)?;
    let admin = Team::connect(&cfg(&pg, "alice"), PASSWORD)?;
    for (name, role) in [
        ("mark", TeamRole::Maker),
        ("ann", TeamRole::Approver),
        ("sam", TeamRole::Signer),
    ] {
        admin.add_member(name, role, PASSWORD)?;
    }
    admin.set_rule(&RuleInput {
        operation: "payout".into(),
        currency: "MXN".into(),
        above: "0".into(),
        approvals: 1,
    })?;
    let maker = Team::connect(&cfg(&pg, "mark"), PASSWORD)?;
    let approver = Team::connect(&cfg(&pg, "ann"), PASSWORD)?;
    let signer = Team::connect(&cfg(&pg, "sam"), PASSWORD)?;

    let dir = tempfile::tempdir()?;
    let home = Home::at(dir.path());
    let secrets = Secrets::new(Arc::new(MemoryStore::default()));
    secrets.set_merchant_key(PROFILE, &merchant)?;
    secrets.set_gateway_key(PROFILE, &gateway_pem)?;
    secrets.set_bearer(PROFILE, TOKEN)?;
    secrets.set_team_password(PROFILE, PASSWORD)?;
    println!(
        "sandbox child at {base}; PostgreSQL {}; load average at the start: {}",
        pg.port(),
        loadavg()
    );

    let before = independent(dir.path(), &base, &merchant, rows, "PY1-")?;
    println!("independent client (Python, one at a time), before: {before:.0} payouts/s");
    let mut figures = Vec::new();
    for (k, &n) in in_flights.iter().enumerate() {
        home.put(Profile {
            name: PROFILE.into(),
            base_url: Some(base.clone()),
            mer_no: MER,
            origin: ORIGIN.into(),
            lang: "en".into(),
            order_type: None,
            operator: "bench".into(),
            notify_url: "http://127.0.0.1:9/notify".into(),
            notify_at_desk: false,
            proxy: String::new(),
            safety: Default::default(),
            sync: paydesk_core::profile::SyncSettings {
                payouts_in_flight: n,
                ..Default::default()
            },
            team: Some(cfg(&pg, "sam")),
        })?;
        let desk = Desk::open(&home, secrets.clone(), PROFILE, Endpoint::Profile)?;
        let request = maker.request_bulk(
            &format!("payroll-{k}.csv"),
            payroll(rows, k * rows).as_bytes(),
        )?;
        approver.approve(request.id)?;
        let log_from = pg.log().len();
        let commits_before = commits(&pg)?;
        let (desk_cpu, sandbox_cpu) = (cpu("self"), cpu(&sandbox));
        let t = Instant::now();
        let mut accepted = 0;
        while let Some(done) = team::execute_next(&desk, &signer).await? {
            accepted += done.accepted as usize;
        }
        let secs = t.elapsed().as_secs_f64();
        let (desk_cpu, sandbox_cpu) = (cpu("self") - desk_cpu, cpu(&sandbox) - sandbox_cpu);
        let after = commits(&pg)?;
        let per_row = (after.0 - commits_before.0) as f64 / rows as f64;
        let flushes = (after.1 - commits_before.1) as f64 / rows as f64;
        if accepted != rows {
            return Err(format!("{accepted} of {rows} rows accepted").into());
        }
        let rate = rows as f64 / secs;
        println!(
            "signer, {n} in flight: {rows} rows in {secs:.2} s = {rate:.0} rows/s; CPU this process (desk, PostgreSQL's client side) {desk_cpu:.2} s, sandbox {sandbox_cpu:.2} s; the team database's transactions: {per_row:.1} a row, WAL flushes {flushes:.1} a row"
        );
        if statements {
            let log = pg.log();
            print_statements(&log[log_from..], rows);
            if let Ok(path) = std::env::var("TEAM_BENCH_LOG") {
                std::fs::write(path, &log[log_from..])?;
            }
        }
        figures.push((n, rate, secs));
    }
    let after = independent(dir.path(), &base, &merchant, rows, "PY2-")?;
    println!("independent client (Python, one at a time), after: {after:.0} payouts/s");
    let anchor = (before + after) / 2.0;
    println!();
    println!(
        "| payouts in flight | signer's request of {rows} rows | independent client (mean of before and after) | ratio |"
    );
    println!("|---|---|---|---|");
    for (n, rate, secs) in figures {
        println!(
            "| {n} | {rate:.0} rows/s ({secs:.2} s) | {anchor:.0} payouts/s ({before:.0}, {after:.0}) | {:.2}× |",
            rate / anchor
        );
    }
    println!("load average at the end: {}", loadavg());
    drop(to_child);
    let _ = child.kill();
    let _ = child.wait();
    Ok(())
}
