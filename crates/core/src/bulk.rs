//! Bulk payouts from a CSV file: every row checked first (errors name the row and the
//! field), one journal entry per valid row with its `merOrderNo` fixed before anything
//! is sent, progress as rows go, and a result file with each row's outcome.
//!
//! Columns (header row required, order free): `type` (`clabe` or `card`), `amount`,
//! `currency`, `account` (the CLABE or the card number), and for cards `firstName`,
//! `lastName`, optional `country`; optional `merOrderNo`. A row without `merOrderNo`
//! gets one derived from the row's own content (and its occurrence among identical
//! rows) under the profile's key (the desk makes it), never from the rest of the file: fixing one row, re-saving the file in Excel
//! or adding rows changes no other row's number, so the same file (or the result file,
//! which writes each number back) run again pays nothing twice.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::beneficiaries::Book;
use crate::error::{CoreError, CoreResult, Rule};
use crate::forms::{Filler, PayoutForm, PayoutKind, PayoutOp};
use crate::output::Existing;
use paydesk_gateway::validate as v;
use paydesk_gateway::wire::{self, Operation};

/// What a bulk run does with a valid row.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowAction {
    /// New, never sent, refused before (sent again under the next number of its
    /// chain), or proven not at the gateway: sent.
    Send,
    /// Accepted before: not sent again.
    Paid,
    /// Sent before with an unknown outcome: looked up, never sent blind.
    LookUp,
    /// Not sent without a confirmation: a changed version of a payout that is accepted
    /// or unresolved under the same number, or the same payout as an earlier one under
    /// another number.
    Held,
}

/// A valid row as the preview shows it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PlannedRow {
    pub line: usize,
    /// The number the row goes (or went) under.
    pub mer_order_no: String,
    pub payout: crate::forms::PayoutPreview,
    pub action: RowAction,
    /// Why, in English (the CLI and the result file).
    pub reason: String,
    /// Why, as facts the UI words in the user's language.
    pub why: RowReason,
    /// The earlier journal entry's number this row was matched with.
    pub earlier: Option<String>,
    /// The name the file gives the row (kept at the desk; a CLABE payout does not send it).
    pub name_in_file: Option<String>,
}

/// Why a row is sent, held, looked up or already paid: the facts, for any language.
/// `earlier` is the journal entry's order number it was matched with; `confirmed_as`
/// the new number a row the operator confirmed goes under (none while it is held).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", tag = "kind")]
pub enum RowReason {
    /// Nothing in the journal like it.
    New,
    /// In the journal under its number, never sent.
    NotSentYet,
    #[serde(rename_all = "camelCase")]
    PaidBefore {
        earlier: String,
        trade_no: Option<String>,
    },
    /// Sent before, outcome unknown (`message`: the journal's last word on it).
    #[serde(rename_all = "camelCase")]
    LookUp { earlier: String, message: String },
    /// The row differs from what was sent under its number.
    #[serde(rename_all = "camelCase")]
    Changed {
        earlier: String,
        status: String,
        confirmed_as: Option<String>,
    },
    /// The same payout was paid longer ago than the profile's window.
    #[serde(rename_all = "camelCase")]
    PaidDaysAgo {
        earlier: String,
        days: i64,
        confirmed_as: Option<String>,
    },
    /// The same payout was made lately under a number that is not this file's.
    #[serde(rename_all = "camelCase")]
    SameRecent {
        earlier: String,
        status: String,
        minutes: i64,
        confirmed_as: Option<String>,
    },
    /// Over one of the profile's limits (issue 35): held whatever is confirmed.
    #[serde(rename_all = "camelCase")]
    OverLimit {
        limit: crate::limits::LimitKind,
        currency: String,
        value: String,
    },
    /// Beyond the available balance in file order: this row's amount and known fee,
    /// with the rows before it, come to `needed`; held whatever is confirmed.
    #[serde(rename_all = "camelCase")]
    BeyondBalance {
        currency: String,
        balance: String,
        needed: String,
    },
}

/// Whether an earlier payout's journal status (as a row's reason names it) leaves its
/// outcome unknown.
fn earlier_unsettled(status: &str) -> bool {
    crate::journal::Status::UNSETTLED
        .iter()
        .any(|s| s.as_str() == status)
}

impl RowReason {
    /// Held whatever the operator confirms: the money is not there for it, or a limit
    /// says no (issue 35), or it repeats a payout whose outcome is unknown (review r6
    /// R6-5: held until that one is looked up or resolved, never sent blind beside it).
    /// `--include-held` and the app's confirmation do not send it.
    pub fn is_firm(&self) -> bool {
        match self {
            Self::OverLimit { .. } | Self::BeyondBalance { .. } => true,
            Self::SameRecent { status, .. } => earlier_unsettled(status),
            _ => false,
        }
    }
}

