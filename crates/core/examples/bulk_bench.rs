//! Benchmark: a bulk payout file through the desk (`Desk::bulk_payouts`, what `paydesk
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

use std::io::{BufRead, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use paydesk_core::{Desk, Home, MemoryStore, Profile, Secrets, bulk};
use paydesk_gateway::PrivateKey;
use paydesk_gateway::wire::{self, MerNo};

#[path = "common/proc_stat.rs"]
mod proc_stat;
use proc_stat::cpu;

const MER: u64 = 10001;
const ORIGIN: &str = "https://bench.local";
const TOKEN: &str = "bench-token";
const NOTIFY: &str = "https://bench.local/notify";

/// The child: a sandbox with the merchant key from the first line of stdin, on a free
/// port, its address and key on stdout; it serves until stdin closes.
async fn serve() -> Result<(), Box<dyn std::error::Error>> {
    let mut first = String::new();
    std::io::stdin().read_line(&mut first)?;
    let pem = first.trim_end().replace('|', "\n");
    let public = paydesk_gateway::PublicKey::from_text(&pem)?;
    let sb = paydesk_sandbox::Sandbox::new(paydesk_sandbox::SandboxConfig::default())?;
    let mut merchant = paydesk_sandbox::demo_merchant(MER, &public, ORIGIN, TOKEN);
    merchant
        .opening
        .insert("MXN".into(), rust_decimal::Decimal::from(1_000_000_000));
    sb.add_merchant(merchant);
    let key = sb.gateway_public_key().to_pem();
    let running = sb.serve("127.0.0.1:0".parse()?).await?;
    println!("{}", running.base_url());
    println!("{}", key.replace('\n', "|"));
    std::io::stdout().flush()?;
    tokio::task::spawn_blocking(|| for _ in std::io::stdin().lines() {}).await?;
    Ok(())
}

const CLIENT: &str = r#"
import base64, http.client, json, sys, time, urllib.parse
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import padding

cfg = json.load(open(sys.argv[1]))
key = serialization.load_pem_private_key(cfg["key"].encode(), None)
u = urllib.parse.urlparse(cfg["base"])
conn = http.client.HTTPConnection(u.hostname, u.port)

def canonical(b):
    keys = sorted(k for k, v in b.items()
                  if k not in ("sign", "sing", "signType") and v not in ("", None, [], {}))
    return "&".join(k + "=" + (b[k] if isinstance(b[k], str)
                               else json.dumps(b[k], separators=(",", ":"), sort_keys=True))
                    for k in keys)

ok = 0
t = time.perf_counter()
for i in range(cfg["count"]):
    b = dict(cfg["body"])
    b["merOrderNo"] = "%s%06d" % (cfg["prefix"], i)
    b["sourceAmount"] = "%d.%02d" % (10 + i // 100, i % 100)
    sig = key.sign(canonical(b).encode(), padding.PKCS1v15(), hashes.SHA256())
    b["sign"] = base64.b64encode(sig).decode()
    conn.request("POST", cfg["path"], body=json.dumps(b), headers=cfg["headers"])
    r = conn.getresponse()
    data = r.read()
    if r.status == 200 and (json.loads(data).get("data") or {}).get("tradeNo"):
        ok += 1
print(json.dumps({"count": cfg["count"], "ok": ok, "secs": time.perf_counter() - t}))
"#;

/// The independent client's run: `count` signed payouts one at a time. Payouts per second.
fn independent(
    dir: &std::path::Path,
    base: &str,
    merchant: &PrivateKey,
    count: usize,
    prefix: &str,
) -> Result<f64, Box<dyn std::error::Error>> {
    let op = wire::V2Payout::new(
        MerNo(MER),
        String::new(),
        "MXN".into(),
        "10.00".parse()?,
        "002010077777777771".into(),
        NOTIFY.into(),
        "203.0.113.7".into(),
    );
    let cfg = serde_json::json!({
        "base": base,
        "path": "/v2/payout",
        "key": merchant.to_pkcs8_pem().as_str(),
        "body": serde_json::to_value(&op)?,
        "headers": {
            "Content-Type": "application/json",
            "paymentType": "PAYOUT",
            "Referer": ORIGIN,
            "Authorization": format!("Bearer {TOKEN}"),
            "lang": "en",
        },
        "count": count,
        "prefix": prefix,
    });
    let cfg_path = dir.join(format!("{prefix}.json"));
    let script = dir.join("client.py");
    std::fs::write(&cfg_path, cfg.to_string())?;
    std::fs::write(&script, CLIENT)?;
    let out = Command::new("python3")
        .arg(&script)
        .arg(&cfg_path)
        .output()?;
    if !out.status.success() {
        return Err(format!(
            "the Python client failed: {}",
            String::from_utf8_lossy(&out.stderr)
        )
        .into());
    }
    let r: serde_json::Value = serde_json::from_slice(&out.stdout)?;
    let ok = r["ok"].as_u64().unwrap_or(0) as usize;
    if ok != count {
        return Err(format!("the Python client had {ok} of {count} payouts accepted").into());
    }
    Ok(count as f64 / r["secs"].as_f64().unwrap_or(f64::NAN))
}

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

fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
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
    let mut child = Command::new(std::env::current_exe()?)
        .arg("--serve")
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
        let file = bulk::read(&path, &desk.bulk_context()?)?;
        let plan = desk.bulk_plan(&file)?;
        let planned = t.elapsed().as_secs_f64();
        if plan.to_send as usize != rows {
            return Err(format!("the plan sends {} of {rows} rows", plan.to_send).into());
        }
        let (desk_cpu, sandbox_cpu) = (cpu("self"), cpu(&sandbox));
        let t = Instant::now();
        let results = desk
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
        let check = desk.audit_verify()?;
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
