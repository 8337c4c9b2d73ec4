//! Why money moved (issue 35): the purpose a person gave a payout, payin, card move or
//! bulk row, and an optional reference (a ticket, an invoice number). Kept with the
//! journal entry before the request leaves; the gateway's requests carry none of it
//! (only a card top-up's `remark` may, when no remark of its own is given).

use serde::{Deserialize, Serialize};

/// A movement's purpose and optional reference, as given (the engine checks and trims
/// them: `paydesk_core::purpose`). An empty `text` is no purpose.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Purpose {
    /// What the money is for ("March payroll", "refund of invoice 1042").
    pub text: String,
    /// A ticket or invoice number; may be empty.
    pub reference: String,
}

impl Purpose {
    pub fn new(text: impl Into<String>, reference: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            reference: reference.into(),
        }
    }

    /// Neither a purpose nor a reference was given.
    pub fn is_empty(&self) -> bool {
        self.text.trim().is_empty() && self.reference.trim().is_empty()
    }

    /// This purpose when anything was given, else none.
    pub fn given(&self) -> Option<&Self> {
        (!self.is_empty()).then_some(self)
    }

    /// One line for people and the audit log: `purpose [ref reference]`.
    pub fn line(&self) -> String {
        match (self.text.is_empty(), self.reference.is_empty()) {
            (_, true) => self.text.clone(),
            (true, false) => format!("ref {}", self.reference),
            (false, false) => format!("{} [ref {}]", self.text, self.reference),
        }
    }
}
