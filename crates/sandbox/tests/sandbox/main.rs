//! The sandbox's integration tests: a sandbox in-process on a free loopback port, driven
//! over real HTTP (`common`: the vectors' keys, a client for the demo merchant, a raw
//! signed sender). One test binary with a module per subject: each test binary compiles
//! its copy of the set-up and links the whole graph again, so the 8 files that were a
//! binary each build as one (BENCHMARKS.md, *CI time*). A test is named by its module:
//! `fuzz::…`; under nextest each test still runs in a process of its own.

#[path = "../common/mod.rs"]
mod common;

mod checks;
mod fuzz;
mod latency;
mod lifecycle;
mod limits;
mod notify_guard;
mod operations;
mod traffic;
