//! Export of the filtered order list, the whole set and not one page, to CSV or XLSX,
//! streamed from the cache row by row. Dates carry an explicit time zone column.

use std::path::Path;

use chrono::{TimeZone, Utc};
use rust_decimal::Decimal;
use serde::{Deserialize, Serialize};

use crate::error::{CoreError, CoreResult};
use crate::output::Existing;
/// Moved to the engine with the desk's other CSV writers; kept at this path.
pub use crate::output::{safe_cell, safe_record};
use crate::store::orders::{CachedOrder, OrderFilter, OrderStore};
use paydesk_core::period::{Zone, zone_name};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    Csv,
    Xlsx,
}

impl Format {
    /// From a file name's extension.
    pub fn from_path(path: &Path) -> CoreResult<Self> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase)
            .as_deref()
        {
            Some("csv") => Ok(Self::Csv),
            Some("xlsx") => Ok(Self::Xlsx),
            _ => Err(CoreError::keyed(
                "path",
                "must end in .csv or .xlsx",
                "pathCsvXlsx",
                &[],
            )),
        }
    }
}

/// [`HEADERS`] in a finance team's words, for the orders of a statement (the orders
/// export keeps the gateway's field names, which other tools read).
pub const LABELS: [&str; 20] = [
    "Trade number",
    "Merchant order number",
    "Date",
    "Time zone",
    "State",
    "State meaning",
    "Payment method",
    "Currency",
    "Order amount",
    "Handling fee",
    "Fixed fee",
    "Received amount",
    "Settled amount",
    "Rolling reserve",
    "Refunded amount",
    "Settled (1 yes, 0 no)",
    "Refusal reason",
    "Message",
    "Kind",
    "Exception fee",
];

pub const HEADERS: [&str; 20] = [
    "tradeNo",
    "merOrderNo",
    "date",
    "timeZone",
    "state",
    "stateMeaning",
    "method",
    "currency",
    "sourceAmount",
    "handlingFee",
    "transactionFixedFee",
    "receiveAmount",
    "settleAmount",
    "rollingReserve",
    "refundAmount",
    "settle",
    "refusalPayReason",
    "message",
    "kind",
    "exceptionHandlingFee",
];

/// The orders export's last column, after [`HEADERS`]: `yes` for an order no request
/// of the team made (on a team's read model; never on a single desk's cache).
pub const OUTSIDE_TEAM_HEADER: &str = "outsideTeam";

fn outside_team_cell(o: &CachedOrder) -> &'static str {
    if o.outside_team { "yes" } else { "" }
}

/// The XLSX number format that shows an amount with its currency's minor digits
/// (`0.00` for USD, `0` for JPY, `0.000` for BHD); two digits for an unknown code.
pub(crate) fn amount_format(currency: &str) -> rust_xlsxwriter::Format {
    let digits = paydesk_gateway::money::Currency::parse(currency)
        .map(|c| c.minor_units())
        .unwrap_or(2);
    let pattern = if digits == 0 {
        "#,##0".to_string()
    } else {
        format!("#,##0.{}", "0".repeat(digits as usize))
    };
    rust_xlsxwriter::Format::new().set_num_format(pattern)
}

pub(crate) fn cells(
    o: &CachedOrder,
    dict: &paydesk_gateway::StateDictionary,
    tz: Zone,
) -> [String; 20] {
    // The time of day is known only for an order the journal made; the gateway's list
    // gives its day (UTC), which is written as a day, in UTC, never as a midnight.
    let at = Utc.timestamp_millis_opt(o.created_at).single();
    let (date, zone) = match (at, o.made_at) {
        // The zone's offset at that moment (daylight saving decided here, per order).
        (Some(t), Some(_)) => {
            let offset = tz.offset_at(o.created_at);
            (
                t.with_timezone(&offset)
                    .format("%Y-%m-%d %H:%M:%S")
                    .to_string(),
                zone_name(offset),
            )
        }
        (Some(t), None) => (t.format("%Y-%m-%d").to_string(), "UTC".to_string()),
        (None, _) => (String::new(), String::new()),
    };
    let meaning = dict
        .meaning(
            paydesk_gateway::StateField::OrderState,
            &o.state.to_string(),
        )
        .map_or("unknown", |m| m.as_str())
        .to_string();
    let s = |v: &Option<String>| v.clone().unwrap_or_default();
    [
        o.trade_no.clone(),
        o.mer_order_no.clone(),
        date,
        zone,
        o.state.to_string(),
        meaning,
        o.method.clone(),
        o.currency.clone(),
        o.source_amount.clone(),
        s(&o.handling_fee),
        s(&o.transaction_fixed_fee),
        s(&o.receive_amount),
        s(&o.settle_amount),
        s(&o.rolling_reserve),
        s(&o.refund_amount),
        o.settle.map(|v| v.to_string()).unwrap_or_default(),
        o.refusal_pay_reason.clone(),
        o.message.clone(),
        o.kind.map(|k| k.as_str().to_string()).unwrap_or_default(),
        s(&o.exception_handling_fee),
    ]
}

