//! The app's one managed state: the session (where profiles live, the keyring) and the
//! open desk (opened on first use, reopened after the active profile or its secrets
//! change).

use std::sync::{Arc, Mutex};

use paydesk_core::{CoreError, CoreResult, Desk, Home, Secrets};
use paydesk_session::lock::{LockFile, LockRecord};
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
    /// The desk's idle lock.
    idle: Mutex<IdleLock>,
    /// The lock as it outlives the app (locked profile, failed unlocks).
    lock_file: LockFile,
    /// One unlock at a time: tries sent together would all pass the wait before any
    /// failure is counted.
    unlocking: tokio::sync::Mutex<()>,
}

/// A team profile, and a single desk that holds a live profile's merchant key, lock
/// after a stretch without the person's activity (the window reports key presses and
/// clicks; the screens' own polling is not activity) and ask a password again (PCI DSS
/// 8.2.8): a team member's database password, a single desk's own desk password. The
/// built-in sandbox never locks. Failed unlocks are audited and throttled, across
/// relaunches ([`paydesk_session::lock`]).
#[derive(Debug)]
struct IdleLock {
    last_activity: std::time::Instant,
    /// The idle time, once a desk that locks is open.
    after: Option<std::time::Duration>,
    /// The profile whose desk the lock guards: unlocked only by its password,
    /// whichever profile is active meanwhile.
    profile: Option<String>,
    locked: bool,
    /// At most this idle time, whatever the setting ([`IDLE_LOCK_MAX_SECONDS`]).
    cap: Option<std::time::Duration>,
}

/// The environment variable that SHORTENS the idle lock's time, in whole seconds (1 or
/// more), read once when the app starts: the desk then locks after the setting (the
/// team's, a single desk's) or this, whichever is shorter. It only ever makes the lock
/// come sooner, never later and never off, so it weakens nothing; the window tests set it
/// to see the lock come by itself without waiting out the shortest setting (1 minute).
/// The lock screen still names the setting.
pub const IDLE_LOCK_MAX_SECONDS: &str = "PAYDESK_IDLE_LOCK_MAX_SECONDS";

/// [`IDLE_LOCK_MAX_SECONDS`] as given; anything but a whole number of seconds above 0 is
/// ignored (and logged).
fn idle_cap(raw: Option<&str>) -> Option<std::time::Duration> {
    let raw = raw?;
    match raw.trim().parse::<u64>() {
        Ok(s) if s > 0 => Some(std::time::Duration::from_secs(s)),
        _ => {
            tracing::warn!(
                "{IDLE_LOCK_MAX_SECONDS}={raw:?} is not a whole number of seconds above 0: ignored"
            );
            None
        }
    }
}

impl IdleLock {
    /// The idle time in force: the setting, shortened to the cap when one is set.
    fn effective(&self) -> Option<std::time::Duration> {
        self.after
            .map(|after| self.cap.map_or(after, |cap| after.min(cap)))
    }

    /// Refuses while locked, and locks once `now` is the idle time past the member's
    /// last activity.
    fn check(&mut self, now: std::time::Instant) -> CoreResult<()> {
        if !self.locked
            && let Some(after) = self.effective()
            && now.saturating_duration_since(self.last_activity) >= after
        {
            self.locked = true;
            tracing::info!("desk locked after {} s idle", after.as_secs());
        }
        if self.locked {
            return Err(self.locked_error());
        }
        Ok(())
    }

