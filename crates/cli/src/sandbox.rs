//! `paydesk sandbox`: serve the sandbox gateway on 127.0.0.1 with a demo merchant.

use std::path::PathBuf;
use std::time::Duration;

use clap::Args;
use paydesk_gateway::{PrivateKey, PublicKey};
use paydesk_sandbox::{Card, Merchant, Sandbox, SandboxConfig, SeedSpec, demo_merchant};
use rust_decimal::Decimal;
use serde::Deserialize;

use crate::Failure;

#[derive(Debug, Args)]
pub struct SandboxArgs {
    /// Port on 127.0.0.1 (0 picks a free one).
    #[arg(long, default_value_t = 8700)]
    port: u16,
    /// Keep the sandbox's state in this SQLite file (kept across restarts).
    #[arg(long, value_name = "FILE")]
    db: Option<PathBuf>,
    /// JSON file with merchants and cards to register (see crates/sandbox/README.md).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Seed this many realistic orders over the last 90 days (0 to 1000000).
    #[arg(long, default_value_t = 0, value_parser = clap::value_parser!(u64).range(0..=1_000_000))]
    seed_orders: u64,
    /// Complete pending payins and payouts after this many seconds (0: never by itself).
    #[arg(long, default_value_t = 5)]
    auto_complete_secs: u64,
    /// Where to write the demo merchant's key pair (default: ./sandbox-demo-keys).
    #[arg(long, value_name = "DIR", default_value = "sandbox-demo-keys")]
    keys_dir: PathBuf,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct ConfigFile {
    #[serde(default)]
    merchants: Vec<Merchant>,
    #[serde(default)]
    cards: Vec<Card>,
    /// How the sandbox behaves where the interface leaves it open: e.g.
    /// `{"acceptReusedOrderNo": true, "listLagMs": 8000}`.
    #[serde(default)]
    behaviour: paydesk_sandbox::Behaviour,
}

const DEMO_MER_NO: u64 = 10001;
const DEMO_ORIGIN: &str = "https://demo.paydesk.local";
const DEMO_TOKEN: &str = "sandbox-demo-token";

/// The demo merchant's key: loaded from `dir` if there, generated (and written) otherwise.
fn demo_key(dir: &std::path::Path) -> Result<PublicKey, Failure> {
    let private = dir.join("private_key.pem");
    if let Ok(text) = paydesk_core::input::read_text(&private, paydesk_core::input::MAX_KEY_BYTES) {
        let key = PrivateKey::from_text(&text)
            .map_err(|e| Failure::Input(format!("{}: {e}", private.display())))?;
        return Ok(key.public_key());
    }
    let key = PrivateKey::generate(2048).map_err(|e| Failure::Input(e.to_string()))?;
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::Input(format!("cannot create {}: {e}", dir.display())))?;
    crate::keys::write_private(&private, key.to_pkcs8_pem().as_bytes())?;
    let public = key.public_key();
    std::fs::write(dir.join("public_key.pem"), public.to_pem())
        .map_err(|e| Failure::Input(e.to_string()))?;
    Ok(public)
}

pub fn run(a: SandboxArgs) -> Result<(), Failure> {
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Failure::Input(e.to_string()))?;
    runtime.block_on(serve(a))
}

async fn serve(a: SandboxArgs) -> Result<(), Failure> {
    let cfg = SandboxConfig {
        db: a.db.clone(),
        auto_complete_after: (a.auto_complete_secs > 0)
            .then(|| Duration::from_secs(a.auto_complete_secs)),
        ..SandboxConfig::default()
    };
    let sandbox = Sandbox::new(cfg).map_err(|e| Failure::Input(e.to_string()))?;
    let fresh = sandbox.with_state(|s| s.merchants.is_empty());
    let public = demo_key(&a.keys_dir)?;
    if fresh {
        sandbox.add_merchant(demo_merchant(DEMO_MER_NO, &public, DEMO_ORIGIN, DEMO_TOKEN));
        sandbox.add_card(Card {
            mer_no: DEMO_MER_NO,
            apply_order_no: "CARD-0001".into(),
            sub_mer_no: "SUB-0001".into(),
            holder: "Ana Lima".into(),
            currency: "USD".into(),
            opening: Decimal::new(50000, 2),
            balance: Decimal::new(50000, 2),
        });
    }
    if let Some(path) = &a.config {
        let text = paydesk_core::input::read_text(path, paydesk_core::input::MAX_DOCUMENT_BYTES)
            .map_err(Failure::Input)?;
        let file: ConfigFile = serde_json::from_str(&text)
            .map_err(|e| Failure::Input(format!("{}: {e}", path.display())))?;
        let refuse = |what: String, why: String| {
            Failure::Input(format!("{}: {what}: {why}", path.display()))
        };
        for m in file.merchants {
            m.check()
                .map_err(|why| refuse(format!("merchant {}", m.mer_no), why))?;
            if m.key().is_none() {
                return Err(Failure::Input(format!(
                    "{}: merchant {}: publicKey is not an RSA public key",
                    path.display(),
                    m.mer_no
                )));
            }
            sandbox.add_merchant(m);
        }
        for c in file.cards {
            c.check()
                .map_err(|why| refuse(format!("card {}", c.apply_order_no), why))?;
            sandbox.add_card(c);
        }
        if file.behaviour != paydesk_sandbox::Behaviour::default() {
            eprintln!(
                "behaviour: reused merOrderNo {}, order list shows new orders after {} ms",
                if file.behaviour.accept_reused_order_no {
                    "taken as a new order"
                } else {
                    "refused (E1011)"
                },
                file.behaviour.list_lag_ms
            );
        }
        file.behaviour
            .check()
            .map_err(|why| refuse("behaviour".into(), why))?;
        sandbox.set_behaviour(file.behaviour);
    }
    if a.seed_orders > 0 {
        let n = sandbox.seed(&SeedSpec::new(
            usize::try_from(a.seed_orders).unwrap_or(usize::MAX),
        ));
        eprintln!("seeded {n} orders");
    }
    let gateway_key = sandbox.gateway_public_key();
    let running = sandbox
        .serve(([127, 0, 0, 1], a.port).into())
        .await
        .map_err(|e| Failure::Input(format!("cannot listen on 127.0.0.1:{}: {e}", a.port)))?;
    println!(
        "PayDesk sandbox gateway listening on {}",
        running.base_url()
    );
    println!(
        "  demo merchant: merNo {DEMO_MER_NO}, origin (Referer) {DEMO_ORIGIN}, bearer token {DEMO_TOKEN}"
    );
    println!(
        "  merchant private key: {}",
        a.keys_dir.join("private_key.pem").display()
    );
    println!(
        "  gateway public key ({}):\n{}",
        gateway_key.fingerprint(),
        gateway_key.to_pem().trim_end()
    );
    println!(
        "  simulation API: {}__sandbox/ (see crates/sandbox/README.md); Ctrl+C stops",
        running.base_url()
    );
    tokio::signal::ctrl_c()
        .await
        .map_err(|e| Failure::Input(e.to_string()))?;
    running.stop().await;
    Ok(())
}