/// Columns that hold amounts (written as numbers in XLSX).
pub(crate) const AMOUNT_COLUMNS: [usize; 8] = [8, 9, 10, 11, 12, 13, 14, 19];

/// The currency an amount column is in, where the gateway says it: the source amount
/// in the order's currency, the settlement in the settlement currency, the refund in
/// the refund currency. The fees, the amount received and the reserve come without one:
/// they are written as the exact numbers given, with no digits assumed.
pub(crate) fn column_currency(o: &CachedOrder, column: usize) -> Option<&str> {
    let code = match column {
        8 => o.currency.as_str(),
        12 => o.settlement_currency.as_str(),
        14 => o.refund_currency.as_str(),
        _ => "",
    };
    Some(code).filter(|c| !c.is_empty())
}

/// Writes one order's `cells` on `row` of `sheet`: strings as strings (never read as a
/// formula), amounts as numbers, shown with their currency's digits where it is given.
/// The note on an amount written as text.
pub(crate) const EXACT_AS_TEXT: &str =
    "More than 15 significant digits: written as exact text (a spreadsheet number would round it).";

/// How many significant digits an amount has (a spreadsheet number keeps 15).
pub(crate) fn significant_digits(d: Decimal) -> u32 {
    let m = d.normalize().mantissa().unsigned_abs();
    if m == 0 { 1 } else { m.ilog10() + 1 }
}

pub(crate) fn write_row(
    sheet: &mut rust_xlsxwriter::Worksheet,
    row: u32,
    o: &CachedOrder,
    cells: [String; 20],
    formats: &mut std::collections::HashMap<String, rust_xlsxwriter::Format>,
) -> Result<(), rust_xlsxwriter::XlsxError> {
    for (c, value) in cells.into_iter().enumerate() {
        let number = AMOUNT_COLUMNS
            .contains(&c)
            .then(|| value.parse::<Decimal>().ok())
            .flatten();
        let format = column_currency(o, c).map(|cur| {
            formats
                .entry(cur.to_string())
                .or_insert_with(|| amount_format(cur))
                .clone()
        });
        match (number, format) {
            // A spreadsheet number keeps 15 significant digits: a longer amount is its
            // exact text, with a note saying so.
            (Some(d), _) if significant_digits(d) > 15 => {
                sheet.write_string(row, c as u16, &value)?;
                sheet
                    .insert_note(row, c as u16, &rust_xlsxwriter::Note::new(EXACT_AS_TEXT))
                    .map(|_| ())
            }
            (Some(d), Some(f)) => sheet.write_with_format(row, c as u16, d, &f).map(|_| ()),
            (Some(d), None) => sheet.write(row, c as u16, d).map(|_| ()),
            (None, _) => sheet.write_string(row, c as u16, value).map(|_| ()),
        }?;
    }
    Ok(())
}

/// Writes every order matching `filter` to `path` ([`crate::output`]: a regular file,
/// replaced only with [`Existing::Replace`]); `progress(done, total)` is called as rows
/// are written. Returns the number of rows.
pub fn export(
    orders: &dyn OrderStore,
    filter: &OrderFilter,
    path: &Path,
    existing: Existing,
    tz: impl Into<Zone>,
    dict: &paydesk_gateway::StateDictionary,
    progress: impl FnMut(u64, u64),
) -> CoreResult<u64> {
    export_with(orders, filter, path, existing, tz, dict, None, progress)
}

