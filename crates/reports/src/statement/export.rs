//! A statement to CSV, XLSX or PDF, with what a finance team files it with: the
//! merchant, its filter, time zone, the time it was made, how many orders are behind it
//! and a SHA-256 of those orders' rows, so a later export of the same statement can be
//! compared.
//!
//! The rows hashed are the orders behind the statement as its orders sheet writes them
//! (the orders export's cells and whether the order was made outside the team, oldest
//! first), each a JSON array of its cells on a line of its own: the hash is the same in
//! the CSV and the XLSX of one statement.

use std::collections::HashMap;
use std::path::Path;

use paydesk_gateway::StateDictionary;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Figure, Statement, Zone};
use crate::error::{CoreError, CoreResult};
use crate::export::{
    EXACT_AS_TEXT, LABELS, amount_format, cells, safe_record, significant_digits, write_row,
};
use crate::output::Output;
use crate::purposes::Purposes;
use crate::store::orders::{CachedOrder, OrderFilter, OrderStore, SortKey};

/// What a statement export wrote.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatementExport {
    /// Orders behind the statement, written on its orders sheet (or section).
    pub rows: u64,
    /// SHA-256 of those rows, hex.
    pub sha256: String,
    /// UTC millis.
    pub made_at: i64,
    pub time_zone: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Xlsx,
    Pdf,
}

fn format_of(path: &Path) -> CoreResult<Format> {
    match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("csv") => Ok(Format::Csv),
        Some("xlsx") => Ok(Format::Xlsx),
        Some("pdf") => Ok(Format::Pdf),
        _ => Err(CoreError::keyed(
            "path",
            "must end in .csv, .xlsx or .pdf",
            "pathCsvXlsxPdf",
            &[],
        )),
    }
}

/// One line of a statement's table.
pub(super) struct Line<'a> {
    pub currency: &'a str,
    pub section: &'static str,
    pub item: String,
    pub state: Option<i64>,
    pub meaning: &'static str,
    pub count: Option<i64>,
    pub amount: String,
    pub field: &'static str,
    pub filter: Option<&'a OrderFilter>,
}

const LINE_HEADERS: [&str; 9] = [
    "Currency",
    "Section",
    "Line",
    "State",
    "Meaning",
    "Orders",
    "Amount",
    "Amount of",
    "Orders counted",
];

