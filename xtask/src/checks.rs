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
        .spawn()
        .map_err(|e| format!("{what}: cannot start {program}: {e}"))?;
    let mut tally = (0, 0);
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out)
            .lines()
            .map_while(std::result::Result::ok)
        {
            println!("{line}");
            count(&strip_ansi(&line), &mut tally);
        }
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

/// The Rust tests of the whole workspace, the keyring's inside a private D-Bus session.
pub fn rust_tests() -> Result<Tally> {
    let mut args = dbus_session_args();
    args.extend(
        [
            "cargo",
            "test",
            "--workspace",
            "--locked",
            "--lib",
            "--bins",
            "--tests",
            "--examples",
        ]
        .map(String::from),
    );
    run_counting(
        "Rust tests, in a private D-Bus session with gnome-keyring (the real keyring)",
        "dbus-run-session",
        &args,
        &root(),
        &[],
        |line, tally| {
            if let Some(rest) = line.strip_prefix("test result: ") {
                tally.0 += number_before(rest, " passed");
                tally.1 += number_before(rest, " failed");
            }
        },
    )
}

/// The UI: type check, linter, unit tests (Vitest), production build.
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
/// is retried.
pub fn window_tests() -> Result<Tally> {
    let app = window_test_app();
    let args = window_session(&[
        "node",
        "--test",
        "--test-concurrency=1",
        "--test-timeout=120000",
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
    }
}
