//! The team's database as the front ends reach it: a member's connection for a profile,
//! a desk's, the connection test, the unlock's password check and `team init`. Each
//! opens through the engine's one place (`paydesk_core::team::open`); the waits on the
//! network follow the store's one rule (`store::pg::off_workers`).

use paydesk_core::team::{self as core_team, Team};
pub use paydesk_core::team::{Initialized, PgConfig, Probe};
use paydesk_core::{CoreError, CoreResult, Desk, Home, Secrets};

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
    desk.team()?.ok_or_else(|| {
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
