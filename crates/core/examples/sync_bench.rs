//! Benchmark: sync from the sandbox into a fresh cache, end to end (signed pages,
//! verified, decoded, upserted with the search index), at several network latencies,
//! each against the bound its settings allow (requests in flight × page size / latency),
//! with the syncing process's peak resident memory; and, in the same run, a raw SQLite
//! insert of the same rows into the same schema, for the loopback sync to be compared
//! with. The sandbox runs in a child process (this program started again), so its
//! memory and its seeding are not counted; its latency fault delays every order-list
//! answer.
//!
//! cargo run --release -p paydesk-core --example sync_bench -- [ORDERS] [LATENCIES_MS]
//!
//! LATENCIES_MS is a comma-separated list (default `0,50,150,300`). `SYNC_IN_FLIGHT`
//! and `SYNC_PAGE_SIZE` override the profile's defaults (8 and 500).

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use paydesk_core::store::orders::{self, OrderFilter};
use paydesk_core::sync::SyncOptions;
use paydesk_core::{Desk, Home, MemoryStore, Profile, Secrets};
use paydesk_gateway::PrivateKey;

#[path = "common/proc_stat.rs"]
mod proc_stat;
use proc_stat::cpu;

fn status_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The child: a sandbox with `n` orders over 92 days and the merchant key from the
/// first line of stdin, on a free port; each further line sets the order list's
/// latency in milliseconds, answered by `ok`.
async fn serve(n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut first = String::new();
    std::io::stdin().read_line(&mut first)?;
    let pem = first.trim_end().replace('|', "\n");
    let public = paydesk_gateway::PublicKey::from_text(&pem)?;
    let sb = paydesk_sandbox::Sandbox::new(paydesk_sandbox::SandboxConfig::default())?;
    sb.add_merchant(paydesk_sandbox::demo_merchant(
        10001,
        &public,
        "https://bench.local",
        "bench-token",
    ));
    let now = chrono::Utc::now();
    sb.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(10001),
        from: Some(
            (now - chrono::Duration::days(92))
                .format("%F %T")
                .to_string(),
        ),
        to: Some(now.format("%F %T").to_string()),
        ..paydesk_sandbox::SeedSpec::new(n)
    });
    let key = sb.gateway_public_key().to_pem();
    let running = sb.serve("127.0.0.1:0".parse()?).await?;
    println!("{}", running.base_url());
    println!("{}", key.replace('\n', "|"));
    std::io::stdout().flush()?;
    // The lines are read on a thread of their own: the server keeps serving meanwhile.
    let (tx, mut rx) = tokio::sync::mpsc::channel::<String>(1);
    std::thread::spawn(move || {
        for line in std::io::stdin().lines().map_while(Result::ok) {
            if tx.blocking_send(line).is_err() {
                break;
            }
        }
    });
    while let Some(line) = rx.recv().await {
        let latency_ms: u64 = line.trim().parse()?;
        running.sandbox.set_fault(
            "/v2/order/queryOrderList",
            paydesk_sandbox::Fault {
                latency_ms,
                ..Default::default()
            },
        );
        println!("ok");
        std::io::stdout().flush()?;
    }
    Ok(())
}