impl std::fmt::Display for RowReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let then = |f: &mut std::fmt::Formatter<'_>, confirmed: &Option<String>, held: &str| {
            match confirmed {
                Some(n) => write!(f, "; confirmed: sent as {n}"),
                None => f.write_str(held),
            }
        };
        match self {
            Self::New => f.write_str("new"),
            Self::NotSentYet => f.write_str("not sent yet"),
            Self::PaidBefore { earlier, trade_no } => {
                write!(f, "paid before as {earlier}")?;
                match trade_no {
                    Some(t) => write!(f, " (tradeNo {t})"),
                    None => Ok(()),
                }
            }
            Self::LookUp { earlier, message } => write!(
                f,
                "sent before as {earlier}, outcome unknown: looked up in this run, never sent blind ({message})"
            ),
            Self::Changed {
                earlier,
                status,
                confirmed_as,
            } => {
                write!(f, "changed since it was sent as {earlier} ({status})")?;
                then(
                    f,
                    confirmed_as,
                    "; sent only when you confirm, under a new number",
                )
            }
            Self::PaidDaysAgo {
                earlier,
                days,
                confirmed_as,
            } => {
                write!(f, "the same payout was paid {days} days ago as {earlier}")?;
                then(f, confirmed_as, "; sent only when you confirm a new payout")
            }
            Self::SameRecent {
                earlier,
                status,
                minutes,
                confirmed_as,
            } => {
                write!(
                    f,
                    "the same payout as {earlier} ({status}, {minutes} min ago)"
                )?;
                if earlier_unsettled(status) {
                    return f.write_str(
                        "; held until its outcome is known: look it up or resolve it first",
                    );
                }
                then(f, confirmed_as, "; sent only when you confirm a new payout")
            }
            Self::OverLimit {
                limit,
                currency,
                value,
            } => write!(
                f,
                "over this profile's limit {} of {value} {currency}: held, not sent",
                limit.as_str()
            ),
            Self::BeyondBalance {
                currency,
                balance,
                needed,
            } => write!(
                f,
                "beyond the available balance of {balance} {currency} (the rows up to this one need {needed} {currency} with known fees): held, not sent"
            ),
        }
    }
}

/// A row with its final number, for the run.
#[derive(Debug, Clone)]
pub struct Planned {
    pub line: usize,
    pub payout: PayoutOp,
    pub action: RowAction,
    pub why: RowReason,
    pub earlier: Option<String>,
    pub fingerprint: String,
}

/// What the rows of one currency add up to.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencyTotal {
    pub currency: String,
    pub count: u32,
    /// Decimal string.
    pub amount: String,
    /// The fees these payouts will likely cost, from the last cached payout in this
    /// currency; `None` when not known (the gateway states no fee before a payout).
    pub fee_estimate: Option<String>,
    /// The payout (merchant order number) whose fee the estimate is taken from.
    pub fee_from: Option<String>,
}

/// One currency's balance against what a plan sends (issue 35).
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CurrencyFunds {
    pub currency: String,
    /// The latest available balance this desk holds (decimal string); `None`: not known
    /// (no row is held for the balance then).
    pub balance: Option<String>,
    pub taken_at: Option<i64>,
    pub age_secs: Option<i64>,
    pub fresh: bool,
    /// The rows that go: amounts plus the fees this desk knows.
    pub total: String,
    /// Whether a fee is known for this currency (else `total` has amounts only).
    pub fee_known: bool,
    /// Balance minus total.
    pub left: Option<String>,
    /// Rows held because the balance does not reach them.
    pub held_beyond_balance: u32,
}

/// What sending a checked file would do now.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BulkPlan {
    pub rows: Vec<PlannedRow>,
    pub errors: Vec<RowError>,
    pub to_send: u32,
    pub paid: u32,
    pub look_up: u32,
    pub held: u32,
    /// Per currency, the rows that will be sent.
    pub totals: Vec<CurrencyTotal>,
    /// Per currency, the held rows sent too if confirmed (not those held firm).
    pub held_totals: Vec<CurrencyTotal>,
    /// Of `held`, the rows held whatever is confirmed: over a limit or beyond the
    /// balance (issue 35); never sent by this run.
    #[serde(default)]
    pub held_firm: u32,
    /// What is confirmed: a digest of the rows that will be sent (number, amount,
    /// currency, account). Sending checks it against the plan made again then.
    pub digest: String,
    /// The same with the held rows included.
    pub digest_with_held: String,
    /// Per currency, the balance against what goes (issue 35).
    #[serde(default)]
    pub funds: Vec<CurrencyFunds>,
}