/// The orders a figure counts, in words (the Orders screen opens the same filter).
fn in_words(f: &OrderFilter) -> String {
    let mut parts: Vec<String> = Vec::new();
    let kinds: Vec<&str> = f.kinds.iter().map(|k| k.label()).collect();
    if !kinds.is_empty() {
        parts.push(format!("{}s", kinds.join("s, ")));
    }
    if f.unknown_kind {
        parts.push("orders whose kind the gateway did not give".into());
    }
    let list = |v: &[i64]| {
        v.iter()
            .map(|x| {
                if *x == -1 {
                    "not given".to_string()
                } else {
                    x.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    if !f.states.is_empty() {
        parts.push(format!("in state {}", list(&f.states)));
    }
    if !f.settles.is_empty() {
        parts.push(format!("settlement {}", list(&f.settles)));
    }
    if !f.reserve_statuses.is_empty() {
        parts.push(format!("reserve status {}", list(&f.reserve_statuses)));
    }
    if f.refunded == Some(true) {
        parts.push("with a refunded amount".into());
    }
    parts.join("; ")
}

fn line<'a>(currency: &'a str, section: &'static str, item: &str, f: &'a Figure) -> Line<'a> {
    Line {
        currency,
        section,
        item: item.to_string(),
        state: None,
        meaning: "",
        count: Some(f.count),
        amount: f.amount.clone(),
        field: f.field.label(),
        filter: Some(&f.filter),
    }
}

fn total<'a>(currency: &'a str, section: &'static str, item: &str, amount: &str) -> Line<'a> {
    Line {
        currency,
        section,
        item: item.to_string(),
        state: None,
        meaning: "",
        count: None,
        amount: amount.to_string(),
        field: "",
        filter: None,
    }
}

/// The statement's lines, per currency, in the order a reader takes them, in a finance
/// team's words.
fn lines(s: &Statement) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for c in &s.currencies {
        let cur = c.currency.as_str();
        for (section, flow) in [("Payins", &c.payins), ("Payouts", &c.payouts)] {
            out.push(line(cur, section, "All", &flow.all));
            for st in &flow.by_state {
                let mut l = line(cur, section, "In state", &st.figure);
                l.state = Some(st.state);
                l.meaning = st.meaning.map_or("unknown", |m| m.as_str());
                out.push(l);
            }
            out.push(line(cur, section, "Paid", &flow.succeeded));
            out.push(line(cur, section, "Failed or closed", &flow.failed));
            out.push(line(cur, section, "Pending", &flow.pending));
            let (fees, fee_section) = if section == "Payins" {
                (&c.payin_fees, "Payin fees")
            } else {
                (&c.payout_fees, "Payout fees")
            };
            out.push(line(cur, fee_section, "Handling fees", &fees.handling));
            out.push(line(cur, fee_section, "Fixed fees", &fees.fixed));
            out.push(line(cur, fee_section, "Exception fees", &fees.exception));
            out.push(total(cur, fee_section, "Total fees", &fees.total));
            if section == "Payins" {
                out.push(line(cur, "Rolling reserve", "Held", &c.reserve_held));
                out.push(line(
                    cur,
                    "Rolling reserve",
                    "Released",
                    &c.reserve_released,
                ));
                out.push(line(cur, "Refunds", "Refunded", &c.refunds));
                out.push(line(cur, "Chargebacks", "Charged back", &c.chargebacks));
                if c.chargebacks_not_looked_up > 0 {
                    out.push(Line {
                        count: Some(c.chargebacks_not_looked_up),
                        ..total(
                            cur,
                            "Chargebacks",
                            "Of them at the order's full amount (not looked up)",
                            "",
                        )
                    });
                }
                for (name, st) in [("Settled", &c.settled), ("Not settled", &c.not_settled)] {
                    out.push(line(cur, "Settlement", name, &st.amount));
                    out.push(line(cur, "Settlement", name, &st.settle_amount));
                    out.push(line(cur, "Settlement", name, &st.receive_amount));
                }
            }
        }
        out.push(line(
            cur,
            "Pending payouts",
            "Taken from the balance",
            &c.pending_payouts,
        ));
        out.push(total(
            cur,
            "Pending payouts",
            "Their fees",
            &c.pending_payout_fees.total,
        ));
        out.push(line(cur, "Cards", "Top-ups", &c.card_top_ups));
        out.push(line(cur, "Cards", "Withdrawals", &c.card_withdrawals));
        out.push(total(
            cur,
            "Cards",
            "Withdrawal fees",
            &c.card_withdrawal_fees.total,
        ));
        // Orders whose kind is not known: their own section, in no other figure, always
        // said (zero when there are none).
        let flow = &c.unknown_kind;
        let section = "Kind not given by the gateway (in no other figure)";
        out.push(line(cur, section, "All", &flow.all));
        if flow.all.count > 0 {
            for st in &flow.by_state {
                let mut l = line(cur, section, "In state", &st.figure);
                l.state = Some(st.state);
                l.meaning = st.meaning.map_or("unknown", |m| m.as_str());
                out.push(l);
            }
            out.push(line(cur, section, "Paid", &flow.succeeded));
            out.push(line(cur, section, "Failed or closed", &flow.failed));
            out.push(line(cur, section, "Pending", &flow.pending));
        }
        out.push(total(cur, "Net", "Net movement of the balance", &c.net));
    }
    out
}

fn when(millis: i64, tz: &Zone) -> String {
    tz.format(millis, "%Y-%m-%d %H:%M:%S")
}

/// Header names the XLSX writes as dates or numbers.
const FIRST_DAY: &str = "First day";
const LAST_DAY: &str = "Last day";
const MADE_AT: &str = "Made at";
const ORDERS: &str = "Orders";

/// The header lines (name, value) every export starts with, in a finance team's words.
fn header(
    s: &Statement,
    merchant: &str,
    tz: &Zone,
    made_at: i64,
    rows: u64,
    sha: &str,
) -> Vec<(&'static str, String)> {
    let unknown: i64 = s.currencies.iter().map(|c| c.unknown_kind.all.count).sum();
    vec![
        ("Statement", "PayDesk statement".into()),
        ("Merchant", merchant.to_string()),
        (FIRST_DAY, tz.day_of(s.period.from)),
        (LAST_DAY, s.period.last_day(tz)),
        ("Time zone", tz.name_at(s.period.from)),
        (
            "Currency",
            s.currency
                .clone()
                .unwrap_or_else(|| "All currencies".into()),
        ),
        (ORDERS, rows.to_string()),
        (
            "Orders whose kind the gateway did not give (in no figure)",
            unknown.to_string(),
        ),
        (
            "Orders the cache cannot place exactly on a day of this zone",
            s.uncertain.to_string(),
        ),
        (
            "Orders counted",
            format!(
                "created from {} to before {} ({})",
                when(s.period.from, tz),
                when(s.period.to, tz),
                tz.name()
            ),
        ),
        (MADE_AT, when(made_at, tz)),
        ("SHA-256 of the orders", sha.to_string()),
    ]
}

/// The orders sheet's last column, and its header line: on a team's read model, an
/// order no request of the team made (issue 30). Such an order keeps no kind, so it is in
/// no payin figure (it is on the line of orders whose kind is not given).
const OUTSIDE_TEAM: &str = "Made outside this team";
const OUTSIDE_TEAM_LINE: &str =
    "Orders made outside this team (no request of the team made them; never counted as payins)";

/// The statement's orders sheet's headers: the orders export's, then [`OUTSIDE_TEAM`].
/// With the journal's purposes (issue 35): their two columns after it.
fn row_labels(purposes: Option<&Purposes>) -> Vec<&'static str> {
    let mut v = LABELS.to_vec();
    v.push(OUTSIDE_TEAM);
    if purposes.is_some() {
        v.extend(crate::purposes::LABELS);
    }
    v
}

