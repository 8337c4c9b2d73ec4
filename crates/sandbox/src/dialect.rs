//! The sandbox speaking another gateway's conventions (`Behaviour::speaks`): what the
//! interface leaves open, read another way. Requests are read in those conventions
//! (signing, `dateLimit`'s zone, the largest page, `queryType` names, which orders the
//! list shows) and answers are written in them (state values, success, duplicate and
//! not-found codes), so a desk's tests prove its settings work against a gateway that
//! was not built to its own reading.

use paydesk_gateway::conventions::ListShows;
use paydesk_gateway::dictionary::{Meaning, StateDictionary, StateField};
use paydesk_gateway::{Conventions, OrderKind};
use serde_json::{Map, Value};

use crate::model::Kind;

/// A sandbox reading: the project's own, or another gateway's conventions.
#[derive(Debug, Clone)]
pub(crate) struct Dialect<'a> {
    pub conventions: Option<&'a Conventions>,
}

impl Dialect<'_> {
    /// The signing settings requests are verified with.
    pub fn signing(&self) -> paydesk_gateway::SignSettings {
        self.conventions
            .map(|c| c.signing.clone())
            .unwrap_or_default()
    }

    /// The zone `dateLimit` is read in.
    pub fn zone(&self) -> chrono_tz::Tz {
        self.conventions
            .map(Conventions::gateway_zone)
            .unwrap_or(chrono_tz::UTC)
    }

    /// The largest page the list serves.
    pub fn max_page_size(&self) -> u32 {
        self.conventions
            .map(|c| c.max_page_size)
            .unwrap_or(paydesk_gateway::validate::MAX_PAGE_SIZE)
    }

    /// The longest `dateLimit` the list takes, in milliseconds (`None`: no limit).
    pub fn max_span_ms(&self) -> Option<i64> {
        self.conventions
            .map(|c| i64::from(c.max_span_hours) * 3_600_000)
            .filter(|ms| *ms > 0)
    }

    /// Whether the V1 query takes its signature only as `sing`.
    pub fn v1_query_sings(&self) -> bool {
        self.conventions.is_some_and(|c| {
            c.v1_query_sign_field == paydesk_gateway::conventions::V1QuerySignField::Sing
        })
    }

    /// Which orders the list shows, where not every kind.
    pub fn list_shows(&self) -> Option<ListShows> {
        self.conventions
            .map(|c| c.list_shows)
            .filter(|l| *l != ListShows::default())
    }

    /// A request's `queryType` as the sandbox's own name (`sales`, `refund`,
    /// `chargeback`), where the conventions call them otherwise.
    pub fn query_type_in(&self, name: &str) -> String {
        match self.conventions {
            Some(c) if name == c.query_types.sales => "sales".into(),
            Some(c) if name == c.query_types.refund => "refund".into(),
            Some(c) if name == c.query_types.chargeback => "chargeback".into(),
            Some(_) => format!("not-a-query-type:{name}"),
            None => name.to_string(),
        }
    }

    /// An answer's envelope written in the conventions: its code, and the state values
    /// of its `data`.
    pub fn answer(&self, envelope: &mut Value) {
        let Some(c) = self.conventions else {
            return;
        };
        let own = StateDictionary::default();
        let theirs = c.dictionary();
        if let Some(code) = envelope.get_mut("code") {
            let mapped = match code.as_str() {
                Some("00000") | Some("200") => c.success_codes.first(),
                Some("E1011") => c.duplicate_codes.first(),
                Some("E1016") => c.not_found_codes.first(),
                _ => None,
            };
            if let Some(m) = mapped {
                *code = Value::String(m.clone());
            }
        }
        let Some(data) = envelope.get_mut("data").and_then(Value::as_object_mut) else {
            return;
        };
        translate(data, &own, &theirs);
        if let Some(list) = data.get_mut("list").and_then(Value::as_array_mut) {
            for item in list.iter_mut().filter_map(Value::as_object_mut) {
                translate(item, &own, &theirs);
            }
        }
    }

    /// A notification's body written in the conventions (before it is signed).
    pub fn notification(&self, body: &mut Map<String, Value>) {
        let Some(c) = self.conventions else {
            return;
        };
        translate(body, &StateDictionary::default(), &c.dictionary());
    }
}

/// Whether a list that shows `shows` lists orders of `kind`.
pub(crate) fn lists(shows: &ListShows, kind: Kind) -> bool {
    shows.shows(match kind {
        Kind::Payin => OrderKind::Payin,
        Kind::Payout => OrderKind::Payout,
        Kind::TopUp => OrderKind::TopUp,
        Kind::Withdraw => OrderKind::Withdraw,
    })
}

/// The members that carry state values, and whose dictionary field they are.
const STATE_MEMBERS: [(&str, StateField); 6] = [
    ("state", StateField::OrderState),
    ("payCode", StateField::PayCode),
    ("status", StateField::QueryStatus),
    ("settle", StateField::Settle),
    ("rollingReserveStatus", StateField::RollingReserveStatus),
    ("refundState", StateField::RefundState),
];

fn translate(obj: &mut Map<String, Value>, own: &StateDictionary, theirs: &StateDictionary) {
    // A V1 refund record's `state` is a refund state (it carries `refundNo` and no
    // `sourceAmount`); elsewhere `state` is the order's.
    let refund_record = obj.contains_key("refundNo") && !obj.contains_key("sourceAmount");
    for (member, field) in STATE_MEMBERS {
        let field = if member == "state" && refund_record {
            StateField::RefundState
        } else {
            field
        };
        let Some(v) = obj.get_mut(member) else {
            continue;
        };
        let raw = match &*v {
            Value::String(s) => s.clone(),
            Value::Number(n) => n.to_string(),
            _ => continue,
        };
        let Some(meaning) = own.meaning(field, &raw) else {
            continue;
        };
        // An open order is "processing" where that gateway has such a value.
        let theirs_raw = match meaning {
            Meaning::Pending => theirs
                .raw_for(field, Meaning::Processing)
                .or_else(|| theirs.raw_for(field, Meaning::Pending)),
            m => theirs.raw_for(field, m),
        };
        let Some(new) = theirs_raw else {
            continue;
        };
        *v = match &*v {
            // The wire's integers stay integers where the value is one.
            Value::Number(_) => new
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or_else(|_| Value::String(new.to_string())),
            _ => Value::String(new.to_string()),
        };
    }
}
