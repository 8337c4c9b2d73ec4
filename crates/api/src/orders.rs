//! Orders: the sync, followed by a balance snapshot (the balances the synced orders
//! moved are there when the sync is said done).

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use paydesk_core::sync::{SyncOptions, SyncProgress, SyncReport};
use paydesk_core::{CoreResult, Desk};

/// Syncs, then takes a balance snapshot (`Orders::sync_then_snapshot`). A failure of the
/// snapshot is logged and the sync's report stands; `balances_failed` says it to a
/// front end that shows it.
pub async fn sync(
    desk: &Desk,
    opts: &SyncOptions,
    cancel: Arc<AtomicBool>,
    progress: impl FnMut(&SyncProgress) + Send,
) -> CoreResult<(SyncReport, Option<String>)> {
    let synced = desk
        .orders()
        .sync_then_snapshot(opts, cancel, progress)
        .await?;
    let failed = match synced.balances {
        Some(Err(e)) => {
            tracing::warn!("balance snapshot after a sync: {e}");
            Some(e.to_string())
        }
        _ => None,
    };
    Ok((synced.report, failed))
}
