//! Opening the team's database: the one place the engine connects to it for a desk, a
//! report or a member's command (issue 32). A desk's store, the overview's, the member's
//! [`super::TeamMember`] (and `paydesk-team`'s `Team`), the connection test and `team init` all come from here, so the password a
//! member connects with, the links a store keeps and the schema's check are decided once;
//! the front ends reach these through `paydesk-api` and never name the store's
//! PostgreSQL module.

use std::sync::Arc;

use paydesk_gateway::Sensitive;

use crate::error::{CoreError, CoreResult};
use crate::secrets::Secrets;
use crate::store::Store;
use crate::store::team::TeamConfig as PgConfig;

/// How many connections a team store keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Links {
    /// A desk's: the journal and the audit log on one, the read model on another, so a
    /// long sync batch never holds up a payout's intent.
    JournalAndCache,
    /// A report's (the overview reads a few rows): one link for everything.
    One,
}

/// The password a team profile's member connects with: the keyring's, or none for a
/// member who signs in by client certificate and keeps no password.
pub fn member_password(
    cfg: &PgConfig,
    secrets: &Secrets,
    profile: &str,
) -> CoreResult<Sensitive<String>> {
    match secrets.team_password(profile) {
        Err(CoreError::MissingSecret { .. }) if !cfg.cert_file.is_empty() => {
            Ok(Sensitive::new(String::new()))
        }
        other => other,
    }
}

/// The store of a team profile (merchant `mer_no`) on the team's database, as `password`'s
/// member; refused when the database's schema is older than this PayDesk's.
pub fn open_store(
    cfg: &PgConfig,
    password: &str,
    mer_no: i64,
    links: Links,
) -> CoreResult<Arc<Store>> {
    match links {
        Links::JournalAndCache => Store::connect_team(cfg, password, mer_no),
        Links::One => Store::connect_team_one_link(cfg, password, mer_no),
    }
}

/// Whether `password` signs `cfg`'s member in (the idle lock's unlock on a team desk).
pub fn check_password(cfg: &PgConfig, password: &str) -> CoreResult<()> {
    crate::store::team::connect(cfg, password).map(drop)
}

/// What `team init` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Initialized {
    /// Migrations applied now.
    pub applied: usize,
    /// Grants the owner lacks to end members' stalling sessions (empty: none).
    pub missing_grants: Vec<String>,
}

/// Creates or brings up to date the team's schema for merchant `mer_no`, as the
/// database's owner.
pub fn init(cfg: &PgConfig, owner_password: &str, mer_no: i64) -> CoreResult<Initialized> {
    let (applied, missing_grants) = crate::store::team::init(cfg, owner_password, mer_no)?;
    Ok(Initialized {
        applied,
        missing_grants,
    })
}
