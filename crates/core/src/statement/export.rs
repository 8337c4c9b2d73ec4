//! A statement to CSV, XLSX or PDF, with what a finance team files it with: the
//! merchant, its filter, time zone, the time it was made, how many orders are behind it
//! and a SHA-256 of those orders' rows, so a later export of the same statement can be
//! compared.
//!
//! The rows hashed are the orders behind the statement as the orders export writes them
//! (the same cells, oldest first), each a JSON array of its cells on a line of its own:
//! the hash is the same in the CSV and the XLSX of one statement.

use std::collections::HashMap;
use std::path::Path;

use chrono::{FixedOffset, TimeZone, Utc};
use paydesk_gateway::StateDictionary;
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::{Figure, Statement};
use crate::error::{CoreError, CoreResult};
use crate::export::{HEADERS, amount_format, cells, safe_record, write_row, zone_name};
use crate::output::Output;
use crate::store::orders::{OrderFilter, OrderStore, SortKey};

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
        _ => Err(CoreError::validation(
            "path",
            "must end in .csv, .xlsx or .pdf",
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
    "currency", "section", "item", "state", "meaning", "count", "amount", "field", "filter",
];

fn line<'a>(currency: &'a str, section: &'static str, item: &str, f: &'a Figure) -> Line<'a> {
    Line {
        currency,
        section,
        item: item.to_string(),
        state: None,
        meaning: "",
        count: Some(f.count),
        amount: f.amount.clone(),
        field: f.field.wire_name(),
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

/// The statement's lines, per currency, in the order a reader takes them.
fn lines(s: &Statement) -> Vec<Line<'_>> {
    let mut out = Vec::new();
    for c in &s.currencies {
        let cur = c.currency.as_str();
        for (section, flow) in [("payins", &c.payins), ("payouts", &c.payouts)] {
            out.push(line(cur, section, "all", &flow.all));
            for st in &flow.by_state {
                let mut l = line(cur, section, "state", &st.figure);
                l.state = Some(st.state);
                l.meaning = st.meaning.map_or("unknown", |m| m.as_str());
                out.push(l);
            }
            out.push(line(cur, section, "succeeded", &flow.succeeded));
            out.push(line(cur, section, "failed", &flow.failed));
            out.push(line(cur, section, "pending", &flow.pending));
            let fees = if section == "payins" {
                &c.payin_fees
            } else {
                &c.payout_fees
            };
            let fee_section = if section == "payins" {
                "payinFees"
            } else {
                "payoutFees"
            };
            out.push(line(cur, fee_section, "handlingFee", &fees.handling));
            out.push(line(cur, fee_section, "transactionFixedFee", &fees.fixed));
            out.push(line(
                cur,
                fee_section,
                "exceptionHandlingFee",
                &fees.exception,
            ));
            out.push(total(cur, fee_section, "total", &fees.total));
            if section == "payins" {
                out.push(line(cur, "reserve", "held", &c.reserve_held));
                out.push(line(cur, "reserve", "released", &c.reserve_released));
                out.push(line(cur, "refunds", "refundAmount", &c.refunds));
                out.push(line(cur, "chargebacks", "sourceAmount", &c.chargebacks));
                for (name, st) in [("settled", &c.settled), ("notSettled", &c.not_settled)] {
                    out.push(line(cur, "settlement", name, &st.amount));
                    out.push(line(cur, "settlement", name, &st.settle_amount));
                    out.push(line(cur, "settlement", name, &st.receive_amount));
                }
            }
        }
        // Orders whose kind is not known: their own section, in no other figure.
        let flow = &c.unknown_kind;
        if flow.all.count > 0 {
            let section = "kindNotKnown";
            out.push(line(cur, section, "all", &flow.all));
            for st in &flow.by_state {
                let mut l = line(cur, section, "state", &st.figure);
                l.state = Some(st.state);
                l.meaning = st.meaning.map_or("unknown", |m| m.as_str());
                out.push(l);
            }
            out.push(line(cur, section, "succeeded", &flow.succeeded));
            out.push(line(cur, section, "failed", &flow.failed));
            out.push(line(cur, section, "pending", &flow.pending));
        }
        out.push(total(cur, "net", "net", &c.net));
    }
    out
}

fn when(millis: i64, tz: FixedOffset) -> String {
    Utc.timestamp_millis_opt(millis)
        .single()
        .map(|t| t.with_timezone(&tz).format("%Y-%m-%d %H:%M:%S").to_string())
        .unwrap_or_default()
}

/// The header lines (name, value) every export starts with.
fn header(
    s: &Statement,
    merchant: &str,
    tz: FixedOffset,
    made_at: i64,
    rows: u64,
    sha: &str,
) -> Vec<(&'static str, String)> {
    vec![
        ("statement", "PayDesk statement".into()),
        ("from", when(s.period.from, tz)),
        ("to", when(s.period.to, tz)),
        (
            "currency",
            s.currency.clone().unwrap_or_else(|| "all".into()),
        ),
        ("merchant", merchant.to_string()),
        ("timeZone", zone_name(tz)),
        ("madeAt", when(made_at, tz)),
        (
            "filter",
            serde_json::to_string(&s.filter).unwrap_or_default(),
        ),
        ("rows", rows.to_string()),
        ("sha256", sha.to_string()),
    ]
}

