//! Money through the journal: payins, payouts, cards, review submissions.

use paydesk_gateway::wire::{self, MerNo, Operation};
use rusqlite::params;
use serde_json::Value;

use super::{Desk, Submitted, TradeNo, lock};
use crate::bulk;
use crate::cache;
use crate::db::now_ms;
use crate::error::CoreResult;
use crate::journal;

/// A card operation as the Cards screen lists it.
struct CardOp<'a> {
    journal_id: i64,
    kind: &'a str,
    card: &'a str,
    amount: &'a str,
    currency: &'a str,
    fee: Option<&'a str>,
    trade_no: Option<&'a str>,
    outcome: &'a str,
}

impl Desk {
    fn remember_method(&self, trade_no: Option<&str>, method: &str) {
        if let Some(t) = trade_no {
            let _ = cache::set_method(&lock(&self.cache), t, method);
            self.orders_changed();
        }
    }

    /// A payin or payout through the journal; its method is remembered for the orders
    /// table (the order list does not carry it).
    async fn order<O: Operation>(
        &self,
        op: &O,
        mer_order_no: &str,
        method: &str,
        summary: String,
    ) -> CoreResult<Submitted<O::Output>>
    where
        O::Output: TradeNo,
    {
        let r = self.submit(op, mer_order_no, &summary).await?;
        self.remember_method(r.entry.trade_no.as_deref(), method);
        Ok(r)
    }

    pub async fn payin_v2(
        &self,
        common: wire::PayinCommon,
    ) -> CoreResult<Submitted<wire::V2PayinResult>> {
        let summary = format!(
            "payin WECHAT {} {}",
            common.source_amount, common.currency_code
        );
        let no = common.mer_order_no.clone();
        self.order(&wire::V2Payment { common }, &no, "WECHAT", summary)
            .await
    }

    pub async fn payin_v1(
        &self,
        op: wire::V1Payment,
    ) -> CoreResult<Submitted<wire::V1PayinResult>> {
        let method = op.method.payment_type();
        let summary = format!(
            "payin {method} {} {}",
            op.common.source_amount, op.common.currency_code
        );
        self.order(&op, &op.common.mer_order_no, method, summary)
            .await
    }

    pub async fn payin_vn_bank(
        &self,
        op: wire::V1VnBankPayment,
    ) -> CoreResult<Submitted<wire::VnBankPayinResult>> {
        let summary = format!(
            "payin VN_BANK {} {}",
            op.common.source_amount, op.common.currency_code
        );
        self.order(&op, &op.common.mer_order_no, "VN_BANK", summary)
            .await
    }

    pub async fn payout_clabe(
        &self,
        op: wire::V2Payout,
    ) -> CoreResult<Submitted<wire::PayoutResult>> {
        let account = paydesk_gateway::validate::mask_card(&op.clabe);
        let summary = format!(
            "payout CLABE {} {} to {account}",
            op.source_amount, op.currency_code
        );
        self.order(&op, &op.mer_order_no, "CLABE", summary).await
    }

    pub async fn payout_card(
        &self,
        op: wire::V1CardPayout,
    ) -> CoreResult<Submitted<wire::PayoutResult>> {
        let account = paydesk_gateway::validate::mask_card(&op.card_no);
        let summary = format!(
            "payout CARD {} {} to {} {} {account}",
            op.source_amount, op.currency_code, op.ben_first_name, op.ben_last_name
        );
        self.order(&op, &op.mer_order_no, "CARD", summary).await
    }

    fn card_op(&self, op: CardOp<'_>) -> CoreResult<()> {
        lock(&self.cache).execute(
            "INSERT INTO card_operations (journal_id, kind, card, amount, currency, fee, trade_no, outcome, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
            params![op.journal_id, op.kind, op.card, op.amount, op.currency, op.fee, op.trade_no, op.outcome, now_ms()],
        )?;
        Ok(())
    }

    pub async fn card_top_up(&self, op: wire::V2CardTopUp) -> CoreResult<Submitted<wire::NoData>> {
        let summary = format!(
            "card top-up {} {} to {}",
            op.amount, op.currency, op.apply_order_no
        );
        let no = op.mer_order_no.clone();
        let r = self.submit(&op, &no, &summary).await;
        if let Ok(s) = &r
            && !s.replayed
        {
            let amount = op.amount.to_string();
            self.card_op(CardOp {
                journal_id: s.entry.id,
                kind: "top_up",
                card: &op.apply_order_no,
                amount: &amount,
                currency: &op.currency,
                fee: None,
                trade_no: None,
                outcome: s.entry.status.as_str(),
            })?;
        }
        r
    }

    /// `reference` is this desk's own number for the withdrawal (the interface gives it
    /// none), the journal's key.
    pub async fn card_withdraw(
        &self,
        op: wire::V1CardWithdraw,
        reference: &str,
    ) -> CoreResult<Submitted<wire::WithdrawResult>> {
        let summary = format!(
            "card withdraw {} {} from {}",
            op.amount, op.currency, op.apply_order_no
        );
        let r = self.submit(&op, reference, &summary).await;
        if let Ok(s) = &r
            && let (false, Some(d)) = (s.replayed, &s.data)
        {
            let amount = op.amount.to_string();
            self.card_op(CardOp {
                journal_id: s.entry.id,
                kind: "withdraw",
                card: &op.apply_order_no,
                amount: &amount,
                currency: &op.currency,
                fee: Some(&d.fee),
                trade_no: Some(&d.trade_no),
                outcome: s.entry.status.as_str(),
            })?;
        }
        r
    }

