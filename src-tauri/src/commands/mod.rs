//! The IPC commands. Each one only adapts: it finds the desk in the managed state,
//! calls one session or core service and returns its result or its `CoreError`, which
//! crosses IPC as `{ "code": ..., ... }` for the UI to branch on.

pub mod activity;
pub mod alerts;
pub mod balances;
pub mod beneficiaries;
pub mod funds;
pub mod lock;
pub mod lookup;
pub mod money;
pub mod orders;
pub mod records;
pub mod reports;
pub mod schedules;
pub mod settings;
pub mod team;
pub mod team_admin;
pub mod tools;
pub mod views;

pub type CmdResult<T> = Result<T, paydesk_core::CoreError>;

/// Where an export goes: a full path, and not a file that is there unless the user
/// confirmed replacing it (`overwrite`; the save dialog asks that itself).
pub(crate) fn export_target(path: &str, overwrite: bool) -> CmdResult<std::path::PathBuf> {
    let path = std::path::PathBuf::from(path.trim());
    if !path.is_absolute() {
        return Err(paydesk_core::CoreError::validation(
            "path",
            "must be a full path",
        ));
    }
    if !overwrite && path.exists() {
        return Err(paydesk_core::CoreError::validation(
            "path",
            format!(
                "{} is already there: confirm to replace it, or choose another name",
                path.display()
            ),
        ));
    }
    Ok(path)
}
