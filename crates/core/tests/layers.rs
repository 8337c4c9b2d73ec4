//! The layers of the workspace, as its resolved dependency graph shows them (normal
//! dependencies; tests may use more). The engine ships without its test double:
//! `paydesk-core` must not link the sandbox gateway or an HTTP server, directly or
//! through another crate (DESIGN.md, "Layers"); the sandbox is started by
//! `paydesk-session`, the core's tests may use it. The engine links no report writer
//! (`paydesk-reports` depends on the engine, never the reverse), and the reports name no
//! database driver; the model (`paydesk-model`) does no I/O. The team's workflow
//! (`paydesk-team`) builds on the engine, which never depends on it; it names no
//! database driver, and the front ends reach it through `paydesk-api`.

#![allow(clippy::unwrap_used)]

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

/// Crates the shipped engine must never link.
const FORBIDDEN: &[&str] = &["paydesk-sandbox", "axum"];

/// The workspace's resolved graph, as `cargo metadata` gives it.
fn metadata() -> Value {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let manifest = concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml");
    let out = Command::new(cargo)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--offline",
            "--manifest-path",
            manifest,
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "cargo metadata: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).unwrap()
}

/// A package's name from its id in the resolve graph.
fn names(meta: &Value) -> HashMap<String, String> {
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["id"].as_str().unwrap().to_string(),
                p["name"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The normal dependencies (what a build links; not dev- or build-dependencies) of the
/// node `id`, on any platform.
fn normal_deps(meta: &Value, id: &str) -> Vec<String> {
    let node = meta["resolve"]["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .find(|n| n["id"] == id)
        .unwrap();
    node["deps"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|d| {
            d["dep_kinds"]
                .as_array()
                .unwrap()
                .iter()
                .any(|k| k["kind"].is_null())
        })
        .map(|d| d["pkg"].as_str().unwrap().to_string())
        .collect()
}

/// The id of the workspace package `name`.
fn id_of(names: &HashMap<String, String>, name: &str) -> String {
    names
        .iter()
        .find(|(_, n)| n.as_str() == name)
        .map(|(id, _)| id.clone())
        .unwrap_or_else(|| panic!("no package {name} in the workspace"))
}

/// Every crate `name` links (normal dependencies, transitively), each with the path it is
/// reached by (`paydesk-core -> paydesk-gateway -> reqwest`).
fn linked(meta: &Value, names: &HashMap<String, String>, name: &str) -> Vec<Vec<String>> {
    let start = id_of(names, name);
    let mut paths: HashMap<String, Vec<String>> = HashMap::new();
    paths.insert(start.clone(), vec![name.to_string()]);
    let mut todo = vec![start];
    while let Some(id) = todo.pop() {
        for dep in normal_deps(meta, &id) {
            if !paths.contains_key(&dep) {
                let mut path = paths[&id].clone();
                path.push(names[&dep].clone());
                paths.insert(dep.clone(), path);
                todo.push(dep);
            }
        }
    }
    paths.into_values().collect()
}

/// The paths by which `name` links any of `forbidden` (empty when it links none).
fn reaching(
    meta: &Value,
    names: &HashMap<String, String>,
    name: &str,
    forbidden: &[&str],
) -> BTreeSet<String> {
    linked(meta, names, name)
        .into_iter()
        .filter(|p| forbidden.contains(&p[p.len() - 1].as_str()))
        .map(|p| p.join(" -> "))
        .collect()
}

/// The crates `name` names itself as normal dependencies.
fn direct(meta: &Value, names: &HashMap<String, String>, name: &str) -> BTreeSet<String> {
    normal_deps(meta, &id_of(names, name))
        .iter()
        .map(|d| names[d].clone())
        .collect()
}

#[test]
fn the_engine_links_neither_the_sandbox_nor_an_http_server() {
    let meta = metadata();
    let names = names(&meta);
    let linked = reaching(&meta, &names, "paydesk-core", FORBIDDEN);
    assert!(
        linked.is_empty(),
        "paydesk-core must not depend on the sandbox or axum (use a dev-dependency for \
         tests, or put it in paydesk-session): {linked:?}"
    );
    // The check sees what it should: the core's own dependencies are there.
    assert_eq!(
        reaching(&meta, &names, "paydesk-core", &["paydesk-gateway"]).len(),
        1
    );
}

/// The writers of statements and exports (and what only they need) are the reports
/// crate's: a change to a PDF or a workbook never recompiles the engine or the payout
/// path, and the engine never calls a report.
#[test]
fn the_engine_links_neither_the_reports_nor_their_writers() {
    let meta = metadata();
    let names = names(&meta);
    let linked = reaching(
        &meta,
        &names,
        "paydesk-core",
        &[
            "paydesk-reports",
            "rust_xlsxwriter",
            "pdf-writer",
            "subsetter",
            "ttf-parser",
        ],
    );
    assert!(
        linked.is_empty(),
        "paydesk-core must not depend on paydesk-reports or its writers: {linked:?}"
    );
    // The check sees what it should: the reports crate links its writers and the engine.
    let reports = reaching(
        &meta,
        &names,
        "paydesk-reports",
        &["rust_xlsxwriter", "paydesk-core"],
    );
    assert_eq!(reports.len(), 2, "{reports:?}");
}

/// Reports read the cache through the engine's store traits, never through a database
/// driver of their own.
#[test]
fn the_reports_name_no_database_driver() {
    let meta = metadata();
    let names = names(&meta);
    let own = direct(&meta, &names, "paydesk-reports");
    let drivers: Vec<&String> = own
        .iter()
        .filter(|d| ["rusqlite", "tokio-postgres", "postgres-protocol"].contains(&d.as_str()))
        .collect();
    assert!(
        drivers.is_empty(),
        "paydesk-reports must read the store through its traits: {drivers:?}"
    );
    assert!(own.contains("paydesk-core"), "{own:?}");
}

/// The model is types only: it links no database driver, no keyring and no file store,
/// and names nothing of ours but the gateway's vocabulary (what kind an order is, the
/// operations' names), so every backend and the engine can share it.
#[test]
fn the_model_does_no_io() {
    let meta = metadata();
    let names = names(&meta);
    let io = reaching(
        &meta,
        &names,
        "paydesk-model",
        &[
            "rusqlite",
            "rusqlite_migration",
            "tokio-postgres",
            "postgres-protocol",
            "keyring",
            "paydesk-core",
            "dirs",
        ],
    );
    assert!(io.is_empty(), "paydesk-model must not do I/O: {io:?}");
    let own = direct(&meta, &names, "paydesk-model");
    let allowed = [
        "paydesk-gateway",
        "rust_decimal",
        "serde",
        "serde_json",
        "specta",
    ];
    let other: Vec<&String> = own
        .iter()
        .filter(|d| !allowed.contains(&d.as_str()))
        .collect();
    assert!(
        other.is_empty(),
        "paydesk-model names only types' crates: {other:?}"
    );
    // The check sees what it should: the engine links the model and SQLite.
    assert_eq!(
        reaching(
            &meta,
            &names,
            "paydesk-core",
            &["paydesk-model", "rusqlite"]
        )
        .len(),
        2
    );
}

/// Every `.rs` file under `dir`, with its path relative to the core's `src/`.
fn sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/src/");
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            sources(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            let rel = path.to_string_lossy().trim_start_matches(src).to_string();
            out.push((rel, std::fs::read_to_string(&path).unwrap()));
        }
    }
}

/// The database drivers: SQLite's (and its migrations), PostgreSQL's (its client, its
/// TLS, its protocol's SCRAM).
const SQLITE: &[&str] = &["rusqlite", "rusqlite_migration"];
const POSTGRES: &[&str] = &[
    "tokio-postgres",
    "postgres-protocol",
    "tokio-postgres-rustls",
];

/// The store's crates (issue 32): `paydesk-store` holds the table traits and links no
/// database driver and neither backend; each backend crate links its own driver and
/// never the other backend (nor its driver).
#[test]
fn each_store_backend_is_a_crate_that_never_links_the_other() {
    let meta = metadata();
    let names = names(&meta);
    let store = reaching(
        &meta,
        &names,
        "paydesk-store",
        &[
            SQLITE,
            POSTGRES,
            &["paydesk-store-sqlite", "paydesk-store-pg", "paydesk-core"],
        ]
        .concat(),
    );
    assert!(
        store.is_empty(),
        "paydesk-store is backend-neutral (traits and types): {store:?}"
    );
    let pg = reaching(
        &meta,
        &names,
        "paydesk-store-pg",
        &[SQLITE, &["paydesk-store-sqlite", "paydesk-core"]].concat(),
    );
    assert!(
        pg.is_empty(),
        "paydesk-store-pg never links the SQLite store: {pg:?}"
    );
    let sqlite = reaching(
        &meta,
        &names,
        "paydesk-store-sqlite",
        &[POSTGRES, &["paydesk-store-pg", "paydesk-core"]].concat(),
    );
    assert!(
        sqlite.is_empty(),
        "paydesk-store-sqlite never links the PostgreSQL store: {sqlite:?}"
    );
    // The check sees what it should: each backend links its driver and the store.
    assert_eq!(
        reaching(
            &meta,
            &names,
            "paydesk-store-sqlite",
            &["rusqlite", "paydesk-store"]
        )
        .len(),
        2
    );
    assert_eq!(
        reaching(
            &meta,
            &names,
            "paydesk-store-pg",
            &["tokio-postgres", "paydesk-store"]
        )
        .len(),
        2
    );
}

/// The engine and the reports depend on no database driver of their own: a desk's file
/// and the team's database are reached through the store's backend crates, which only
/// the engine's store facade (`store/backend.rs`) chooses between; the reports read the
/// store through its traits and name no backend crate either.
#[test]
fn neither_the_engine_nor_the_reports_depend_on_a_driver() {
    let meta = metadata();
    let names = names(&meta);
    for krate in ["paydesk-core", "paydesk-reports"] {
        let own = direct(&meta, &names, krate);
        let drivers: Vec<&String> = own
            .iter()
            .filter(|d| SQLITE.contains(&d.as_str()) || POSTGRES.contains(&d.as_str()))
            .collect();
        assert!(
            drivers.is_empty(),
            "{krate} reaches the databases through the store's crates: {drivers:?}"
        );
    }
    let reports = direct(&meta, &names, "paydesk-reports");
    assert!(
        !reports.contains("paydesk-store-sqlite") && !reports.contains("paydesk-store-pg"),
        "paydesk-reports reads the store through its traits: {reports:?}"
    );
    // The check sees what it should: the engine names both backend crates.
    let core = direct(&meta, &names, "paydesk-core");
    assert!(
        core.contains("paydesk-store-sqlite") && core.contains("paydesk-store-pg"),
        "{core:?}"
    );
}

/// The engine's sources (the desk, forms, sync, profiles, the team, everything but the
/// store's facade that picks a backend) name no database driver: each backend crate
/// maps its driver's errors and types itself.
#[test]
fn the_engine_names_no_database_driver() {
    let mut files = Vec::new();
    sources(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        &mut files,
    );
    assert!(files.len() > 40, "the sources are read: {}", files.len());
    let mut wrong = Vec::new();
    for (file, text) in &files {
        if file.starts_with("store") {
            continue;
        }
        for driver in [
            "rusqlite",
            "tokio_postgres",
            "postgres_protocol",
            "postgres_types",
        ] {
            if text.contains(driver) {
                wrong.push(format!("{file} names {driver}"));
            }
        }
    }
    let mut reports = Vec::new();
    workspace_sources("crates/reports/src", &mut reports);
    assert!(reports.len() > 5, "the reports' sources are read");
    // Their unit tests (`tests.rs`) may fill a desk's file directly.
    for (file, text) in reports.iter().filter(|(f, _)| !f.ends_with("tests.rs")) {
        for driver in ["rusqlite", "tokio_postgres", "postgres_protocol"] {
            if text.contains(driver) {
                wrong.push(format!("{file} names {driver}"));
            }
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The engine (the desk, the team's workflow, profiles, everything outside `store/`)
/// speaks to the store's traits and its opener, never to a backend: no handle of the
/// PostgreSQL store (`PgLink`, `PgAudit`, `TeamTables`, ...) and no `store::pg` path, as
/// none of SQLite's (its handles are the store's own: `Store` hands out tables). A team
/// desk is opened by `Store::connect_team`, and the team reached through
/// `store::team::{TeamDb, TeamStore}`.
#[test]
fn the_engine_names_no_store_backend() {
    let mut files = Vec::new();
    sources(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        &mut files,
    );
    let engine: Vec<&(String, String)> = files
        .iter()
        .filter(|(f, _)| !f.starts_with("store"))
        .collect();
    assert!(
        ["team_member.rs", "profile.rs", "desk/mod.rs"]
            .iter()
            .all(|f| engine.iter().any(|(e, _)| e == f)),
        "the engine's files are read"
    );
    // `PgConfig` is the name the team's connection settings keep in the bindings (the
    // UI's type); the engine may re-export `store::team::TeamConfig` under it.
    let pg_handle = |text: &str| {
        text.match_indices("Pg").any(|(i, _)| {
            text[i + 2..].starts_with(|c: char| c.is_ascii_uppercase())
                && !text[i..].starts_with("PgConfig")
                && !text[..i].ends_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
        })
    };
    let mut wrong = Vec::new();
    for (file, text) in &engine {
        for backend in [
            "store::pg",
            "pg::",
            "paydesk_store_sqlite",
            "paydesk_store_pg",
            "SqliteStore",
            "TeamTables",
            "Journal::on",
            "AuditLog::on",
            "Orders::on",
        ] {
            if text.contains(backend) {
                wrong.push(format!("{file} names {backend}"));
            }
        }
        if pg_handle(text) {
            wrong.push(format!("{file} names a PostgreSQL handle (Pg...)"));
        }
    }
    assert!(wrong.is_empty(), "{wrong:#?}");
    // The check sees what it should: the store's backend module does name them.
    let backend = &files
        .iter()
        .find(|(f, _)| f == "store/backend.rs")
        .unwrap()
        .1;
    assert!(pg_handle(backend) && backend.contains("pg::"));
    assert!(backend.contains("paydesk_store_sqlite") && backend.contains("SqliteStore"));
}

/// The items of the `pub use` and `pub type` statements in `text` (comments left out)
/// that name a store backend crate.
fn backend_re_exports(text: &str) -> Vec<String> {
    let code: String = text
        .lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .collect::<Vec<_>>()
        .join(" ");
    let mut found = Vec::new();
    for start in ["pub use ", "pub type "] {
        for (i, _) in code.match_indices(start) {
            let item = code[i..].split(';').next().unwrap_or("");
            if item.contains("paydesk_store_sqlite") || item.contains("paydesk_store_pg") {
                found.push(item.split_whitespace().collect::<Vec<_>>().join(" "));
            }
        }
    }
    found
}

/// The engine re-exports no store backend (issue 32): its facade offers the table traits
/// and types (`paydesk-store`), `Store` and the few team functions the engine needs;
/// a test, an example or a benchmark that opens a desk's SQLite file or the team's
/// database itself names the backend crate (`paydesk-store-sqlite`, `paydesk-store-pg`),
/// so what the engine offers is what it uses, and a backend's adapters are reached only
/// through their own crate.
#[test]
fn the_engine_re_exports_no_backend() {
    let mut files = Vec::new();
    sources(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        &mut files,
    );
    assert!(
        files.iter().any(|(f, _)| f == "store.rs") && files.iter().any(|(f, _)| f == "lib.rs"),
        "the facade is read"
    );
    let wrong: Vec<String> = files
        .iter()
        .flat_map(|(file, text)| {
            backend_re_exports(text)
                .into_iter()
                .map(move |item| format!("{file}: {item}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
    // The check sees what it should: the forms a re-export takes, not a plain import.
    let sample = "pub use paydesk_store_pg as pg;\n\
        pub use paydesk_store_sqlite::{\n    open, // the file\n    migrate,\n};\n\
        pub type Link = paydesk_store_pg::PgLink;\n\
        use paydesk_store_pg::PgStore;\n\
        // pub use paydesk_store_sqlite::open;\n\
        pub(crate) use paydesk_store_sqlite::atomic;\n";
    assert_eq!(backend_re_exports(sample).len(), 3, "{sample}");
}

/// Who may call whom at the top (issue 32): the front ends (`paydesk-app`,
/// `paydesk-cli`) call the one API (`paydesk-api`), which composes the session, the
/// reports and the engine; nothing below the front ends calls the API, and the API
/// calls no front end.
#[test]
fn the_front_ends_share_one_api_and_nothing_below_calls_it() {
    let meta = metadata();
    let names = names(&meta);
    const FRONT_ENDS: &[&str] = &["paydesk-app", "paydesk-cli"];
    for front in FRONT_ENDS {
        let own = direct(&meta, &names, front);
        assert!(
            own.contains("paydesk-api"),
            "{front} calls the engine through paydesk-api: {own:?}"
        );
    }
    let api = direct(&meta, &names, "paydesk-api");
    for below in [
        "paydesk-core",
        "paydesk-session",
        "paydesk-reports",
        "paydesk-team",
    ] {
        assert!(api.contains(below), "paydesk-api composes {below}: {api:?}");
    }
    let api_links: Vec<String> = linked(&meta, &names, "paydesk-api")
        .into_iter()
        .filter(|p| FRONT_ENDS.contains(&p[p.len() - 1].as_str()))
        .map(|p| p.join(" -> "))
        .collect();
    assert!(
        api_links.is_empty(),
        "the API calls no front end: {api_links:?}"
    );
    for below in [
        "paydesk-model",
        "paydesk-core",
        "paydesk-reports",
        "paydesk-session",
        "paydesk-gateway",
        "paydesk-team",
    ] {
        let up = reaching(&meta, &names, below, &["paydesk-api"]);
        assert!(up.is_empty(), "{below} must not call the API: {up:?}");
    }
}

/// Every `.rs` file under `dir`, with its path relative to the workspace's root.
fn workspace_sources(dir: &str, out: &mut Vec<(String, String)>) {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../../");
    let mut todo = vec![std::path::PathBuf::from(root).join(dir)];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                let rel = path.to_string_lossy().trim_start_matches(root).to_string();
                out.push((rel, std::fs::read_to_string(&path).unwrap()));
            }
        }
    }
}

/// The front ends never reach into the store's PostgreSQL backend: the team's database
/// is opened, tested and initialised through `paydesk_api::team` (one place, the
/// engine's `team::open`), so neither shell names `store::pg` nor a link of it.
#[test]
fn neither_front_end_names_the_team_database_backend() {
    let mut files = Vec::new();
    workspace_sources("src-tauri/src", &mut files);
    workspace_sources("crates/cli/src", &mut files);
    assert!(files.len() > 20, "the sources are read: {}", files.len());
    let wrong: Vec<String> = files
        .iter()
        .flat_map(|(file, text)| {
            ["store::pg", "PgLink", "init_team", "team_schema_version"]
                .into_iter()
                .filter(|name| text.contains(name))
                .map(move |name| format!("{file} names {name}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// Every dependency `name`'s manifest declares, of any kind (normal, dev, build).
fn declared(meta: &Value, name: &str) -> BTreeSet<String> {
    meta["packages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == name)
        .unwrap_or_else(|| panic!("no package {name} in the workspace"))["dependencies"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap().to_string())
        .collect()
}

/// The team's workflow (`paydesk-team`: requests, approvals, the signer's worker) builds
/// on the engine; the engine, and everything below the API, never depends on it, not
/// even for its tests (what a team desk itself needs is the engine's `team_member`).
#[test]
fn nothing_below_the_api_depends_on_the_team_crate() {
    let meta = metadata();
    let names = names(&meta);
    for below in [
        "paydesk-model",
        "paydesk-store",
        "paydesk-store-sqlite",
        "paydesk-store-pg",
        "paydesk-core",
        "paydesk-reports",
        "paydesk-session",
    ] {
        let up = reaching(&meta, &names, below, &["paydesk-team"]);
        assert!(
            up.is_empty(),
            "{below} must not depend on paydesk-team: {up:?}"
        );
    }
    let core = declared(&meta, "paydesk-core");
    assert!(
        !core.contains("paydesk-team"),
        "paydesk-core names paydesk-team in its manifest: {core:?}"
    );
    // The check sees what it should: the team crate links the engine.
    assert_eq!(
        reaching(&meta, &names, "paydesk-team", &["paydesk-core"]).len(),
        1
    );
}

/// The team crate reaches the team's database through the engine's store facade (the
/// store's team tables), never through a driver or a backend crate of its own.
#[test]
fn the_team_crate_names_no_database_driver() {
    let meta = metadata();
    let names = names(&meta);
    let own = direct(&meta, &names, "paydesk-team");
    let drivers: Vec<&String> = own
        .iter()
        .filter(|d| {
            [
                "rusqlite",
                "tokio-postgres",
                "postgres-protocol",
                "paydesk-store-sqlite",
                "paydesk-store-pg",
            ]
            .contains(&d.as_str())
        })
        .collect();
    assert!(
        drivers.is_empty(),
        "paydesk-team must reach the team's database through the engine: {drivers:?}"
    );
    assert!(own.contains("paydesk-core"), "{own:?}");
    let mut files = Vec::new();
    workspace_sources("crates/team/src", &mut files);
    assert!(!files.is_empty(), "the sources are read");
    let wrong: Vec<String> = files
        .iter()
        .flat_map(|(file, text)| {
            [
                "rusqlite",
                "tokio_postgres",
                "store::pg",
                "pg::",
                "PgLink",
                "paydesk_store_sqlite",
                "paydesk_store_pg",
                "SqliteStore",
                "TeamTables",
            ]
            .into_iter()
            .filter(|name| text.contains(name))
            .map(move |name| format!("{file} names {name}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The front ends reach the team's workflow through `paydesk-api`, never naming the team
/// crate themselves.
#[test]
fn the_front_ends_reach_the_team_through_the_api() {
    let meta = metadata();
    let names = names(&meta);
    for front in ["paydesk-app", "paydesk-cli"] {
        let own = direct(&meta, &names, front);
        assert!(
            !own.contains("paydesk-team"),
            "{front} reaches paydesk-team through paydesk-api: {own:?}"
        );
    }
    let mut files = Vec::new();
    workspace_sources("src-tauri/src", &mut files);
    workspace_sources("crates/cli/src", &mut files);
    let wrong: Vec<&String> = files
        .iter()
        .filter(|(_, text)| text.contains("paydesk_team"))
        .map(|(file, _)| file)
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The one door by which the signer's worker passes the desk's rule that a team's money
/// moves only as an approved request (`team_member::executing_approved`) is opened by
/// the team crate's worker alone: no front end, API or other engine code names it; and
/// seals to the signers are opened by the engine and the worker only.
#[test]
fn only_the_signers_worker_opens_the_approved_request_door() {
    let mut files = Vec::new();
    for dir in ["crates", "src-tauri/src", "tests"] {
        workspace_sources(dir, &mut files);
    }
    let allowed = [
        "crates/core/src/team_member.rs",
        "crates/team/src/lib.rs",
        "crates/core/tests/layers.rs",
    ];
    let door = ["executing", "_approved"].concat();
    let wrong: Vec<&String> = files
        .iter()
        .filter(|(file, text)| text.contains(&door) && !allowed.contains(&file.as_str()))
        .map(|(file, _)| file)
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
    let used: Vec<&String> = files
        .iter()
        .filter(|(file, text)| file == "crates/team/src/lib.rs" && text.contains(&door))
        .map(|(file, _)| file)
        .collect();
    assert_eq!(used.len(), 1, "the worker's door is seen where it is used");
    // What a maker's desk sealed to the signers is opened by the engine and the worker
    // only (`unseal_for_team`, `payee_to_send`, both with the worker's claimed request;
    // `unseal` itself is the engine's), never by a front end or the API.
    let unseal = ["unseal", "_for_team"].concat();
    let payee = ["payee", "_to_send"].concat();
    let wrong: Vec<&String> = files
        .iter()
        .filter(|(file, text)| {
            (text.contains(&unseal) || text.contains(&payee))
                && !file.starts_with("crates/core/src/")
                && !file.starts_with("crates/team/src/")
                && file != "crates/core/tests/layers.rs"
        })
        .map(|(file, _)| file)
        .collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

/// The public methods (`pub fn`, `pub async fn`; not `pub(crate)`) of each top-level
/// inherent `impl` block of `ty` in `text` (`impl Desk {`, `impl<'d> super::Money<'d> {`).
fn public_methods_of(text: &str, ty: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut inside = false;
    for line in text.lines() {
        if !inside {
            let head = line.strip_prefix("impl").unwrap_or("");
            let head = head.strip_prefix("<'d>").unwrap_or(head).trim_start();
            let head = head
                .strip_prefix("super::")
                .or_else(|| head.strip_prefix("crate::desk::"))
                .unwrap_or(head);
            inside = line.starts_with("impl")
                && head
                    .strip_prefix(ty)
                    .is_some_and(|rest| rest == " {" || rest == "<'d> {" || rest == "<'_> {");
        } else if line == "}" {
            inside = false;
        } else if let Some(sig) = line
            .strip_prefix("    pub fn ")
            .or_else(|| line.strip_prefix("    pub async fn "))
        {
            let name: String = sig
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            found.push(name);
        }
    }
    found
}

/// The desk's services (issue 32): `Desk` opens a profile (profile, secrets, gateway
/// client, store, clock) and composes four services, `desk.money()`, `desk.orders()`,
/// `desk.records()` and `desk.journal()`, which the API (`paydesk-api`) calls. Desk's
/// own public surface stays the opening, the accessors and a few identity items; each
/// service's methods live in its own module (`desk/money/`, ...), so a payout is found
/// under money and Desk does not grow back into one object of every operation.
#[test]
fn the_desk_composes_services_and_each_lives_in_its_module() {
    let mut files = Vec::new();
    sources(
        std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src")),
        &mut files,
    );
    let desk: Vec<String> = files
        .iter()
        .flat_map(|(_, text)| public_methods_of(text, "Desk"))
        .collect();
    for must in ["open", "money", "orders", "records", "journal"] {
        assert!(desk.iter().any(|m| m == must), "Desk::{must}: {desk:?}");
    }
    assert!(
        desk.len() <= 20,
        "Desk keeps at most 20 public methods (opening, the service accessors, identity); \
         an operation belongs to a service: {} {desk:?}",
        desk.len()
    );
    for (ty, dir, example) in [
        ("Money", "desk/money/", "payout"),
        ("Orders", "desk/orders/", "sync"),
        ("Records", "desk/records/", "beneficiaries"),
        ("Journal", "desk/journal/", "needs_attention"),
    ] {
        let mut methods = Vec::new();
        for (file, text) in &files {
            let here = public_methods_of(text, ty);
            assert!(
                here.is_empty() || file.starts_with(dir),
                "{ty}'s methods live in {dir}, not {file}: {here:?}"
            );
            methods.extend(here);
        }
        assert!(
            methods.iter().any(|m| m == example) && methods.len() > 10,
            "{ty} holds its operations ({example}, ...): {methods:?}"
        );
    }
}
