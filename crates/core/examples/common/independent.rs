//! The payroll benchmarks' yardstick: the sandbox in a child process (the benchmark
//! started again with `--serve`), and an independent client, a Python program signing
//! each payout with `cryptography` and sending them one at a time over one kept-alive
//! connection. Shared by `bulk_bench` and `team_bulk_bench` (in `crates/team/examples`).

use std::io::{BufRead, Write};
use std::process::{Child, ChildStdin, Command, Stdio};

use paydesk_gateway::PrivateKey;
use paydesk_gateway::wire::{self, MerNo};

pub const MER: u64 = 10001;
pub const ORIGIN: &str = "https://bench.local";
pub const TOKEN: &str = "bench-token";
pub const NOTIFY: &str = "https://bench.local/notify";

/// The child: a sandbox with the merchant key from the first line of stdin, on a free
/// port, its address and key on stdout; it serves until stdin closes.
pub async fn serve() -> Result<(), Box<dyn std::error::Error>> {
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
pub fn independent(
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

/// The sandbox child, serving for `merchant`: its process, its stdin (closing it ends
/// the child), its base URL and its gateway key (PEM).
pub fn start_sandbox(
    merchant: &PrivateKey,
) -> Result<(Child, ChildStdin, String, String), Box<dyn std::error::Error>> {
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
    Ok((child, to_child, base, gateway_pem))
}

pub fn loadavg() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .unwrap_or_default()
        .split_whitespace()
        .take(3)
        .collect::<Vec<_>>()
        .join(" ")
}
