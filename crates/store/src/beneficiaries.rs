//! The book of payees: the table's trait, which each backend implements.

use paydesk_model::beneficiaries::{Beneficiary, StoredBeneficiary};

use crate::error::CoreResult;

/// The book of payees.
pub trait BeneficiaryStore {
    /// Every payee, by nickname.
    fn list(&self) -> CoreResult<Vec<StoredBeneficiary>>;
    /// The payee of `nickname` (compared in lower case).
    fn by_nickname(&self, nickname: &str) -> CoreResult<Option<StoredBeneficiary>>;
    /// The payee whose account has `digest`.
    fn by_digest(&self, digest: &str) -> CoreResult<Option<StoredBeneficiary>>;
    /// Adds a payee; refused (naming the nickname) when the book already has it.
    fn add(&self, b: &StoredBeneficiary) -> CoreResult<Beneficiary>;
    /// Removes the payee of `nickname`; false when there is none.
    fn remove(&self, nickname: &str) -> CoreResult<bool>;
}
