//! Benchmark: sync from the loopback sandbox into the cache, end to end (signed pages,
//! verified, decoded, upserted with the search index), against a raw SQLite insert of
//! the same rows into the same schema, and the syncing process's resident memory. The
//! sandbox runs in a child process (this program started again) so that its memory
//! is not counted.
//!
//! cargo run --release -p paydesk-core --example sync_bench -- [ORDERS]

use std::io::BufRead;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

use paydesk_core::store::orders::{self, OrderFilter};
use paydesk_core::sync::SyncOptions;
use paydesk_core::{Desk, Home, MemoryStore, Profile, Secrets};
use paydesk_gateway::PrivateKey;

fn rss_kib(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with(field))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// The child: a sandbox with `n` orders and the merchant key from stdin, on a free port.
async fn serve(n: usize) -> Result<(), Box<dyn std::error::Error>> {
    let mut pem = String::new();
    std::io::Read::read_to_string(&mut std::io::stdin(), &mut pem)?;
    let public = paydesk_gateway::PublicKey::from_text(&pem)?;
    let sb = paydesk_sandbox::Sandbox::new(paydesk_sandbox::SandboxConfig::default())?;
    sb.add_merchant(paydesk_sandbox::demo_merchant(
        10001,
        &public,
        "https://bench.local",
        "bench-token",
    ));
    sb.seed(&paydesk_sandbox::SeedSpec {
        mer_no: Some(10001),
        ..paydesk_sandbox::SeedSpec::new(n)
    });
    let key = sb.gateway_public_key().to_pem();
    let running = sb.serve("127.0.0.1:0".parse()?).await?;
    println!("{}", running.base_url());
    println!("{}", key.replace('\n', "|"));
    tokio::signal::ctrl_c().await?;
    Ok(())
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        return serve(args[2].parse()?).await;
    }
    let n: usize = args
        .get(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let merchant = PrivateKey::generate(2048)?;

    let t = Instant::now();
    let mut child = Command::new(std::env::current_exe()?)
        .args(["--serve", &n.to_string()])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    if let Some(mut stdin) = child.stdin.take() {
        std::io::Write::write_all(&mut stdin, merchant.public_key().to_pem().as_bytes())?;
    }
    let mut lines = std::io::BufReader::new(child.stdout.take().ok_or("no stdout")?).lines();
    let base = lines.next().ok_or("no address")??;
    let gateway_pem = lines.next().ok_or("no key")??.replace('|', "\n");
    println!(
        "sandbox child seeded {n} orders in {:.1} s at {base}",
        t.elapsed().as_secs_f64()
    );

    let dir = tempfile::tempdir()?;
    let home = Home::at(dir.path());
    let secrets = Secrets::new(Arc::new(MemoryStore::default()));
    secrets.set_merchant_key("bench", &merchant)?;
    secrets.set_gateway_key("bench", &gateway_pem)?;
    secrets.set_bearer("bench", "bench-token")?;
    home.put(Profile {
        name: "bench".into(),
        base_url: Some(base),
        mer_no: 10001,
        origin: "https://bench.local".into(),
        lang: "en".into(),
        order_type: None,
        sign_settings: Default::default(),
        state_overrides: Default::default(),
        operator: "bench".into(),
        notify_url: "http://127.0.0.1:9/notify".into(),
        notify_at_desk: false,
        proxy: String::new(),
        safety: Default::default(),
        sync: Default::default(),
    })?;
    let desk = Desk::open(&home, secrets, "bench", paydesk_core::Endpoint::Profile)?;
    let before = rss_kib("VmRSS:");
    let mut peak_during = 0;
    let mut opts = SyncOptions::last_days(92);
    if let Ok(c) = std::env::var("SYNC_CONCURRENCY") {
        opts.in_flight = c.parse()?;
    }
    opts.to = chrono::Utc::now() + chrono::Duration::hours(1);
    let t = Instant::now();
    let report = desk
        .sync(&opts, Arc::new(AtomicBool::new(false)), |_| {
            peak_during = peak_during.max(rss_kib("VmRSS:"));
        })
        .await?;
    let secs = t.elapsed().as_secs_f64();
    let synced = report.progress.orders;
    let sync_rate = synced as f64 / secs;
    println!(
        "sync: {synced} orders in {} pages, {secs:.1} s: {sync_rate:.0} orders/s (signed pages of 500, {} windows at once)",
        report.progress.pages, opts.in_flight
    );
    println!(
        "  of which writing to SQLite: {:.1} s",
        report.write_seconds
    );
    println!(
        "resident memory of the syncing process: {} MiB before, {} MiB peak while syncing (VmHWM {} MiB)",
        before / 1024,
        peak_during / 1024,
        rss_kib("VmHWM:") / 1024
    );
    let _ = child.kill();
    let _ = child.wait();

    // The raw insert of the same rows into the same schema, one transaction, no network.
    let mut items = Vec::with_capacity(synced as usize);
    desk.for_each_order(&OrderFilter::default(), |o| {
        items.push(paydesk_gateway::wire::OrderListItem {
            state: o.state,
            mer_order_no: o.mer_order_no.clone(),
            trade_no: o.trade_no.clone(),
            source_amount: o.source_amount.parse().unwrap_or_default(),
            source_currency: o.currency.clone(),
            handling_fee: o.handling_fee.as_deref().and_then(|v| v.parse().ok()),
            receive_amount: o.receive_amount.as_deref().and_then(|v| v.parse().ok()),
            settlement_currency: o.settlement_currency.clone(),
            message: o.message.clone(),
            ..Default::default()
        });
        Ok(())
    })?;
    let raw = paydesk_core::store::open(
        &dir.path().join("raw.sqlite"),
        paydesk_core::store::Durability::Cache,
    )?;
    let t = Instant::now();
    raw.execute_batch("BEGIN")?;
    {
        let mut ins = raw.prepare(
            "INSERT INTO orders (trade_no, mer_no, mer_order_no, state, currency, source_amount, amount_e4, handling_fee,
               receive_amount, settlement_currency, message, created_at, synced_at, signature_verified)
             VALUES (?1, 10001, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, 0, 0, 1)",
        )?;
        let mut fts = raw.prepare(
            "INSERT INTO orders_fts (rowid, trade_no, mer_order_no) VALUES (?1, ?2, ?3)",
        )?;
        for it in &items {
            ins.execute(rusqlite::params![
                it.trade_no,
                it.mer_order_no,
                it.state,
                it.source_currency,
                it.source_amount.to_string(),
                orders::amount_e4(it.source_amount),
                it.handling_fee.map(|v| v.to_string()),
                it.receive_amount.map(|v| v.to_string()),
                it.settlement_currency,
                it.message
            ])?;
            fts.execute(rusqlite::params![
                raw.last_insert_rowid(),
                it.trade_no,
                it.mer_order_no
            ])?;
        }
    }
    raw.execute_batch("COMMIT")?;
    let raw_rate = items.len() as f64 / t.elapsed().as_secs_f64();
    println!(
        "raw SQLite insert of the same {} rows into the same schema (one transaction): {raw_rate:.0} rows/s; sync is {:.0}% of it",
        items.len(),
        sync_rate / raw_rate * 100.0
    );
    Ok(())
}
