//! Why money moved (issue 35), beside the orders this desk made: the journal's purposes
//! by trade number and by merchant order number, for the orders export and the
//! statement's orders sheet. An order no entry of this desk made has none (its cells
//! stay empty: never an invented value).

use std::collections::HashMap;

use paydesk_core::CoreResult;
use paydesk_core::journal::JournalStore;
use paydesk_core::purpose::Purpose;
use paydesk_core::store::orders::CachedOrder;

/// The columns the purposes take, after the export's own.
pub const HEADERS: [&str; 2] = ["purpose", "purposeRef"];
/// The same in a finance team's words (the statement's orders sheet).
pub const LABELS: [&str; 2] = ["Purpose", "Purpose reference"];

/// The journal's purposes, found by an order's numbers.
#[derive(Debug, Clone, Default)]
pub struct Purposes {
    by_trade_no: HashMap<String, Purpose>,
    by_number: HashMap<String, Purpose>,
}

impl Purposes {
    /// Every purpose the journal of `profile` keeps.
    pub fn of(journal: &dyn JournalStore, profile: &str) -> CoreResult<Self> {
        let mut out = Self::default();
        for (no, trade_no, p) in journal.purposes(profile)? {
            if let Some(t) = trade_no.filter(|t| !t.is_empty()) {
                out.by_trade_no.insert(t, p.clone());
            }
            out.by_number.insert(no, p);
        }
        Ok(out)
    }

    /// The purpose of the entry that made `o` (by its trade number, else its merchant
    /// order number), if any.
    pub fn get(&self, o: &CachedOrder) -> Option<&Purpose> {
        self.by_trade_no
            .get(&o.trade_no)
            .or_else(|| self.by_number.get(&o.mer_order_no))
    }

    /// `o`'s purpose cells: text and reference (empty when none was recorded).
    pub fn cells(&self, o: &CachedOrder) -> [String; 2] {
        match self.get(o) {
            Some(p) => [p.text.clone(), p.reference.clone()],
            None => [String::new(), String::new()],
        }
    }
}