fn env_or<T: std::str::FromStr>(name: &str, default: T) -> T {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        return serve(args[2].parse()?).await;
    }
    if args.get(1).map(String::as_str) == Some("--sync") {
        return sync_run(&args[2..]).await;
    }
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let latencies: Vec<u64> = args
        .get(2)
        .map(String::as_str)
        .unwrap_or("0,50,150,300")
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let in_flight: usize = env_or("SYNC_IN_FLIGHT", paydesk_core::sync::DEFAULT_IN_FLIGHT);
    let page_size: i64 = env_or("SYNC_PAGE_SIZE", paydesk_core::sync::DEFAULT_PAGE_SIZE);
    let merchant = PrivateKey::generate(2048)?;

    let t = Instant::now();
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--serve", &n.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut to_child = child.stdin.take().ok_or("no stdin")?;
    writeln!(
        to_child,
        "{}",
        merchant.public_key().to_pem().replace('\n', "|")
    )?;
    let mut lines = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    let base = lines.next().ok_or("no address")??;
    let gateway_pem = lines.next().ok_or("no key")??.replace('|', "\n");
    println!(
        "sandbox child seeded {n} orders over 92 days in {:.1} s at {base}",
        t.elapsed().as_secs_f64()
    );
    println!(
        "settings: pages of {page_size}, {in_flight} requests in flight, no rate limit, daily windows"
    );
    println!(
        "| latency | sync | bound (in flight × page / latency) | of the bound | requests | of which writing | CPU: desk, sandbox (of 2 cores × time) | peak RSS while syncing |"
    );
    println!("|---|---|---|---|---|---|---|---|");
    let sandbox_pid = child.id().to_string();

    for &latency in &latencies {
        writeln!(to_child, "{latency}")?;
        let ok = lines.next().ok_or("the sandbox child stopped")??;
        if ok != "ok" {
            return Err(format!("the sandbox child said {ok:?}").into());
        }
        // Each run in a process of its own, so its peak memory is its own.
        let mut run = Command::new(std::env::current_exe()?)
            .args([
                "--sync",
                &sandbox_pid,
                &base,
                &latency.to_string(),
                &in_flight.to_string(),
                &page_size.to_string(),
            ])
            .stdin(Stdio::piped())
            .spawn()?;
        if let Some(mut stdin) = run.stdin.take() {
            writeln!(stdin, "{}", merchant.to_pkcs8_pem().replace('\n', "|"))?;
            writeln!(stdin, "{}", gateway_pem.replace('\n', "|"))?;
        }
        let status = run.wait()?;
        if !status.success() {
            return Err(format!("the sync at {latency} ms failed ({status})").into());
        }
    }
    drop(to_child);
    let _ = child.kill();
    let _ = child.wait();
    Ok(())
}

/// One sync run (a process of its own): the merchant's key and the gateway's key on
/// stdin, a line each; prints its row of the table, and at latency 0 the raw insert of
/// the same rows.
async fn sync_run(args: &[String]) -> Result<(), Box<dyn std::error::Error>> {
    let [sandbox_pid, base, latency, in_flight, page_size] = args else {
        return Err("--sync SANDBOX_PID BASE LATENCY IN_FLIGHT PAGE_SIZE".into());
    };
    let (latency, in_flight, page_size): (u64, usize, i64) =
        (latency.parse()?, in_flight.parse()?, page_size.parse()?);
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let merchant = PrivateKey::from_text(&line.trim_end().replace('|', "\n"))?;
    line.clear();
    std::io::stdin().read_line(&mut line)?;
    let gateway_pem = line.trim_end().replace('|', "\n");
    let dir = tempfile::tempdir()?;
    let desk = open_desk(&dir, base, &gateway_pem, &merchant)?;
    let opts = SyncOptions {
        in_flight,
        page_size,
        to: chrono::Utc::now() + chrono::Duration::hours(1),
        ..SyncOptions::last_days(93)
    };
    let (desk_cpu, sandbox_cpu) = (cpu("self"), cpu(sandbox_pid));
    let t = Instant::now();
    let report = desk
        .orders()
        .sync(&opts, Arc::new(AtomicBool::new(false)), |_| {})
        .await?;
    let secs = t.elapsed().as_secs_f64();
    let (desk_cpu, sandbox_cpu) = (cpu("self") - desk_cpu, cpu(sandbox_pid) - sandbox_cpu);
    let peak = status_kib("VmHWM:") / 1024;
    let rate = report.progress.orders as f64 / secs;
    let (bound, share) = if latency == 0 {
        (
            "none (loopback: the CPU bounds it)".to_string(),
            "-".to_string(),
        )
    } else {
        let bound = in_flight as f64 * page_size as f64 / (latency as f64 / 1000.0);
        (
            format!("{bound:.0} orders/s"),
            format!("{:.2}", rate / bound),
        )
    };
    println!(
        "| {latency} ms | {} orders in {secs:.1} s: {rate:.0} orders/s | {bound} | {share} | {} ({} asked again) | {:.1} s | {desk_cpu:.1} s, {sandbox_cpu:.1} s ({:.0}% of {:.1} s) | {peak} MiB |",
        report.progress.orders,
        report.requests,
        report.retries,
        report.write_seconds,
        (desk_cpu + sandbox_cpu) / (2.0 * secs) * 100.0,
        2.0 * secs
    );
    if latency == 0 {
        let raw_rate = raw_insert(&dir, &desk)?;
        println!(
            "raw SQLite insert of the same rows into the same schema (one transaction, a prepared statement per row): {raw_rate:.0} rows/s; the loopback sync is {:.2}× of it",
            rate / raw_rate
        );
    }
    Ok(())
}

