//! `cargo xtask`: the project's single entry point for set-up and checks.
//!
//! - `cargo xtask test`: installs what is missing, then runs every check CI runs:
//!   formatting, clippy with warnings as errors, all tests, the dependency audit.
//! - `cargo xtask audit`: the dependency audit alone.
//! - `cargo xtask bench`: the benchmarks, printing their figures.
//! - `cargo xtask run`: PayDesk on the built-in sandbox.
//!
//! Every step says what it does before doing it. Std only, so it builds in seconds.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let task = args.first().map(String::as_str).unwrap_or("help");
    let started = Instant::now();
    let result = match task {
        "test" => test(),
        "audit" => audit(),
        "setup" => setup(),
        "bench" => bench(),
        "run" => run_demo(),
        _ => {
            eprintln!("usage: cargo xtask <test|setup|audit>");
            eprintln!(
                "  test   install what is missing, then fmt, clippy, all tests, audit (what CI runs)"
            );
            eprintln!("  setup  install what is missing (system packages, cargo tools)");
            eprintln!("  audit  check dependencies against advisories and the project's bans");
            eprintln!("  bench  run the benchmarks and print their figures (see BENCHMARKS.md)");
            eprintln!("  run    try PayDesk on the built-in sandbox");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => {
            // `test` ends on its own closing line (`N passed, N failed`), read by CI.
            if task != "test" {
                println!("==> xtask {task}: all done in {:.0?}", started.elapsed());
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("==> xtask {task} FAILED: {e}");
            ExitCode::FAILURE
        }
    }
}

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs a command in the workspace root, echoing it, failing on a non-zero exit.
fn run(what: &str, program: &str, args: &[&str]) -> Result {
    println!("==> {what}: {program} {}", args.join(" "));
    let t = Instant::now();
    let status = Command::new(program)
        .args(args)
        .current_dir(root())
        .status()
        .map_err(|e| format!("{what}: cannot start {program}: {e}"))?;
    println!("    ({what} took {:.1?})", t.elapsed());
    if status.success() {
        Ok(())
    } else {
        Err(format!("{what} failed ({status})"))
    }
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn cargo_has(sub: &str) -> bool {
    Command::new("cargo")
        .args([sub, "--version"])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Installs a cargo tool from crates.io if it is missing.
fn ensure_cargo_tool(sub: &str, krate: &str, version: &str) -> Result {
    if cargo_has(sub) {
        println!("==> {krate} is installed");
        return Ok(());
    }
    run(
        &format!("installing {krate} (missing)"),
        "cargo",
        &["install", krate, "--locked", "--version", version],
    )
}

/// Debian packages the checks need; installs the missing ones with apt-get.
fn ensure_apt(packages: &[&str]) -> Result {
    let missing: Vec<&str> = packages
        .iter()
        .copied()
        .filter(|p| {
            !Command::new("dpkg-query")
                .args(["-W", "-f=${Status}", p])
                .output()
                .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        })
        .collect();
    if missing.is_empty() {
        println!("==> system packages present: {}", packages.join(" "));
        return Ok(());
    }
    if !have("apt-get") {
        return Err(format!(
            "missing system packages {} and no apt-get to install them; install them with your package manager",
            missing.join(" ")
        ));
    }
    run("refreshing the package lists", "apt-get", &["update", "-q"])?;
    let mut args = vec!["install", "-y", "-q", "--no-install-recommends"];
    args.extend(&missing);
    run(
        &format!("installing {}", missing.join(" ")),
        "apt-get",
        &args,
    )
}

/// The system packages the whole test suite needs.
/// The system packages the whole test suite needs: a C toolchain, libdbus for the
/// keyring's Secret Service client, and a session bus with gnome-keyring for the tests
/// that use the real keyring.
const TEST_PACKAGES: &[&str] = &[
    "build-essential",
    "pkg-config",
    "curl",
    "libdbus-1-dev",
    "dbus",
    "dbus-x11",
    "gnome-keyring",
];

/// Inside the session bus that `dbus-run-session` made (with `xtask/dbus-session.conf`:
/// no service activation), keeps gnome-keyring's Secret Service running and unlocked,
/// with its keyrings in a fresh folder: if it ever exits, it is started again with the
/// same folder and password, so the tests' secrets survive it. Waits until it owns its
/// bus name, runs the command, then stops it (its own process group).
const WITH_KEYRING: &str = "d=$(mktemp -d); \
    setsid sh -c 'while :; do echo -n paydesk-test | XDG_DATA_HOME=\"$0\" gnome-keyring-daemon --foreground --unlock --components=secrets; sleep 0.1; done' \"$d\" >/dev/null 2>&1 & \
    keeper=$!; \
    for i in $(seq 50); do \
      dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
        org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets 2>/dev/null | grep -q true && break; \
      sleep 0.1; \
    done; \
    \"$@\"; rc=$?; \
    kill -- -$keeper 2>/dev/null; \
    exit $rc";

/// `dbus-run-session` with the project's session configuration.
fn dbus_session_args() -> Vec<String> {
    let conf = root().join("xtask").join("dbus-session.conf");
    vec![
        format!("--config-file={}", conf.display()),
        "--".into(),
        "sh".into(),
        "-c".into(),
        WITH_KEYRING.into(),
        "sh".into(),
    ]
}

fn setup() -> Result {
    ensure_apt(TEST_PACKAGES)?;
    ensure_cargo_tool("deny", "cargo-deny", "0.20.2")
}

fn test() -> Result {
    setup()?;
    run(
        "formatting check",
        "cargo",
        &["fmt", "--all", "--", "--check"],
    )?;
    run(
        "clippy, warnings are errors",
        "cargo",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--locked",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    let (passed, failed) = rust_tests()?;
    audit()?;
    println!("==> xtask test: every check passed");
    // The closing line CI reads: every test counted, across all test binaries.
    println!("{passed} passed, {failed} failed");
    Ok(())
}

/// Runs every Rust test, echoing the output, and adds up the per-binary results.
fn rust_tests() -> Result<(u64, u64)> {
    use std::io::{BufRead, BufReader};
    let args = [
        "test",
        "--workspace",
        "--locked",
        "--lib",
        "--bins",
        "--tests",
        "--examples",
    ];
    println!(
        "==> Rust tests, in a private D-Bus session with gnome-keyring (the real keyring): cargo {}",
        args.join(" ")
    );
    let t = Instant::now();
    let mut child = Command::new("dbus-run-session")
        .args(dbus_session_args())
        .arg("cargo")
        .args(args)
        .current_dir(root())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("Rust tests: cannot start cargo: {e}"))?;
    let (mut passed, mut failed) = (0u64, 0u64);
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out)
            .lines()
            .map_while(std::result::Result::ok)
        {
            println!("{line}");
            if let Some(rest) = line.strip_prefix("test result: ") {
                let count = |word: &str| {
                    rest.split(';')
                        .find_map(|part| {
                            part.trim()
                                .trim_start_matches("ok. ")
                                .trim_start_matches("FAILED. ")
                                .strip_suffix(word)
                        })
                        .and_then(|n| n.trim().parse::<u64>().ok())
                        .unwrap_or(0)
                };
                passed += count(" passed");
                failed += count(" failed");
            }
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    println!(
        "    (Rust tests took {:.1?}: {passed} passed, {failed} failed)",
        t.elapsed()
    );
    if status.success() && failed == 0 {
        Ok((passed, failed))
    } else {
        Err(format!("Rust tests failed ({status}; {failed} failed)"))
    }
}

/// Tries PayDesk on the built-in sandbox: builds the CLI, syncs the demo data, shows
/// balances and the latest orders. Without a desktop session (no D-Bus), a private one
/// with gnome-keyring is started for the keyring.
fn run_demo() -> Result {
    ensure_apt(TEST_PACKAGES)?;
    run(
        "building the paydesk command",
        "cargo",
        &["build", "--locked", "-p", "paydesk-cli"],
    )?;
    let bin = root().join("target").join("debug").join("paydesk");
    let bin = bin.to_string_lossy().into_owned();
    let script = format!(
        "set -e; echo '==> syncing the built-in sandbox'; {bin} orders sync --days 90; \
         echo '==> balances'; {bin} balance; \
         echo '==> the ten latest orders'; {bin} orders list --limit 10 --desc; \
         echo '==> the audit log'; {bin} audit verify; \
         echo; echo 'Try more: {bin} --help (payin create, payout clabe, card topup, journal list, orders export ...)'"
    );
    if std::env::var_os("DBUS_SESSION_BUS_ADDRESS").is_some() {
        run("PayDesk on the built-in sandbox", "sh", &["-c", &script])
    } else {
        println!(
            "==> no desktop session: starting a private D-Bus session with gnome-keyring for the keyring"
        );
        let mut args = dbus_session_args();
        args.extend(["sh".to_string(), "-c".to_string(), script]);
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        run("PayDesk on the built-in sandbox", "dbus-run-session", &args)
    }
}

/// The benchmarks: figures are printed, never asserted (BENCHMARKS.md records them).
fn bench() -> Result {
    run(
        "sandbox: seeding and serving signed order-list pages",
        "cargo",
        &[
            "run",
            "--release",
            "--locked",
            "-p",
            "paydesk-sandbox",
            "--example",
            "list_bench",
            "--",
            "1000000",
            "10",
            "4",
        ],
    )
}

/// The dependency audit. The RustSec database lives on GitHub; where it cannot be
/// fetched (these machines reach only the package registries), the check says so and
/// still enforces the project's bans, which name the advisories that matter to it.
fn audit() -> Result {
    ensure_cargo_tool("deny", "cargo-deny", "0.20.2")?;
    let fetched = Command::new("cargo")
        .args(["deny", "fetch", "db"])
        .current_dir(root())
        .output()
        .is_ok_and(|o| o.status.success());
    if fetched {
        run(
            "dependency audit (advisories, bans, sources)",
            "cargo",
            &["deny", "--locked", "check", "advisories", "bans", "sources"],
        )
    } else {
        println!(
            "==> the RustSec advisory database could not be fetched (no route to GitHub from here);\n    checking the project's bans, which list the advisories it depends on (deny.toml)"
        );
        run(
            "dependency audit (bans, sources)",
            "cargo",
            &["deny", "--locked", "check", "bans", "sources"],
        )
    }
}
