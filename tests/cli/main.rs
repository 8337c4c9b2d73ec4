//! The `paydesk` command against the sandbox (issue 32 item 6), as an operator runs it: a
//! real process, the real keyring, a sandbox gateway on loopback and the profile's
//! files, in the default conventions and in another gateway's (`other_gateway`). One
//! test binary with a module per scenario: they share their set-up (`common`: the
//! `paydesk` binary the workspace's build made, a profile made through the CLI, the
//! command runner), and each test binary compiles that set-up and links the whole graph
//! again: with the team's through the command (`team_cli`), two binaries build in about
//! an eighth of the CPU time the 28 took (BENCHMARKS.md, *CI time*). A test is named by
//! its scenario: `hostile_input::…`.

mod common;

mod alerts_command;
mod balances_overview;
mod beneficiaries;
mod desk_commands;
mod funds_limits;
mod hostile_input;
mod journal_resend_payin;
mod limits_live;
mod live_hardening;
mod lost_audit_key;
mod one_payout_per_intent;
mod orders_lookup;
mod other_gateway;
mod purpose;
mod report_failures;
mod report_statement;
mod review_desk;
mod safe_outputs;
mod same_payout;
mod sandbox_command;
mod sandbox_control;
mod schedule_commands;
mod signing_commands;
mod what_is_believed;
