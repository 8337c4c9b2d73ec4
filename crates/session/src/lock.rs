//! The desk's idle lock as it outlives the app: which profile's desk is locked, the
//! failed unlocks and when the last one was, and a single desk's idle time, kept in
//! `desk-lock.json` in the home. A relaunch starts locked when the desk was locked, with
//! the same wait before the next try: quitting gives no more tries.

use std::path::PathBuf;
use std::time::Duration;

use paydesk_core::{CoreError, CoreResult, Home};
use serde::{Deserialize, Serialize};

/// Unlocks tried without a wait; each one after waits twice as long as the one before.
pub const FREE_TRIES: u32 = 3;
/// The wait after the first failure beyond the free tries.
pub const FIRST_WAIT: Duration = Duration::from_secs(30);
/// The longest wait.
pub const MAX_WAIT: Duration = Duration::from_secs(15 * 60);
/// A single desk's idle time unless set.
pub const DEFAULT_IDLE_MINUTES: u32 = 15;

/// What the file keeps.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LockRecord {
    /// The profile whose desk is locked.
    #[serde(default)]
    pub locked: Option<String>,
    /// Failed unlocks since the last good one.
    #[serde(default)]
    pub failures: u32,
    /// UTC millis of the last failed unlock.
    #[serde(default)]
    pub last_failure_ms: i64,
    /// A single desk's idle time in minutes (0: the lock is off); none is the default.
    #[serde(default)]
    pub idle_minutes: Option<u32>,
}

impl LockRecord {
    /// A single desk's idle time in minutes (0: off).
    pub fn idle_minutes(&self) -> u32 {
        self.idle_minutes.unwrap_or(DEFAULT_IDLE_MINUTES)
    }

    /// How long the next unlock must wait at `now_ms`: none while free tries are left or
    /// the wait is over. A clock set back does not shorten it (the wait counts from the
    /// later of the failure and now).
    pub fn wait_at(&self, now_ms: i64) -> Option<Duration> {
        let wait = wait_after(self.failures)?;
        let since =
            Duration::from_millis(u64::try_from(now_ms - self.last_failure_ms).unwrap_or(0));
        wait.checked_sub(since).filter(|d| !d.is_zero())
    }
}

/// The wait after `failures` failed unlocks.
pub fn wait_after(failures: u32) -> Option<Duration> {
    let beyond = failures.checked_sub(FREE_TRIES)?;
    if beyond == 0 {
        return None;
    }
    let doubled = FIRST_WAIT.saturating_mul(1u32 << (beyond - 1).min(10));
    Some(doubled.min(MAX_WAIT))
}

/// The file in a home.
#[derive(Debug, Clone)]
pub struct LockFile {
    path: PathBuf,
}

impl LockFile {
    pub fn of(home: &Home) -> Self {
        LockFile {
            path: home.dir().join("desk-lock.json"),
        }
    }

    /// What the file says; a file that cannot be read leaves the desk locked for the
    /// profile it may have named (the active one is passed by the caller) rather than
    /// open.
    pub fn load(&self) -> CoreResult<LockRecord> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                CoreError::internal(format!("{} is not readable: {e}", self.path.display()))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(LockRecord::default()),
            Err(e) => Err(CoreError::internal(format!(
                "{} is not readable: {e}",
                self.path.display()
            ))),
        }
    }

    pub fn save(&self, record: &LockRecord) -> CoreResult<()> {
        let bytes =
            serde_json::to_vec_pretty(record).map_err(|e| CoreError::internal(e.to_string()))?;
        if let Some(dir) = self.path.parent() {
            paydesk_core::private_fs::dir(dir)
                .map_err(|e| CoreError::internal(format!("{} not made: {e}", dir.display())))?;
        }
        paydesk_core::private_fs::write(&self.path, &bytes)
            .map_err(|e| CoreError::internal(format!("{} not written: {e}", self.path.display())))
    }

    /// Changes the record under `f` and saves it.
    pub fn update(&self, f: impl FnOnce(&mut LockRecord)) -> CoreResult<LockRecord> {
        let mut r = self.load().unwrap_or_default();
        f(&mut r);
        self.save(&r)?;
        Ok(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn three_tries_are_free_then_each_wait_doubles_up_to_fifteen_minutes() {
        assert_eq!(wait_after(0), None);
        assert_eq!(wait_after(3), None);
        assert_eq!(wait_after(4), Some(Duration::from_secs(30)));
        assert_eq!(wait_after(5), Some(Duration::from_secs(60)));
        assert_eq!(wait_after(6), Some(Duration::from_secs(120)));
        assert_eq!(wait_after(9), Some(Duration::from_secs(900)));
        assert_eq!(wait_after(400), Some(Duration::from_secs(900)));
    }

    #[test]
    fn the_wait_counts_from_the_last_failure_and_a_clock_set_back_does_not_shorten_it() {
        let r = LockRecord {
            failures: 4,
            last_failure_ms: 1_000_000,
            ..LockRecord::default()
        };
        assert_eq!(r.wait_at(1_000_000), Some(Duration::from_secs(30)));
        assert_eq!(r.wait_at(1_010_000), Some(Duration::from_secs(20)));
        assert_eq!(r.wait_at(1_030_000), None);
        // Set back an hour: the whole wait, not none.
        assert_eq!(
            r.wait_at(1_000_000 - 3_600_000),
            Some(Duration::from_secs(30))
        );
    }

    #[test]
    fn the_record_outlives_the_process_in_the_home() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let f = LockFile::of(&home);
        assert_eq!(f.load().unwrap(), LockRecord::default());
        f.update(|r| {
            r.locked = Some("live".into());
            r.failures = 5;
        })
        .unwrap();
        let again = LockFile::of(&home).load().unwrap();
        assert_eq!(again.locked.as_deref(), Some("live"));
        assert_eq!(again.failures, 5);
        assert_eq!(again.idle_minutes(), DEFAULT_IDLE_MINUTES);
    }
}
