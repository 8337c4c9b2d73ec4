//! A payin the journal knows did not reach the gateway (`pending`), sent again under its
//! own number. The journal keeps the request's body but not its method (it travels in the
//! `paymentType` header): the method is the one whose request has the entry's very
//! fingerprint (which covers the method), so nothing but the entry's own request leaves.
//! A PIX payer's tax id is kept masked: the person types it again.

use paydesk_gateway::wire;

use crate::desk::Desk;
use crate::error::{CoreError, CoreResult};
use crate::forms::Receipt;
use crate::journal::{JournalOperation, Status};

/// The methods of a V1 payin, as `paymentType` names them.
const V1_METHODS: [&str; 6] = ["WECHAT", "PIX", "APPLE_PAY", "CASH_APP", "GCASH", "SEPA"];

/// The field of a payin's request that the journal keeps masked.
pub const PAYIN_TAX_ID: &str = "socialSecurityNumber";

impl Desk {
    fn not_its_request(&self, mer_order_no: &str) -> CoreError {
        CoreError::internal(format!(
            "the journal's request of {mer_order_no} does not make the request it recorded: nothing was sent"
        ))
    }
}

impl<'d> super::Journal<'d> {
    /// Sends again, under its own number, a payin the journal knows was not sent.
    /// `tax_id`: a PIX payer's CPF, typed again (the journal keeps it masked); ignored
    /// for every other method. Anything else about the request is the journal's.
    pub async fn resend_payin(self, id: i64, tax_id: Option<&str>) -> CoreResult<Receipt> {
        let e = self.entry(id)?;
        if e.status != Status::Pending {
            return Err(CoreError::keyed(
                "id",
                format!(
                    "journal #{id} ({}) is {}, not “not sent”: it is not sent again",
                    e.mer_order_no,
                    e.status.as_str()
                ),
                "resendNotUnsent",
                &[
                    ("id", id.to_string()),
                    ("number", e.mer_order_no.clone()),
                    ("status", e.status.as_str().to_string()),
                ],
            ));
        }
        let unreadable = |err: serde_json::Error| {
            CoreError::internal(format!(
                "journal #{id}'s request cannot be read again: {err}"
            ))
        };
        let r = match e.operation {
            JournalOperation::V2Payment => {
                let op: wire::V2Payment =
                    serde_json::from_value(e.request.clone()).map_err(unreadable)?;
                if self.desk.fingerprint_of(&op)? != e.fingerprint {
                    return Err(self.desk.not_its_request(&e.mer_order_no));
                }
                self.desk
                    .money()
                    .payin_v2(op.common)
                    .await
                    .map(|s| Receipt::new(s.entry, s.replayed))
            }
            JournalOperation::V1VnBankPayment => {
                let op: wire::V1VnBankPayment =
                    serde_json::from_value(e.request.clone()).map_err(unreadable)?;
                if self.desk.fingerprint_of(&op)? != e.fingerprint {
                    return Err(self.desk.not_its_request(&e.mer_order_no));
                }
                self.desk
                    .money()
                    .payin_vn_bank(op)
                    .await
                    .map(|s| Receipt::new(s.entry, s.replayed))
            }
            JournalOperation::V1Payment => {
                let body = e.request.clone();
                let pix = body.get(PAYIN_TAX_ID).is_some();
                // The CPF as the payin first sent it may have been written with its dots
                // and dash or as bare digits: each way of writing the typed number is
                // tried (the fingerprint says which one was sent).
                let mut bodies = vec![body.clone()];
                if pix {
                    let digits: String = tax_id
                        .unwrap_or_default()
                        .chars()
                        .filter(|c| c.is_ascii_digit())
                        .collect();
                    if digits.is_empty() {
                        return Err(CoreError::keyed(
                            PAYIN_TAX_ID,
                            "required: the journal keeps the payer's CPF masked, type it again",
                            "resendTaxIdRequired",
                            &[],
                        ));
                    }
                    let mut ways = vec![digits.clone()];
                    let typed: String = tax_id
                        .unwrap_or_default()
                        .chars()
                        .filter(|c| !c.is_whitespace())
                        .collect();
                    if typed != digits {
                        ways.push(typed);
                    }
                    if digits.len() == 11 {
                        ways.push(format!(
                            "{}.{}.{}-{}",
                            &digits[..3],
                            &digits[3..6],
                            &digits[6..9],
                            &digits[9..]
                        ));
                    }
                    ways.dedup();
                    bodies = ways
                        .into_iter()
                        .map(|way| {
                            let mut b = body.clone();
                            if let Some(m) = b.as_object_mut() {
                                m.insert(PAYIN_TAX_ID.into(), serde_json::Value::String(way));
                            }
                            b
                        })
                        .collect();
                }
                let mut found = None;
                'ways: for body in &bodies {
                    let common: wire::PayinCommon =
                        serde_json::from_value(body.clone()).map_err(unreadable)?;
                    let version = body
                        .get("version")
                        .and_then(|v| v.as_str())
                        .unwrap_or(wire::V1Payment::VERSION)
                        .to_string();
                    for pt in V1_METHODS {
                        let Ok(method) = wire::V1Method::from_body(pt, body) else {
                            continue;
                        };
                        let op = wire::V1Payment {
                            common: common.clone(),
                            version: version.clone(),
                            method,
                        };
                        if self.desk.fingerprint_of(&op)? == e.fingerprint {
                            found = Some(op);
                            break 'ways;
                        }
                    }
                }
                let Some(op) = found else {
                    return Err(if pix {
                        CoreError::keyed(
                            PAYIN_TAX_ID,
                            format!(
                                "is not the payer's CPF of {} (the journal keeps {}): nothing was sent",
                                e.mer_order_no,
                                e.request
                                    .get(PAYIN_TAX_ID)
                                    .and_then(|v| v.as_str())
                                    .unwrap_or("it masked")
                            ),
                            "resendTaxIdDiffers",
                            &[("number", e.mer_order_no.clone())],
                        )
                    } else {
                        self.desk.not_its_request(&e.mer_order_no)
                    });
                };
                self.desk
                    .money()
                    .payin_v1(op)
                    .await
                    .map(|s| Receipt::new(s.entry, s.replayed))
            }
            other => {
                return Err(CoreError::keyed(
                    "id",
                    format!(
                        "journal #{id} is a {}, not a payin: nothing was sent",
                        other.name()
                    ),
                    "resendNotPayin",
                    &[
                        ("id", id.to_string()),
                        ("operation", other.name().to_string()),
                    ],
                ));
            }
        };
        let r = self
            .desk
            .receipt_or_error(e.operation.name(), &e.mer_order_no, r);
        self.desk.reread_made(&r).await;
        r
    }
}
