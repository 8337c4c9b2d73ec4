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
    nextest(
        "Rust tests (cargo-nextest) with clippy as the compiler of workspace crates, in a private D-Bus session with gnome-keyring (the real keyring)",
        &[],
        &[],
    )
}

/// `cargo nextest run` of the whole workspace's targets in the private D-Bus session,
/// with clippy as the workspace's compiler: the same build as [`rust_tests`], so a second
/// run with `more` arguments (a filter) builds nothing again. `envs` go to the tests.
fn nextest(what: &str, more: &[&str], envs: &[(&str, String)]) -> Result<Tally> {
    let mut args = dbus_session_args();
    args.extend(["cargo", "nextest", "run"].map(String::from));
    args.extend(TEST_BUILD.iter().map(|a| a.to_string()));
    args.extend(["--profile", "ci"].map(String::from));
    args.extend(more.iter().map(|a| a.to_string()));
    let mut all = clippy_as_compiler()?;
    all.extend(envs.iter().cloned());
    run_counting(
        what,
        "dbus-run-session",
        &args,
        &root(),
        &all,
        count_nextest,
    )
    .and_then(|tally| {
        // A run that found no test (a filter, a broken harness) proves nothing.
        if tally.0 == 0 {
            Err(format!("{what}: ran no test"))
        } else {
            Ok(tally)
        }
    })
}

/// What the tests' build compiles: every workspace target, and the desktop app serving
/// its built UI (`custom-protocol`, what `tauri build` compiles; the UI is built before
/// the Rust tests), so that the window tests run the binary this build made instead of
/// a second build of the app, its workspace crates and Tauri (minutes on two cores).
const TEST_BUILD: &[&str] = &[
    "--workspace",
    "--locked",
    "--lib",
    "--bins",
    "--tests",
    "--examples",
    "--features",
    "paydesk-app/custom-protocol",
];

/// Clippy as the compiler of the workspace's crates (warnings are errors), as
/// `cargo clippy` sets it: the environment of every build of [`TEST_BUILD`].
fn clippy_as_compiler() -> Result<Vec<(&'static str, String)>> {
    Ok(vec![
        ("RUSTC_WORKSPACE_WRAPPER", clippy_driver()?),
        // How `cargo clippy` hands its arguments to the driver.
        (
            "CLIPPY_ARGS",
            "-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__".into(),
        ),
    ])
}

/// The team's tests run again on PostgreSQL 16 (the whole suite runs on the system's,
/// Debian 12's 15): the README's set-up through the `paydesk` command (`team init` by a
/// CREATEROLE owner that is no superuser, then members and rules), and one attack per
/// class of issue 30 that needs no TLS. Picked for speed: about a minute on two cores.
pub const TEAM_ON_PG16: &[(&str, &str)] = &[
    // The README's set-up, as its commands say.
    (
        "team_cli",
        "team_members::members_change_roles_and_passwords_as_steps_of_their_own",
    ),
    // 1. No member runs code with another's rights; the owner is no superuser.
    (
        "team_attacks",
        "team_init_refuses_a_superuser_and_a_role_that_does_not_own_the_database",
    ),
    (
        "team_attacks",
        "a_makers_temporary_objects_never_run_with_the_owners_rights",
    ),
    // 2. Membership touches only members.
    ("team_attacks", "membership_touches_only_members"),
    ("team_attacks", "a_role_change_takes_the_old_role_away"),
    // 3. The signers are one team.
    (
        "team_store",
        "begin_finds_the_number_the_intent_and_a_mismatch_across_the_team",
    ),
    // 4. Four-eyes binds everyone.
    (
        "team_rules_and_sends",
        "what_no_rule_names_needs_the_teams_default_approvals",
    ),
    // 5. What is approved is what is sent.
    (
        "team_rules_and_sends",
        "the_signer_sends_its_own_addresses_never_the_forms",
    ),
    // 6. The audit log says who, and cannot be rewritten unseen.
    ("team_attacks", "the_audit_log_says_who_wrote_each_row"),
    ("team_chain", "a_cut_team_chain_is_reported"),
    // 7. No member stalls the team.
    (
        "team_review_fixes",
        "a_viewers_idle_advisory_lock_does_not_stall_the_signer",
    ),
    // 7, on a server whose owner the superuser granted nothing (16's default): nobody
    // is ended the owner may not end or cannot see idle; a held-up step fails naming
    // the grant. With the grants, an idle holder of a request is ended.
    (
        "team_cli",
        "team_members::team_init_names_the_grants_the_owner_lacks",
    ),
    (
        "team_no_grants",
        "team_init_says_which_grants_the_owner_lacks",
    ),
    (
        "team_no_grants",
        "without_the_grants_a_busy_holder_is_waited_for_and_the_step_fails_naming_them",
    ),
    (
        "team_no_grants",
        "without_the_right_to_end_an_idle_holder_is_not_ended_and_the_step_fails_naming_it",
    ),
    (
        "team_no_grants",
        "end_stalls_without_the_right_to_end_leaves_the_idle_holder",
    ),
    (
        "team_no_grants",
        "without_the_right_to_end_a_viewers_advisory_lock_no_longer_holds_up_the_signer",
    ),
    (
        "team_no_grants",
        "a_session_shortens_its_own_wait_never_lengthens_it",
    ),
    (
        "team_review_r4",
        "a_viewer_cannot_take_the_signers_desk_lock",
    ),
    (
        "team_attacks",
        "a_member_who_holds_a_request_busy_is_not_ended",
    ),
    (
        "team_review_fixes",
        "end_stalls_ends_an_idle_blocker_of_another_members_step",
    ),
    // 8. Connections: loopback reaches a server with a self-signed certificate.
    (
        "team_tls",
        "a_loopback_server_with_a_self_signed_certificate_is_reached_over_tls",
    ),
    // 9. Sign-in hygiene: a member cannot lift the idle bound.
    ("team_attacks", "a_member_cannot_turn_off_the_idle_bound"),
];