/// One order's cells on the statement's orders sheet.
fn row_cells(
    o: &CachedOrder,
    dict: &StateDictionary,
    tz: &Zone,
    purposes: Option<&Purposes>,
) -> Vec<String> {
    let mut v = cells(o, dict, *tz).to_vec();
    v.push(if o.outside_team { "yes" } else { "" }.to_string());
    if let Some(p) = purposes {
        v.extend(p.cells(o));
    }
    v
}

/// The orders behind a statement, oldest first.
fn rows_filter(s: &Statement) -> OrderFilter {
    OrderFilter {
        sort: SortKey::Created,
        descending: false,
        ..s.filter.clone()
    }
}

/// How many orders are behind `s`, the SHA-256 of their rows and how many of them were
/// made outside the team.
pub fn digest(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    tz: &Zone,
) -> CoreResult<(u64, String, u64)> {
    digest_with(orders, s, dict, tz, None)
}

/// [`digest`] of the rows with their purposes (what [`export_with`] writes).
pub fn digest_with(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    tz: &Zone,
    purposes: Option<&Purposes>,
) -> CoreResult<(u64, String, u64)> {
    let mut h = Sha256::new();
    let mut n = 0u64;
    let mut outside = 0u64;
    orders.for_each(&rows_filter(s), &mut |o| {
        let row = serde_json::to_string(&row_cells(o, dict, tz, purposes))
            .map_err(|e| CoreError::internal(e.to_string()))?;
        h.update(row.as_bytes());
        h.update(b"\n");
        n += 1;
        outside += u64::from(o.outside_team);
        Ok(())
    })?;
    Ok((n, hex::encode(h.finalize()), outside))
}

/// Writes `s` to `out` (opened by [`crate::output::create`] on a .csv, .xlsx or .pdf
/// path, so a pipe, a link or a file not to be replaced was refused before any work):
/// header lines (`merchant` names whose statement it is), the statement's lines per
/// currency, and (CSV and XLSX) the orders behind it.
pub fn export(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    out: Output,
    tz: impl Into<Zone>,
    made_at: i64,
    merchant: &str,
) -> CoreResult<StatementExport> {
    export_with(orders, s, dict, out, tz, made_at, merchant, None)
}

