//! The merchant's currencies as the desk knows them.

use crate::error::CoreResult;

impl<'d> crate::desk::Money<'d> {
    /// The merchant's currencies as the desk knows them: those of its cached orders and
    /// of its balance snapshots, sorted, each once (what forms offer first).
    pub fn currencies(&self) -> CoreResult<Vec<String>> {
        let mut all = self.desk.store.orders().distinct_currencies()?;
        all.extend(
            self.desk
                .store
                .balances()
                .latest()?
                .into_iter()
                .map(|b| b.currency),
        );
        all.retain(|c| !c.trim().is_empty());
        all.sort();
        all.dedup();
        Ok(all)
    }
}