/// [`TEAM_ON_PG16`] as a nextest filter expression.
fn pg16_filter() -> String {
    TEAM_ON_PG16
        .iter()
        .map(|(binary, test)| format!("(binary(={binary}) & test(={test}))"))
        .collect::<Vec<_>>()
        .join(" | ")
}

/// What server the tests get from `bin` (none: the one paydesk-testpg finds itself), as
/// its own `SHOW server_version` says: the test server program the Rust tests built,
/// started once and stopped.
pub fn server_version(bin: Option<&std::path::Path>, min: Option<u32>) -> Result<(String, u32)> {
    let program = root().join("target").join("debug").join("paydesk-testpg");
    let mut command = Command::new(&program);
    command.stdin(Stdio::null()).stderr(Stdio::inherit());
    if let Some(bin) = bin {
        command.env("PAYDESK_PG_BIN", bin);
    }
    if let Some(min) = min {
        command.env("PAYDESK_PG_MIN_VERSION_NUM", min.to_string());
    }
    let out = command
        .output()
        .map_err(|e| format!("cannot run {}: {e}", program.display()))?;
    let line = String::from_utf8_lossy(&out.stdout).into_owned();
    if !out.status.success() {
        return Err(format!("{} could not start PostgreSQL", program.display()));
    }
    match (
        json_field(&line, "serverVersion"),
        json_field(&line, "serverVersionNum").and_then(|n| n.parse().ok()),
    ) {
        (Some(version), Some(num)) => Ok((version, num)),
        _ => Err(format!(
            "{} said no server version: {line}",
            program.display()
        )),
    }
}

/// A string or number field of paydesk-testpg's one JSON line (no escapes in it).
fn json_field(line: &str, key: &str) -> Option<String> {
    let at = line.find(&format!("\"{key}\":"))? + key.len() + 3;
    let rest = line[at..].trim_start_matches('"');
    let end = rest.find(['"', ',', '}'])?;
    Some(rest[..end].to_string())
}