/// A row that failed its checks: 1-based line number in the file, field and rule.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowError {
    pub line: usize,
    pub field: String,
    /// The rule's English words (`rule`) and, for a rule a window translates, its
    /// message key and parameters (`ruleKey`, `ruleParams`).
    #[serde(flatten)]
    pub rule: Rule,
    /// The cell as the file has it, when `field` is one of the file's columns (what a
    /// fix in place starts from); `None` for a row that cannot be read.
    #[serde(default)]
    pub value: Option<String>,
}

/// The file read and checked. Its `Debug` prints counts only: the records hold full
/// account numbers.
#[derive(Clone, Default)]
pub struct BulkFile {
    pub rows: Vec<(usize, PayoutOp)>,
    pub errors: Vec<RowError>,
    /// The header row as read.
    pub headers: Vec<String>,
    /// Every record of the file by line, as read (written back to the result file).
    pub records: Vec<(usize, Vec<String>)>,
    /// For each line without a `merOrderNo`: its normalised content and its occurrence
    /// among identical rows (`content#n`), from which the desk makes its number (`B`
    /// and a keyed digest, see `Money::bulk_plan`). Until then such a row carries
    /// [`UNNUMBERED`].
    pub derived: std::collections::BTreeMap<usize, String>,
    /// For a CLABE line in `derived` that names someone: its content as desks before
    /// names stopped counting derived it. A row sent then keeps the number it went under.
    pub derived_before_names_left: std::collections::BTreeMap<usize, String>,
    /// The name each line gives (first and last), by line: shown at the desk, sent only
    /// by the payouts that carry one (cards).
    pub names: std::collections::BTreeMap<usize, String>,
    /// The purpose of each line that has one (its `purpose` and `reference` columns, or
    /// the run's default: [`BulkFile::with_default_purpose`]), checked.
    pub purposes: std::collections::BTreeMap<usize, crate::purpose::Purpose>,
}

impl std::fmt::Debug for BulkFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BulkFile")
            .field("rows", &self.rows.len())
            .field("errors", &self.errors)
            .field("headers", &self.headers)
            .field("records", &self.records.len())
            .finish_non_exhaustive()
    }
}

/// The placeholder number of a row whose number the desk has yet to make.
pub const UNNUMBERED: &str = "B-UNNUMBERED";

#[derive(Deserialize)]
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
    /// A card payout's beneficiary address and type (optional columns).
    #[serde(rename = "addressLine", default)]
    address_line: String,
    #[serde(rename = "addressLine2", default)]
    address_line2: String,
    #[serde(default)]
    city: String,
    #[serde(default)]
    state: String,
    #[serde(rename = "postCode", default)]
    post_code: String,
    #[serde(rename = "beneficiaryType", default)]
    beneficiary_type: String,
    /// Why the row's money moves, and its reference (issue 35; optional columns).
    #[serde(default)]
    purpose: String,
    #[serde(default)]
    reference: String,
    /// A payee of the book by nickname (issue 35; `crate::beneficiaries`).
    #[serde(default)]
    beneficiary: String,
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
    read_with_book(path, ctx, &Book::default())
}

/// [`read`], a `beneficiary` column's nicknames taken from `book`.
pub fn read_with_book(path: &Path, ctx: &BulkContext, book: &Book) -> CoreResult<BulkFile> {
    let bytes = crate::input::read_file_rule(path, crate::input::MAX_DOCUMENT_BYTES)
        .map_err(|rule| CoreError::validation("file", rule))?;
    parse_with_book(&bytes, ctx, book)
}

/// A cell without the `'` that [`crate::output::safe_cell`] put before a leading
/// `=`, `+`, `-`, `@`, tab or carriage return.
fn unmark(cell: &str) -> &str {
    match cell.strip_prefix('\'') {
        Some(rest) if rest.starts_with(['=', '+', '-', '@', '\t', '\r']) => rest,
        _ => cell,
    }
}

