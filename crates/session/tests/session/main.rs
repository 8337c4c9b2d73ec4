//! The session's integration tests: desks opened through the session with the real
//! keyring (a service name of each test's own) and real SQLite files, against a sandbox
//! on loopback (`common`). One test binary with a module per subject: each test binary
//! compiles its copy of the set-up and links the whole graph again, so the 3 files that
//! were a binary each build as one (BENCHMARKS.md, *CI time*). A test is named by its
//! module: `opening::…`; under nextest each test still runs in a process of its own.

#[path = "../common/mod.rs"]
mod common;

mod fresh;
mod opening;
mod sandbox_profile;
