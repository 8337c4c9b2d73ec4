//! The customer of an order this desk made, as the request it sent named them. The
//! journal keeps that request (card numbers masked); the customer is read from it when
//! asked, so nothing of them is copied into the order cache.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::CoreResult;

/// Who an order was made for: the payer of a payin, the beneficiary of a card payout.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Customer {
    pub name: Option<String>,
    pub email: Option<String>,
    /// The merchant's own identifier of the customer (`userId`).
    pub user_id: Option<String>,
}

/// The customer a request names, if it names one.
pub fn customer_of(request: &Value) -> Option<Customer> {
    let text = |key: &str| {
        request
            .get(key)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    let joined = |first: &str, last: &str| {
        let parts: Vec<String> = [text(first), text(last)].into_iter().flatten().collect();
        (!parts.is_empty()).then(|| parts.join(" "))
    };
    let name = text("name")
        .or_else(|| joined("billingFirstName", "billingLastName"))
        .or_else(|| joined("benFirstName", "benLastName"));
    let c = Customer {
        name,
        email: text("email"),
        user_id: text("userId"),
    };
    (c.name.is_some() || c.email.is_some() || c.user_id.is_some()).then_some(c)
}

impl<'d> super::Orders<'d> {
    /// The customer of an order this desk made (the first of its journal entries that
    /// names one); `None` for an order the desk only read from the gateway's list.
    pub fn order_customer(&self, trade_no: &str) -> CoreResult<Option<Customer>> {
        let mer_order_no = self
            .desk
            .store
            .orders()
            .get(trade_no)?
            .map(|o| o.mer_order_no)
            .unwrap_or_default();
        let entries =
            self.desk
                .store
                .journal()
                .of_order(&self.desk.profile.name, trade_no, &mer_order_no)?;
        Ok(entries.iter().find_map(|e| customer_of(&e.request)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_payin_names_its_payer_and_a_sepa_payin_its_billing_name() {
        let c = customer_of(
            &json!({"email": " ana@example.com ", "userId": "u-7", "sourceAmount": "1"}),
        )
        .unwrap();
        assert_eq!(c.email.as_deref(), Some("ana@example.com"));
        assert_eq!(c.user_id.as_deref(), Some("u-7"));
        assert_eq!(c.name, None);
        let sepa =
            customer_of(&json!({"billingFirstName": "Ana", "billingLastName": "Lima"})).unwrap();
        assert_eq!(sepa.name.as_deref(), Some("Ana Lima"));
        let card =
            customer_of(&json!({"benFirstName": "Luis", "cardNo": "411111******1111"})).unwrap();
        assert_eq!(card.name.as_deref(), Some("Luis"));
    }

    #[test]
    fn a_request_naming_nobody_has_no_customer() {
        assert_eq!(
            customer_of(&json!({"clabe": "002010******7771", "email": "  "})),
            None
        );
    }
}
