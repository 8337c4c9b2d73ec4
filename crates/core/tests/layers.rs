//! The engine ships without its test double: `paydesk-core` must not link the sandbox
//! gateway or an HTTP server, directly or through another crate (DESIGN.md, "Layers").
//! The sandbox is started by `paydesk-session`; the core's tests may use it.

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

#[test]
fn the_engine_links_neither_the_sandbox_nor_an_http_server() {
    let meta = metadata();
    let names = names(&meta);
    let core = names
        .iter()
        .find(|(_, n)| n.as_str() == "paydesk-core")
        .map(|(id, _)| id.clone())
        .unwrap();
    // Every crate the engine links, with the path it is reached by.
    let mut paths: HashMap<String, Vec<String>> = HashMap::new();
    paths.insert(core.clone(), vec!["paydesk-core".into()]);
    let mut todo = vec![core];
    while let Some(id) = todo.pop() {
        for dep in normal_deps(&meta, &id) {
            if !paths.contains_key(&dep) {
                let mut path = paths[&id].clone();
                path.push(names[&dep].clone());
                paths.insert(dep.clone(), path);
                todo.push(dep);
            }
        }
    }
    let linked: BTreeSet<String> = paths
        .values()
        .filter(|p| FORBIDDEN.contains(&p[p.len() - 1].as_str()))
        .map(|p| p.join(" -> "))
        .collect();
    assert!(
        linked.is_empty(),
        "paydesk-core must not depend on the sandbox or axum (use a dev-dependency for \
         tests, or put it in paydesk-session): {linked:?}"
    );
    // The check sees what it should: the core's own dependencies are there.
    assert!(
        paths
            .values()
            .any(|p| p.last().unwrap() == "paydesk-gateway")
    );
}