/// The orders behind a statement, oldest first.
fn rows_filter(s: &Statement) -> OrderFilter {
    OrderFilter {
        sort: SortKey::Created,
        descending: false,
        ..s.filter.clone()
    }
}

/// How many orders are behind `s` and the SHA-256 of their rows.
pub fn digest(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    tz: FixedOffset,
) -> CoreResult<(u64, String)> {
    let mut h = Sha256::new();
    let mut n = 0u64;
    orders.for_each(&rows_filter(s), &mut |o| {
        let row = serde_json::to_string(&cells(o, dict, tz))
            .map_err(|e| CoreError::internal(e.to_string()))?;
        h.update(row.as_bytes());
        h.update(b"\n");
        n += 1;
        Ok(())
    })?;
    Ok((n, hex::encode(h.finalize())))
}

/// Writes `s` to `out` (opened by [`crate::output::create`] on a .csv, .xlsx or .pdf
/// path, so a pipe, a link or a file not to be replaced was refused before any work):
/// header lines (`merchant` names whose statement it is), the statement's lines per
/// currency, and (CSV and XLSX) the orders behind it.
pub fn export(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    mut out: Output,
    tz: FixedOffset,
    made_at: i64,
    merchant: &str,
) -> CoreResult<StatementExport> {
    let path = &out.path().to_path_buf();
    let format = format_of(path)?;
    // Hashed first: the header that carries the hash comes before the rows.
    let (rows, sha) = digest(orders, s, dict, tz)?;
    let head = header(s, merchant, tz, made_at, rows, &sha);
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
                let filter = l
                    .filter
                    .map(|f| serde_json::to_string(f).unwrap_or_default())
                    .unwrap_or_default();
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
            w.write_record(HEADERS).map_err(|e| io(&e))?;
            orders.for_each(&rows_filter(s), &mut |o| {
                w.write_record(safe_record(cells(o, dict, tz)))
                    .map_err(|e| io(&e))
            })?;
            w.flush().map_err(|e| io(&e))?;
        }
        // Said once: an error of the cache as it is, the workbook's with the path.
        Format::Xlsx => match write_xlsx(orders, s, dict, out.file(), tz, made_at, &head) {
            Ok(()) => {}
            Err(Failed::Core(e)) => return Err(e),
            Err(Failed::Xlsx(e)) => return Err(io(&e)),
        },
        Format::Pdf => {
            let codes: Vec<&str> = s.currencies.iter().map(|c| c.currency.as_str()).collect();
            let heading = super::pdf::Heading { pairs: &head };
            let bytes = super::pdf::write(&heading, &lines(s), &codes);
            std::io::Write::write_all(out.file(), &bytes).map_err(|e| io(&e))?;
        }
    }
    out.commit()?;
    Ok(StatementExport {
        rows,
        sha256: sha,
        made_at,
        time_zone: zone_name(tz),
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
fn excel_time(millis: i64, tz: FixedOffset) -> Result<rust_xlsxwriter::ExcelDateTime, Failed> {
    let local = millis.div_euclid(1000) + i64::from(tz.local_minus_utc());
    Ok(rust_xlsxwriter::ExcelDateTime::from_timestamp(local)?)
}

fn write_xlsx(
    orders: &dyn OrderStore,
    s: &Statement,
    dict: &StateDictionary,
    to: &mut std::fs::File,
    tz: FixedOffset,
    made_at: i64,
    head: &[(&'static str, String)],
) -> Result<(), Failed> {
    use rust_xlsxwriter::{Format as Fmt, Workbook};
    let mut book = Workbook::new();
    let bold = Fmt::new().set_bold();
    let date = Fmt::new().set_num_format("yyyy-mm-dd hh:mm:ss");
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
        for (k, v) in head {
            sheet.write_string_with_format(row, 0, *k, &bold)?;
            match *k {
                "from" => sheet.write_datetime_with_format(
                    row,
                    1,
                    excel_time(s.period.from, tz)?,
                    &date,
                )?,
                "to" => {
                    sheet.write_datetime_with_format(row, 1, excel_time(s.period.to, tz)?, &date)?
                }
                "madeAt" => {
                    sheet.write_datetime_with_format(row, 1, excel_time(made_at, tz)?, &date)?
                }
                "rows" => sheet.write_number(row, 1, v.parse::<f64>().unwrap_or(0.0))?,
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
                sheet.write_with_format(row, 6, d, &money)?;
            }
            sheet.write_string(row, 7, l.field)?;
            if let Some(f) = l.filter {
                sheet.write_string(row, 8, serde_json::to_string(f).unwrap_or_default())?;
            }
        }
        sheet.set_column_width(0, 12)?;
        sheet.set_column_width(1, 22)?;
        sheet.set_column_width(2, 22)?;
        sheet.set_column_width(6, 16)?;
    }
    let sheet = book.add_worksheet_with_constant_memory()?;
    sheet.set_name("Orders")?;
    for (c, h) in HEADERS.iter().enumerate() {
        sheet.write_string_with_format(0, c as u16, *h, &bold)?;
    }
    let mut formats = HashMap::new();
    let mut row = 0u32;
    let mut failed: Option<Failed> = None;
    let read = orders.for_each(&rows_filter(s), &mut |o| {
        row += 1;
        write_row(sheet, row, o, cells(o, dict, tz), &mut formats).map_err(|e| {
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
