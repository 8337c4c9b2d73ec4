//! Shared set-up for the core's integration tests: the real keyring under a service
//! name of the test's own, and a sandbox gateway on loopback with a profile for it.

#![allow(clippy::unwrap_used, dead_code)]

use std::sync::Arc;
use std::time::Duration;

use paydesk_core::{Desk, Endpoint, Home, KeyringStore, Profile, Secrets};
use paydesk_sandbox::{Card, Running, Sandbox, SandboxConfig, demo_merchant};
use rust_decimal::Decimal;

pub const MER: u64 = 10001;
pub const ORIGIN: &str = "https://desk.example";
pub const TOKEN: &str = "tok-core-test";

/// A keyring service name of this test run's own, so tests never share entries.
pub fn unique_service() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "PayDesk-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// The real keyring. gnome-keyring may still be starting: the probe is retried briefly.
pub fn secrets_for(service: &str) -> Secrets {
    let mut last = None;
    for _ in 0..50 {
        match KeyringStore::open(service) {
            Ok(s) => return Secrets::new(Arc::new(s)).with_service(service),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "the OS keyring is not available ({:?}); run the tests with `cargo xtask test`, which starts gnome-keyring under dbus-run-session",
        last
    );
}

pub fn secrets() -> Secrets {
    secrets_for(&unique_service())
}

pub fn service_of(s: &Secrets) -> String {
    s.service().unwrap_or_default().to_string()
}

/// A sandbox on loopback with the profile's merchant registered, and a profile for it.
pub async fn external_sandbox(home: &Home, secrets: &Secrets, name: &str) -> (Running, Profile) {
    let info = secrets.generate_merchant_key(name, 2048).unwrap();
    let public = paydesk_gateway::PublicKey::from_text(&info.public_pem).unwrap();
    let sb = Sandbox::new(SandboxConfig::default()).unwrap();
    sb.add_merchant(demo_merchant(MER, &public, ORIGIN, TOKEN));
    sb.add_card(Card {
        mer_no: MER,
        apply_order_no: "CARD-1".into(),
        sub_mer_no: "SUB-1".into(),
        holder: "Ana".into(),
        currency: "USD".into(),
        opening: Decimal::new(10_000, 2),
        balance: Decimal::new(10_000, 2),
    });
    let running = sb.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    secrets
        .set_gateway_key(name, &running.sandbox.gateway_public_key().to_pem())
        .unwrap();
    secrets.set_bearer(name, TOKEN).unwrap();
    let profile = Profile {
        name: name.into(),
        base_url: Some(running.base_url().to_string()),
        mer_no: MER,
        origin: ORIGIN.into(),
        lang: "en".into(),
        order_type: None,
        operator: "tester".into(),
        // A closed port: the served sandbox keeps retrying, nothing listens.
        notify_url: "http://127.0.0.1:9/notify".into(),
        notify_at_desk: false,
        proxy: String::new(),
        safety: Default::default(),
        sync: Default::default(),
        team: None,
    };
    home.put(profile.clone()).unwrap();
    (running, profile)
}

/// A profile named `name` on a sandbox of its own, in a data folder of its own, with
/// its secrets in the real keyring (forgotten when the fixture is dropped).
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub home: Home,
    pub secrets: Secrets,
    pub running: Running,
    pub name: String,
}

impl Fixture {
    pub async fn new(name: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let secrets = secrets();
        let (running, _) = external_sandbox(&home, &secrets, name).await;
        Fixture {
            dir,
            home,
            secrets,
            running,
            name: name.to_string(),
        }
    }

    /// The profile's desk, opened as every front end opens it: then the outcomes an
    /// earlier desk left unknown are reconciled (the app does it in the background).
    pub async fn desk(&self) -> Desk {
        let desk = Desk::open(
            &self.home,
            self.secrets.clone(),
            &self.name,
            Endpoint::Profile,
        )
        .unwrap();
        desk.journal().reconcile_all(false).await.unwrap();
        desk
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        let _ = self.secrets.forget(&self.name);
    }
}

/// A CLABE payout of the test merchant, to the sandbox's good CLABE.
pub fn payout(no: &str, amount: &str) -> paydesk_gateway::wire::V2Payout {
    paydesk_gateway::wire::V2Payout {
        mer_no: paydesk_gateway::wire::MerNo(MER),
        mer_order_no: no.into(),
        currency_code: "MXN".into(),
        source_amount: amount.parse().unwrap(),
        withdraw_type: "6".into(),
        return_url: String::new(),
        notify_url: "https://desk.example/n".into(),
        sign_type: "RSA256".into(),
        version: "V2.0.0".into(),
        ip_address: "203.0.113.7".into(),
        card_no: String::new(),
        clabe: "002010077777777771".into(),
    }
}