    fn locked_error(&self) -> CoreError {
        let message = match self.after {
            Some(d) => format!(
                "the desk locked after {} minutes without activity: enter your password",
                d.as_secs() / 60
            ),
            None => "the desk is locked: enter your password".to_string(),
        };
        CoreError::Locked { message }
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
    /// With [`IDLE_LOCK_MAX_SECONDS`] when it is set.
    pub fn from_env() -> CoreResult<Self> {
        let cap = idle_cap(std::env::var(IDLE_LOCK_MAX_SECONDS).ok().as_deref());
        Ok(Self::with_session(Session::from_env()?, cap))
    }

    pub fn new(home: Home, service: &str) -> Self {
        Self::with_session(Session::new(home, service), None)
    }

    fn with_session(session: Session, cap: Option<std::time::Duration>) -> Self {
        let lock_file = LockFile::of(session.home());
        // Locked when the app quit locked: a relaunch opens nothing and gives no tries.
        let record = lock_file.load().unwrap_or_else(|e| {
            tracing::error!("{e}; the desk starts locked");
            LockRecord {
                locked: session.active_profile().ok(),
                ..LockRecord::default()
            }
        });
        Self {
            session,
            open: tokio::sync::Mutex::default(),
            picker: std::sync::OnceLock::new(),
            last_used: Mutex::new(Some(std::time::Instant::now())),
            idle: Mutex::new(IdleLock {
                last_activity: std::time::Instant::now(),
                after: None,
                locked: record.locked.is_some(),
                profile: record.locked,
                cap,
            }),
            lock_file,
            unlocking: tokio::sync::Mutex::new(()),
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
            o.desk().orders().cancel_sync();
            *open = None;
        }
        let o = Arc::new(self.session.start(None).await?);
        let team = o.desk().team()?;
        let minutes = match team {
            Some(t) => Some(u64::try_from(t.idle_lock_minutes()).unwrap_or(15)),
            None if self.guards_single(o.desk()) => Some(u64::from(
                self.lock_file.load().unwrap_or_default().idle_minutes(),
            )),
            None => None,
        }
        .filter(|m| *m > 0);
        {
            let mut idle = lock(&self.idle);
            idle.profile = minutes.map(|_| o.desk().profile.name.clone());
            idle.after = minutes.map(|m| std::time::Duration::from_secs(m * 60));
            idle.last_activity = std::time::Instant::now();
        }
        *open = Some(o.clone());
        Ok(o)
    }

    /// Whether a single desk's idle lock guards `desk`: it holds a live profile's
    /// merchant key (not the built-in sandbox's) and a desk password is set to unlock it
    /// (the window asks one first; without it a lock could never be opened).
    fn guards_single(&self, desk: &Desk) -> bool {
        desk.profile.team.is_none()
            && !desk.profile.is_sandbox()
            && desk.holds_key()
            && desk
                .secrets()
                .has_desk_password(&desk.profile.name)
                .unwrap_or(false)
    }

    /// The lock file as it is now.
    pub fn lock_record(&self) -> LockRecord {
        self.lock_file.load().unwrap_or_default()
    }

    /// Sets a single desk's idle time (1 to 60 minutes); the open desk takes it now.
    pub async fn set_idle_minutes(&self, minutes: u32) -> CoreResult<()> {
        if !(1..=60).contains(&minutes) {
            return Err(CoreError::validation(
                "idleMinutes",
                format!("1 to 60 minutes, got {minutes}"),
            ));
        }
        self.lock_file.update(|r| r.idle_minutes = Some(minutes))?;
        // A single desk the lock guards takes it now; otherwise the desk reopens with it.
        let single = self.lock_guards().is_some_and(|(_, team)| !team);
        if single {
            lock(&self.idle).after = Some(std::time::Duration::from_secs(u64::from(minutes) * 60));
        } else {
            self.close().await;
        }
        Ok(())
    }

    /// Refuses while the desk is locked, and locks it once the person has been idle for
    /// the idle time (the lock is written down: a relaunch stays locked).
    fn check_idle(&self) -> CoreResult<()> {
        let (result, newly) = {
            let mut idle = lock(&self.idle);
            let was = idle.locked;
            let r = idle.check(std::time::Instant::now());
            (r, (idle.locked && !was).then(|| idle.profile.clone()))
        };
        if let Some(profile) = newly {
            self.write_locked(profile);
        }
        result
    }

    fn write_locked(&self, profile: Option<String>) {
        if let Err(e) = self.lock_file.update(|r| r.locked = profile) {
            tracing::error!("the lock is not written down: {e}");
        }
    }

    /// The member did something in the window.
    pub fn touch(&self) -> CoreResult<()> {
        self.check_idle()?;
        lock(&self.idle).last_activity = std::time::Instant::now();
        Ok(())
    }

    /// Locks the desk now (the window's own idle timer ran out, or the person asked);
    /// a desk the lock does not guard has nothing to lock.
    pub async fn lock_now(&self) -> bool {
        let (locks, newly) = {
            let mut idle = lock(&self.idle);
            let was = idle.locked;
            if idle.after.is_some() {
                idle.locked = true;
            }
            (
                idle.locked,
                (idle.locked && !was).then(|| idle.profile.clone()),
            )
        };
        if let Some(profile) = newly {
            self.write_locked(profile);
        }
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

    /// The profile the lock guards (or would guard, once its idle time is out), and
    /// whether it is a team profile (unlocked by the member's database password).
    pub fn lock_guards(&self) -> Option<(String, bool)> {
        let name = lock(&self.idle).profile.clone()?;
        let team = self.home().get(&name).is_ok_and(|p| p.team.is_some());
        Some((name, team))
    }

    /// Unlocks with the guarded profile's password: a team member's, checked by
    /// connecting as the member; a single desk's desk password, checked against its
    /// verifier in the keyring. After [`paydesk_session::lock::FREE_TRIES`] failures each
    /// try waits (doubling, up to 15 minutes) whatever the password, across relaunches;
    /// every try, refused, waited or accepted, is in the profile's audit log.
    pub async fn unlock(&self, password: &str) -> CoreResult<()> {
        let _one_at_a_time = self.unlocking.lock().await;
        let (locked, guarded) = {
            let idle = lock(&self.idle);
            (idle.locked, idle.profile.clone())
        };
        if !locked {
            return Ok(());
        }
        let Some(name) = guarded else {
            return Err(CoreError::internal(
                "the desk is locked, but names no profile",
            ));
        };
        let Ok(profile) = self.home().get(&name) else {
            // The profile was removed meanwhile (with its key): nothing is left to guard.
            tracing::warn!("the locked profile {name} is gone; the lock is lifted");
            self.lock_file.update(|r| r.locked = None)?;
            lock(&self.idle).locked = false;
            return Ok(());
        };
        let now = chrono::Utc::now().timestamp_millis();
        let record = self.lock_record();
        if let Some(wait) = record.wait_at(now) {
            let secs = wait.as_secs().max(1);
            self.audit_unlock(
                &name,
                record.failures,
                &format!("refused: waiting {secs} s"),
            )
            .await;
            return Err(CoreError::validation(
                "password",
                format!(
                    "{} wrong passwords in a row: the next try is possible in {secs} s",
                    record.failures
                ),
            ));
        }
        let password = zeroize::Zeroizing::new(password.to_string());
        let checked: CoreResult<()> = match profile.team {
            Some(cfg) => tokio::task::spawn_blocking(move || {
                paydesk_api::team::check_password(&cfg, &password)
            })
            .await
            .map_err(internal)?,
            // 600,000 PBKDF2 rounds: on a blocking thread, not the runtime's.
            None => {
                let secrets = self.session.secrets()?;
                let profile = name.clone();
                let right = tokio::task::spawn_blocking(move || {
                    secrets.check_desk_password(&profile, &password)
                })
                .await
                .map_err(internal)??;
                if right {
                    Ok(())
                } else {
                    Err(CoreError::validation(
                        "password",
                        "not this desk's password",
                    ))
                }
            }
        };
        match checked {
            Ok(()) => {
                self.lock_file.update(|r| {
                    r.locked = None;
                    r.failures = 0;
                })?;
                {
                    let mut idle = lock(&self.idle);
                    idle.locked = false;
                    idle.last_activity = std::time::Instant::now();
                }
                self.audit_unlock(&name, record.failures, "ok").await;
                Ok(())
            }
            // A wrong password (the database's refusal names the password field).
            Err(CoreError::Validation { field, rule }) => {
                let failures = record.failures.saturating_add(1);
                self.lock_file.update(|r| {
                    r.failures = failures;
                    r.last_failure_ms = now;
                })?;
                self.audit_unlock(&name, failures, "refused: wrong password")
                    .await;
                let mut rule = format!("{rule} (failed try {failures})");
                if let Some(w) = paydesk_session::lock::wait_after(failures) {
                    rule.push_str(&format!("; the next try is possible in {} s", w.as_secs()));
                }
                Err(CoreError::validation(field, rule))
            }
            // The server could not be reached: no try was made.
            Err(e) => Err(e),
        }
    }

    /// An unlock in the guarded profile's audit log (on a desk opened for it: the
    /// locked desk is closed). A log that cannot be written is logged, the unlock's
    /// answer stands.
    async fn audit_unlock(&self, profile: &str, failures: u32, result: &str) {
        match self.session.open(Some(profile)).await {
            Ok(o) => {
                let d = o.desk().clone();
                let ids = format!("profile={profile} failures={failures}");
                let result = result.to_string();
                if let Err(e) = tokio::task::spawn_blocking(move || {
                    d.journal().audit_event("session.unlock", ids, &result);
                })
                .await
                {
                    tracing::error!("unlock not audited: {e}");
                }
            }
            Err(e) => tracing::error!("unlock not audited (the desk does not open: {e})"),
        }
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
        if let Some(d) = desk.filter(|d| !d.orders().syncing())
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

    /// The profile's scheduled balance snapshot, when the open desk is due one
    /// (`paydesk_api::duties::snapshot_if_due`).
    pub async fn snapshot_if_due(&self) {
        if lock(&self.idle).locked {
            return;
        }
        let Some(desk) = self.open_desk().await else {
            return;
        };
        match paydesk_api::duties::snapshot_if_due(&desk).await {
            Ok(Some(n)) => tracing::info!(currencies = n, "scheduled balance snapshot"),
            Ok(None) => {}
            Err(e) => tracing::warn!("scheduled balance snapshot: {e}"),
        }
    }

    /// The open profile's scheduled reports that are due (missed ones caught up), when
    /// a desk is open and not locked (`paydesk_api::duties::reports_if_due`).
    pub async fn reports_if_due(&self) {
        if lock(&self.idle).locked {
            return;
        }
        let Some(desk) = self.open_desk().await else {
            return;
        };
        let by = paydesk_api::duties::By::Desk;
        match paydesk_api::duties::reports_if_due(&desk, self.home(), by).await {
            Ok(runs) if !runs.is_empty() => {
                tracing::info!(runs = runs.len(), "scheduled reports run")
            }
            Ok(_) => {}
            Err(e) => tracing::warn!("scheduled reports: {e}"),
        }
    }

    /// Closes the open desk; the next command reopens the active profile with its
    /// current settings and secrets.
    pub async fn close(&self) {
        if let Some(open) = self.open.lock().await.take() {
            open.desk().orders().cancel_sync();
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
            cap: None,
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
            cap: Some(Duration::from_secs(1)),
        };
        // Not even the cap turns a lock on where none is.
        assert!(idle.check(start + Duration::from_secs(86_400)).is_ok());
    }

    #[test]
    fn the_cap_only_shortens_the_idle_time() {
        let start = Instant::now();
        let at = |s: u64| start + Duration::from_secs(s);
        let desk = |minutes: u64, cap: Option<Duration>| IdleLock {
            last_activity: start,
            after: Some(Duration::from_secs(minutes * 60)),
            profile: Some("solo".into()),
            locked: false,
            cap,
        };
        // Shorter than the setting: the desk locks at the cap, still naming the setting.
        let mut idle = desk(1, Some(Duration::from_secs(3)));
        assert!(idle.check(at(2)).is_ok());
        let e = idle.check(at(3)).unwrap_err();
        assert!(e.to_string().contains("after 1 minutes"), "{e}");
        // Longer than the setting: the setting holds.
        let mut idle = desk(1, Some(Duration::from_secs(3600)));
        assert!(idle.check(at(59)).is_ok());
        assert!(idle.check(at(60)).is_err());
    }

    #[test]
    fn only_whole_seconds_above_0_cap_the_idle_time() {
        use super::idle_cap;
        assert_eq!(idle_cap(None), None);
        assert_eq!(idle_cap(Some("5")), Some(Duration::from_secs(5)));
        assert_eq!(idle_cap(Some(" 5 ")), Some(Duration::from_secs(5)));
        for ignored in ["0", "-5", "1.5", "", "5s", "off"] {
            assert_eq!(idle_cap(Some(ignored)), None, "{ignored:?}");
        }
    }
}
