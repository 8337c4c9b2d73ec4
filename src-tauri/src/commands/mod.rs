//! The IPC commands. Each one only adapts: it finds the desk in the managed state,
//! calls one session or core service and returns its result or its `CoreError`, which
//! crosses IPC as `{ "code": ..., ... }` for the UI to branch on.

pub mod activity;
pub mod balances;
pub mod money;
pub mod orders;
pub mod records;
pub mod settings;

pub type CmdResult<T> = Result<T, paydesk_core::CoreError>;
