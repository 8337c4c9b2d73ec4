//! The test suites, each echoing its output and adding up its results for the closing
//! line: Rust tests (in the private D-Bus session with the real keyring), the UI's
//! type check, linter and unit tests, and the tests in the app's real window.

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Instant;

use crate::setup::dbus_session_args;
use crate::{Result, root, run};

/// Passed and failed counts.
pub type Tally = (u64, u64);

/// Runs `program args` in `dir`, echoing every line, and reads the counts with `count`.
fn run_counting(
    what: &str,
    program: &str,
    args: &[String],
    dir: &std::path::Path,
    envs: &[(&str, String)],
    mut count: impl FnMut(&str, &mut Tally),
) -> Result<Tally> {
    println!("==> {what}: {program} {}", args.join(" "));
    let t = Instant::now();
    let mut child = Command::new(program)
        .args(args)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(dir)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("{what}: cannot start {program}: {e}"))?;
    // Both streams, echoed where they were going and counted line by line (nextest
    // reports on stderr, cargo test and the others on stdout).
    let (lines, seen) = std::sync::mpsc::channel::<String>();
    let readers: Vec<_> = [
        child
            .stdout
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
        child
            .stderr
            .take()
            .map(|s| Box::new(s) as Box<dyn std::io::Read + Send>),
    ]
    .into_iter()
    .flatten()
    .enumerate()
    .map(|(i, stream)| {
        let lines = lines.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(stream)
                .lines()
                .map_while(std::result::Result::ok)
            {
                if i == 0 {
                    println!("{line}");
                } else {
                    eprintln!("{line}");
                }
                let _ = lines.send(line);
            }
        })
    })
    .collect();
    drop(lines);
    let mut tally = (0, 0);
    for line in seen {
        count(&strip_ansi(&line), &mut tally);
    }
    for r in readers {
        let _ = r.join();
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    println!(
        "    ({what} took {:.1?}: {} passed, {} failed)",
        t.elapsed(),
        tally.0,
        tally.1
    );
    if status.success() && tally.1 == 0 {
        Ok(tally)
    } else {
        Err(format!("{what} failed ({status}; {} failed)", tally.1))
    }
}

