//! Sync progress: the table's trait, which each backend implements.

/// The table's types are the model's (`paydesk-model`: no I/O); kept at this path.
pub use paydesk_model::sync_state::*;

use crate::error::CoreResult;

/// How far each sync window has been read.
pub trait SyncStateStore {
    /// Whether the window `[start, end]` was read to its last page with nothing refused.
    fn window_complete(&self, profile: &str, start: i64, end: i64) -> CoreResult<bool>;

    /// Records a page read; the last page of a window decides whether it is complete. A
    /// page of a window that now ends later than when it was last read (today's, read
    /// again after it grew) takes its completeness away until its last page is in.
    fn page_done(&self, profile: &str, p: PageDone) -> CoreResult<()>;

    /// Records why the last sync failed (for the dashboard).
    fn record_error(&self, profile: &str, error: &str) -> CoreResult<()>;

    /// The last failure of a sync, if the last sync failed: when, and why.
    fn last_error(&self, profile: &str) -> CoreResult<Option<(i64, String)>>;

    /// When a sync last wrote a page.
    fn last_synced(&self, profile: &str) -> CoreResult<Option<i64>>;

    /// Clears the failure mark after a successful sync.
    fn clear_error(&self, profile: &str) -> CoreResult<()>;
}
