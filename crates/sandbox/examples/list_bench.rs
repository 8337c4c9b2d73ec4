//! Benchmark: how fast the sandbox seeds orders and serves signed V2 order-list pages
//! of 500 over loopback. Prints its figures; BENCHMARKS.md records them.
//!
//! cargo run --release -p paydesk-sandbox --example list_bench -- [ORDERS] [SECONDS] [CLIENTS]

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use paydesk_gateway::wire::{DateLimit, MerNo, V2OrderList};
use paydesk_gateway::{ClientConfig, Credentials, GatewayClient, PrivateKey};
use paydesk_sandbox::{Sandbox, SandboxConfig, SeedSpec, demo_merchant};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let orders = args.first().copied().unwrap_or(1_000_000);
    let seconds = args.get(1).copied().unwrap_or(10) as u64;
    let clients = args.get(2).copied().unwrap_or(4);

    let merchant = Arc::new(PrivateKey::generate(2048)?);
    let sandbox = Sandbox::new(SandboxConfig::default())?;
    sandbox.add_merchant(demo_merchant(
        10001,
        &merchant.public_key(),
        "https://bench.local",
        "t",
    ));
    let t = Instant::now();
    let spec = SeedSpec {
        from: Some("2026-01-01 00:00:00".into()),
        to: Some("2026-10-31 23:59:59".into()),
        ..SeedSpec::new(orders)
    };
    let added = sandbox.seed(&spec);
    let seed_time = t.elapsed();
    println!(
        "seeded {added} orders in {:.2} s ({:.0} orders/s)",
        seed_time.as_secs_f64(),
        added as f64 / seed_time.as_secs_f64()
    );

    let gateway_key = sandbox.gateway_public_key();
    let running = sandbox.serve("127.0.0.1:0".parse()?).await?;
    let pages = added.div_ceil(500) as i64;
    let requests = Arc::new(AtomicU64::new(0));
    let items = Arc::new(AtomicU64::new(0));
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for worker in 0..clients {
        let mut cfg = ClientConfig::new(running.base_url(), MerNo(10001));
        cfg.timeout = Duration::from_secs(30);
        let client = GatewayClient::new(
            cfg,
            Credentials {
                private_key: merchant.clone(),
                gateway_key: Some(gateway_key.clone()),
                bearer: None,
            },
        )?;
        let (requests, items) = (requests.clone(), items.clone());
        tasks.push(tokio::spawn(async move {
            let mut page = 1 + worker as i64;
            while Instant::now() < deadline {
                let op = V2OrderList {
                    mer_no: MerNo(10001),
                    mer_order_nos: vec![],
                    trade_nos: vec![],
                    date_limit: Some(DateLimit {
                        from: "2026-01-01 00:00:00".into(),
                        to: "2026-10-31 23:59:59".into(),
                    }),
                    page_num: page,
                    page_size: 500,
                    version: "V2.0.0".into(),
                };
                match client.send(&op).await {
                    Ok(a) => {
                        requests.fetch_add(1, Ordering::Relaxed);
                        items.fetch_add(a.data.list.len() as u64, Ordering::Relaxed);
                    }
                    Err(e) => eprintln!("page {page}: {e}"),
                }
                page = page % pages.max(1) + 1;
            }
        }));
    }
    let t = Instant::now();
    for task in tasks {
        task.await?;
    }
    let secs = t.elapsed().as_secs_f64();
    let r = requests.load(Ordering::Relaxed) as f64;
    let n = items.load(Ordering::Relaxed) as f64;
    println!(
        "served {r:.0} signed pages of 500 in {secs:.1} s with {clients} clients (verified by the client): {:.0} requests/s, {:.0} orders/s",
        r / secs,
        n / secs
    );
    running.stop().await;
    Ok(())
}
