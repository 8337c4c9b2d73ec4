//! Outputs an operator names: a statement, an orders export, an audit export and a bulk
//! run's result file each refuse a pipe (at once: a regression fails on the timeout
//! instead of hanging), a directory and a symbolic link, and never replace a file without
//! `--force`; a bulk run whose result file cannot be written sends nothing.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use common::*;
use paydesk_sandbox::Running;

const CLABE: &str = "002010077777777771";

/// Runs the command with `secs` to finish: a command that blocks (on a FIFO) is killed
/// and the test fails saying so.
fn run_within(env: &Env, args: &[&str], secs: u64) -> Output {
    let mut child = env
        .cmd(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(secs);
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if Instant::now() > deadline {
            child.kill().unwrap();
            let _ = child.wait();
            panic!("{args:?} still running after {secs} s: it blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn fund(running: &Running) {
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(1_000_000);
    running.sandbox.add_merchant(m);
}

fn mkfifo(path: &std::path::Path) {
    let made = std::process::Command::new("mkfifo")
        .arg(path)
        .status()
        .unwrap();
    assert!(made.success());
}

/// The four writers, each writing `<stem>-<what>.<ext>` in `dir`: the arguments and the
/// path.
fn writers(dir: &std::path::Path, stem: &str) -> Vec<(Vec<String>, std::path::PathBuf)> {
    let today = chrono::Utc::now().date_naive().to_string();
    let path = |what: &str| dir.join(format!("{stem}-{what}"));
    let s = |v: &[&str], p: &std::path::Path| {
        let mut a: Vec<String> = v.iter().map(|a| a.to_string()).collect();
        a.push(p.to_str().unwrap().to_string());
        (a, p.to_path_buf())
    };
    vec![
        s(
            &[
                "report",
                "statement",
                "--from",
                &today,
                "--to",
                &today,
                "--out",
            ],
            &path("statement.csv"),
        ),
        s(&["orders", "export"], &path("orders.csv")),
        s(&["orders", "export"], &path("orders.xlsx")),
        s(&["audit", "export"], &path("audit.csv")),
    ]
}

/// Runs each writer on what `make` put at its path: refused (exit 2) within 20 s, saying
/// `rule`.
fn refused_by_all(env: &Env, stem: &str, force: bool, rule: &str, make: impl Fn(&std::path::Path)) {
    for (args, path) in writers(env.home.path(), stem) {
        make(&path);
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        if force {
            a.push("--force");
        }
        let out = run_within(env, &a, 20);
        let said = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{a:?}: {said}");
        assert!(said.contains(rule), "{a:?}: {said}");
        assert!(
            said.contains(path.to_str().unwrap()),
            "names the path: {said}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_output_refuses_pipes_links_directories_and_existing_files() {
    let (mut env, _running, _) = setup().await;
    let dir = env.home.path().to_path_buf();
    // A pipe nobody reads: refused at once, naming the path and the rule.
    refused_by_all(&env, "pipe", true, "not a regular file", mkfifo);
    // A directory named as the file.
    refused_by_all(&env, "folder", true, "is a directory", |p| {
        std::fs::create_dir(p).unwrap();
    });
    // A symbolic link, even with --force: the file it points to is untouched.
    let target = dir.join("precious.txt");
    std::fs::write(&target, "keep me").unwrap();
    refused_by_all(&env, "link", true, "symbolic link", |p| {
        std::os::unix::fs::symlink(&target, p).unwrap();
    });
    assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
    // A file that is there is refused without --force, and replaced with it.
    refused_by_all(&env, "taken", false, "already exists", |p| {
        std::fs::write(p, "someone's").unwrap();
    });
    for (args, path) in writers(&dir, "taken") {
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "someone's");
        let mut a: Vec<&str> = args.iter().map(String::as_str).collect();
        a.push("--force");
        env.ok(&a);
        assert_ne!(
            std::fs::read_to_string(&path).unwrap_or_default(),
            "someone's"
        );
    }
    // A new file is written.
    for (args, path) in writers(&dir, "fresh") {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        env.ok(&a);
        assert!(path.is_file());
    }
    // No temporary file is left next to the outputs.
    let left: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".partial"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_run_whose_result_cannot_be_written_sends_nothing() {
    let (mut env, running, _) = setup().await;
    fund(&running);
    let dir = env.home.path().to_path_buf();
    let file = dir.join("june.csv");
    std::fs::write(
        &file,
        format!(
            "type,amount,currency,account,firstName,lastName,country\nclabe,50.00,MXN,{CLABE},,,\nclabe,51.00,MXN,{CLABE},,,\n"
        ),
    )
    .unwrap();
    let f = file.to_str().unwrap();
    let folder = dir.join("results");
    std::fs::create_dir(&folder).unwrap();
    let pipe = dir.join("results.csv");
    mkfifo(&pipe);
    let taken = dir.join("taken.csv");
    std::fs::write(&taken, "someone's file").unwrap();
    for (result, rule) in [
        (&folder, "is a directory"),
        (&pipe, "not a regular file"),
        (&taken, "already exists"),
    ] {
        let out = run_within(
            &env,
            &[
                "payout",
                "bulk",
                f,
                "--yes",
                "--result",
                result.to_str().unwrap(),
            ],
            30,
        );
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(rule), "{}", stderr(&out));
        assert_eq!(
            running.sandbox.with_state(|s| s.orders.len()),
            0,
            "nothing sent when the result file cannot be written"
        );
    }
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "someone's file");
    // With --force the named file is replaced, after the payouts went out.
    env.ok(&[
        "payout",
        "bulk",
        f,
        "--yes",
        "--result",
        taken.to_str().unwrap(),
        "--force",
    ]);
    assert_eq!(running.sandbox.with_state(|s| s.orders.len()), 2);
    assert!(
        std::fs::read_to_string(&taken)
            .unwrap()
            .contains("accepted")
    );
    // The default result file of the same input is its own earlier result: run again,
    // it is replaced (nothing is paid twice); another file under that name is not.
    env.ok(&["payout", "bulk", f, "--yes"]);
    let again = env.ok(&["payout", "bulk", f, "--yes"]);
    assert_eq!(running.sandbox.with_state(|s| s.orders.len()), 2);
    // The summary counts what this run did, not what earlier runs paid.
    assert!(
        again.contains("this run: 0 sent") && again.contains("already paid: 2"),
        "{again}"
    );
    let default = file.with_extension("result.csv");
    std::fs::write(&default, "not a result file").unwrap();
    let out = run_within(&env, &["payout", "bulk", f, "--yes"], 30);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("already exists"), "{}", stderr(&out));
    assert_eq!(
        std::fs::read_to_string(&default).unwrap(),
        "not a result file"
    );
}

/// The result file's folder goes away while the payouts are leaving (as a full disk or a
/// lost share would fail the write): the command says the payouts WERE sent and where
/// their outcomes are, and exits 3, never as if nothing happened.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_result_file_lost_after_the_money_moved_says_the_payouts_were_sent() {
    let (env, running, _) = setup().await;
    fund(&running);
    running.sandbox.set_fault(
        "/v2/payout",
        paydesk_sandbox::Fault {
            latency_ms: 400,
            ..paydesk_sandbox::Fault::default()
        },
    );
    let dir = env.home.path().to_path_buf();
    let file = dir.join("july.csv");
    let rows: String = (0..4)
        .map(|i| format!("clabe,6{i}.00,MXN,{CLABE},,,\n"))
        .collect();
    std::fs::write(
        &file,
        format!("type,amount,currency,account,firstName,lastName,country\n{rows}"),
    )
    .unwrap();
    let share = dir.join("share");
    std::fs::create_dir(&share).unwrap();
    let result = share.join("july-result.csv");
    let mut child = env
        .cmd(&[
            "payout",
            "bulk",
            file.to_str().unwrap(),
            "--yes",
            "--result",
            result.to_str().unwrap(),
        ])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Once the first payout is in the journal (so after the result file was checked).
    wait_for_row(
        &env.db(),
        &mut child,
        "SELECT 1 FROM journal WHERE status IN ('sending', 'accepted')",
    )
    .await;
    std::fs::remove_dir_all(&share).unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while child.try_wait().unwrap().is_none() {
        assert!(Instant::now() < deadline, "the bulk run did not end");
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    let said = stderr(&out);
    assert_eq!(out.status.code(), Some(3), "{said}");
    assert!(said.contains("WERE SENT"), "{said}");
    assert!(said.contains("paydesk journal list"), "{said}");
    assert!(said.contains("july-result.csv"), "names the file: {said}");
    assert_eq!(running.sandbox.with_state(|s| s.orders.len()), 4);
}
