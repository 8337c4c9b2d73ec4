//! The CLI over the core as an operator runs it, against a sandbox on loopback, with
//! the real keyring and real files: set-up, sync, money, `kill -9` in the middle of a
//! sync and of a payout (50 times each), and a scan for secrets afterwards.

#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use paydesk_gateway::PrivateKey;
use paydesk_sandbox::{Card, Fault, Running, Sandbox, SandboxConfig, SeedSpec, demo_merchant};
use rusqlite::Connection;
use serde_json::Value;

const ORIGIN: &str = "https://desk.example";
const TOKEN: &str = "tok-cli-secret-7f3a9";
const CARD_NO: &str = "4111111111111111";

struct Env {
    home: tempfile::TempDir,
    service: String,
    outputs: Vec<String>,
}

impl Env {
    fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_paydesk"));
        c.args(args)
            .env("PAYDESK_HOME", self.home.path())
            .env("PAYDESK_KEYRING_SERVICE", &self.service);
        c
    }

    fn run(&mut self, args: &[&str], stdin: &str) -> Output {
        let mut child = self
            .cmd(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        std::io::Write::write_all(&mut child.stdin.take().unwrap(), stdin.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        self.outputs
            .push(String::from_utf8_lossy(&out.stdout).into_owned());
        self.outputs
            .push(String::from_utf8_lossy(&out.stderr).into_owned());
        out
    }

    fn ok(&mut self, args: &[&str]) -> String {
        let out = self.run(args, "");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    fn db(&self) -> PathBuf {
        self.home.path().join("data").join("ext.sqlite")
    }
}

async fn setup() -> (Env, Running, PrivateKey) {
    let service = format!("PayDesk-cli-test-{}", std::process::id());
    let key = PrivateKey::generate(2048).unwrap();
    let sb = Sandbox::new(SandboxConfig::default()).unwrap();
    sb.add_merchant(demo_merchant(10001, &key.public_key(), ORIGIN, TOKEN));
    sb.add_card(Card {
        mer_no: 10001,
        apply_order_no: "CARD-1".into(),
        sub_mer_no: "S".into(),
        holder: "Ana".into(),
        currency: "USD".into(),
        opening: "100.00".parse().unwrap(),
        balance: "100.00".parse().unwrap(),
    });
    let running = sb.serve("127.0.0.1:0".parse().unwrap()).await.unwrap();
    let mut env = Env {
        home: tempfile::tempdir().unwrap(),
        service,
        outputs: Vec::new(),
    };
    let dir = env.home.path().to_path_buf();
    std::fs::write(dir.join("merchant.pem"), key.to_pkcs8_pem()).unwrap();
    std::fs::write(
        dir.join("gateway.pem"),
        running.sandbox.gateway_public_key().to_pem(),
    )
    .unwrap();
    let base = running.base_url().to_string();
    env.ok(&[
        "profile",
        "add",
        "ext",
        "--base-url",
        &base,
        "--mer-no",
        "10001",
        "--origin",
        ORIGIN,
        "--operator",
        "ana",
    ]);
    env.ok(&[
        "profile",
        "import-key",
        "ext",
        "--file",
        dir.join("merchant.pem").to_str().unwrap(),
    ]);
    env.ok(&[
        "profile",
        "set-gateway-key",
        "ext",
        "--file",
        dir.join("gateway.pem").to_str().unwrap(),
    ]);
    let out = env.run(&["profile", "set-token", "ext"], TOKEN);
    assert!(out.status.success());
    std::fs::remove_file(dir.join("merchant.pem")).unwrap();
    (env, running, key)
}

/// Waits until `sql` finds a row in the database (or the process ended, or 10 s passed).
async fn wait_for_row(db: &Path, child: &mut std::process::Child, sql: &str) {
    for _ in 0..2000 {
        if child.try_wait().unwrap().is_some() {
            return;
        }
        if db.exists()
            && let Ok(conn) =
                Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            && conn.query_row(sql, [], |_| Ok(())).is_ok()
        {
            return;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

fn csv_rows(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count() - 1
}

fn integrity_ok(db: &Path) {
    let conn = Connection::open(db).unwrap();
    let r: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(r, "ok");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn operator_flows_survive_kill_9_and_leave_no_secret_behind() {
    let (mut env, running, key) = setup().await;
    running.sandbox.seed(&SeedSpec {
        mer_no: Some(10001),
        ..SeedSpec::new(20_000)
    });

    // Plain flows, with --json for scripts.
    let list: Value = serde_json::from_str(&env.ok(&["--json", "profile", "list"])).unwrap();
    assert_eq!(list[0]["name"], "ext");
    let show = env.ok(&["profile", "show-key", "ext"]);
    assert!(show.contains("BEGIN PUBLIC KEY") && !show.contains("PRIVATE"));
    let card = env.ok(&[
        "--json",
        "payout",
        "card",
        "--amount",
        "5.00",
        "--currency",
        "USD",
        "--card-no",
        CARD_NO,
        "--first-name",
        "Ana",
        "--last-name",
        "Lima",
    ]);
    let card: Value = serde_json::from_str(&card).unwrap();
    assert_eq!(card["entry"]["status"], "accepted");
    let bad = env.run(
        &[
            "payout",
            "clabe",
            "--amount",
            "1.00",
            "--currency",
            "MXN",
            "--clabe",
            "002010077777777772",
        ],
        "",
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("clabe"));
    env.ok(&[
        "card",
        "topup",
        "--card",
        "CARD-1",
        "--amount",
        "10.00",
        "--currency",
        "USD",
    ]);
    env.ok(&[
        "card",
        "withdraw",
        "--card",
        "CARD-1",
        "--amount",
        "3.00",
        "--currency",
        "USD",
    ]);
    assert_eq!(
        running
            .sandbox
            .with_state(|s| s.cards[&(10001, "CARD-1".to_string())].balance),
        "107.00".parse().unwrap()
    );

    // kill -9 during a sync, 50 times: the file stays intact and the sync resumes.
    for i in 0..50u64 {
        // Kill once the sync is writing (never while it talks to the keyring at start),
        // at a different moment each time.
        let t0 = chrono::Utc::now().timestamp_millis() - 1;
        let mut child = env
            .cmd(&["orders", "sync", "--days", "120", "--window-hours", "6"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let written = format!("SELECT 1 FROM sync_state WHERE updated_at > {t0}");
        wait_for_row(&env.db(), &mut child, &written).await;
        tokio::time::sleep(Duration::from_millis((i * 37) % 120)).await;
        child.kill().unwrap();
        child.wait().unwrap();
        if env.db().exists() {
            integrity_ok(&env.db());
        }
    }
    env.ok(&["orders", "sync", "--days", "120", "--window-hours", "6"]);
    integrity_ok(&env.db());
    let cached: i64 = Connection::open(env.db())
        .unwrap()
        .query_row("SELECT COUNT(*) FROM orders", [], |r| r.get(0))
        .unwrap();
    let at_gateway = running.sandbox.with_state(|s| s.orders.len());
    assert_eq!(
        cached as usize, at_gateway,
        "every seeded order cached after the resumed sync"
    );

    // kill -9 during a payout, 50 times: no payout lost or duplicated.
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(1_000_000);
    running.sandbox.add_merchant(m);
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            latency_ms: 150,
            ..Fault::default()
        },
    );
    for i in 0..50u64 {
        let no = format!("KILL-{i:03}");
        let mut child = env
            .cmd(&[
                "payout",
                "clabe",
                "--amount",
                "10.00",
                "--currency",
                "MXN",
                "--clabe",
                "002010077777777771",
                "--mer-order-no",
                &no,
            ])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // Kill once the intent is in the journal: before the request leaves, while the
        // sandbox holds it (150 ms), or after it committed.
        let intent = format!("SELECT 1 FROM journal WHERE mer_order_no = '{no}'");
        wait_for_row(&env.db(), &mut child, &intent).await;
        tokio::time::sleep(Duration::from_millis((i * 53) % 300)).await;
        child.kill().unwrap();
        child.wait().unwrap();
        integrity_ok(&env.db());
    }
    running.sandbox.clear_faults();
    env.ok(&["journal", "reconcile"]);
    for i in 0..50u64 {
        // The operator runs each payout again with its number: sent only if it never arrived.
        let no = format!("KILL-{i:03}");
        env.ok(&[
            "payout",
            "clabe",
            "--amount",
            "10.00",
            "--currency",
            "MXN",
            "--clabe",
            "002010077777777771",
            "--mer-order-no",
            &no,
        ]);
    }
    let (kills, distinct) = running.sandbox.with_state(|s| {
        let kills: Vec<&str> = s
            .orders
            .iter()
            .filter(|o| o.mer_order_no.starts_with("KILL-"))
            .map(|o| o.mer_order_no.as_str())
            .collect();
        let distinct: std::collections::HashSet<&str> = kills.iter().copied().collect();
        (kills.len(), distinct.len())
    });
    assert_eq!(
        (kills, distinct),
        (50, 50),
        "each payout exactly once at the gateway"
    );
    // Hold a connection open so the last writes stay in the -wal file for the scan.
    let hold = Connection::open(env.db()).unwrap();
    let _: i64 = hold
        .query_row("SELECT COUNT(*) FROM journal", [], |r| r.get(0))
        .unwrap();
    let journal: Value =
        serde_json::from_str(&env.ok(&["--json", "journal", "list", "--limit", "500"])).unwrap();
    assert!(
        journal
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["merOrderNo"].as_str().unwrap().starts_with("KILL-"))
            .all(|e| e["status"] == "accepted")
    );
    env.ok(&["audit", "verify"]);
    let audit_csv = env.home.path().join("audit.csv");
    env.ok(&["audit", "export", audit_csv.to_str().unwrap()]);
    assert!(csv_rows(&audit_csv) > 100, "every call is in the audit log");
    let reversals: Value = serde_json::from_str(&env.ok(&["--json", "refund", "list"])).unwrap();
    assert!(reversals.is_array());
    let events: Value = serde_json::from_str(&env.ok(&["--json", "events", "list"])).unwrap();
    assert!(events.is_array());
    let garbled = env.run(&["events", "verify"], "not json");
    assert_eq!(garbled.status.code(), Some(2));
    let unsigned = env.run(
        &["events", "verify"],
        r#"{"notifyType":"pay","tradeNo":"T1"}"#,
    );
    assert_eq!(unsigned.status.code(), Some(1));

    // No private key, token or full card number in the database files or any output.
    let der_b64 = {
        use base64::Engine as _;
        base64::engine::general_purpose::STANDARD.encode(key.pkcs8_der())
    };
    let pem_line = key.to_pkcs8_pem().lines().nth(2).unwrap().to_string();
    let needles: Vec<(&str, Vec<u8>)> = vec![
        ("private key DER", key.pkcs8_der()[40..80].to_vec()),
        ("private key base64", der_b64.as_bytes()[100..160].to_vec()),
        ("private key PEM line", pem_line.into_bytes()),
        ("bearer token", TOKEN.as_bytes().to_vec()),
        ("card number", CARD_NO.as_bytes().to_vec()),
    ];
    let mut files = Vec::new();
    for entry in std::fs::read_dir(env.home.path().join("data")).unwrap() {
        files.push(entry.unwrap().path());
    }
    files.push(env.home.path().join("profiles.json"));
    assert!(
        files.iter().any(|f| f.to_string_lossy().ends_with("-wal")),
        "{files:?}"
    );
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        for (what, needle) in &needles {
            assert!(
                !bytes.windows(needle.len()).any(|w| w == needle.as_slice()),
                "{what} found in {}",
                f.display()
            );
        }
    }
    for out in &env.outputs {
        for (what, needle) in &needles {
            assert!(
                !out.as_bytes()
                    .windows(needle.len())
                    .any(|w| w == needle.as_slice()),
                "{what} found in CLI output"
            );
        }
    }
    // Clean up the keyring entries of this test.
    let secrets = paydesk_core::Secrets::new(std::sync::Arc::new(
        paydesk_core::KeyringStore::open(&env.service).unwrap(),
    ));
    secrets.forget("ext").unwrap();
}
