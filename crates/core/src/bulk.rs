//! Bulk payouts from a CSV file: every row checked first (errors name the row and the
//! field), one journal entry per valid row with its `merOrderNo` fixed before anything
//! is sent, progress as rows go, and a result file with each row's outcome.
//!
//! Columns (header row required, order free): `type` (`clabe` or `card`), `amount`,
//! `currency`, `account` (the CLABE or the card number), and for cards `firstName`,
//! `lastName`, optional `country`; optional `merOrderNo`. A row without `merOrderNo`
//! gets one derived from the file's content and the row number, so running the same
//! file again never pays twice.

use std::path::Path;

use paydesk_gateway::wire::{self, MerNo, Operation};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::error::{CoreError, CoreResult};

/// One valid row, ready to send. (A file holds thousands of rows at most: boxing the
/// larger variant would buy nothing.)
#[derive(Debug, Clone)]
#[allow(clippy::large_enum_variant)]
pub enum BulkPayout {
    Clabe(wire::V2Payout),
    Card(wire::V1CardPayout),
}

impl BulkPayout {
    /// What a person checks before the file is sent (account masked).
    pub fn preview(&self) -> crate::forms::PayoutPreview {
        match self {
            Self::Clabe(p) => crate::forms::clabe_preview(p),
            Self::Card(p) => crate::forms::card_preview(p),
        }
    }

    pub fn mer_order_no(&self) -> &str {
        match self {
            Self::Clabe(p) => &p.mer_order_no,
            Self::Card(p) => &p.mer_order_no,
        }
    }
}

/// A row that failed its checks: 1-based line number in the file, field and rule.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowError {
    pub line: usize,
    pub field: String,
    pub rule: String,
}

/// The file read and checked.
#[derive(Debug, Clone)]
pub struct BulkFile {
    pub rows: Vec<(usize, BulkPayout)>,
    pub errors: Vec<RowError>,
}

#[derive(Debug, Deserialize)]
struct Row {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    amount: String,
    #[serde(default)]
    currency: String,
    #[serde(default)]
    account: String,
    #[serde(rename = "firstName", default)]
    first_name: String,
    #[serde(rename = "lastName", default)]
    last_name: String,
    #[serde(default)]
    country: String,
    #[serde(rename = "merOrderNo", default)]
    mer_order_no: String,
}

/// Where payout results are sent (`notifyUrl`) and from which address (`ipAddress`).
#[derive(Debug, Clone)]
pub struct BulkContext {
    pub mer_no: u64,
    pub notify_url: String,
    pub ip_address: String,
}

/// Reads and checks a bulk payout file; nothing is sent.
pub fn read(path: &Path, ctx: &BulkContext) -> CoreResult<BulkFile> {
    let bytes = std::fs::read(path).map_err(|e| {
        CoreError::validation("file", format!("cannot read {}: {e}", path.display()))
    })?;
    parse(&bytes, ctx)
}

