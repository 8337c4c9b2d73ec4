//! Whether one read of a window adds up: the distinct orders its pages listed against
//! the `total` they stated, and where else each order was listed in the run.
//!
//! The rule (see the module docs of `sync`): a read of a window adds up when every one
//! of its pages states the same `total`, no order is listed on two of its pages, and the
//! distinct orders listed equal that `total`. Anything else (a short page, an order
//! repeated from another page, pages that shifted while they were read, a `total` that
//! moved) is a read that does not add up: the window is read again, up to
//! [`READS_PER_WINDOW`] reads in a run, and then left incomplete.

use std::collections::hash_map::Entry;
use std::collections::{HashMap, HashSet};
use std::hash::BuildHasher;

use chrono::{DateTime, Utc};
use paydesk_gateway::wire::OrderListItem;

/// Reads of one window in one run, at most, before it is left incomplete (named in the
/// report, read again by the next sync).
pub const READS_PER_WINDOW: u32 = 3;

/// The most pages the desk reads of one window: at 500 orders a page, a million orders
/// a window (a day by default). A window whose `total` would take more pages at the
/// run's page size is not followed: it is refused after its first page, named with the
/// bound, and left incomplete.
pub const MAX_PAGES_PER_WINDOW: i64 = 2_000;

/// A window in words, as the report and the CLI show it.
pub fn window_words((from, to): (DateTime<Utc>, DateTime<Utc>)) -> String {
    format!(
        "{} to {} UTC",
        from.format("%Y-%m-%d %H:%M:%S"),
        to.format("%Y-%m-%d %H:%M:%S")
    )
}

/// A short, fixed-size key of a trade number: what the run keeps of every order it has
/// placed, with its window's place in the run as a `u32`: about 27 MB for a run of a
/// million orders (the hash table's buckets at most half empty), not their strings. A
/// collision (two numbers with one key: about one chance in 3·10^7 in a run of a
/// million orders) can only make the desk call a window incomplete that was not, and
/// read it again: never the other way.
#[derive(Debug, Clone, Default)]
pub struct Keys(std::collections::hash_map::RandomState);

impl Keys {
    pub fn of(&self, trade_no: &str) -> u64 {
        self.0.hash_one(trade_no)
    }
}

/// One read of one window: what its pages said so far.
#[derive(Debug)]
pub struct Tally {
    /// Which read of the window this is, from 1.
    pub read: u32,
    /// The pages the window has (the most any of its pages said), and the last one
    /// asked for.
    pub known: i64,
    pub asked: i64,
    /// Pages of this read answered.
    pub answered: i64,
    total: Option<i64>,
    totals: Vec<i64>,
    seen: HashSet<u64>,
    repeated: u64,
    first_repeated: Option<String>,
    /// Why the window is not followed (a `total` over the desk's bound), or why it is
    /// suspect (an order also listed by another window): either ends the reading.
    pub refused: Option<String>,
}

impl Tally {
    pub fn new(read: u32) -> Self {
        Tally {
            read,
            known: 1,
            asked: 1,
            answered: 0,
            total: None,
            totals: Vec::new(),
            seen: HashSet::new(),
            repeated: 0,
            first_repeated: None,
            refused: None,
        }
    }

    /// Counts one page of this read: its stated `total` and its orders' keys (with
    /// their numbers, to name one listed twice).
    pub fn page<'a>(&mut self, total: i64, orders: impl Iterator<Item = (u64, &'a str)>) {
        self.answered += 1;
        match self.total {
            None => self.total = Some(total),
            Some(t) if t != total => {
                if !self.totals.contains(&total) {
                    self.totals.push(total);
                }
            }
            Some(_) => {}
        }
        for (key, no) in orders {
            if !self.seen.insert(key) {
                self.repeated += 1;
                if self.first_repeated.is_none() {
                    self.first_repeated =
                        Some(paydesk_gateway::redact::terminal_safe(no, 64).to_string());
                }
            }
        }
    }

    /// Every page asked for in this read has been answered.
    pub fn finished(&self) -> bool {
        self.answered >= self.asked && (self.asked >= self.known || self.refused.is_some())
    }

    /// Whether the read adds up, and if not, why, in words.
    pub fn verdict(&self) -> Result<(), String> {
        if let Some(why) = &self.refused {
            return Err(why.clone());
        }
        let total = self.total.unwrap_or(0);
        if !self.totals.is_empty() {
            let mut all = vec![total];
            all.extend(&self.totals);
            let all: Vec<String> = all.iter().map(i64::to_string).collect();
            return Err(format!(
                "its pages stated different totals ({}): the list changed while it was read",
                all.join(", ")
            ));
        }
        if self.repeated > 0 {
            return Err(format!(
                "{} orders were listed on two of its pages ({} first): its pages shifted or repeated",
                self.repeated,
                self.first_repeated.as_deref().unwrap_or("")
            ));
        }
        let distinct = self.seen.len() as u64;
        if i64::try_from(distinct).ok() != Some(total) {
            return Err(format!(
                "its pages listed {distinct} distinct orders where the gateway said it holds {total}"
            ));
        }
        Ok(())
    }
}