/// [`export`] with the journal's purposes on the orders sheet (issue 35): "Purpose" and
/// "Purpose reference" after its own columns, empty for an order this desk did not
/// make; hashed with the rows. What the desk writes ([`crate::DeskReports`]).
#[allow(clippy::too_many_arguments)]
pub fn export_with(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    mut out: Output,
    tz: impl Into<Zone>,
    made_at: i64,
    merchant: &str,
    purposes: Option<&Purposes>,
) -> CoreResult<StatementExport> {
    let tz = &tz.into();
    let path = &out.path().to_path_buf();
    let format = format_of(path)?;
    // Hashed first: the header that carries the hash comes before the rows.
    let (rows, sha, outside) = digest_with(orders, s, dict, tz, purposes)?;
    let mut head = header(s, merchant, tz, made_at, rows, &sha);
    // Said after the line of orders of unknown kind, where those orders are counted.
    let at = head
        .iter()
        .position(|(k, _)| k.starts_with("Orders whose kind"))
        .map_or(head.len(), |i| i + 1);
    head.insert(at, (OUTSIDE_TEAM_LINE, outside.to_string()));
    let io = |e: &dyn std::fmt::Display| crate::output::write_error(path, e);
    match format {
        Format::Csv => {
            let mut w = csv::WriterBuilder::new()
                .flexible(true)
                .from_writer(out.file());
            for (k, v) in &head {
                w.write_record(safe_record([*k, v.as_str()]))
                    .map_err(|e| io(&e))?;
            }
            w.write_record([""]).map_err(|e| io(&e))?;
            w.write_record(LINE_HEADERS).map_err(|e| io(&e))?;
            for l in lines(s) {
                let filter = l.filter.map(in_words).unwrap_or_default();
                w.write_record(safe_record([
                    l.currency.to_string(),
                    l.section.to_string(),
                    l.item,
                    l.state.map(|v| v.to_string()).unwrap_or_default(),
                    l.meaning.to_string(),
                    l.count.map(|v| v.to_string()).unwrap_or_default(),
                    l.amount,
                    l.field.to_string(),
                    filter,
                ]))
                .map_err(|e| io(&e))?;
            }
            w.write_record([""]).map_err(|e| io(&e))?;
            w.write_record(row_labels(purposes)).map_err(|e| io(&e))?;
            orders.for_each(&rows_filter(s), &mut |o| {
                w.write_record(safe_record(row_cells(o, dict, tz, purposes)))
                    .map_err(|e| io(&e))
            })?;
            w.flush().map_err(|e| io(&e))?;
        }
        // Said once: an error of the cache as it is, the workbook's with the path.
        Format::Xlsx => match write_xlsx(orders, s, dict, out.file(), tz, made_at, &head, purposes)
        {
            Ok(()) => {}
            Err(Failed::Core(e)) => return Err(e),
            Err(Failed::Xlsx(e)) => return Err(io(&e)),
        },
        Format::Pdf => {
            let codes: Vec<&str> = s.currencies.iter().map(|c| c.currency.as_str()).collect();
            let heading = super::pdf::Heading { pairs: &head };
            let bytes = super::pdf::write(&heading, &lines(s), &codes)?;
            std::io::Write::write_all(out.file(), &bytes).map_err(|e| io(&e))?;
        }
    }
    out.commit()?;
    Ok(StatementExport {
        rows,
        sha256: sha,
        made_at,
        time_zone: tz.name(),
    })
}

/// An error of the workbook or of reading the cache, for one message.
#[derive(Debug)]
enum Failed {
    Xlsx(rust_xlsxwriter::XlsxError),
    Core(CoreError),
}

impl std::fmt::Display for Failed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Failed::Xlsx(e) => e.fmt(f),
            Failed::Core(e) => e.fmt(f),
        }
    }
}

impl From<rust_xlsxwriter::XlsxError> for Failed {
    fn from(e: rust_xlsxwriter::XlsxError) -> Self {
        Failed::Xlsx(e)
    }
}

/// A moment as a spreadsheet date in `tz`.
fn excel_time(millis: i64, tz: &Zone) -> Result<rust_xlsxwriter::ExcelDateTime, Failed> {
    let local = millis.div_euclid(1000) + i64::from(tz.offset_at(millis).local_minus_utc());
    Ok(rust_xlsxwriter::ExcelDateTime::from_timestamp(local)?)
}