/// Refuses a file that is not UTF-8 text, saying what it is when that can be told: a
/// spreadsheet's "Unicode text" is UTF-16, with a byte-order mark or without (then every
/// other byte of its ASCII text is zero).
fn text_encoding(bytes: &[u8]) -> CoreResult<()> {
    const SAVE: &str = "save it as \"CSV UTF-8\" and try again";
    let utf16 = |what: &str| {
        CoreError::keyed(
            "file",
            format!("is {what} text, not UTF-8: {SAVE}"),
            "fileUtf16",
            &[],
        )
    };
    if bytes.starts_with(b"\xFF\xFE") {
        return Err(utf16("UTF-16 (little-endian, with a byte-order mark)"));
    }
    if bytes.starts_with(b"\xFE\xFF") {
        return Err(utf16("UTF-16 (big-endian, with a byte-order mark)"));
    }
    let head = &bytes[..bytes.len().min(256)];
    let zeros_at = |parity: usize| {
        head.iter()
            .enumerate()
            .filter(|(i, b)| i % 2 == parity && **b == 0)
            .count()
    };
    let pairs = head.len() / 2;
    if pairs >= 2 {
        if zeros_at(1) * 10 >= pairs * 8 && zeros_at(0) == 0 {
            return Err(utf16("UTF-16 (little-endian, without a byte-order mark)"));
        }
        if zeros_at(0) * 10 >= pairs * 8 && zeros_at(1) == 0 {
            return Err(utf16("UTF-16 (big-endian, without a byte-order mark)"));
        }
    }
    if let Err(e) = std::str::from_utf8(bytes) {
        return Err(CoreError::keyed(
            "file",
            format!(
                "is not UTF-8 text (byte {} is not UTF-8): {SAVE}",
                e.valid_up_to() + 1
            ),
            "fileNotUtf8",
            &[("byte", (e.valid_up_to() + 1).to_string())],
        ));
    }
    Ok(())
}

/// Checks the rows of a bulk payout file held in memory.
pub fn parse(bytes: &[u8], ctx: &BulkContext) -> CoreResult<BulkFile> {
    parse_with_book(bytes, ctx, &Book::default())
}