fn open_desk(
    dir: &tempfile::TempDir,
    base: &str,
    gateway_pem: &str,
    merchant: &PrivateKey,
) -> Result<Desk, Box<dyn std::error::Error>> {
    let home = Home::at(dir.path());
    let secrets = Secrets::new(Arc::new(MemoryStore::default()));
    secrets.set_merchant_key("bench", merchant)?;
    secrets.set_gateway_key("bench", gateway_pem)?;
    secrets.set_bearer("bench", "bench-token")?;
    home.put(Profile {
        name: "bench".into(),
        base_url: Some(base.to_string()),
        mer_no: 10001,
        origin: "https://bench.local".into(),
        lang: "en".into(),
        order_type: None,
        operator: "bench".into(),
        notify_url: "http://127.0.0.1:9/notify".into(),
        notify_at_desk: false,
        proxy: String::new(),
        safety: Default::default(),
        sync: Default::default(),
        team: None,
    })?;
    Ok(Desk::open(
        &home,
        secrets,
        "bench",
        paydesk_core::Endpoint::Profile,
    )?)
}

/// The raw insert of the rows `desk` cached, with every column the sync writes and the
/// search index's row, into a fresh file of the same schema: one transaction, a
/// prepared statement per row, no network. Rows per second.
fn raw_insert(dir: &tempfile::TempDir, desk: &Desk) -> Result<f64, Box<dyn std::error::Error>> {
    let mut rows = Vec::new();
    desk.orders().for_each_order(&OrderFilter::default(), |o| {
        rows.push(o.clone());
        Ok(())
    })?;
    let raw = paydesk_store_sqlite::open(
        &dir.path().join("raw.sqlite"),
        paydesk_store_sqlite::Durability::Cache,
    )?;
    let t = Instant::now();
    raw.execute_batch("BEGIN")?;
    {
        let mut ins = raw.prepare(
            "INSERT INTO orders (trade_no, mer_no, mer_order_no, state, currency, source_amount, amount_e4, handling_fee,
                receive_amount, settle_amount, rolling_reserve, transaction_fixed_fee, exception_handling_fee, refund_amount,
                settlement_currency, refund_currency, rolling_reserve_status, settle, refusal_pay_reason, message,
                created_at, synced_at, signature_verified)
             VALUES (?1, 10001, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, 1)",
        )?;
        let mut fts = raw.prepare(
            "INSERT INTO orders_fts (rowid, trade_no, mer_order_no) VALUES (?1, ?2, ?3)",
        )?;
        for o in &rows {
            let amount: rust_decimal::Decimal = o.source_amount.parse()?;
            ins.execute(rusqlite::params![
                o.trade_no,
                o.mer_order_no,
                o.state,
                o.currency,
                o.source_amount,
                orders::amount_e4(amount),
                o.handling_fee,
                o.receive_amount,
                o.settle_amount,
                o.rolling_reserve,
                o.transaction_fixed_fee,
                // Not in the cache's row type; the sandbox lists it as 0 for every order.
                "0",
                o.refund_amount,
                o.settlement_currency,
                o.refund_currency,
                o.rolling_reserve_status,
                o.settle,
                o.refusal_pay_reason,
                o.message,
                o.created_at,
                o.synced_at,
            ])?;
            fts.execute(rusqlite::params![
                raw.last_insert_rowid(),
                o.trade_no,
                o.mer_order_no
            ])?;
        }
    }
    raw.execute_batch("COMMIT")?;
    Ok(rows.len() as f64 / t.elapsed().as_secs_f64())
}