/// [`TEAM_ON_PG16`] on PostgreSQL 16 ([`crate::pg16`]): every server those tests start is
/// refused below 16 (`PAYDESK_PG_MIN_VERSION_NUM`), so the run cannot quietly use 15.
pub fn team_tests_on_pg16() -> Result<Tally> {
    let bin = crate::pg16::ensure()?;
    let (version, num) = server_version(Some(&bin), Some(160_000))?;
    if num < 160_000 {
        return Err(format!("{} is PostgreSQL {version}, not 16", bin.display()));
    }
    println!(
        "==> the team's tests on PostgreSQL {version} (server_version_num {num}, from {})",
        bin.display()
    );
    let filter = pg16_filter();
    nextest(
        &format!(
            "the team's set-up and attacks on PostgreSQL {version} ({} tests)",
            TEAM_ON_PG16.len()
        ),
        &["-E", &filter],
        &[
            ("PAYDESK_PG_BIN", bin.to_string_lossy().into_owned()),
            ("PAYDESK_PG_MIN_VERSION_NUM", "160000".into()),
        ],
    )
    .and_then(|tally| {
        if tally.0 < TEAM_ON_PG16.len() as u64 {
            Err(format!(
                "on PostgreSQL 16 {} of the {} chosen tests ran: a name in TEAM_ON_PG16 is stale",
                tally.0,
                TEAM_ON_PG16.len()
            ))
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
    // Every core a worker: Vitest's default leaves one for its main thread, which on
    // two cores ran the 51 files one at a time (63 s, with the main thread idle).
    let workers = format!(
        "--maxWorkers={}",
        std::thread::available_parallelism().map_or(2, std::num::NonZero::get)
    );
    let tally = run_counting(
        "UI unit tests (Vitest)",
        "npm",
        &["run", "test", "--", "--reporter=default", workers.as_str()].map(String::from),
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

/// The app binary the Rust tests' build made (with the bundled UI: [`TEST_BUILD`]),
/// copied for the window tests, with the command line and the test database server it
/// built too. `cargo test --no-run` with the same arguments and compiler finds every
/// target fresh (it compiles nothing after the Rust tests) and names the binaries.
pub fn app_of_the_test_build() -> Result {
    let args: Vec<&str> = ["test", "--no-run"]
        .into_iter()
        .chain(TEST_BUILD.iter().copied())
        .collect();
    let envs = clippy_as_compiler()?;
    println!(
        "==> the app of the tests' build (fresh: nothing is compiled again): cargo {}",
        args.join(" ")
    );
    let t = Instant::now();
    let status = Command::new("cargo")
        .args(&args)
        .envs(envs.iter().map(|(k, v)| (*k, v.as_str())))
        .current_dir(root())
        .status()
        .map_err(|e| format!("cannot start cargo: {e}"))?;
    if !status.success() {
        return Err(format!("the tests' build of the app failed ({status})"));
    }
    let debug = root().join("target").join("debug");
    for bin in ["paydesk-app", "paydesk", "paydesk-testpg"] {
        if !debug.join(bin).is_file() {
            return Err(format!(
                "the tests' build made no {}",
                debug.join(bin).display()
            ));
        }
    }
    let built = debug.join("paydesk-app");
    let copy = window_test_app();
    std::fs::create_dir_all(copy.parent().unwrap_or(&root()))
        .and_then(|()| std::fs::copy(&built, &copy))
        .map_err(|e| format!("cannot copy {} to {}: {e}", built.display(), copy.display()))?;
    println!("    (took {:.1?})", t.elapsed());
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
/// and a hung step still fails the run. One file at a time unless
/// `PAYDESK_WINDOW_CONCURRENCY` says more: each app runs on an X server of its own
/// (`ui/e2e/harness.mjs`), so files running at once never take each other's focus; on
/// a loaded two-core machine two at once measured slower, the web views' software
/// rendering being most of the work (BENCHMARKS.md, *CI time*).
pub fn window_tests() -> Result<Tally> {
    let app = window_test_app();
    let concurrency = format!(
        "--test-concurrency={}",
        std::env::var("PAYDESK_WINDOW_CONCURRENCY")
            .ok()
            .and_then(|n| n.trim().parse::<u32>().ok())
            .filter(|n| (1..=4).contains(n))
            .unwrap_or(1)
    );
    let args = window_session(&[
        "node",
        "--test",
        concurrency.as_str(),
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
    use super::{json_field, number_before, strip_ansi};

    #[test]
    fn the_test_servers_version_is_read_from_its_line() {
        let line = r#"{"host":"127.0.0.1","port":5,"pid":9,"serverVersion":"15.18 (Debian 15.18-0+deb12u1)","serverVersionNum":150018}"#;
        assert_eq!(
            json_field(line, "serverVersion").as_deref(),
            Some("15.18 (Debian 15.18-0+deb12u1)")
        );
        assert_eq!(
            json_field(line, "serverVersionNum").as_deref(),
            Some("150018")
        );
        assert_eq!(json_field(line, "port").as_deref(), Some("5"));
        assert_eq!(json_field(line, "missing"), None);
    }

    #[test]
    fn the_pg16_filter_names_each_chosen_test_in_its_binary() {
        let filter = super::pg16_filter();
        assert_eq!(filter.matches(" | ").count() + 1, super::TEAM_ON_PG16.len());
        assert!(filter.starts_with(
            "(binary(=team_cli) & test(=team_members::members_change_roles_and_passwords_as_steps_of_their_own))"
        ));
    }

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
