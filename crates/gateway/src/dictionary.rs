//! The state dictionary: the interface shows state values but not their meanings.
//! This is the project's reading (DESIGN.md), kept as data so that a profile can
//! override any entry. Values the table does not know are kept raw, never dropped.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// A field whose values the dictionary explains.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum StateField {
    /// `payCode` of payin and payout results.
    PayCode,
    /// `state` of V2 order-list items.
    OrderState,
    /// `state` of the V1 refund record.
    RefundState,
    /// `status` of the V2 order query.
    QueryStatus,
    /// `settle` of list items and records.
    Settle,
    /// `rollingReserveStatus` of list items.
    RollingReserveStatus,
}

impl StateField {
    pub const ALL: [StateField; 6] = [
        Self::PayCode,
        Self::OrderState,
        Self::RefundState,
        Self::QueryStatus,
        Self::Settle,
        Self::RollingReserveStatus,
    ];
}

/// The meaning of a state value, one vocabulary for every field.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Meaning {
    Created,
    Pending,
    Success,
    Failed,
    Closed,
    Refunded,
    PartlyRefunded,
    ChargedBack,
    Submitted,
    Processing,
    NotSettled,
    Settled,
    Held,
    Released,
}

impl Meaning {
    /// A state after which the order will not move by itself (refunds and chargebacks
    /// can still follow a success, but a sync need not poll for them).
    pub fn is_final(self) -> bool {
        !matches!(
            self,
            Self::Created | Self::Pending | Self::Submitted | Self::Processing
        )
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Pending => "pending",
            Self::Success => "success",
            Self::Failed => "failed",
            Self::Closed => "closed",
            Self::Refunded => "refunded",
            Self::PartlyRefunded => "partly_refunded",
            Self::ChargedBack => "charged_back",
            Self::Submitted => "submitted",
            Self::Processing => "processing",
            Self::NotSettled => "not_settled",
            Self::Settled => "settled",
            Self::Held => "held",
            Self::Released => "released",
        }
    }
}

/// A raw value read through the dictionary: its meaning if known, and always the raw
/// text as the gateway sent it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reading {
    pub raw: String,
    pub meaning: Option<Meaning>,
}

/// Raw value to meaning, per field. `Default` is the project's reading.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StateDictionary {
    entries: BTreeMap<StateField, BTreeMap<String, Meaning>>,
}

impl Default for StateDictionary {
    fn default() -> Self {
        use Meaning::*;
        use StateField::*;
        let table: &[(StateField, &[(&str, Meaning)])] = &[
            (PayCode, &[("0", Success), ("1", Failed), ("2", Pending)]),
            (
                OrderState,
                &[
                    ("1", Created),
                    ("2", Pending),
                    ("3", Failed),
                    ("4", Closed),
                    ("5", Success),
                    ("6", Refunded),
                    ("7", PartlyRefunded),
                    ("8", ChargedBack),
                ],
            ),
            (
                RefundState,
                &[
                    ("1", Submitted),
                    ("2", Processing),
                    ("3", Success),
                    ("4", Failed),
                ],
            ),
            (
                QueryStatus,
                &[
                    ("PENDING", Pending),
                    ("SUCCESS", Success),
                    ("FAILED", Failed),
                    ("CLOSED", Closed),
                    ("REFUNDED", Refunded),
                ],
            ),
            (Settle, &[("0", NotSettled), ("1", Settled)]),
            (RollingReserveStatus, &[("0", Held), ("1", Released)]),
        ];
        let entries = table
            .iter()
            .map(|(field, values)| {
                let map = values
                    .iter()
                    .map(|(raw, m)| ((*raw).to_string(), *m))
                    .collect();
                (*field, map)
            })
            .collect();
        Self { entries }
    }
}

impl StateDictionary {
    /// The default reading with a profile's overrides laid over it.
    pub fn with_overrides(overrides: &BTreeMap<StateField, BTreeMap<String, Meaning>>) -> Self {
        let mut dict = Self::default();
        for (field, values) in overrides {
            let entry = dict.entries.entry(*field).or_default();
            for (raw, meaning) in values {
                entry.insert(raw.clone(), *meaning);
            }
        }
        dict
    }

    /// A dictionary of exactly these entries (a field not given keeps the default
    /// reading: a gateway's conventions replace the fields they name).
    pub fn from_entries(entries: &BTreeMap<StateField, BTreeMap<String, Meaning>>) -> Self {
        let mut dict = Self::default();
        for (field, values) in entries {
            dict.entries.insert(*field, values.clone());
        }
        dict
    }

    pub fn meaning(&self, field: StateField, raw: &str) -> Option<Meaning> {
        self.entries.get(&field)?.get(raw).copied()
    }

    pub fn read(&self, field: StateField, raw: impl ToString) -> Reading {
        let raw = raw.to_string();
        Reading {
            meaning: self.meaning(field, &raw),
            raw,
        }
    }

    /// The raw value that means `meaning` for `field` (the smallest, if several do).
    pub fn raw_for(&self, field: StateField, meaning: Meaning) -> Option<&str> {
        self.entries
            .get(&field)?
            .iter()
            .find(|(_, m)| **m == meaning)
            .map(|(raw, _)| raw.as_str())
    }

    pub fn entries(&self, field: StateField) -> impl Iterator<Item = (&str, Meaning)> {
        self.entries
            .get(&field)
            .into_iter()
            .flat_map(|m| m.iter().map(|(k, v)| (k.as_str(), *v)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_reading_matches_design() {
        let d = StateDictionary::default();
        assert_eq!(d.meaning(StateField::PayCode, "2"), Some(Meaning::Pending));
        assert_eq!(
            d.meaning(StateField::OrderState, "5"),
            Some(Meaning::Success)
        );
        assert_eq!(
            d.meaning(StateField::OrderState, "8"),
            Some(Meaning::ChargedBack)
        );
        assert_eq!(
            d.meaning(StateField::RefundState, "3"),
            Some(Meaning::Success)
        );
        assert_eq!(
            d.meaning(StateField::QueryStatus, "REFUNDED"),
            Some(Meaning::Refunded)
        );
        assert_eq!(
            d.raw_for(StateField::OrderState, Meaning::Pending),
            Some("2")
        );
    }

    #[test]
    fn unknown_values_stay_raw_and_overrides_apply() {
        let d = StateDictionary::default();
        let r = d.read(StateField::OrderState, 42);
        assert_eq!(
            r,
            Reading {
                raw: "42".into(),
                meaning: None
            }
        );

        let mut o = BTreeMap::new();
        o.insert(
            StateField::OrderState,
            BTreeMap::from([("42".to_string(), Meaning::Closed)]),
        );
        let d = StateDictionary::with_overrides(&o);
        assert_eq!(
            d.meaning(StateField::OrderState, "42"),
            Some(Meaning::Closed)
        );
        assert_eq!(
            d.meaning(StateField::OrderState, "5"),
            Some(Meaning::Success)
        );
    }
}