#[allow(clippy::too_many_arguments)]
fn write_xlsx(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    to: &mut std::fs::File,
    tz: &Zone,
    made_at: i64,
    head: &[(&'static str, String)],
    purposes: Option<&Purposes>,
) -> Result<(), Failed> {
    use rust_xlsxwriter::{Format as Fmt, Workbook};
    let mut book = Workbook::new();
    let bold = Fmt::new().set_bold();
    let date = Fmt::new().set_num_format("yyyy-mm-dd hh:mm:ss");
    let day = Fmt::new().set_num_format("yyyy-mm-dd");
    let all = lines(s);
    // An empty period still gets a sheet: its header says what was asked and that
    // nothing was behind it.
    let mut codes: Vec<&str> = s.currencies.iter().map(|c| c.currency.as_str()).collect();
    if codes.is_empty() {
        codes.push(s.currency.as_deref().unwrap_or("Statement"));
    }
    for code in codes {
        let sheet = book.add_worksheet();
        sheet.set_name(code)?;
        let money = amount_format(code);
        let mut row = 0u32;
        let mut exact_as_text = false;
        for (k, v) in head {
            sheet.write_string_with_format(row, 0, *k, &bold)?;
            match *k {
                FIRST_DAY => sheet.write_datetime_with_format(
                    row,
                    1,
                    excel_time(s.period.from, tz)?,
                    &day,
                )?,
                LAST_DAY => sheet.write_datetime_with_format(
                    row,
                    1,
                    excel_time(s.period.to - 1, tz)?,
                    &day,
                )?,
                MADE_AT => {
                    sheet.write_datetime_with_format(row, 1, excel_time(made_at, tz)?, &date)?
                }
                ORDERS => sheet.write_number(row, 1, v.parse::<u32>().unwrap_or(0))?,
                _ => sheet.write_string(row, 1, v)?,
            };
            row += 1;
        }
        row += 1;
        for (c, h) in LINE_HEADERS.iter().enumerate() {
            sheet.write_string_with_format(row, c as u16, *h, &bold)?;
        }
        for l in all.iter().filter(|l| l.currency == code) {
            row += 1;
            sheet.write_string(row, 0, l.currency)?;
            sheet.write_string(row, 1, l.section)?;
            sheet.write_string(row, 2, &l.item)?;
            if let Some(v) = l.state {
                sheet.write_number(row, 3, v as f64)?;
            }
            sheet.write_string(row, 4, l.meaning)?;
            if let Some(n) = l.count {
                sheet.write_number(row, 5, n as f64)?;
            }
            if let Ok(d) = l.amount.parse::<Decimal>() {
                // A spreadsheet number holds 15 significant digits: a longer amount is
                // written as its exact text, with a note saying so.
                if significant_digits(d) > 15 {
                    sheet.write_string(row, 6, &l.amount)?;
                    let note = rust_xlsxwriter::Note::new(EXACT_AS_TEXT);
                    sheet.insert_note(row, 6, &note)?;
                    exact_as_text = true;
                } else {
                    sheet.write_with_format(row, 6, d, &money)?;
                }
            }
            sheet.write_string(row, 7, l.field)?;
            if let Some(f) = l.filter {
                sheet.write_string(row, 8, in_words(f))?;
            }
        }
        if exact_as_text {
            row += 2;
            sheet.write_string(
                row,
                0,
                "Amounts with more than 15 significant digits are written as exact text.",
            )?;
        }
        sheet.set_column_width(0, 12)?;
        sheet.set_column_width(1, 22)?;
        sheet.set_column_width(2, 22)?;
        sheet.set_column_width(6, 16)?;
    }
    let sheet = book.add_worksheet_with_constant_memory()?;
    sheet.set_name("Orders")?;
    let labels = row_labels(purposes);
    for (c, h) in labels.iter().enumerate() {
        sheet.write_string_with_format(0, c as u16, *h, &bold)?;
    }
    let outside_column = LABELS.len() as u16;
    let mut formats = HashMap::new();
    let mut row = 0u32;
    let mut failed: Option<Failed> = None;
    let read = orders.for_each(&rows_filter(s), &mut |o| {
        row += 1;
        write_row(sheet, row, o, cells(o, dict, *tz), &mut formats)
            .and_then(|()| {
                if o.outside_team {
                    sheet.write_string(row, outside_column, "yes").map(|_| ())
                } else {
                    Ok(())
                }
            })
            .and_then(|()| {
                let Some(p) = purposes else { return Ok(()) };
                for (i, v) in p.cells(o).iter().enumerate() {
                    if !v.is_empty() {
                        sheet.write_string(row, outside_column + 1 + i as u16, v)?;
                    }
                }
                Ok(())
            })
            .map_err(|e| {
                let message = e.to_string();
                failed = Some(Failed::Xlsx(e));
                CoreError::storage(message)
            })
    });
    if let Some(f) = failed {
        return Err(f);
    }
    read.map_err(Failed::Core)?;
    book.save_to_writer(to)?;
    Ok(())
}
