//! The API's integration tests: its policies and background duties against a sandbox on
//! loopback with the real keyring and SQLite files (`common`: the engine's test set-up,
//! `crates/core/tests/common`, by path). One test binary with a module per subject: each
//! test binary compiles its copy of the set-up and links the whole graph again
//! (BENCHMARKS.md, *CI time*). A test is named by its module: `duties::…`; under nextest
//! each test still runs in a process of its own.

#[path = "../../../core/tests/common/mod.rs"]
mod common;

mod duties;
mod snapshots;