/// [`parse`], a `beneficiary` column's nicknames taken from `book`: such a row needs no
/// `type` or `account` of its own (one it gives must be the payee's).
pub fn parse_with_book(bytes: &[u8], ctx: &BulkContext, book: &Book) -> CoreResult<BulkFile> {
    // A spreadsheet may save a byte order mark; it is not part of the first column's name.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    text_encoding(bytes)?;
    let mut reader = csv::ReaderBuilder::new()
        .trim(csv::Trim::All)
        .from_reader(bytes);
    let headers = reader
        .headers()
        .map_err(|e| {
            CoreError::validation(
                "file",
                Rule::keyed(
                    format!("the header row cannot be read: {e}"),
                    "headerUnreadable",
                    &[("reason", e.to_string())],
                )
                .quoting("reason", &Rule::csv_reason(&e)),
            )
        })?
        .clone();
    let by_nickname = headers.iter().any(|h| h == "beneficiary");
    for required in ["type", "amount", "currency", "account"] {
        let from_book = by_nickname && matches!(required, "type" | "account");
        if !from_book && !headers.iter().any(|h| h == required) {
            return Err(CoreError::keyed(
                "file",
                format!("the header row has no {required:?} column"),
                "headerMissingColumn",
                &[("column", required.to_string())],
            ));
        }
    }
    let mut out = BulkFile {
        headers: headers.iter().map(str::to_string).collect(),
        ..BulkFile::default()
    };
    let mut occurrences: std::collections::HashMap<String, usize> = Default::default();
    let mut older_occurrences: std::collections::HashMap<String, usize> = Default::default();
    let mut numbers: std::collections::HashMap<String, usize> = Default::default();
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        // A result file written by the desk marks a cell a spreadsheet would run as a
        // formula with a leading `'` (`export::safe_cell`); read back, that mark goes, so
        // the row is the one that was sent and not "changed".
        let record = record.map(|r| r.iter().map(unmark).collect::<csv::StringRecord>());
        if let Ok(r) = &record {
            out.records
                .push((line, r.iter().map(str::to_string).collect()));
        }
        let fail = |field: &str, rule: Rule| RowError {
            line,
            field: field.to_string(),
            rule,
            value: None,
        };
        let mut row: Row = match record.and_then(|r| r.deserialize(Some(&headers))) {
            Ok(r) => r,
            Err(e) => {
                out.errors.push(fail(
                    "row",
                    Rule::keyed(
                        format!("cannot be read: {e}"),
                        "rowUnreadable",
                        &[("reason", e.to_string())],
                    )
                    .quoting("reason", &Rule::csv_reason(&e)),
                ));
                continue;
            }
        };
        if !row.beneficiary.is_empty() {
            let cells = crate::beneficiaries::RowCells {
                kind: &mut row.kind,
                account: &mut row.account,
                first_name: &mut row.first_name,
                last_name: &mut row.last_name,
                country: &mut row.country,
            };
            if let Err((field, rule)) = book.fill_row(&row.beneficiary, cells) {
                out.errors.push(fail(&field, rule));
                continue;
            }
        }
        let amount = match paydesk_gateway::money::parse_decimal("amount", &row.amount) {
            Ok(a) => a,
            Err(e) => {
                out.errors.push(fail("amount", e.into()));
                continue;
            }
        };
        // The row's purpose (not part of its identity: a purpose edited later is the
        // same payout), bounded and printable, naming the file's column.
        match crate::purpose::check(
            &crate::purpose::Purpose::new(row.purpose.as_str(), row.reference.as_str()),
            false,
        ) {
            Ok(Some(p)) => {
                out.purposes.insert(line, p);
            }
            Ok(None) => {}
            Err(CoreError::Validation { field, rule }) => {
                let column = if field == crate::purpose::REFERENCE_FIELD {
                    "reference"
                } else {
                    "purpose"
                };
                out.errors.push(fail(column, rule));
                continue;
            }
            Err(e) => return Err(e),
        }
        let name = [row.first_name.as_str(), row.last_name.as_str()]
            .iter()
            .filter(|s| !s.is_empty())
            .copied()
            .collect::<Vec<_>>()
            .join(" ");
        if !name.is_empty() {
            out.names.insert(line, name);
        }
        let mer_order_no = if row.mer_order_no.is_empty() {
            // A row's identity is what its payout carries: a CLABE payout sends no name
            // or country, so a change only in those is the same payout (the same number,
            // found paid), never a new one offered for a second payment.
            let sends_names = !row.kind.eq_ignore_ascii_case("clabe");
            let content_of = |names: bool| {
                let (first, last, country) = if names {
                    (
                        row.first_name.clone(),
                        row.last_name.clone(),
                        row.country.to_ascii_uppercase(),
                    )
                } else {
                    Default::default()
                };
                [
                    row.kind.to_ascii_lowercase(),
                    amount.normalize().to_string(),
                    row.currency.to_ascii_uppercase(),
                    row.account.clone(),
                    first,
                    last,
                    country,
                ]
                .join("|")
            };
            let content = content_of(sends_names);
            let n = occurrences.entry(content.clone()).or_insert(0);
            *n += 1;
            out.derived.insert(line, format!("{content}#{n}"));
            let older = content_of(true);
            if older != content {
                let n = older_occurrences.entry(older.clone()).or_insert(0);
                *n += 1;
                out.derived_before_names_left
                    .insert(line, format!("{older}#{n}"));
            }
            UNNUMBERED.to_string()
        } else if row.mer_order_no.starts_with(['=', '+', '-', '@']) {
            // Its result file is opened in a spreadsheet and may be sent again: a number
            // that must be escaped there would come back as another number.
            out.errors.push(fail(
                "merOrderNo",
                Rule::keyed(
                    "must not start with =, +, - or @ (a spreadsheet would run it as a formula)",
                    "orderNoFormula",
                    &[],
                ),
            ));
            continue;
        } else {
            row.mer_order_no.clone()
        };
        if mer_order_no != UNNUMBERED
            && let Some(first) = numbers.get(&mer_order_no)
        {
            out.errors.push(fail(
                "merOrderNo",
                Rule::keyed(
                    format!(
                        "{mer_order_no} is already used on line {first}; each row needs its own"
                    ),
                    "orderNoRepeated",
                    &[
                        ("orderNo", mer_order_no.clone()),
                        ("line", first.to_string()),
                    ],
                ),
            ));
            continue;
        }
        numbers.insert(mer_order_no.clone(), line);
        // The same form as a single payout: one set of rules for both.
        let kind = match row.kind.to_ascii_lowercase().as_str() {
            "clabe" => PayoutKind::Clabe,
            "card" => PayoutKind::Card,
            other => {
                out.errors.push(fail(
                    "type",
                    Rule::keyed(
                        format!("must be clabe or card, got {other:?}"),
                        "payoutType",
                        &[("got", other.to_string())],
                    ),
                ));
                continue;
            }
        };
        let form = PayoutForm {
            clabe: if kind == PayoutKind::Clabe {
                row.account.clone()
            } else {
                String::new()
            },
            card_no: if kind == PayoutKind::Card {
                row.account.clone()
            } else {
                String::new()
            },
            first_name: row.first_name.clone(),
            last_name: row.last_name.clone(),
            country_code: row.country.clone(),
            ip_address: ctx.ip_address.clone(),
            notify_url: ctx.notify_url.clone(),
            address_line: row.address_line.clone(),
            address_line2: row.address_line2.clone(),
            city: row.city.clone(),
            state: row.state.clone(),
            post_code: row.post_code.clone(),
            beneficiary_type: row.beneficiary_type.clone(),
            ..PayoutForm::new(kind, &mer_order_no, &row.amount, &row.currency)
        };
        let who = Filler {
            mer_no: ctx.mer_no,
            notify_url: &ctx.notify_url,
            requester_ip: &ctx.ip_address,
        };
        let checked = form.build(&who).and_then(|payout| {
            let wire = match &payout {
                // The texts too, as every request is checked before it is signed.
                PayoutOp::Clabe(p) => p.validate().and_then(|()| v::texts_of(p)),
                PayoutOp::Card(p) => p.validate().and_then(|()| v::texts_of(p)),
            };
            wire.map(|()| payout).map_err(CoreError::from)
        });
        match checked {
            // Report the file's column names, not the wire's.
            Err(CoreError::Validation { field, rule }) => {
                let field = match crate::forms::payout_field(&field) {
                    "clabe" | "cardNo" => "account",
                    "countryCode" => "country",
                    other => other,
                };
                out.errors.push(fail(field, rule));
            }
            Err(e) => out.errors.push(fail("row", e.to_string().into())),
            Ok(payout) => out.rows.push((line, payout)),
        }
    }
    let lines: std::collections::HashMap<usize, &Vec<String>> =
        out.records.iter().map(|(l, r)| (*l, r)).collect();
    for e in &mut out.errors {
        if let Some(i) = out.headers.iter().position(|h| *h == e.field) {
            e.value = lines.get(&e.line).and_then(|r| r.get(i)).cloned();
        }
    }
    Ok(out)
}

