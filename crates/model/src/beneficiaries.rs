//! The book of payees' records (issue 35): a payee as every screen shows it, a row as
//! the store keeps it (the account sealed, with its keyed digest), and the payout
//! channels a payee is paid through. No I/O.

use paydesk_gateway::wire;
use serde::{Deserialize, Serialize};

/// The payout channels.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PayoutKind {
    /// V1 card payout (`withdrawType` 1).
    Card,
    /// V2 bank-CLABE payout (`withdrawType` 6).
    Clabe,
}

impl PayoutKind {
    /// The journal's name of the operation.
    pub fn operation(self) -> &'static str {
        use paydesk_gateway::wire::Operation;
        match self {
            Self::Card => wire::V1CardPayout::NAME,
            Self::Clabe => wire::V2Payout::NAME,
        }
    }
}

/// A payee as every screen shows it: nothing unmasked.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Beneficiary {
    pub nickname: String,
    pub kind: PayoutKind,
    pub first_name: String,
    pub last_name: String,
    /// First 6 and last 4 digits.
    pub account: String,
    /// The CLABE's bank, from its first three digits (none for a card).
    pub bank: Option<String>,
    /// ISO 3166 alpha-2 (MX for a CLABE).
    pub country: String,
    /// Milliseconds since the epoch.
    pub created_at: i64,
    /// On a team whose admin asks for it: added, not yet approved by another member.
    #[serde(default)]
    pub awaiting_approval: bool,
    /// On a team: the book's row (its id) and the SHA-256 of its sealed account, which an
    /// approval names (review sql-r6 F1: the row the approver was shown, not a nickname
    /// another payee could take meanwhile). None on a solo desk.
    #[serde(default)]
    pub team_row: Option<TeamPayeeRow>,
}

/// A team payee's row as an approval names it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamPayeeRow {
    pub id: i64,
    /// Hex SHA-256 of the sealed account's text.
    pub sealed_sha256: String,
}

impl Beneficiary {
    /// The name as one text.
    pub fn name(&self) -> String {
        join_name(&self.first_name, &self.last_name)
    }
}

fn join_name(first: &str, last: &str) -> String {
    [first.trim(), last.trim()]
        .iter()
        .filter(|s| !s.is_empty())
        .copied()
        .collect::<Vec<_>>()
        .join(" ")
}

/// A row of the book as stored: what is shown, plus the sealed account and its digest.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredBeneficiary {
    pub shown: Beneficiary,
    /// base64(nonce ‖ AES-256-GCM ciphertext ‖ tag) of the full account.
    pub sealed_account: String,
    /// The keyed digest of the account (see [`account_digest`]).
    pub account_digest: String,
}

impl std::fmt::Debug for StoredBeneficiary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredBeneficiary")
            .field("shown", &self.shown)
            .finish_non_exhaustive()
    }
}

/// A nickname as the book compares it: trimmed, lower case.
pub fn nickname_key(nickname: &str) -> String {
    nickname.trim().to_lowercase()
}

/// What a kind is called in the digest, the seal's binding and the store.
pub fn kind_name(kind: PayoutKind) -> &'static str {
    match kind {
        PayoutKind::Clabe => "clabe",
        PayoutKind::Card => "card",
    }
}

pub fn kind_of(name: &str) -> Option<PayoutKind> {
    match name {
        "clabe" => Some(PayoutKind::Clabe),
        "card" => Some(PayoutKind::Card),
        _ => None,
    }
}
