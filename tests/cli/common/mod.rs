//! Shared set-up for the CLI's scenarios (`tests/cli`, and the team's through the
//! command, `tests/team/cli`): a sandbox gateway on loopback, a profile made
//! through the CLI with the real keyring, and the command runner.

#![allow(clippy::unwrap_used, dead_code)]

pub mod team;

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use paydesk_gateway::PrivateKey;
use paydesk_sandbox::{Card, Running, Sandbox, SandboxConfig, demo_merchant};
use rusqlite::Connection;

pub const ORIGIN: &str = "https://desk.example";
/// The merchant backend's notification URL of the test profile (the gateway is told it).
pub const NOTIFY_URL: &str = "https://merchant.example/paydesk/notify";
pub const TOKEN: &str = "tok-cli-secret-7f3a9";

pub struct Env {
    pub home: tempfile::TempDir,
    pub service: String,
    pub outputs: Vec<String>,
}

/// The `paydesk` binary (Cargo names a package's binaries only to that package's own
/// tests, and these scenarios live in `paydesk-tests`): `PAYDESK_BIN` when set, else the
/// one the same build made beside the test (`cargo xtask test` builds every binary of the
/// workspace), built once with `cargo build -p paydesk-cli` when it is not there yet. A
/// binary left from an older build is used as it is: run `cargo build -p paydesk-cli`
/// after changing the CLI.
pub fn paydesk_bin() -> PathBuf {
    if let Some(bin) = std::env::var_os("PAYDESK_BIN") {
        return PathBuf::from(bin);
    }
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| {
            // target/<profile>/deps/<test> → target/<profile>/paydesk
            let exe = std::env::current_exe().unwrap();
            let dir = exe.parent().and_then(Path::parent).unwrap();
            let bin = dir.join(format!("paydesk{}", std::env::consts::EXE_SUFFIX));
            if !bin.exists() {
                let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
                let mut build = Command::new(cargo);
                build.args(["build", "-p", "paydesk-cli", "--bin", "paydesk"]);
                if dir.file_name().is_some_and(|n| n == "release") {
                    build.arg("--release");
                }
                let status = build.status().unwrap();
                assert!(status.success(), "cargo build -p paydesk-cli failed");
            }
            assert!(bin.exists(), "no paydesk binary at {}", bin.display());
            bin
        })
        .clone()
}

impl Env {
    pub fn cmd(&self, args: &[&str]) -> Command {
        let mut c = Command::new(paydesk_bin());
        c.args(args)
            .env("PAYDESK_HOME", self.home.path())
            .env("PAYDESK_KEYRING_SERVICE", &self.service);
        c
    }

    pub fn run(&mut self, args: &[&str], stdin: &str) -> Output {
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

    pub fn ok(&mut self, args: &[&str]) -> String {
        let out = self.run(args, "");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    }

    pub fn db(&self) -> PathBuf {
        self.home.path().join("data").join("ext.sqlite")
    }
}

/// A sandbox on loopback and a profile `ext` for it, made through the CLI with the real
/// keyring; `profile_args` are added to `profile add` (e.g. safety settings).
pub async fn setup_with(profile_args: &[&str]) -> (Env, Running, PrivateKey) {
    static N: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let service = format!(
        "PayDesk-cli-test-{}-{}",
        std::process::id(),
        N.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    );
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
        "--notify-url",
        NOTIFY_URL,
        "--operator",
        "ana",
    ]
    .iter()
    .chain(profile_args)
    .copied()
    .collect::<Vec<_>>());
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
pub async fn wait_for_row(db: &Path, child: &mut std::process::Child, sql: &str) {
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

pub fn csv_rows(path: &Path) -> usize {
    std::fs::read_to_string(path).unwrap().lines().count() - 1
}

pub fn integrity_ok(db: &Path) {
    let conn = Connection::open(db).unwrap();
    let r: String = conn
        .query_row("PRAGMA integrity_check", [], |r| r.get(0))
        .unwrap();
    assert_eq!(r, "ok");
}

/// The set-up of [`setup_with`] with the profile's defaults, but a grace of 2 s and one
/// lookup before an order not found after a lost answer may be sent again.
pub async fn setup() -> (Env, Running, PrivateKey) {
    setup_with(&["--not-found-grace-secs", "2", "--not-found-lookups", "1"]).await
}