/// The text of a line without its terminal colour codes.
fn strip_ansi(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // CSI: ESC [ parameters, ended by a letter.
            for d in chars.by_ref() {
                if d.is_ascii_alphabetic() {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

/// The number before `word` in a `test result:` summary part.
fn number_before(text: &str, word: &str) -> u64 {
    text.split([';', ',', '(', ')'])
        .find_map(|part| {
            let part = part.trim();
            let idx = part.find(word)?;
            part[..idx].split_whitespace().last()?.parse::<u64>().ok()
        })
        .unwrap_or(0)
}

/// The Rust tests of the whole workspace under cargo-nextest (test binaries in parallel,
/// each test in its own process), the keyring's inside a private D-Bus session. Clippy
/// lints every workspace crate as this build compiles it (warnings are errors): the same
/// lints as `cargo clippy --workspace --all-targets -- -D warnings` without a second,
/// check-only build of every dependency.
pub fn rust_tests() -> Result<Tally> {
    let mut args = dbus_session_args();
    args.extend(
        [
            "cargo",
            "nextest",
            "run",
            "--workspace",
            "--locked",
            "--lib",
            "--bins",
            "--tests",
            "--examples",
            "--profile",
            "ci",
        ]
        .map(String::from),
    );
    let driver = clippy_driver()?;
    run_counting(
        "Rust tests (cargo-nextest) with clippy as the compiler of workspace crates, in a private D-Bus session with gnome-keyring (the real keyring)",
        "dbus-run-session",
        &args,
        &root(),
        &[
            ("RUSTC_WORKSPACE_WRAPPER", driver),
            // How `cargo clippy` hands its arguments to the driver.
            (
                "CLIPPY_ARGS",
                "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__".into(),
            ),
        ],
        count_nextest,
    )
    .and_then(|tally| {
        // A run that found no test (a filter, a broken harness) proves nothing.
        if tally.0 == 0 {
            Err("the Rust tests ran no test".into())
        } else {
            Ok(tally)
        }
    })
}

/// Counts from nextest's closing line:
/// `Summary [ 245s] 151 tests run: 150 passed, 1 failed, 1 skipped`.
fn count_nextest(line: &str, tally: &mut Tally) {
    let line = line.trim_start();
    // nextest's own closing line: "Summary [" and its duration, never a test's output.
    if !line.starts_with("Summary [") {
        return;
    }
    if let Some(at) = line.find(" run: ") {
        let rest = &line[at..];
        tally.0 += number_before(rest, " passed");
        tally.1 += number_before(rest, " failed") + number_before(rest, " timed out");
    }
}

/// The path of the toolchain's `clippy-driver` (the rustup proxy beside `cargo`
/// resolves it for the project's toolchain).
fn clippy_driver() -> Result<String> {
    let out = Command::new("rustup")
        .args(["which", "clippy-driver"])
        .current_dir(root())
        .output();
    if let Ok(o) = out
        && o.status.success()
    {
        let path = String::from_utf8_lossy(&o.stdout).trim().to_string();
        if !path.is_empty() {
            return Ok(path);
        }
    }
    if crate::have("clippy-driver") {
        return Ok("clippy-driver".into());
    }
    Err("clippy-driver is missing: install it with `rustup component add clippy`".into())
}

/// The UI: type check, linter, unit tests (Vitest), the app's icons current with their
/// source (drawn by the Tauri CLI of `ui/node_modules`), production build.
pub fn ui_checks() -> Result<Tally> {
    let ui = root().join("ui");
    let ui_str = ui.to_string_lossy().into_owned();
    run(
        "UI type check",
        "npm",
        &["run", "--prefix", &ui_str, "typecheck"],
    )?;
    run("UI linter", "npm", &["run", "--prefix", &ui_str, "lint"])?;
    let tally = run_counting(
        "UI unit tests (Vitest)",
        "npm",
        &["run", "test", "--", "--reporter=default"].map(String::from),
        &ui,
        &[("CI", "true".into())],
        |line, tally| {
            let l = line.trim();
            if let Some(rest) = l.strip_prefix("Tests") {
                tally.0 += number_before(rest, " passed");
                tally.1 += number_before(rest, " failed");
            }
        },
    )?;
    crate::icons::check()?;
    build_ui()?;
    Ok(tally)
}

/// The UI's production files (`ui/dist`), which the app embeds.
pub fn build_ui() -> Result {
    let ui = root().join("ui").to_string_lossy().into_owned();
    run("building the UI", "npm", &["run", "--prefix", &ui, "build"])
}

/// Where the window tests' build of the app is kept: `cargo test` rebuilds
/// `target/debug/paydesk-app` without the bundled UI, so the tests use a copy.
pub fn window_test_app() -> std::path::PathBuf {
    root()
        .join("target")
        .join("window-tests")
        .join("paydesk-app")
}

/// `cargo build` of the app serving its built UI (what `tauri build` compiles).
pub fn cargo_build_app(release: bool) -> Result {
    let mut args = vec!["build", "--locked", "-p", "paydesk-app"];
    if release {
        args.push("--release");
    }
    args.extend(["--features", "custom-protocol"]);
    let what = if release {
        "building the desktop app (release)"
    } else {
        "building the desktop app"
    };
    run(what, "cargo", &args)
}

/// The app binary serving the built UI, unbundled, and a copy of it for the window
/// tests.
pub fn build_app() -> Result {
    cargo_build_app(false)?;
    // The team's window test sets its database up with the `paydesk` command and starts
    // PostgreSQL with paydesk-testpg. The Rust tests built both already (their tests run
    // them); they are built here only when missing (building them again under another
    // compiler wrapper took minutes).
    let debug = root().join("target").join("debug");
    if !debug.join("paydesk").is_file() || !debug.join("paydesk-testpg").is_file() {
        run(
            "building the command line and the test database server for the window tests",
            "cargo",
            &[
                "build",
                "--locked",
                "-p",
                "paydesk-cli",
                "-p",
                "paydesk-testpg",
                "--bins",
            ],
        )?;
    }
    let built = root().join("target").join("debug").join("paydesk-app");
    let copy = window_test_app();
    std::fs::create_dir_all(copy.parent().unwrap_or(&root()))
        .and_then(|()| std::fs::copy(&built, &copy))
        .map_err(|e| format!("cannot copy {} to {}: {e}", built.display(), copy.display()))?;
    Ok(())
}

/// `dbus-run-session` with gnome-keyring, then `xvfb-run` with a 1280×800 screen,
/// around `command`: the session every run of the app's window needs here.
pub fn window_session(command: &[&str]) -> Vec<String> {
    let mut args = dbus_session_args();
    args.extend(["xvfb-run", "-a", "-s", "-screen 0 1280x800x24"].map(String::from));
    args.extend(command.iter().map(|a| a.to_string()));
    args
}

/// The tests in the app's real window: Xvfb, the private D-Bus session with
/// gnome-keyring, tauri-driver and WebKitWebDriver, driven by WebdriverIO under node's
/// test runner. Screenshots land in `artifacts/e2e/`. A failure fails the run: nothing
/// is retried. Node applies `--test-timeout` to each file as well as to each test: a
/// file of several flows (money.test.mjs, about 80 s alone on 2 cores) gets 5 minutes,
/// and a hung step still fails the run.
pub fn window_tests() -> Result<Tally> {
    let app = window_test_app();
    let args = window_session(&[
        "node",
        "--test",
        "--test-concurrency=1",
        "--test-timeout=300000",
        "--test-reporter=spec",
        "e2e/",
    ]);
    run_counting(
        "tests in the app's window (Xvfb, tauri-driver, WebKitWebDriver)",
        "dbus-run-session",
        &args,
        &root().join("ui"),
        &[
            ("PAYDESK_APP", app.to_string_lossy().into_owned()),
            (
                "PAYDESK_ARTIFACTS",
                root()
                    .join("artifacts")
                    .join("e2e")
                    .to_string_lossy()
                    .into_owned(),
            ),
        ],
        |line, tally| {
            let l = line.trim_start_matches(['ℹ', '#', ' ']);
            if let Some(n) = l.strip_prefix("pass ") {
                tally.0 += n.trim().parse::<u64>().unwrap_or(0);
            } else if let Some(n) = l.strip_prefix("fail ") {
                tally.1 += n.trim().parse::<u64>().unwrap_or(0);
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::{number_before, strip_ansi};

    #[test]
    fn counts_are_read_from_every_runner_summary() {
        assert_eq!(
            number_before("ok. 12 passed; 0 failed; 1 ignored", " passed"),
            12
        );
        assert_eq!(number_before("FAILED. 3 passed; 2 failed;", " failed"), 2);
        assert_eq!(number_before("  7 passed (7)", " passed"), 7);
        assert_eq!(number_before("  1 failed | 6 passed (7)", " passed"), 6);
        let vitest = "\u{1b}[2m      Tests \u{1b}[22m \u{1b}[1m\u{1b}[32m7 passed\u{1b}[39m";
        assert_eq!(strip_ansi(vitest).trim(), "Tests  7 passed");
        let mut tally = (0, 0);
        super::count_nextest(
            "     Summary [ 245.727s] 151 tests run: 151 passed (2 slow), 1 skipped",
            &mut tally,
        );
        super::count_nextest(
            "     Summary [  12.100s] 9 tests run: 6 passed, 2 failed, 1 timed out, 0 skipped",
            &mut tally,
        );
        super::count_nextest("        PASS [   2.009s] (64/151) x::y summary", &mut tally);
        assert_eq!(tally, (157, 3));
    }
}
