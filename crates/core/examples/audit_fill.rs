//! For the desktop app's benchmark: appends ROWS rows to a profile's audit log, sealed
//! with the profile's own key from the keyring and continued from the keyring's anchor,
//! in one transaction, then records the new anchor in the keyring; the chain then
//! verifies as the app's Activity screen checks it.
//!
//! PAYDESK_KEYRING_SERVICE=... cargo run --release -p paydesk-core --example audit_fill -- ROWS FILE PROFILE
//!
//! FILE is the profile's `data/PROFILE.sqlite`. The app must not be running.

use std::sync::Arc;
use std::time::Instant;

use paydesk_core::audit::Record;
use paydesk_core::store::Store;
use paydesk_core::{KeyringStore, Secrets};

const OPERATIONS: [&str; 6] = [
    "payout_create",
    "payin_create",
    "balance_query",
    "order_lookup",
    "refund_create",
    "sync",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let (Some(rows), Some(file), Some(profile)) = (
        args.get(1).and_then(|a| a.parse::<usize>().ok()),
        args.get(2),
        args.get(3),
    ) else {
        return Err("usage: audit_fill ROWS FILE PROFILE".into());
    };
    let service = std::env::var("PAYDESK_KEYRING_SERVICE")
        .unwrap_or_else(|_| paydesk_core::KEYRING_SERVICE.to_string());
    let secrets = Secrets::new(Arc::new(KeyringStore::open(&service)?));
    let key = secrets.audit_key(profile)?;
    let anchor = secrets.audit_anchor(profile)?;
    let store = Store::open_sqlite(std::path::Path::new(file))?;
    let t = Instant::now();
    let mut rng = fastrand::Rng::with_seed(34);
    let records: Vec<Record<'_>> = (0..rows)
        .map(|k| Record {
            profile,
            operator: "bench",
            operation: OPERATIONS[k % OPERATIONS.len()],
            identifiers: format!(
                "{{\"merOrderNo\":\"B{k:09}\",\"tradeNo\":\"T{:012}\"}}",
                rng.u64(0..1_000_000_000_000)
            ),
            result: if k % 17 == 0 { "error" } else { "ok" }.to_string(),
            latency_ms: rng.i64(1..900),
        })
        .collect();
    let next = store
        .audit()
        .append_many(records, key.expose(), anchor.as_ref())?
        .ok_or("no rows appended")?;
    secrets.set_audit_anchor(profile, &next)?;
    println!(
        "appended {rows} audit rows ({} in the log) in {:.1} s",
        next.count,
        t.elapsed().as_secs_f64()
    );
    Ok(())
}
