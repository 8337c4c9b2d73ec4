//! The team's database as the front ends reach it: a member's connection for a profile,
//! a desk's, the connection test, the unlock's password check and `team init`. Each
//! opens through the engine's one place (`paydesk_core::team_member::open_store` and its
//! neighbours); the waits on the network follow the store's one rule
//! (`paydesk_store_pg::off_workers`). The team's workflow is `paydesk-team`'s, reached by the
//! front ends through here.

use paydesk_core::{CoreError, CoreResult, Desk, Home, Secrets};
use paydesk_team as core_team;
/// The team's workflow as the front ends use it (`paydesk-team`: a member's requests,
/// approvals and admin, and the signer's worker).
pub use paydesk_team::{
    BEAT_EVERY, Decision, Executed, Member, MemberLimit, RETRY_AFTER_SECS, Request, RequestRow,
    RequestState, RowState, Rule, RuleInput, Team, TeamMember, TeamPayee, TeamRole, Upkeep,
    WorkEvent, execute_next, work, worker_beats,
};
pub use paydesk_team::{Initialized, PgConfig, Probe};

/// The member's team for the profile `name`, its password from the keyring, the seal
/// key pinned there.
pub fn connect(home: &Home, secrets: Secrets, name: &str) -> CoreResult<Team> {
    let p = home.get(name)?;
    let cfg = p.team.ok_or_else(|| {
        CoreError::validation(
            "team",
            format!(
                "profile {name} is not a team profile (add one with `paydesk profile add ... --team-host H --team-database D --team-user U`, or Settings, team connection)"
            ),
        )
    })?;
    core_team::connect_profile(&cfg, secrets, name)
}

/// The member's team on an open desk's own link (the worker's, the Approvals screen's).
pub fn of_desk(desk: &Desk) -> CoreResult<Team> {
    Team::of(desk)?.ok_or_else(|| {
        CoreError::validation(
            "team",
            "this profile is a single desk: the team's work belongs to a team profile (Settings, team connection)",
        )
    })
}

/// How often the signer's worker syncs the team's orders and snapshots the balances
/// between requests (minutes), so members' desks show them: the app's worker and
/// `paydesk team worker` by default.
pub const UPKEEP_EVERY_MINS: u64 = 5;
/// The days each of those syncs covers (windows already complete are skipped).
pub const UPKEEP_DAYS: i64 = 30;

/// The worker's upkeep every `every_mins` minutes over `days` days; none for 0 minutes.
pub fn upkeep(every_mins: u64, days: i64) -> Option<core_team::Upkeep> {
    (every_mins > 0).then(|| core_team::Upkeep {
        every: std::time::Duration::from_secs(every_mins * 60),
        days,
    })
}

/// How often the worker looks for approved requests besides the database's
/// notifications (seconds), by default.
pub const POLL_SECS: u64 = 5;
/// The longest look interval (seconds).
pub const POLL_SECS_MAX: u64 = 3600;
/// The longest time between upkeeps (minutes: a day).
pub const UPKEEP_EVERY_MINS_MAX: u64 = 1440;
/// The most days an upkeep's sync covers.
pub const UPKEEP_DAYS_MAX: i64 = 3660;

/// The signer's worker's settings, the same for `paydesk team worker` and the Team
/// screen: how often it looks for approved requests, and its upkeep between them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WorkerOptions {
    /// Seconds, 1 to [`POLL_SECS_MAX`].
    pub poll_secs: u64,
    /// Minutes between upkeeps (a sync of the team's orders and a balance snapshot),
    /// 0 (never) to [`UPKEEP_EVERY_MINS_MAX`].
    pub sync_every_mins: u64,
    /// The days each upkeep's sync covers, 1 to [`UPKEEP_DAYS_MAX`].
    pub sync_days: i64,
}

impl Default for WorkerOptions {
    fn default() -> Self {
        Self {
            poll_secs: POLL_SECS,
            sync_every_mins: UPKEEP_EVERY_MINS,
            sync_days: UPKEEP_DAYS,
        }
    }
}

impl WorkerOptions {
    /// Refuses a setting out of its range, naming it.
    pub fn check(&self) -> CoreResult<()> {
        if !(1..=POLL_SECS_MAX).contains(&self.poll_secs) {
            return Err(CoreError::keyed(
                "pollSecs",
                format!("must be between 1 and {POLL_SECS_MAX} seconds"),
                "workerPollRange",
                &[("max", POLL_SECS_MAX.to_string())],
            ));
        }
        if self.sync_every_mins > UPKEEP_EVERY_MINS_MAX {
            return Err(CoreError::keyed(
                "syncEveryMins",
                format!("must be between 0 (never) and {UPKEEP_EVERY_MINS_MAX} minutes"),
                "workerSyncEveryRange",
                &[("max", UPKEEP_EVERY_MINS_MAX.to_string())],
            ));
        }
        if !(1..=UPKEEP_DAYS_MAX).contains(&self.sync_days) {
            return Err(CoreError::keyed(
                "syncDays",
                format!("must be between 1 and {UPKEEP_DAYS_MAX} days"),
                "workerSyncDaysRange",
                &[("max", UPKEEP_DAYS_MAX.to_string())],
            ));
        }
        Ok(())
    }

    /// How often the worker looks for approved requests.
    pub fn poll(&self) -> std::time::Duration {
        std::time::Duration::from_secs(self.poll_secs)
    }

    /// The upkeep between requests; none when `sync_every_mins` is 0.
    pub fn upkeep(&self) -> Option<core_team::Upkeep> {
        upkeep(self.sync_every_mins, self.sync_days)
    }
}

/// Tests settings before they are saved (who the database says the member is).
pub fn probe(cfg: &PgConfig, password: &str) -> CoreResult<Probe> {
    core_team::probe(cfg, password)
}

/// Whether `password` signs the member in (a team desk's unlock).
pub fn check_password(cfg: &PgConfig, password: &str) -> CoreResult<()> {
    core_team::check_password(cfg, password)
}

/// Creates or brings up to date the team's schema, as the database's owner.
pub fn init(cfg: &PgConfig, owner_password: &str, mer_no: i64) -> CoreResult<Initialized> {
    core_team::init(cfg, owner_password, mer_no)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_setting_out_of_its_range_is_refused_by_name() {
        assert!(WorkerOptions::default().check().is_ok());
        let d = WorkerOptions::default();
        for (bad, field) in [
            (WorkerOptions { poll_secs: 0, ..d }, "pollSecs"),
            (
                WorkerOptions {
                    poll_secs: 3601,
                    ..d
                },
                "pollSecs",
            ),
            (
                WorkerOptions {
                    sync_every_mins: 1441,
                    ..d
                },
                "syncEveryMins",
            ),
            (WorkerOptions { sync_days: 0, ..d }, "syncDays"),
            (
                WorkerOptions {
                    sync_days: 3661,
                    ..d
                },
                "syncDays",
            ),
        ] {
            match bad.check() {
                Err(CoreError::Validation { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{bad:?}: {other:?}"),
            }
        }
        let never = WorkerOptions {
            sync_every_mins: 0,
            ..d
        };
        assert!(never.check().is_ok());
        assert!(never.upkeep().is_none());
        let hourly = WorkerOptions {
            sync_every_mins: 60,
            sync_days: 7,
            ..d
        }
        .upkeep();
        assert_eq!(hourly.map(|u| (u.every.as_secs(), u.days)), Some((3600, 7)));
    }
}
