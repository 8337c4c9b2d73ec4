//! `SyncStateStore`'s contract: a window is complete only when its last page is in (a
//! window that grew since is read again), and a sync's failure is kept until cleared.

use paydesk_store::prelude::SyncStateStore;
use paydesk_store::sync_state::PageDone;

use super::Facts;

fn page(end: i64, page_num: i64, total_pages: i64, clean: bool) -> PageDone {
    PageDone {
        window_start: 0,
        window_end: end,
        page_num,
        total_pages,
        clean,
    }
}

/// Today's window read complete at 10:00, then read again after midnight to its full
/// end: its first page alone does not make the longer window complete, and a run
/// stopped there leaves it to be read again.
pub fn a_window_that_grew_is_complete_only_when_its_last_page_is_in(
    s: &dyn SyncStateStore,
    facts: Facts,
) {
    let n = facts.name;
    s.page_done("p", page(36_000_000, 1, 1, true)).unwrap();
    assert!(s.window_complete("p", 0, 36_000_000).unwrap(), "{n}");
    s.page_done("p", page(86_399_000, 1, 3, false)).unwrap();
    assert!(!s.window_complete("p", 0, 86_399_000).unwrap(), "{n}");
    assert!(!s.window_complete("p", 0, 36_000_000).unwrap(), "{n}");
    s.page_done("p", page(86_399_000, 2, 3, false)).unwrap();
    assert!(!s.window_complete("p", 0, 86_399_000).unwrap(), "{n}");
    s.page_done("p", page(86_399_000, 3, 3, true)).unwrap();
    assert!(s.window_complete("p", 0, 86_399_000).unwrap(), "{n}");
    // Read again whole (the same end): a page short of the last keeps it complete.
    s.page_done("p", page(86_399_000, 1, 3, false)).unwrap();
    assert!(s.window_complete("p", 0, 86_399_000).unwrap(), "{n}");
    // A last page with something refused on it leaves the window to be read again.
    s.page_done("p", page(90_000_000, 1, 1, false)).unwrap();
    assert!(!s.window_complete("p", 0, 90_000_000).unwrap(), "{n}");
}

/// A failure is kept (when, and why) until a sync clears it; a page read dates the
/// last sync. On a team's database the sync's state is the team's, whichever desk's
/// profile read it.
pub fn a_failure_is_kept_until_cleared_and_a_page_dates_the_last_sync(
    s: &dyn SyncStateStore,
    facts: Facts,
) {
    let n = facts.name;
    let t0 = paydesk_store::now_ms();
    assert_eq!(s.last_error("p").unwrap(), None, "{n}");
    assert_eq!(s.last_synced("p").unwrap(), None, "{n}");
    s.record_error("p", "the gateway refused the list").unwrap();
    let (when, why) = s.last_error("p").unwrap().unwrap();
    assert_eq!(why, "the gateway refused the list", "{n}");
    assert!(when >= t0 && when <= paydesk_store::now_ms(), "{n}: {when}");
    assert_eq!(
        s.last_error("q").unwrap().is_some(),
        facts.shared_by_profiles,
        "{n}: another profile's failure"
    );
    assert_eq!(
        s.last_synced("p").unwrap(),
        None,
        "{n}: a failure is no sync"
    );
    s.clear_error("p").unwrap();
    assert_eq!(s.last_error("p").unwrap(), None, "{n}");
    s.page_done("p", page(1_000, 1, 1, true)).unwrap();
    let synced = s.last_synced("p").unwrap().unwrap();
    assert!(synced >= t0 && synced <= paydesk_store::now_ms(), "{n}");
}