/// Checks the rows of a bulk payout file held in memory.
pub fn parse(bytes: &[u8], ctx: &BulkContext) -> CoreResult<BulkFile> {
    let digest: String = Sha256::digest(bytes)
        .iter()
        .take(4)
        .map(|b| format!("{b:02x}"))
        .collect();
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| CoreError::validation("file", format!("the header row cannot be read: {e}")))?
        .clone();
    for required in ["type", "amount", "currency", "account"] {
        if !headers.iter().any(|h| h == required) {
            return Err(CoreError::validation(
                "file",
                format!("the header row has no {required:?} column"),
            ));
        }
    }
    let mut out = BulkFile {
        rows: Vec::new(),
        errors: Vec::new(),
    };
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let fail = |field: &str, rule: String| RowError {
            line,
            field: field.to_string(),
            rule,
        };
        let row: Row = match record.and_then(|r| r.deserialize(Some(&headers))) {
            Ok(r) => r,
            Err(e) => {
                out.errors.push(fail("row", format!("cannot be read: {e}")));
                continue;
            }
        };
        let mer_order_no = if row.mer_order_no.is_empty() {
            format!("BULK{digest}-{line:05}")
        } else {
            row.mer_order_no.clone()
        };
        let amount = match paydesk_gateway::money::parse_decimal("amount", &row.amount) {
            Ok(a) => a,
            Err(e) => {
                out.errors.push(fail("amount", e.rule));
                continue;
            }
        };
        let payout = match row.kind.to_ascii_lowercase().as_str() {
            "clabe" => BulkPayout::Clabe(wire::V2Payout {
                mer_no: MerNo(ctx.mer_no),
                mer_order_no,
                currency_code: row.currency.clone(),
                source_amount: amount,
                withdraw_type: "6".into(),
                return_url: String::new(),
                notify_url: ctx.notify_url.clone(),
                sign_type: "RSA256".into(),
                version: "V2.0.0".into(),
                ip_address: ctx.ip_address.clone(),
                card_no: String::new(),
                clabe: row.account.clone(),
            }),
            "card" => BulkPayout::Card(wire::V1CardPayout {
                mer_no: MerNo(ctx.mer_no),
                mer_order_no,
                currency_code: row.currency.clone(),
                source_amount: amount,
                withdraw_type: "1".into(),
                return_url: String::new(),
                notify_url: ctx.notify_url.clone(),
                version: "V3.0.0".into(),
                ip_address: ctx.ip_address.clone(),
                card_no: row.account.clone(),
                ben_first_name: row.first_name.clone(),
                ben_last_name: row.last_name.clone(),
                mobile: String::new(),
                address_line: String::new(),
                address_line2: String::new(),
                city: String::new(),
                state: String::new(),
                country_code: row.country.clone(),
                post_code: String::new(),
                email: String::new(),
                beneficiary_type: "individual".into(),
                browser: None,
                products: vec![],
            }),
            other => {
                out.errors.push(fail(
                    "type",
                    format!("must be clabe or card, got {other:?}"),
                ));
                continue;
            }
        };
        let checked = match &payout {
            BulkPayout::Clabe(p) => p.validate(),
            BulkPayout::Card(p) => p.validate(),
        };
        match checked {
            // Report the file's column names, not the wire's.
            Err(e) => {
                let field = match e.field.as_str() {
                    "clabe" | "cardNo" => "account",
                    "sourceAmount" => "amount",
                    "currencyCode" => "currency",
                    "benFirstName" => "firstName",
                    "benLastName" => "lastName",
                    "countryCode" => "country",
                    other => other,
                };
                out.errors.push(fail(field, e.rule));
            }
            Ok(()) => out.rows.push((line, payout)),
        }
    }
    Ok(out)
}

/// The outcome of one row, as the result file lists it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowResult {
    pub line: usize,
    pub mer_order_no: String,
    /// `accepted`, `rejected`, `unknown`, `pending` (not sent) or `invalid`.
    pub status: String,
    pub trade_no: String,
    pub detail: String,
}

/// Writes the result file (CSV) with one line per row of the input, valid or not.
pub fn write_results(path: &Path, results: &[RowResult]) -> CoreResult<()> {
    let io = |e: &dyn std::fmt::Display| {
        CoreError::storage(format!("cannot write {}: {e}", path.display()))
    };
    let mut w = csv::Writer::from_path(path).map_err(|e| io(&e))?;
    w.write_record(["line", "merOrderNo", "status", "tradeNo", "detail"])
        .map_err(|e| io(&e))?;
    for r in results {
        w.write_record([
            r.line.to_string(),
            r.mer_order_no.clone(),
            r.status.clone(),
            r.trade_no.clone(),
            r.detail.clone(),
        ])
        .map_err(|e| io(&e))?;
    }
    w.flush().map_err(|e| io(&e))
}

/// The name of the operation a row goes through, for the journal.
pub fn operation_of(p: &BulkPayout) -> &'static str {
    match p {
        BulkPayout::Clabe(_) => wire::V2Payout::NAME,
        BulkPayout::Card(_) => wire::V1CardPayout::NAME,
    }
}
