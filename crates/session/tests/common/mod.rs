//! Shared set-up for the session's tests: the real keyring under a service name of the
//! test's own, and a sandbox gateway on loopback with a profile for it.

#![allow(clippy::unwrap_used, dead_code)]

use std::time::Duration;

use paydesk_core::{Home, KeyringStore, Profile, Secrets};
use paydesk_sandbox::{Running, Sandbox, SandboxConfig, demo_merchant};
use paydesk_session::Session;

pub const MER: u64 = 10001;
pub const ORIGIN: &str = "https://desk.example";
pub const TOKEN: &str = "tok-session-test";

/// A keyring service name of this test run's own, so tests never share entries.
fn unique_service() -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static N: AtomicU64 = AtomicU64::new(0);
    format!(
        "PayDesk-session-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    )
}

/// A session on `dir` with a keyring service of its own. gnome-keyring may still be
/// starting: it is probed (and the probe retried briefly) first.
pub fn session(dir: &std::path::Path) -> Session {
    let service = unique_service();
    let mut last = None;
    for _ in 0..50 {
        match KeyringStore::open(&service) {
            Ok(_) => return Session::new(Home::at(dir), &service),
            Err(e) => last = Some(e),
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "the OS keyring is not available ({last:?}); run the tests with `cargo xtask test`, which starts gnome-keyring under dbus-run-session"
    );
}

/// A sandbox on loopback with the profile's merchant registered, and a profile for it.
pub async fn external_sandbox(home: &Home, secrets: &Secrets, name: &str) -> Running {
    let info = secrets.generate_merchant_key(name, 2048).unwrap();
    let public = paydesk_gateway::PublicKey::from_text(&info.public_pem).unwrap();
    let sb = Sandbox::new(SandboxConfig::default()).unwrap();
    sb.add_merchant(demo_merchant(MER, &public, ORIGIN, TOKEN));
    let running = sb.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    secrets
        .set_gateway_key(name, &running.sandbox.gateway_public_key().to_pem())
        .unwrap();
    secrets.set_bearer(name, TOKEN).unwrap();
    home.put(Profile {
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
    })
    .unwrap();
    running
}

/// A profile named `name` on a sandbox of its own, in a data folder of its own, with
/// its secrets in the real keyring (forgotten when the fixture is dropped).
pub struct Fixture {
    pub dir: tempfile::TempDir,
    pub session: Session,
    pub running: Running,
    pub name: String,
}

impl Fixture {
    pub async fn new(name: &str) -> Fixture {
        let dir = tempfile::tempdir().unwrap();
        let session = session(dir.path());
        let secrets = session.secrets().unwrap();
        let running = external_sandbox(session.home(), &secrets, name).await;
        Fixture {
            dir,
            session,
            running,
            name: name.to_string(),
        }
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        if let Ok(s) = self.session.secrets() {
            let _ = s.forget(&self.name);
        }
    }
}

/// A CLABE payout as the Payouts screen fills it in, to the sandbox's good CLABE.
pub fn payout_form(no: &str, amount: &str) -> paydesk_core::forms::PayoutForm {
    serde_json::from_value(serde_json::json!({
        "kind": "CLABE",
        "merOrderNo": no,
        "amount": amount,
        "currency": "MXN",
        "clabe": "002010077777777771",
        "ipAddress": "203.0.113.7",
    }))
    .unwrap()
}
