//! The engine's integration tests: the desk against a sandbox on loopback, with the
//! real keyring and real SQLite files (`common`, shared with the reports', the API's
//! and the team's tests). One test binary with a module per subject: each test binary
//! compiles its copy of the set-up and links the whole graph again, so the 25 files
//! that were a binary each build as one (BENCHMARKS.md, *CI time*). A test is named by
//! its module: `funds::…`. Apart: `layers.rs`, the workspace's layers as its dependency
//! graph and sources show them (no engine in its graph, a small link).

#[path = "../common/mod.rs"]
mod common;

mod alerts;
mod attention;
mod beneficiaries;
mod bulk_anchor;
mod bulk_lookup;
mod bulk_rows;
mod customer;
mod desk;
mod funds;
mod fuzz;
mod intents;
mod keyring;
mod lookup_fuzz;
mod lost_audit_key;
mod notified;
mod open_cache;
mod purpose;
mod resend_payin;
mod review_evidence;
mod same_payout;
mod setup_rules;
mod storage;
mod sync;
mod sync_paging;
mod views;

/// The name the test harness gives `test` of the module `module` (its `module_path!()`):
/// the path without this binary's crate, for a test that runs another test of this
/// binary in a process of its own (`--exact`).
pub fn test_name(module: &str, test: &str) -> String {
    let module = module.split_once("::").map_or("", |(_, rest)| rest);
    if module.is_empty() {
        test.to_string()
    } else {
        format!("{module}::{test}")
    }
}