/// The run's book of windows: the reads under way, the windows whose reading is over,
/// and which window listed each order.
#[derive(Debug, Default)]
pub struct Book {
    pub tallies: HashMap<usize, Tally>,
    pub keys: Keys,
    decided: HashSet<usize>,
    /// Windows found suspect after their reading was over (told once).
    spoiled: HashSet<usize>,
    at: HashMap<u64, u32>,
}

impl Book {
    /// The reading of `window` is over (its verdict is on its way).
    pub fn decided(&mut self, window: usize) {
        self.decided.insert(window);
    }

    /// Places the orders of a page of `window`. An order another window of the run
    /// listed is taken off the page: it stays where it was first listed, and both
    /// windows are suspect. Returns why this window is suspect, if it is (also kept in
    /// its read under way), and the windows whose reading was over and that are now
    /// suspect, with why (their verdict must be told again).
    pub fn place(
        &mut self,
        window: usize,
        items: &mut Vec<OrderListItem>,
        words: impl Fn(usize) -> String,
    ) -> (Option<String>, Vec<(usize, String)>) {
        let mut mine: Option<String> = None;
        let mut others: Vec<(usize, String)> = Vec::new();
        let (keys, at) = (&self.keys, &mut self.at);
        // A run has at most 87,600 windows (ten years of hours).
        let here = u32::try_from(window).unwrap_or(u32::MAX);
        items.retain(|i| {
            if i.trade_no.is_empty() {
                return true;
            }
            match at.entry(keys.of(&i.trade_no)) {
                Entry::Vacant(v) => {
                    v.insert(here);
                    true
                }
                Entry::Occupied(o) if *o.get() == here => true,
                Entry::Occupied(o) => {
                    let first = *o.get() as usize;
                    let no = paydesk_gateway::redact::terminal_safe(&i.trade_no, 64);
                    mine.get_or_insert_with(|| {
                        format!(
                            "order {no} was also listed by the window {}, where it is kept: the gateway's list puts it on two days",
                            words(first)
                        )
                    });
                    if !others.iter().any(|(w, _)| *w == first) {
                        others.push((
                            first,
                            format!(
                                "order {no} was also listed by the window {}: the gateway's list puts it on two days",
                                words(window)
                            ),
                        ));
                    }
                    false
                }
            }
        });
        if let (Some(why), Some(t)) = (&mine, self.tallies.get_mut(&window)) {
            t.refused.get_or_insert_with(|| why.clone());
        }
        let mut late = Vec::new();
        for (w, why) in others {
            if let Some(t) = self.tallies.get_mut(&w) {
                t.refused.get_or_insert(why);
            } else if self.decided.contains(&w) && self.spoiled.insert(w) {
                late.push((w, why));
            }
        }
        (mine, late)
    }
}

/// Why a window's `total` is not followed, if it is over the desk's bound.
pub fn over_bound(total: i64, page_size: i64) -> Option<String> {
    let size = page_size.max(1);
    let pages = total / size + i64::from(total % size != 0);
    (pages > MAX_PAGES_PER_WINDOW).then(|| {
        format!(
            "the gateway said it holds {total} orders, {pages} pages of {page_size}: over the desk's bound of {MAX_PAGES_PER_WINDOW} pages a window, so it was not read further"
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn read(pages: &[(i64, &[&str])]) -> Tally {
        let keys = Keys::default();
        let mut t = Tally::new(1);
        t.known = pages.len() as i64;
        t.asked = t.known;
        for (total, orders) in pages {
            t.page(*total, orders.iter().map(|o| (keys.of(o), *o)));
        }
        t
    }

    #[test]
    fn a_read_adds_up_only_when_its_distinct_orders_are_its_total() {
        assert!(read(&[(3, &["a", "b"]), (3, &["c"])]).verdict().is_ok());
        assert!(read(&[(0, &[])]).verdict().is_ok());
        // A short page.
        let e = read(&[(3, &["a"]), (3, &["c"])]).verdict().unwrap_err();
        assert!(
            e.contains("2 distinct orders where the gateway said it holds 3"),
            "{e}"
        );
        // An order of the page before, repeated.
        let e = read(&[(3, &["a", "b"]), (3, &["b"])])
            .verdict()
            .unwrap_err();
        assert!(
            e.contains("1 orders were listed on two of its pages (b first)"),
            "{e}"
        );
        // An order arrived between the pages.
        let e = read(&[(3, &["a", "b"]), (4, &["b", "c"])])
            .verdict()
            .unwrap_err();
        assert!(e.contains("different totals (3, 4)"), "{e}");
    }

    #[test]
    fn a_total_over_the_bound_is_named_with_the_bound() {
        assert!(over_bound(1_000_000, 500).is_none());
        let e = over_bound(10_000_000, 500).unwrap();
        assert!(e.contains("10000000 orders, 20000 pages of 500"), "{e}");
        assert!(e.contains("2000 pages a window"), "{e}");
    }
}
