//! The gateway's notifications received at the desk (`notifications`).

use serde::{Deserialize, Serialize};

/// A notification as kept.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Stored {
    pub id: i64,
    pub received_at: i64,
    pub kind: String,
    pub trade_no: String,
    pub body: String,
    pub signature_ok: bool,
}
