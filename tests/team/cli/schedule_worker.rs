//! The team's worker (`paydesk team worker`) runs the signer's profile's scheduled
//! reports while it works: a daily run missed while nothing ran is caught up into its
//! folder within seconds of the worker's start, and recorded.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::process::Stdio;
use std::time::{Duration, Instant};

use common::team::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_team_worker_catches_up_a_missed_scheduled_report() {
    let (mut env, _running, _pg) = team_with(&[], "1000").await;
    let folder = env.home.path().join("worker-reports");
    env.ok(&[
        "--profile",
        "ext",
        "schedule",
        "add",
        "--name",
        "Team daily",
        "--every",
        "day",
        "--at",
        "00:00",
        "--folder",
        folder.to_str().unwrap(),
        "--format",
        "csv",
        "--offline",
    ]);
    // As if added two days ago, with nothing running since.
    let book = env.home.path().join("data").join("ext.schedules.json");
    let mut v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&book).unwrap()).unwrap();
    let checked = v["schedules"][0]["checkedThrough"].as_i64().unwrap();
    v["schedules"][0]["checkedThrough"] = (checked - 2 * 86_400_000).into();
    std::fs::write(&book, serde_json::to_vec(&v).unwrap()).unwrap();

    let mut worker = env
        .cmd(&["--profile", "ext", "team", "worker", "--poll-secs", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let yesterday = chrono::Utc::now().date_naive() - chrono::Duration::days(1);
    let file = folder.join(format!("team-daily-{yesterday}.csv"));
    // Waited for as recorded (the file is renamed into place just before).
    let started = Instant::now();
    let mut listed = serde_json::Value::Null;
    while started.elapsed() < Duration::from_secs(60) {
        listed = serde_json::from_str(&env.ok(&["--json", "--profile", "ext", "schedule", "list"]))
            .unwrap();
        if listed[0]["lastRun"]["outcome"] == "ok" {
            break;
        }
        std::thread::sleep(Duration::from_millis(300));
    }
    worker.kill().unwrap();
    worker.wait().unwrap();
    assert!(file.is_file(), "{} written by the worker", file.display());
    let last = &listed[0]["lastRun"];
    assert_eq!(last["outcome"], "ok", "{listed}");
    assert_eq!(last["file"].as_str(), Some(file.to_str().unwrap()));
    assert_eq!(last["by"], "worker");
    assert_eq!(last["trigger"], "catchUp");
}