impl BulkFile {
    /// Gives `default` (the run's purpose) to every row without a purpose of its own,
    /// then, when the profile requires a purpose, turns each row still without one into
    /// that row's error (field `purpose`): it is never sent.
    pub fn with_default_purpose(
        &mut self,
        default: &crate::purpose::Purpose,
        required: bool,
    ) -> CoreResult<()> {
        let default = crate::purpose::check(default, false)?;
        let mut kept = Vec::with_capacity(self.rows.len());
        for (line, op) in std::mem::take(&mut self.rows) {
            let has = self.purposes.get(&line).is_some_and(|p| !p.text.is_empty());
            if !has && let Some(d) = &default {
                let own = self.purposes.entry(line).or_default();
                own.text.clone_from(&d.text);
                if own.reference.is_empty() {
                    own.reference.clone_from(&d.reference);
                }
            }
            if required && self.purposes.get(&line).is_none_or(|p| p.text.is_empty()) {
                self.errors.push(RowError {
                    line,
                    field: "purpose".into(),
                    rule: Rule::keyed(
                        "is required: this profile asks for a purpose on every movement (a purpose column, or the run's purpose)",
                        "purposeRequiredRow",
                        &[],
                    ),
                    value: None,
                });
                continue;
            }
            kept.push((line, op));
        }
        self.rows = kept;
        self.errors.sort_by_key(|e| e.line);
        Ok(())
    }
}

/// Fixes one cell of a bulk file in place: the record on `line` (as the checks number
/// it), its `column` set to `value`; every other record is written back as read (the
/// file may be re-quoted, never changed in content). The file is replaced atomically.
pub fn fix_cell(path: &Path, line: usize, column: &str, value: &str) -> CoreResult<()> {
    if value.chars().any(|c| c.is_control()) {
        return Err(CoreError::keyed(
            "value",
            "must not contain line breaks or control characters",
            "cellControl",
            &[],
        ));
    }
    let bytes = crate::input::read_file_rule(path, crate::input::MAX_DOCUMENT_BYTES)
        .map_err(|rule| CoreError::validation("file", rule))?;
    let bom = bytes.starts_with(b"\xEF\xBB\xBF");
    let body = if bom { &bytes[3..] } else { &bytes[..] };
    text_encoding(body)?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_reader(body);
    let mut records: Vec<csv::StringRecord> = Vec::new();
    for r in reader.records() {
        records.push(r.map_err(|e| {
            CoreError::keyed(
                "file",
                format!("cannot be read again to fix it: {e}"),
                "fileRereadFailed",
                &[("reason", e.to_string())],
            )
        })?);
    }
    let header = records
        .first()
        .ok_or_else(|| CoreError::keyed("file", "is empty", "fileEmpty", &[]))?;
    let at = header
        .iter()
        .position(|h| h.trim() == column)
        .ok_or_else(|| {
            CoreError::keyed(
                "column",
                format!("{column:?} is not a column of the file"),
                "notAColumn",
                &[("column", column.to_string())],
            )
        })?;
    // The checks number a row by its record, the header being line 1.
    let index = line
        .checked_sub(1)
        .filter(|&i| i >= 1 && i < records.len())
        .ok_or_else(|| {
            CoreError::keyed(
                "line",
                format!("the file has no line {line}"),
                "noSuchLine",
                &[("line", line.to_string())],
            )
        })?;
    let mut cells: Vec<String> = records[index].iter().map(str::to_string).collect();
    if cells.len() <= at {
        cells.resize(at + 1, String::new());
    }
    cells[at] = value.to_string();
    records[index] = csv::StringRecord::from(cells);
    let mut out = crate::output::create(path, Existing::Replace)?;
    let io = |e: &dyn std::fmt::Display| crate::output::write_error(path, e);
    {
        use std::io::Write;
        if bom {
            out.file().write_all(b"\xEF\xBB\xBF").map_err(|e| io(&e))?;
        }
        let mut w = csv::WriterBuilder::new()
            .flexible(true)
            .from_writer(out.file());
        for r in &records {
            w.write_record(r).map_err(|e| io(&e))?;
        }
        w.flush().map_err(|e| io(&e))?;
    }
    out.commit()
}

