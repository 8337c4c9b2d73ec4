//! The app's one managed state: the session (where profiles live, the keyring) and the
//! open desk (opened on first use, reopened after the active profile or its secrets
//! change).

use std::sync::{Arc, Mutex};

use paydesk_core::{CoreError, CoreResult, Desk, Home, Secrets};
use paydesk_session::{OpenDesk, Session};

#[derive(Debug)]
pub struct AppState {
    session: Session,
    open: tokio::sync::Mutex<Option<Arc<OpenDesk>>>,
    /// The system's file picker (set when the window starts; none under the mock
    /// runtime).
    picker: std::sync::OnceLock<Picker>,
    /// When a command last asked for the desk; none once the idle desk's memory was
    /// handed back (until the next command).
    last_used: Mutex<Option<std::time::Instant>>,
    /// A team desk's idle lock.
    idle: Mutex<IdleLock>,
}

/// A team profile locks after a stretch without the member's activity (the window
/// reports key presses and clicks; the screens' own polling is not activity) and asks
/// the member's database password again (PCI DSS 8.2.8). A single desk never locks.
#[derive(Debug)]
struct IdleLock {
    last_activity: std::time::Instant,
    /// The team's idle time, once a team desk is open.
    after: Option<std::time::Duration>,
    /// The team profile whose desk the lock guards: unlocked only by its member's
    /// password, whichever profile is active meanwhile.
    profile: Option<String>,
    locked: bool,
}

impl IdleLock {
    /// Refuses while locked, and locks once `now` is the idle time past the member's
    /// last activity.
    fn check(&mut self, now: std::time::Instant) -> CoreResult<()> {
        if !self.locked
            && let Some(after) = self.after
            && now.saturating_duration_since(self.last_activity) >= after
        {
            self.locked = true;
            tracing::info!("team desk locked after {} s idle", after.as_secs());
        }
        if self.locked {
            return Err(self.locked_error());
        }
        Ok(())
    }

    fn locked_error(&self) -> CoreError {
        let minutes = self.after.map_or(0, |d| d.as_secs() / 60);
        CoreError::Locked {
            message: format!(
                "the team desk locked after {minutes} minutes without activity: enter your password"
            ),
        }
    }
}

/// What a file picker is for: review documents (pictures and PDFs, several) or a bulk
/// payout file (one CSV).
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize, specta::Type)]
#[serde(rename_all = "snake_case")]
pub enum PickPurpose {
    Review,
    Bulk,
}

/// What the system's file dialog is asked: files to open, or where to save an export
/// (`extension` `csv` or `xlsx`, `suggested` its full path). The save dialog itself asks
/// before it replaces a file that is there.
#[derive(Debug, Clone)]
pub enum Pick {
    Open(PickPurpose),
    Save {
        extension: &'static str,
        suggested: std::path::PathBuf,
    },
}

/// Opens the system's file dialog and blocks until it closes: the chosen paths.
pub struct Picker(pub Box<dyn Fn(Pick) -> Vec<std::path::PathBuf> + Send + Sync>);