/// [`export`] with the journal's purposes (issue 35): two more columns after
/// [`OUTSIDE_TEAM_HEADER`], [`crate::purposes::HEADERS`], empty for an order this desk
/// did not make. What the desk's export writes ([`crate::DeskReports::export`]).
#[allow(clippy::too_many_arguments)]
pub fn export_with(
    orders: &dyn OrderStore,
    filter: &OrderFilter,
    path: &Path,
    existing: Existing,
    tz: impl Into<Zone>,
    dict: &paydesk_gateway::StateDictionary,
    purposes: Option<&crate::purposes::Purposes>,
    mut progress: impl FnMut(u64, u64),
) -> CoreResult<u64> {
    let tz = tz.into();
    let extra: &[&str] = if purposes.is_some() {
        &crate::purposes::HEADERS
    } else {
        &[]
    };
    let purpose_cells = |o: &CachedOrder| purposes.map(|p| p.cells(o)).unwrap_or_default();
    let format = Format::from_path(path)?;
    let mut out = crate::output::create(path, existing)?;
    let total = orders.count(filter)? as u64;
    let mut done = 0u64;
    let tick = |done: u64, progress: &mut dyn FnMut(u64, u64)| {
        if done.is_multiple_of(5000) {
            progress(done, total);
        }
    };
    let io = |e: &dyn std::fmt::Display| crate::output::write_error(path, e);
    match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(out.file());
            w.write_record(HEADERS.iter().chain([&OUTSIDE_TEAM_HEADER]).chain(extra))
                .map_err(|e| io(&e))?;
            orders.for_each(filter, &mut |o| {
                let mut row = safe_record(cells(o, dict, tz));
                row.push(outside_team_cell(o).to_string());
                if purposes.is_some() {
                    row.extend(safe_record(purpose_cells(o)));
                }
                w.write_record(row).map_err(|e| io(&e))?;
                done += 1;
                tick(done, &mut progress);
                Ok(())
            })?;
            w.flush().map_err(|e| io(&e))?;
        }
        Format::Xlsx => {
            let mut book = rust_xlsxwriter::Workbook::new();
            let sheet = book
                .add_worksheet_with_constant_memory()
                .map_err(|e| io(&e))?;
            sheet.set_name("Orders").map_err(|e| io(&e))?;
            let bold = rust_xlsxwriter::Format::new().set_bold();
            let mut formats = std::collections::HashMap::new();
            for (c, h) in HEADERS
                .iter()
                .chain([&OUTSIDE_TEAM_HEADER])
                .chain(extra)
                .enumerate()
            {
                sheet
                    .write_string_with_format(0, c as u16, *h, &bold)
                    .map_err(|e| io(&e))?;
            }
            orders.for_each(filter, &mut |o| {
                done += 1;
                let row = u32::try_from(done).map_err(|_| {
                    CoreError::keyed(
                        "rows",
                        "more rows than a worksheet holds",
                        "sheetTooManyRows",
                        &[],
                    )
                })?;
                write_row(sheet, row, o, cells(o, dict, tz), &mut formats).map_err(|e| io(&e))?;
                sheet
                    .write_string(row, HEADERS.len() as u16, outside_team_cell(o))
                    .map_err(|e| io(&e))?;
                if purposes.is_some() {
                    for (i, v) in purpose_cells(o).iter().enumerate() {
                        sheet
                            .write_string(row, (HEADERS.len() + 1 + i) as u16, v)
                            .map_err(|e| io(&e))?;
                    }
                }
                tick(done, &mut progress);
                Ok(())
            })?;
            book.save_to_writer(out.file()).map_err(|e| io(&e))?;
        }
    }
    out.commit()?;
    progress(done, total);
    Ok(done)
}

#[cfg(test)]
mod zone_tests {
    use super::*;

    fn made_at(ms: i64) -> CachedOrder {
        serde_json::from_value(serde_json::json!({
            "tradeNo": "T1", "merOrderNo": "PO-1", "state": 2, "method": "", "currency": "EUR",
            "sourceAmount": "1.00", "handlingFee": null, "receiveAmount": null,
            "settleAmount": null, "rollingReserve": null, "transactionFixedFee": null,
            "refundAmount": null, "refundCurrency": "", "settlementCurrency": "",
            "rollingReserveStatus": null, "settle": null, "refusalPayReason": "",
            "message": "", "createdAt": ms, "syncedAt": null, "signatureVerified": true,
            "kind": null, "madeAt": ms, "exceptionHandlingFee": null
        }))
        .unwrap_or_else(|e| panic!("{e}"))
    }

    /// An export in a zone with daylight saving writes each order with the offset of its
    /// own moment (the UI once sent today's offset for every order).
    #[test]
    fn each_order_is_written_with_the_offset_of_its_own_day() {
        let berlin = paydesk_core::period::parse_zone("tz", "Europe/Berlin")
            .unwrap_or_else(|e| panic!("{e}"));
        let dict = paydesk_gateway::StateDictionary::default();
        let at = |m: u32| {
            Utc.with_ymd_and_hms(2026, m, 15, 12, 0, 0)
                .single()
                .map(|t| t.timestamp_millis())
                .unwrap_or_default()
        };
        let winter = cells(&made_at(at(1)), &dict, berlin);
        let summer = cells(&made_at(at(7)), &dict, berlin);
        assert!(
            winter.contains(&"2026-01-15 13:00:00".to_string()),
            "{winter:?}"
        );
        assert!(winter.contains(&"UTC+01:00".to_string()), "{winter:?}");
        assert!(
            summer.contains(&"2026-07-15 14:00:00".to_string()),
            "{summer:?}"
        );
        assert!(summer.contains(&"UTC+02:00".to_string()), "{summer:?}");
    }
}
