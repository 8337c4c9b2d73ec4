//! Benchmark: a bulk payout file through the desk (`Money::bulk_payouts`, what `paydesk
//! payout bulk` and the Payouts screen run: the journal, the claims, the audit chain,
//! signed requests, verified answers) against the sandbox on loopback, side by side with
//! an independent client in the same run: a Python program that signs the same payouts
//! with `cryptography` (RSA-2048, PKCS#1 v1.5, SHA-256) and sends them one at a time
//! over one kept-alive connection, without checking the answers' signatures. Both talk
//! to the same sandbox, which runs in a child process (this program started again).
//!
//! cargo run --release -p paydesk-core --example bulk_bench -- [ROWS]
//!
//! `BULK_IN_FLIGHT` (default `16,1,4,32`) lists the profile's `sync.payoutsInFlight` values
//! to run with, the first being the default's. The independent client runs before and
//! after the desk's runs; the ratio is taken against the mean of the two.

use std::sync::Arc;
use std::time::Instant;

use paydesk_core::{Desk, Home, MemoryStore, Profile, Secrets, bulk};
use paydesk_gateway::PrivateKey;

#[path = "common/proc_stat.rs"]
mod proc_stat;
use proc_stat::cpu;

#[path = "common/independent.rs"]
mod independent;
use independent::{MER, NOTIFY, ORIGIN, TOKEN, independent, loadavg, serve, start_sandbox};

fn open_desk(
    dir: &std::path::Path,
    base: &str,
    gateway_pem: &str,
    merchant: &PrivateKey,
    in_flight: u32,
) -> Result<Desk, Box<dyn std::error::Error>> {
    let home = Home::at(dir);
    let secrets = Secrets::new(Arc::new(MemoryStore::default()));
    secrets.set_merchant_key("bench", merchant)?;
    secrets.set_gateway_key("bench", gateway_pem)?;
    secrets.set_bearer("bench", TOKEN)?;
    home.put(Profile {
        name: "bench".into(),
        base_url: Some(base.to_string()),
        mer_no: MER,
        origin: ORIGIN.into(),
        lang: "en".into(),
        order_type: None,
        operator: "bench".into(),
        notify_url: NOTIFY.into(),
        notify_at_desk: false,
        proxy: String::new(),
        safety: Default::default(),
        sync: paydesk_core::profile::SyncSettings {
            payouts_in_flight: in_flight,
            ..Default::default()
        },
        team: None,
    })?;
    Ok(Desk::open(
        &home,
        secrets,
        "bench",
        paydesk_core::Endpoint::Profile,
    )?)
}

/// A payroll of `rows` CLABE rows, each a payout of its own (amounts differ).
fn payroll(rows: usize) -> String {
    let mut csv = String::from("type,amount,currency,account,firstName,lastName,country\n");
    for i in 0..rows {
        csv.push_str(&format!(
            "clabe,{}.{:02},MXN,002010077777777771,Ana,Lima {i},\n",
            10 + i / 100,
            i % 100
        ));
    }
    csv
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("--serve") {
        return serve().await;
    }
    let rows: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(2_000);
    let in_flights: Vec<u32> = std::env::var("BULK_IN_FLIGHT")
        .unwrap_or_else(|_| "16,1,4,32".into())
        .split(',')
        .map(str::parse)
        .collect::<Result<_, _>>()?;
    let merchant = PrivateKey::generate(2048)?;
    let (mut child, to_child, base, gateway_pem) = start_sandbox(&merchant)?;
    let sandbox = child.id().to_string();
    let dir = tempfile::tempdir()?;
    println!(
        "sandbox child at {base}; load average at the start: {}",
        loadavg()
    );

    let before = independent(dir.path(), &base, &merchant, rows, "PY1-")?;
    println!("independent client (Python, one at a time), before: {before:.0} payouts/s");
    let mut figures = Vec::new();
    for (k, &n) in in_flights.iter().enumerate() {
        let home = dir.path().join(format!("desk-{k}"));
        let desk = open_desk(&home, &base, &gateway_pem, &merchant, n)?;
        let path = home.join("payroll.csv");
        std::fs::write(&path, payroll(rows))?;
        let t = Instant::now();
        let file = bulk::read(&path, &desk.money().bulk_context()?)?;
        let plan = desk.money().bulk_plan(&file)?;
        let planned = t.elapsed().as_secs_f64();
        if plan.to_send as usize != rows {
            return Err(format!("the plan sends {} of {rows} rows", plan.to_send).into());
        }
        let (desk_cpu, sandbox_cpu) = (cpu("self"), cpu(&sandbox));
        let t = Instant::now();
        let results = desk
            .money()
            .bulk_payouts(&file, false, Some(&plan.digest), |_, _| {})
            .await?;
        let secs = t.elapsed().as_secs_f64();
        let (desk_cpu, sandbox_cpu) = (cpu("self") - desk_cpu, cpu(&sandbox) - sandbox_cpu);
        let accepted = results
            .iter()
            .filter(|r| r.status == bulk::RowStatus::Accepted && r.this_run)
            .count();
        if accepted != rows {
            return Err(format!("{accepted} of {rows} rows accepted").into());
        }
        let check = desk.journal().audit_verify()?;
        if !check.ok {
            return Err(format!("the audit chain does not verify: {check:?}").into());
        }
        let rate = rows as f64 / secs;
        println!(
            "desk bulk, {n} in flight: {rows} rows in {secs:.2} s = {rate:.0} rows/s (read and plan before it: {planned:.2} s); CPU desk {desk_cpu:.2} s, sandbox {sandbox_cpu:.2} s; audit chain verified ({} rows)",
            check.rows
        );
        figures.push((n, rate, secs, desk_cpu, sandbox_cpu));
    }
    let after = independent(dir.path(), &base, &merchant, rows, "PY2-")?;
    println!("independent client (Python, one at a time), after: {after:.0} payouts/s");
    let anchor = (before + after) / 2.0;
    println!();
    println!(
        "| payouts in flight | desk bulk ({rows} rows) | independent client (mean of before and after) | ratio |"
    );
    println!("|---|---|---|---|");
    for (n, rate, secs, desk_cpu, sandbox_cpu) in figures {
        println!(
            "| {n} | {rate:.0} rows/s ({secs:.2} s; CPU desk {desk_cpu:.1} s, sandbox {sandbox_cpu:.1} s) | {anchor:.0} payouts/s ({before:.0}, {after:.0}) | {:.2}× |",
            rate / anchor
        );
    }
    println!("load average at the end: {}", loadavg());
    drop(to_child);
    let _ = child.kill();
    let _ = child.wait();
    Ok(())
}
