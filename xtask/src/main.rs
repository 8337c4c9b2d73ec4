//! `cargo xtask`: the project's single entry point for set-up and checks.
//!
//! - `cargo xtask test`: installs what is missing, then runs every check CI runs:
//!   formatting, clippy with warnings as errors, all tests, the dependency audit.
//!   The team's set-up and one attack per class run again on PostgreSQL 16 (`pg16.rs`).
//! - `cargo xtask pg16`: fetches (once) the PostgreSQL 16 those team tests run on and
//!   prints its folder.
//! - `cargo xtask audit`: the dependency audit alone.
//! - `cargo xtask bench`: the benchmarks, printing their figures.
//! - `cargo xtask run`: the desktop app on the built-in sandbox.
//! - `cargo xtask bindings`: regenerates from Rust the UI's TypeScript bindings, the main
//!   window's capability and the UI's invalidation map (all from `src-tauri/src/registry.rs`).
//! - `cargo xtask icons`: draws `src-tauri/icons` from the source icon `icons/paydesk.png`
//!   (`--check`: fails if the committed ones are not what it draws).
//! - `cargo xtask package`: the Linux `.deb` (release build).
//!
//! Every step says what it does before doing it. Std only, so it builds in seconds.

use std::env;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::Instant;

mod app;
mod audit;
mod checks;
mod icons;
mod pg16;
mod setup;

type Result<T = ()> = std::result::Result<T, String>;

fn main() -> ExitCode {
    let args: Vec<String> = env::args().skip(1).collect();
    let task = args.first().map(String::as_str).unwrap_or("help");
    let started = Instant::now();
    let result = match task {
        "test" => test(),
        "audit" => audit::audit(),
        "setup" => setup::setup(),
        "pg16" => pg16_here(),
        "bench" => bench(),
        "run" => app::run_app(),
        "bindings" => app::bindings(),
        "icons" if args.get(1).map(String::as_str) == Some("--check") => icons::check(),
        "icons" => icons::write(),
        "package" => app::package(),
        "bench-app" => app::bench_app(),
        _ => {
            eprintln!(
                "usage: cargo xtask <test|setup|pg16|audit|bench|bench-app|run|bindings|icons|package>"
            );
            eprintln!(
                "  test   install what is missing, then fmt, all tests with clippy linting as they compile, audit (what CI runs)"
            );
            eprintln!("  setup  install what is missing (system packages, cargo tools)");
            eprintln!(
                "  pg16   fetch (once) the PostgreSQL 16 the team tests also run on; print its folder"
            );
            eprintln!(
                "  audit  check dependencies against the RustSec advisories (offline snapshot here) and the bans"
            );
            eprintln!("  bench  run the benchmarks and print their figures (see BENCHMARKS.md)");
            eprintln!("  run    open the desktop app on the built-in sandbox");
            eprintln!(
                "  bindings  regenerate ui/src/bindings.ts, the capability and ui/src/lib/invalidates.ts"
            );
            eprintln!(
                "  icons     draw src-tauri/icons from icons/paydesk.png (--check: only say if they are current)"
            );
            eprintln!("  package   build the Linux .deb (release)");
            eprintln!("  bench-app the desktop app's benchmark (release; see BENCHMARKS.md)");
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

pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// Runs a command in the workspace root, echoing it, failing on a non-zero exit.
pub fn run(what: &str, program: &str, args: &[&str]) -> Result {
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

pub fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Everything CI runs, in order of cost, so that a cheap failure ends the run early.
fn test() -> Result {
    setup::setup()?;
    run(
        "formatting check",
        "cargo",
        &["fmt", "--all", "--", "--check"],
    )?;
    let ui = checks::ui_checks()?;
    let rust = checks::rust_tests()?;
    let (version, num) = checks::server_version(None, None)?;
    println!("==> the Rust tests ran on PostgreSQL {version} (server_version_num {num})");
    let pg16 = checks::team_tests_on_pg16()?;
    checks::app_of_the_test_build()?;
    let window = checks::window_tests()?;
    audit::audit()?;
    println!("==> xtask test: every check passed");
    // The closing line CI reads: every test counted, across all suites.
    println!(
        "{} passed, {} failed",
        rust.0 + pg16.0 + ui.0 + window.0,
        rust.1 + pg16.1 + ui.1 + window.1
    );
    Ok(())
}

/// `cargo xtask pg16`: PostgreSQL 16 fetched (once), and the test server started on it
/// once to say its version.
fn pg16_here() -> Result {
    let bin = pg16::ensure()?;
    println!("{}", bin.display());
    let testpg = root().join("target").join("debug").join("paydesk-testpg");
    if testpg.is_file() {
        let (version, num) = checks::server_version(Some(&bin), Some(160_000))?;
        println!("==> paydesk-testpg runs PostgreSQL {version} (server_version_num {num}) from it");
    } else {
        println!("==> build paydesk-testpg (cargo build -p paydesk-testpg) to start it once");
    }
    Ok(())
}

/// The benchmarks: figures are printed, never asserted (BENCHMARKS.md records them).
fn bench() -> Result {
    let example = |what: &str, package: &str, name: &str, args: &[&str]| {
        let mut all = vec![
            "run",
            "--release",
            "--locked",
            "-p",
            package,
            "--example",
            name,
            "--",
        ];
        all.extend_from_slice(args);
        run(what, "cargo", &all)
    };
    example(
        "sandbox: seeding and serving signed order-list pages",
        "paydesk-sandbox",
        "list_bench",
        &["1000000", "10", "4"],
    )?;
    example(
        "cache: filtered pages and fragment search over 1,000,000 orders",
        "paydesk-core",
        "cache_bench",
        &["1000000"],
    )?;
    example(
        "statements: a month's statement over 1,000,000 cached orders, and its exports",
        "paydesk-reports",
        "statement_bench",
        &["1000000"],
    )?;
    example(
        "the sync's writer against a raw insert of the same rows",
        "paydesk-core",
        "writer_bench",
        &["1000000"],
    )?;
    example(
        "sync of 1,000,000 orders at 0, 50, 150 and 300 ms of latency",
        "paydesk-core",
        "sync_bench",
        &["1000000", "0,50,150,300"],
    )?;
    example(
        "the team's read model on PostgreSQL: 1,000,000 orders upserted, pages and search",
        "paydesk-core",
        "pg_bench",
        &["1000000"],
    )?;
    example(
        "the team: from an approval to its execution by the signer's worker, 200 requests",
        "paydesk-team",
        "team_latency_bench",
        &["200"],
    )?;
    example(
        "a bulk payout of 2,000 rows beside an independent client signing payouts one at a time",
        "paydesk-core",
        "bulk_bench",
        &["2000"],
    )
}
