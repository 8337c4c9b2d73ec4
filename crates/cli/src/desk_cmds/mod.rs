//! The commands over `paydesk-session` and `paydesk-core`: profiles, orders, money,
//! queries, journal, audit.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use paydesk_core::journal::Status;
use paydesk_core::store::orders::{OrderFilter, OrderKind, SortKey};
use paydesk_core::{CoreError, Desk, Profile, new_mer_order_no};
use paydesk_session::{OpenDesk, Session};
use serde::Serialize;

use crate::Failure;

mod alerts;
mod balances;
mod beneficiaries;
mod lookup;
mod money;
mod orders;
mod profile;
mod records;
mod report;
mod schedule;
mod team;

pub use alerts::*;
pub use balances::*;
pub use beneficiaries::*;
pub use money::*;
pub use orders::*;
pub use profile::*;
pub use records::*;
pub use report::*;
pub use schedule::*;
pub use team::*;

#[derive(Debug, Args)]
pub struct Global {
    /// The profile to use (default: the active one; the built-in sandbox on first use).
    #[arg(long, global = true, env = "PAYDESK_PROFILE")]
    profile: Option<String>,
    /// Print JSON for scripts instead of text.
    #[arg(long, global = true)]
    json: bool,
}

impl From<CoreError> for Failure {
    fn from(e: CoreError) -> Self {
        match e {
            CoreError::Validation { .. } => Failure::Input(e.to_string()),
            CoreError::Rejected { .. } | CoreError::SignatureInvalid { .. } => {
                Failure::Check(e.to_string())
            }
            // `main` says "outcome unknown:" once.
            CoreError::OutcomeUnknown { message } => Failure::Unknown(message),
            CoreError::BadResponse { .. } => Failure::Unknown(e.to_string()),
            CoreError::KeyringUnavailable { .. } | CoreError::MissingSecret { .. } => {
                Failure::Keyring(e.to_string())
            }
            CoreError::Duplicate {
                ref earlier_mer_order_no,
                ..
            } => Failure::Duplicate(format!(
                "{e}. To retry that order: the same command with --mer-order-no {earlier_mer_order_no}; to send a second one on purpose: add --allow-duplicate"
            )),
            _ => Failure::Other(e.to_string()),
        }
    }
}

/// Where profiles live and the keyring, from `PAYDESK_HOME` and
/// `PAYDESK_KEYRING_SERVICE`.
fn session() -> Result<Session, Failure> {
    Ok(Session::from_env()?)
}

/// The desk of the profile asked for (default: the active one; the built-in sandbox on
/// first use), once the outcomes an earlier run left unknown are looked up, as every
/// start does: the command then sees them as they stand.
async fn open(g: &Global) -> Result<OpenDesk, Failure> {
    let desk = session()?.open(g.profile.as_deref()).await?;
    desk.journal().reconcile_all(false).await?;
    Ok(desk)
}

fn print<T: Serialize>(
    g: &Global,
    value: &T,
    text: impl FnOnce() -> String,
) -> Result<(), Failure> {
    if g.json {
        println!(
            "{}",
            serde_json::to_string(value).map_err(|e| Failure::Other(e.to_string()))?
        );
    } else {
        // What the gateway or a file said is printed safely: no terminal escapes, no
        // reordering characters, no megabyte of text.
        let shown: Vec<String> = text()
            .split('\n')
            .map(|line| paydesk_gateway::redact::terminal_safe(line, LINE_MAX))
            .collect();
        println!("{}", shown.join("\n"));
    }
    Ok(())
}

/// The most characters one printed line shows (a listing has as many lines as rows).
const LINE_MAX: usize = 4_000;

fn runtime() -> Result<tokio::runtime::Runtime, Failure> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Failure::Other(e.to_string()))
}

/// A progress bar on stderr.
fn bar(len: u64, what: &str) -> ProgressBar {
    let pb = ProgressBar::new(len);
    pb.set_style(
        ProgressStyle::with_template(
            "{spinner} {msg} [{bar:30}] {pos}/{len} ({per_sec}, eta {eta})",
        )
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> "),
    );
    pb.set_message(what.to_string());
    pb
}