impl std::fmt::Debug for Picker {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Picker")
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl AppState {
    /// `PAYDESK_HOME` and `PAYDESK_KEYRING_SERVICE` as the CLI reads them.
    pub fn from_env() -> CoreResult<Self> {
        Ok(Self::with_session(Session::from_env()?))
    }

    pub fn new(home: Home, service: &str) -> Self {
        Self::with_session(Session::new(home, service))
    }

    fn with_session(session: Session) -> Self {
        Self {
            session,
            open: tokio::sync::Mutex::default(),
            picker: std::sync::OnceLock::new(),
            last_used: Mutex::new(Some(std::time::Instant::now())),
            idle: Mutex::new(IdleLock {
                last_activity: std::time::Instant::now(),
                after: None,
                profile: None,
                locked: false,
            }),
        }
    }

    pub fn set_picker(&self, picker: Picker) {
        let _ = self.picker.set(picker);
    }

    pub fn picker(&self) -> Option<&Picker> {
        self.picker.get()
    }

    pub fn home(&self) -> &Home {
        self.session.home()
    }

    pub fn service(&self) -> &str {
        self.session.service()
    }

    /// The keyring, probed on first use; a failed probe is tried again next time.
    pub fn secrets(&self) -> CoreResult<Secrets> {
        self.unlocked()?;
        self.session.secrets()
    }

    /// Refuses while the team desk is locked: every command but the lock's own asks this
    /// first (through [`AppState::opened`], [`AppState::secrets`], or itself).
    pub fn unlocked(&self) -> CoreResult<()> {
        self.check_idle()
    }

    /// A desk of `profile` for a one-off use (a connection check): the open desk when it
    /// is that profile's, else one opened for the call and closed after it.
    pub async fn desk_of(&self, profile: &str) -> CoreResult<Arc<OpenDesk>> {
        if self.active_profile()? == profile {
            return self.opened().await;
        }
        self.unlocked()?;
        Ok(Arc::new(self.session.open(Some(profile)).await?))
    }

    /// The active profile's name; on first start, the built-in sandbox.
    pub fn active_profile(&self) -> CoreResult<String> {
        self.session.active_profile()
    }

    /// The open desk with what runs for it, starting the active profile's if none is
    /// open (its start-up reconcile then runs in the background).
    pub async fn opened(&self) -> CoreResult<Arc<OpenDesk>> {
        *lock(&self.last_used) = Some(std::time::Instant::now());
        if let Err(e) = self.check_idle() {
            // Locked: the team's connections close until the member unlocks.
            self.close().await;
            return Err(e);
        }
        let mut open = self.open.lock().await;
        if let Some(o) = open.as_ref() {
            if !o.desk().team_connection_lost() {
                return Ok(o.clone());
            }
            // The team's database went away (restarted, network): open the desk again.
            tracing::warn!(
                "the connection to the team's database was lost; opening the desk again"
            );
            o.desk().cancel_sync();
            *open = None;
        }
        let o = Arc::new(self.session.start(None).await?);
        let team = o.desk().team()?;
        {
            let mut idle = lock(&self.idle);
            idle.profile = team.as_ref().map(|_| o.desk().profile.name.clone());
            idle.after = team.map(|t| {
                std::time::Duration::from_secs(
                    u64::try_from(t.idle_lock_minutes()).unwrap_or(15) * 60,
                )
            });
            idle.last_activity = std::time::Instant::now();
        }
        *open = Some(o.clone());
        Ok(o)
    }

    /// Refuses while the team desk is locked, and locks it once the member has been
    /// idle for the team's idle time.
    fn check_idle(&self) -> CoreResult<()> {
        lock(&self.idle).check(std::time::Instant::now())
    }

    /// The member did something in the window.
    pub fn touch(&self) -> CoreResult<()> {
        self.check_idle()?;
        lock(&self.idle).last_activity = std::time::Instant::now();
        Ok(())
    }

    /// Locks the team desk now (the window's own idle timer ran out, or the member
    /// asked); a single desk has nothing to lock.
    pub async fn lock_now(&self) -> bool {
        let locks = {
            let mut idle = lock(&self.idle);
            if idle.after.is_some() {
                idle.locked = true;
            }
            idle.locked
        };
        if locks {
            self.close().await;
        }
        locks
    }

    /// The lock's state: (locked, the team's idle time in minutes when a team desk is
    /// open).
    pub fn lock_state(&self) -> (bool, Option<u64>) {
        let idle = lock(&self.idle);
        (idle.locked, idle.after.map(|d| d.as_secs() / 60))
    }

    /// Unlocks once the database accepted the member's password for the active team
    /// profile (checked by connecting as the member).
    pub async fn unlock(&self, password: &str) -> CoreResult<()> {
        let (locked, guarded) = {
            let idle = lock(&self.idle);
            (idle.locked, idle.profile.clone())
        };
        if !locked {
            return Ok(());
        }
        // The profile the lock guards, not the active one.
        let Some(cfg) = guarded
            .map(|name| self.home().get(&name))
            .transpose()?
            .and_then(|p| p.team)
        else {
            return Err(CoreError::internal(
                "the desk is locked, but the team profile it guards is gone",
            ));
        };
        let password = zeroize::Zeroizing::new(password.to_string());
        tokio::task::spawn_blocking(move || {
            paydesk_core::store::pg::PgLink::connect(&cfg, &password).map(drop)
        })
        .await
        .map_err(internal)??;
        let mut idle = lock(&self.idle);
        idle.locked = false;
        idle.last_activity = std::time::Instant::now();
        Ok(())
    }

    /// The open desk, opening the active profile if none is.
    pub async fn desk(&self) -> CoreResult<Arc<Desk>> {
        Ok(self.opened().await?.desk().clone())
    }

    /// When no command has used the desk for `idle` and no sync runs, hands SQLite's
    /// page caches back (the idle app's resident memory), once per idle stretch.
    pub async fn release_if_idle(&self, idle: std::time::Duration) {
        {
            let mut last = lock(&self.last_used);
            let idle_now = last.is_some_and(|t| t.elapsed() >= idle);
            if !idle_now {
                return;
            }
            // Once per idle stretch: the next command starts another.
            *last = None;
        }
        let desk = self.open.lock().await.as_ref().map(|o| o.desk().clone());
        if let Some(d) = desk.filter(|d| !d.syncing())
            && let Err(e) = tokio::task::spawn_blocking(move || d.release_memory())
                .await
                .map_err(internal)
                .and_then(|r| r)
        {
            tracing::warn!("releasing memory: {e}");
        }
    }

    /// The open desk, if one is (none is opened for this: a background task must not
    /// open a desk, nor count as the member's activity).
    pub async fn open_desk(&self) -> Option<Arc<Desk>> {
        self.open.lock().await.as_ref().map(|o| o.desk().clone())
    }

    /// The profile's scheduled balance snapshot, when the open desk is due one.
    pub async fn snapshot_if_due(&self) {
        if lock(&self.idle).locked {
            return;
        }
        let Some(desk) = self.open_desk().await else {
            return;
        };
        match desk
            .snapshot_balances_if_due(chrono::Utc::now().timestamp_millis())
            .await
        {
            Ok(Some(n)) => tracing::info!(currencies = n, "scheduled balance snapshot"),
            Ok(None) => {}
            Err(e) => tracing::warn!("scheduled balance snapshot: {e}"),
        }
    }

    /// Closes the open desk; the next command reopens the active profile with its
    /// current settings and secrets.
    pub async fn close(&self) {
        if let Some(open) = self.open.lock().await.take() {
            open.desk().cancel_sync();
        }
    }

    /// Closes the desk if it is `profile`'s.
    pub async fn close_if(&self, profile: &str) {
        let is_open = self
            .open
            .lock()
            .await
            .as_ref()
            .is_some_and(|o| o.profile.name == profile);
        if is_open {
            self.close().await;
        }
    }
}

/// Wraps an error that has no variant of its own.
pub fn internal(e: impl std::fmt::Display) -> CoreError {
    CoreError::internal(e.to_string())
}

/// A balance snapshot of `currencies` (every currency the desk knows when empty) in the
/// background, after a sync or a money movement: the balance history follows what
/// happened, not only the Balances screen's button. A failure is logged, never shown
/// as the command's: what the command did stands.
pub fn snapshot_after(desk: Arc<Desk>, currencies: Vec<String>) {
    if !desk.holds_key() {
        return;
    }
    tauri::async_runtime::spawn(async move {
        if let Err(e) = desk.balances(&currencies).await {
            tracing::warn!("balance snapshot after a change: {e}");
        }
    });
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::IdleLock;

    #[test]
    fn a_team_desk_locks_after_its_idle_time_and_activity_puts_it_off() {
        let start = Instant::now();
        let mut idle = IdleLock {
            last_activity: start,
            after: Some(Duration::from_secs(15 * 60)),
            profile: Some("ana".into()),
            locked: false,
        };
        let at = |s: u64| start + Duration::from_secs(s);
        assert!(idle.check(at(14 * 60)).is_ok());
        // Activity at 14 min: still open at 28 min, locked at 29.
        idle.last_activity = at(14 * 60);
        assert!(idle.check(at(28 * 60)).is_ok());
        let e = idle.check(at(29 * 60)).unwrap_err();
        assert!(e.to_string().contains("15 minutes"), "{e}");
        // Locked stays locked, whatever comes after.
        idle.last_activity = at(29 * 60);
        assert!(idle.check(at(29 * 60)).is_err());
    }

    #[test]
    fn a_single_desk_never_locks() {
        let start = Instant::now();
        let mut idle = IdleLock {
            last_activity: start,
            after: None,
            profile: None,
            locked: false,
        };
        assert!(idle.check(start + Duration::from_secs(86_400)).is_ok());
    }
}