/// How a row ended.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RowStatus {
    Accepted,
    Rejected,
    /// Sent, outcome unknown: looked up, never sent blind.
    Unknown,
    /// Leaving when the run stopped: as unknown.
    Sending,
    /// Not sent (it can be, under the same number).
    Pending,
    /// Not sent: the same as, or a changed version of, an earlier payout.
    Held,
    /// Failed its checks.
    Invalid,
}

impl RowStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accepted => "accepted",
            Self::Rejected => "rejected",
            Self::Unknown => "unknown",
            Self::Sending => "sending",
            Self::Pending => "pending",
            Self::Held => "held",
            Self::Invalid => "invalid",
        }
    }
}

impl From<crate::journal::Status> for RowStatus {
    fn from(s: crate::journal::Status) -> Self {
        use crate::journal::Status;
        match s {
            Status::Pending => Self::Pending,
            Status::Sending => Self::Sending,
            Status::Accepted => Self::Accepted,
            Status::Rejected => Self::Rejected,
            Status::Unknown => Self::Unknown,
        }
    }
}

/// The outcome of one row, as the result file lists it.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RowResult {
    pub line: usize,
    pub mer_order_no: String,
    pub status: RowStatus,
    pub trade_no: String,
    pub detail: String,
    /// Sent (or looked up) by this run; false for a row paid before, held or invalid.
    #[serde(default)]
    pub this_run: bool,
    /// Why the run did what it did with a planned row (what `detail` says in English);
    /// none for a row the file's checks refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub why: Option<RowReason>,
}

/// Columns the result file adds (and replaces when its input was a result file).
const RESULT_COLUMNS: [&str; 4] = ["status", "tradeNo", "detail", "line"];

/// Where a bulk run's result file goes, checked (and its folder proven writable) before
/// the first payout leaves: `named` by the operator (an existing file replaced only with
/// [`Existing::Replace`]), or by default `<input>.result.csv`, which a later run of the
/// same file replaces only when it is an earlier result file (its header ends with the
/// result's columns), never another file. Returns the path and what to do with a file
/// already there when the results are written.
pub fn result_target(
    input: &Path,
    named: Option<&Path>,
    existing: Existing,
) -> CoreResult<(std::path::PathBuf, Existing)> {
    let (path, existing) = match named {
        Some(p) => (p.to_path_buf(), existing),
        None => {
            let p = input.with_extension("result.csv");
            let earlier = std::fs::symlink_metadata(&p).is_ok_and(|m| m.is_file())
                && crate::input::read_text(&p, crate::input::MAX_DOCUMENT_BYTES * 4)
                    .ok()
                    .and_then(|t| {
                        t.trim_start_matches('\u{feff}')
                            .lines()
                            .next()
                            .map(|h| h.trim_end().ends_with(&RESULT_COLUMNS.join(",")))
                    })
                    .unwrap_or(false);
            (p, if earlier { Existing::Replace } else { existing })
        }
    };
    // Made and dropped: the folder takes a file, and nothing stands in the way.
    drop(crate::output::create(&path, existing)?);
    Ok((path, existing))
}

/// A result file's path for a run of `input` that replaces nothing: `<input>.result.csv`,
/// or when a file is there (an earlier run's results, or anything else) the first free
/// `<input>-2.result.csv`, `-3`, ...: the screen's runs keep every earlier result.
pub fn fresh_result_path(input: &Path) -> std::path::PathBuf {
    let first = input.with_extension("result.csv");
    let taken = |p: &Path| std::fs::symlink_metadata(p).is_ok();
    if !taken(&first) {
        return first;
    }
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    (2..10_000)
        .map(|n| input.with_file_name(format!("{stem}-{n}.result.csv")))
        .find(|p| !taken(p))
        .unwrap_or(first)
}

/// A file to fill in: the header row, each column the bulk run reads. No example row:
/// a sample left in by mistake would be a payout.
pub const TEMPLATE: &str = "type,amount,currency,account,firstName,lastName,country,merOrderNo,addressLine,addressLine2,city,state,postCode,beneficiaryType\n";

