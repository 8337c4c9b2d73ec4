//! `paydesk schedule`: a schedule added from the terminal, listed with its next run, run
//! now into its folder; `run-due` from cron catches up the days nothing ran and exits 5
//! when a run failed; bad input names its field.

#![allow(clippy::unwrap_used)]

use serde_json::Value;

use crate::common;
use common::*;

const DAY: i64 = 86_400_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn schedules_from_the_terminal_run_now_and_catch_up_with_run_due() {
    let (mut env, _running, _key) = setup().await;
    let folder = env.home.path().join("out");
    let folder_arg = folder.to_str().unwrap().to_string();
    // A bad time: refused, naming the field, before anything is kept.
    let bad = env.run(
        &[
            "schedule",
            "add",
            "--name",
            "D",
            "--every",
            "day",
            "--at",
            "7",
            "--folder",
            &folder_arg,
        ],
        "",
    );
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("time"));

    let added: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "schedule",
        "add",
        "--name",
        "Daily CSV",
        "--every",
        "day",
        "--at",
        "00:00",
        "--folder",
        &folder_arg,
        "--format",
        "csv",
        "--offline",
    ]))
    .unwrap();
    let id = added["id"].as_u64().unwrap().to_string();
    let listed: Value = serde_json::from_str(&env.ok(&["--json", "schedule", "list"])).unwrap();
    let tomorrow = (chrono::Utc::now().date_naive() + chrono::Duration::days(1))
        .and_hms_opt(0, 0, 0)
        .unwrap()
        .and_utc()
        .timestamp_millis();
    assert_eq!(listed[0]["nextRun"].as_i64(), Some(tomorrow));
    assert!(listed[0]["lastRun"].is_null());
    // Just added: nothing is due.
    assert!(env.ok(&["schedule", "run-due"]).contains("nothing due"));

    // Run now: yesterday's file (UTC, the profile's zone by default).
    let run: Value = serde_json::from_str(&env.ok(&["--json", "schedule", "run", &id])).unwrap();
    let yesterday = chrono::Utc::now().date_naive() - chrono::Duration::days(1);
    let file = folder.join(format!("daily-csv-{yesterday}.csv"));
    assert_eq!(run["outcome"], "ok");
    assert_eq!(run["file"].as_str(), Some(file.to_str().unwrap()));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(text.starts_with("Statement,PayDesk statement"), "{text}");

    // Nothing ran for three days (the schedule file as a closed desk leaves it): run-due
    // catches the three up (the 00:00 runs of the last three days), each its own day.
    let book = env.home.path().join("data").join("ext.schedules.json");
    let mut v: Value = serde_json::from_str(&std::fs::read_to_string(&book).unwrap()).unwrap();
    let checked = v["schedules"][0]["checkedThrough"].as_i64().unwrap();
    v["schedules"][0]["checkedThrough"] = (checked - 3 * DAY).into();
    std::fs::write(&book, serde_json::to_vec(&v).unwrap()).unwrap();
    let caught: Value = serde_json::from_str(&env.ok(&["--json", "schedule", "run-due"])).unwrap();
    let caught = caught.as_array().unwrap();
    assert_eq!(caught.len(), 3, "{caught:?}");
    for (i, r) in caught.iter().enumerate() {
        let day = yesterday - chrono::Duration::days(2 - i64::try_from(i).unwrap());
        assert_eq!(r["firstDay"], day.to_string().as_str());
        assert_eq!(r["outcome"], "ok");
    }
    // The last of them is yesterday's period again: written beside that file, not over it.
    let again = folder.join(format!("daily-csv-{yesterday}_02.csv"));
    assert_eq!(caught[2]["file"].as_str(), Some(again.to_str().unwrap()));
    assert_eq!(std::fs::read_to_string(&file).unwrap(), text);

    // A folder that cannot be made: exit 5, and the reason on the run.
    let blocker = env.home.path().join("file");
    std::fs::write(&blocker, "x").unwrap();
    let blocked = blocker.join("out");
    let b: Value = serde_json::from_str(&env.ok(&[
        "--json",
        "schedule",
        "add",
        "--name",
        "Broken",
        "--every",
        "day",
        "--at",
        "00:00",
        "--folder",
        blocked.to_str().unwrap(),
        "--offline",
    ]))
    .unwrap();
    let out = env.run(
        &["schedule", "run", &b["id"].as_u64().unwrap().to_string()],
        "",
    );
    assert_eq!(out.status.code(), Some(5));
    assert!(String::from_utf8_lossy(&out.stdout).contains("FAILED"));
    env.ok(&["schedule", "remove", &id]);
    let listed: Value = serde_json::from_str(&env.ok(&["--json", "schedule", "list"])).unwrap();
    assert_eq!(listed.as_array().unwrap().len(), 1);
}
