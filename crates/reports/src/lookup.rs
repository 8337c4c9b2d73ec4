//! A bulk look-up's table written to a file (`paydesk_core::desk::LookupReport`, made by
//! `Orders::bulk_lookup`): CSV or XLSX, every cell safe from a spreadsheet's formulas.

use std::io::Write;
use std::path::Path;

use paydesk_core::desk::{LookupReport, LookupRow};

use crate::error::{CoreError, CoreResult};

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The table's columns, for CSV and XLSX.
pub const LOOKUP_HEADERS: [&str; 11] = [
    "Number",
    "Line",
    "Found",
    "Trade number",
    "Merchant order number",
    "State",
    "State meaning",
    "Amount",
    "Currency",
    "Also matches",
    "Not listed on refresh",
];

fn record(r: &LookupRow) -> [String; 11] {
    let opt = |o: &Option<String>| o.clone().unwrap_or_default();
    [
        r.number.clone(),
        r.line.to_string(),
        r.found.label().to_string(),
        opt(&r.trade_no),
        opt(&r.mer_order_no),
        r.state.map(|s| s.to_string()).unwrap_or_default(),
        r.meaning
            .map(|m| m.as_str().to_string())
            .unwrap_or_default(),
        opt(&r.amount),
        opt(&r.currency),
        r.also.join(" "),
        if r.unlisted {
            "yes".into()
        } else {
            String::new()
        },
    ]
}

/// Writes the report's rows as CSV (a cell the gateway did not give is empty; the
/// Found column says why).
pub fn write_csv(report: &LookupReport, w: impl Write) -> CoreResult<()> {
    let mut w = csv::Writer::from_writer(w);
    let io = |e: csv::Error| CoreError::Internal {
        message: format!("writing the look-up: {e}"),
    };
    w.write_record(LOOKUP_HEADERS).map_err(io)?;
    for r in &report.rows {
        w.write_record(crate::output::safe_record(record(r)))
            .map_err(io)?;
    }
    w.flush().map_err(|e| CoreError::Internal {
        message: format!("writing the look-up: {e}"),
    })
}

/// Writes the report to `path` (`.csv` or `.xlsx`).
pub fn export_lookup(
    report: &LookupReport,
    path: &Path,
    existing: crate::output::Existing,
) -> CoreResult<u32> {
    let xlsx = match path
        .extension()
        .and_then(|e| e.to_str())
        .map(str::to_ascii_lowercase)
        .as_deref()
    {
        Some("csv") => false,
        Some("xlsx") => true,
        _ => {
            return Err(CoreError::keyed(
                "path",
                "must end in .csv or .xlsx",
                "pathCsvXlsx",
                &[],
            ));
        }
    };
    let mut out = crate::output::create(path, existing)?;
    let io = |e: &dyn std::fmt::Display| crate::output::write_error(path, e);
    if xlsx {
        let mut book = rust_xlsxwriter::Workbook::new();
        let sheet = book.add_worksheet();
        sheet.set_name("Look-up").map_err(|e| io(&e))?;
        let bold = rust_xlsxwriter::Format::new().set_bold();
        for (c, h) in LOOKUP_HEADERS.iter().enumerate() {
            sheet
                .write_string_with_format(0, c as u16, *h, &bold)
                .map_err(|e| io(&e))?;
        }
        for (n, r) in report.rows.iter().enumerate() {
            let row = u32_of(n + 1);
            for (c, cell) in record(r).iter().enumerate() {
                sheet
                    .write_string(row, c as u16, cell)
                    .map_err(|e| io(&e))?;
            }
        }
        book.save_to_writer(out.file()).map_err(|e| io(&e))?;
    } else {
        write_csv(report, out.file())?;
    }
    out.commit()?;
    Ok(u32_of(report.rows.len()))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use paydesk_core::desk::{Found, GatewayAsked};

    use super::*;

    fn row_of(number: &str, line: u32, found: Found) -> LookupRow {
        LookupRow {
            number: number.to_string(),
            line,
            found,
            trade_no: None,
            mer_order_no: None,
            state: None,
            meaning: None,
            amount: None,
            currency: None,
            also: Vec::new(),
            unlisted: false,
            sent_at: None,
            grace_until: None,
        }
    }

    fn report() -> LookupReport {
        let mut found = row_of("=M-1", 1, Found::Gateway);
        found.trade_no = Some("T1".into());
        found.amount = Some("12.50".into());
        found.currency = Some("USD".into());
        found.state = Some(5);
        LookupReport {
            rows: vec![found, row_of("NOPE", 2, Found::NotFound)],
            rejected: Vec::new(),
            duplicates: 0,
            gateway: GatewayAsked::Asked,
            gateway_error: None,
            requests: 1,
            batch_size: 500,
            cache_updated: 0,
        }
    }

    #[test]
    fn the_table_is_written_to_csv_and_xlsx_and_a_file_there_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let csv_path = dir.path().join("lookup.csv");
        let keep = crate::output::Existing::replace_if(false);
        assert_eq!(export_lookup(&report(), &csv_path, keep).unwrap(), 2);
        let mut rd = csv::Reader::from_path(&csv_path).unwrap();
        let rows: Vec<csv::StringRecord> = rd.records().map(Result::unwrap).collect();
        // A number a spreadsheet would run as a formula is written as text.
        assert_eq!(&rows[0][0], "'=M-1");
        assert_eq!(
            (&rows[0][2], &rows[0][7], &rows[0][8]),
            ("at the gateway", "12.50", "USD")
        );
        // Not given stays empty: nothing invented.
        assert_eq!(
            (&rows[1][2], &rows[1][3], &rows[1][7]),
            ("not found", "", "")
        );
        assert!(
            export_lookup(&report(), &csv_path, keep).is_err(),
            "replaced a file"
        );
        let xlsx = dir.path().join("lookup.xlsx");
        export_lookup(&report(), &xlsx, keep).unwrap();
        assert!(std::fs::read(&xlsx).unwrap().starts_with(b"PK"));
        let err = export_lookup(&report(), &dir.path().join("a.txt"), keep).unwrap_err();
        assert!(err.to_string().contains(".csv or .xlsx"), "{err}");
    }
}