/// Writes [`TEMPLATE`] to `path` (an existing file replaced only with
/// [`Existing::Replace`]).
pub fn write_template(path: &Path, existing: Existing) -> CoreResult<()> {
    use std::io::Write;
    let mut out = crate::output::create(path, existing)?;
    out.file()
        .write_all(TEMPLATE.as_bytes())
        .map_err(|e| crate::output::write_error(path, &e))?;
    out.commit()
}

/// Writes the result file (CSV): every row of the input with its columns as read, the
/// `merOrderNo` each row went under written back (so the result file, fixed and sent
/// again, keeps every row's identity), and its status, trade number and detail. Cells
/// that a spreadsheet would run as a formula are written as text.
pub fn write_results(
    path: &Path,
    existing: Existing,
    file: &BulkFile,
    results: &[RowResult],
) -> CoreResult<()> {
    let io = |e: &dyn std::fmt::Display| crate::output::write_error(path, e);
    let keep: Vec<usize> = (0..file.headers.len())
        .filter(|&i| !RESULT_COLUMNS.contains(&file.headers[i].as_str()))
        .collect();
    let number_at = file.headers.iter().position(|h| h == "merOrderNo");
    let mut header: Vec<String> = keep.iter().map(|&i| file.headers[i].clone()).collect();
    if number_at.is_none() {
        header.push("merOrderNo".into());
    }
    header.extend(["status", "tradeNo", "detail", "line"].map(String::from));
    // It repeats the input's full account numbers: readable by the user only (the
    // output's temporary file is made private, and keeps its mode when renamed).
    let mut out = crate::output::create(path, existing)?;
    let mut w = csv::Writer::from_writer(out.file());
    w.write_record(&header).map_err(|e| io(&e))?;
    let records: std::collections::HashMap<usize, &Vec<String>> =
        file.records.iter().map(|(l, r)| (*l, r)).collect();
    for r in results {
        let source = records.get(&r.line);
        let mut row: Vec<String> = keep
            .iter()
            .map(|&i| {
                if Some(i) == number_at && !r.mer_order_no.is_empty() {
                    r.mer_order_no.clone()
                } else {
                    source.and_then(|s| s.get(i)).cloned().unwrap_or_default()
                }
            })
            .collect();
        if number_at.is_none() {
            row.push(r.mer_order_no.clone());
        }
        row.extend([
            r.status.as_str().to_string(),
            r.trade_no.clone(),
            r.detail.clone(),
            r.line.to_string(),
        ]);
        // No cell may become a formula in a spreadsheet (the file is opened from the
        // screen): plain numbers stay as they are.
        w.write_record(crate::output::safe_record(&row))
            .map_err(|e| io(&e))?;
    }
    w.flush().map_err(|e| io(&e))?;
    drop(w);
    out.commit()
}

/// The name of the operation a row goes through, for the journal.
pub fn operation_of(p: &PayoutOp) -> &'static str {
    match p {
        PayoutOp::Clabe(_) => <wire::V2Payout as Operation>::NAME,
        PayoutOp::Card(_) => <wire::V1CardPayout as Operation>::NAME,
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn said(bytes: &[u8]) -> String {
        let ctx = BulkContext {
            mer_no: 1,
            notify_url: "https://m.example/n".into(),
            ip_address: "127.0.0.1".into(),
        };
        parse(bytes, &ctx).unwrap_err().to_string()
    }

    /// A spreadsheet's "Unicode text" is named for what it is, whichever byte order and
    /// with or without a byte-order mark; other bytes that are not UTF-8 say so too.
    #[test]
    fn a_file_that_is_not_utf8_says_what_it_is() {
        let text = "type,amount,currency,account\nclabe,5.00,MXN,002010077777777771\n";
        let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
        assert!(said(&le).contains("UTF-16 (little-endian, without a byte-order mark)"));
        assert!(said(&be).contains("UTF-16 (big-endian, without a byte-order mark)"));
        let bom = [&[0xFF, 0xFE][..], &le].concat();
        assert!(said(&bom).contains("UTF-16 (little-endian, with a byte-order mark)"));
        let latin1 = b"type,amount,currency,account\nclabe,5.00,MXN,Jos\xe9\n";
        let e = said(latin1);
        assert!(
            e.contains("file: is not UTF-8 text") && e.contains("CSV UTF-8"),
            "{e}"
        );
        // UTF-8 with a byte-order mark is read.
        let ctx = BulkContext {
            mer_no: 1,
            notify_url: "https://m.example/n".into(),
            ip_address: "127.0.0.1".into(),
        };
        let ok = [&b"\xEF\xBB\xBF"[..], text.as_bytes()].concat();
        assert_eq!(parse(&ok, &ctx).unwrap().rows.len(), 1);
    }
}
