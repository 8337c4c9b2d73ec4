//! How far a sync window got (`sync_state`).

/// One page's progress in its window.
#[derive(Debug, Clone, Copy)]
pub struct PageDone {
    pub window_start: i64,
    pub window_end: i64,
    pub page_num: i64,
    pub total_pages: i64,
    /// Nothing of the window was refused so far: only then can it be complete.
    pub clean: bool,
}