    pub fn card_operations(&self) -> CoreResult<Vec<Value>> {
        let conn = lock(&self.cache);
        let mut stmt = conn.prepare("SELECT kind, card, amount, currency, fee, trade_no, outcome, at FROM card_operations ORDER BY id DESC LIMIT 1000")?;
        let rows = stmt.query_map([], |r| {
            Ok(serde_json::json!({
                "kind": r.get::<_, String>(0)?, "card": r.get::<_, String>(1)?, "amount": r.get::<_, String>(2)?,
                "currency": r.get::<_, String>(3)?, "fee": r.get::<_, Option<String>>(4)?, "tradeNo": r.get::<_, Option<String>>(5)?,
                "outcome": r.get::<_, String>(6)?, "at": r.get::<_, i64>(7)?,
            }))
        })?;
        Ok(rows.collect::<Result<Vec<_>, _>>()?)
    }

    /// Submits review information and files for a bank-transfer order. Files are read,
    /// checked (type by content, size) and base64-encoded here. `reference` is the
    /// submission's journal key: one that failed for a network reason stays queued and
    /// is sent again by calling this with the same reference.
    pub async fn submit_review(
        &self,
        reference: &str,
        trade_no: &str,
        info: Vec<(String, String)>,
        files: Vec<(String, std::path::PathBuf)>,
    ) -> CoreResult<Submitted<wire::NoData>> {
        let mut file_list = Vec::new();
        let mut names = Vec::new();
        for (i, (code, path)) in files.iter().enumerate() {
            let item = crate::review::read_file(i, code, path)?;
            names.push(item.file_name.clone());
            file_list.push(item);
        }
        let op = wire::V1TransferOrderSubmit {
            mer_no: MerNo(self.profile.mer_no),
            trade_no: trade_no.to_string(),
            info_list: info
                .into_iter()
                .map(|(t, c)| wire::InfoItem {
                    info_type: t,
                    info_content: c,
                })
                .collect(),
            file_list,
        };
        let key = reference;
        let summary = format!(
            "review for {trade_no}: {} information items, files {}",
            op.info_list.len(),
            names.join(", ")
        );
        let r = self.submit(&op, key, &summary).await;
        let outcome = match &r {
            Ok(s) => s.entry.status.as_str().to_string(),
            Err(e) => format!("error: {e}"),
        };
        lock(&self.cache).execute(
            "INSERT INTO review_submissions (journal_id, trade_no, info_count, files, outcome, at) VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![r.as_ref().ok().map(|s| s.entry.id), trade_no, op.info_list.len() as i64, names.join(", "), outcome, now_ms()],
        )?;
        r
    }

    /// Sends a checked bulk payout file: every valid row is first written to the
    /// journal (its `merOrderNo` fixed), then sent one by one; `progress(done, total)`
    /// after each. Rows already in the journal are not sent again. Returns one result
    /// per row of the file, invalid ones included.
    pub async fn bulk_payouts(
        &self,
        file: &bulk::BulkFile,
        mut progress: impl FnMut(usize, usize),
    ) -> CoreResult<Vec<bulk::RowResult>> {
        for (_, row) in &file.rows {
            let (body, summary) = match row {
                bulk::BulkPayout::Clabe(p) => (
                    self.client.prepare(p)?.body,
                    format!("bulk payout CLABE {} {}", p.source_amount, p.currency_code),
                ),
                bulk::BulkPayout::Card(p) => (
                    self.client.prepare(p)?.body,
                    format!("bulk payout CARD {} {}", p.source_amount, p.currency_code),
                ),
            };
            journal::queue(
                &mut lock(&self.journal),
                &self.profile.name,
                bulk::operation_of(row),
                row.mer_order_no(),
                &Value::Object(body),
                &summary,
            )?;
        }
        let mut results: Vec<bulk::RowResult> = file
            .errors
            .iter()
            .map(|e| bulk::RowResult {
                line: e.line,
                mer_order_no: String::new(),
                status: "invalid".into(),
                trade_no: String::new(),
                detail: format!("{}: {}", e.field, e.rule),
            })
            .collect();
        let total = file.rows.len();
        for (i, (line, row)) in file.rows.iter().enumerate() {
            let sent = match row {
                bulk::BulkPayout::Clabe(p) => self.payout_clabe(p.clone()).await,
                bulk::BulkPayout::Card(p) => self.payout_card(p.clone()).await,
            };
            let (status, trade_no, detail) = match sent {
                Ok(s) => (
                    s.entry.status.as_str().to_string(),
                    s.entry.trade_no.clone().unwrap_or_default(),
                    s.entry.message.clone().unwrap_or_default(),
                ),
                Err(e @ crate::CoreError::Rejected { .. }) => {
                    ("rejected".into(), String::new(), e.to_string())
                }
                Err(
                    e @ (crate::CoreError::OutcomeUnknown { .. }
                    | crate::CoreError::BadResponse { .. }),
                ) => ("unknown".into(), String::new(), e.to_string()),
                Err(e) => ("pending".into(), String::new(), e.to_string()),
            };
            results.push(bulk::RowResult {
                line: *line,
                mer_order_no: row.mer_order_no().to_string(),
                status,
                trade_no,
                detail,
            });
            progress(i + 1, total);
        }
        results.sort_by_key(|r| r.line);
        Ok(results)
    }
}
