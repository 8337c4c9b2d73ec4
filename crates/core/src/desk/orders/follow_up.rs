//! What follows a change, decided once for every caller (issue 32): after a sync, a
//! balance snapshot, so the Dashboard and the balance history show the balances the
//! synced orders moved. The app's sync, the CLI's `paydesk orders sync` and the team's
//! signer in its upkeep all call [`Orders::sync_then_snapshot`]; the snapshot after money
//! moved is `paydesk-api`'s (`money::snapshot_after`), which also says when it runs.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use crate::desk::BalanceResult;
use crate::error::CoreResult;
use crate::sync::{SyncOptions, SyncProgress, SyncReport};

/// A sync and the balance snapshot that followed it.
#[derive(Debug)]
pub struct Synced {
    pub report: SyncReport,
    /// The balances asked after the sync: `None` on a desk without the merchant key
    /// (it asks the gateway nothing), an error when the request failed (the sync
    /// stands: the caller logs it or says it).
    pub balances: Option<CoreResult<Vec<BalanceResult>>>,
}

impl<'d> super::Orders<'d> {
    /// Syncs (as [`Orders::sync`]), then takes a balance snapshot of every currency the
    /// desk knows, when it holds the merchant key.
    pub async fn sync_then_snapshot(
        self,
        opts: &SyncOptions,
        cancel: Arc<AtomicBool>,
        progress: impl FnMut(&SyncProgress) + Send,
    ) -> CoreResult<Synced> {
        let report = self.sync(opts, cancel, progress).await?;
        let balances = if self.desk.holds_key() {
            Some(self.desk.money().balances(&[]).await)
        } else {
            None
        };
        Ok(Synced { report, balances })
    }
}
