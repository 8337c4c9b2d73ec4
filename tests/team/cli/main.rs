//! The team through the `paydesk` command, as its owner, members and signer run it (issue
//! 32 item 6): `team init`, members and their roles set up through the command on a real
//! PostgreSQL server, requests paid once by the signer's worker through lost answers,
//! `kill -9` and a second signer, and the worker's scheduled reports. One test binary
//! with a module per scenario, sharing the CLI's set-up (`tests/cli/common`, its `team`
//! module); named `team_cli` so that nextest's CI profile counts its tests with the
//! team's, which mostly wait on the server (`.config/nextest.toml`).

#[path = "../../cli/common/mod.rs"]
mod common;

mod schedule_worker;
mod team_intents;
mod team_members;
mod team_worker;
