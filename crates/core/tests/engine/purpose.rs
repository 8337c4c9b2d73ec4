//! A reason on every movement (issue 35, item 3), on a desk against a sandbox on
//! loopback with real SQLite files: the purpose a payout, payin, card move or bulk row
//! is given travels with its journal entry, its audit row, its order's timeline, the
//! orders export and the statement's orders sheet; a profile can require one, and a
//! movement without it is refused before anything is journaled, naming the field.

#![allow(clippy::unwrap_used)]

use crate::common;

use paydesk_core::CoreError;
use paydesk_core::audit::AuditFilter;
use paydesk_core::bulk;
use paydesk_core::desk::TimelineEvent;
use paydesk_core::forms::{CardForm, CardMove, PayinForm, PayinMethod, PayoutForm, PayoutKind};
use paydesk_core::journal::Status;
use paydesk_core::purpose::Purpose;
use paydesk_core::store::orders::OrderFilter;
use paydesk_reports::DeskReports;

const CLABE: &str = "002010077777777771";

fn clabe_payout(no: &str, amount: &str, purpose: Purpose) -> PayoutForm {
    PayoutForm {
        clabe: CLABE.into(),
        purpose,
        ..PayoutForm::new(PayoutKind::Clabe, no, amount, "MXN")
    }
}

fn rule_of(e: &CoreError) -> (String, Option<String>) {
    match e {
        CoreError::Validation { field, rule } => (field.clone(), rule.key.clone()),
        other => panic!("not a field rule: {other:?}"),
    }
}

fn require_purpose(f: &common::Fixture) {
    let mut p = f.home.get(&f.name).unwrap();
    p.safety.purpose_required = true;
    f.home.put(p).unwrap();
}

/// Reads a CSV file's rows (header first) as strings.
fn csv_rows(path: &std::path::Path) -> Vec<Vec<String>> {
    let mut rd = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .from_path(path)
        .unwrap();
    rd.records()
        .map(|r| r.unwrap().iter().map(str::to_string).collect())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payouts_purpose_is_in_its_journal_entry_audit_row_timeline_export_and_statement() {
    let f = common::Fixture::new("why").await;
    let desk = f.desk().await;
    let given = Purpose::new("  March payroll — Nómina ", " INV-1042 ");
    let r = desk
        .money()
        .payout(&clabe_payout("PO-WHY-1", "125.50", given))
        .await
        .unwrap();
    assert_eq!(r.entry.status, Status::Accepted);
    let want = Purpose::new("March payroll — Nómina", "INV-1042");
    // The journal keeps it with the entry (trimmed), read back from the file.
    let entry = desk.journal().entry_by_number("PO-WHY-1").unwrap().unwrap();
    assert_eq!(entry.purpose.as_ref(), Some(&want));
    // A payout with none keeps none (never an invented value).
    desk.money()
        .payout(&clabe_payout("PO-WHY-2", "10", Purpose::default()))
        .await
        .unwrap();
    let bare = desk.journal().entry_by_number("PO-WHY-2").unwrap().unwrap();
    assert_eq!(bare.purpose, None);

    // The audit row of the send says why, quoted.
    let rows = desk
        .journal()
        .audit_list(&AuditFilter {
            text: Some("PO-WHY-1".into()),
            ..AuditFilter::default()
        })
        .unwrap();
    let sent = rows
        .iter()
        .find(|a| a.operation == "v2.payout")
        .expect("the payout's audit row");
    assert!(
        sent.identifiers
            .contains(r#"purpose="March payroll — Nómina" ref="INV-1042""#),
        "{}",
        sent.identifiers
    );

    // The order's timeline: the request that made it, with its purpose.
    let trade_no = entry.trade_no.clone().unwrap();
    let timeline = desk.orders().order_timeline(&trade_no).unwrap();
    let request = timeline
        .iter()
        .find_map(|e| match e {
            TimelineEvent::Request { purpose, .. } => Some(purpose.clone()),
            _ => None,
        })
        .expect("the request on the timeline");
    assert_eq!(request, Some(want.clone()));

    // The orders export: purpose and purposeRef after its own columns; empty for the
    // payout given none.
    let csv = f.dir.path().join("orders.csv");
    desk.export(
        &OrderFilter::default(),
        &csv,
        paydesk_core::output::Existing::Replace,
        chrono::FixedOffset::east_opt(0).unwrap(),
        |_, _| {},
    )
    .unwrap();
    let rows = csv_rows(&csv);
    let head = &rows[0];
    let col = |name: &str| head.iter().position(|h| h == name).unwrap();
    let (no, purpose, reference) = (col("merOrderNo"), col("purpose"), col("purposeRef"));
    let of = |n: &str| rows.iter().find(|r| r[no] == n).unwrap().clone();
    assert_eq!(of("PO-WHY-1")[purpose], want.text);
    assert_eq!(of("PO-WHY-1")[reference], want.reference);
    assert_eq!(of("PO-WHY-2")[purpose], "");
    assert_eq!(of("PO-WHY-2")[reference], "");

    // The statement's orders sheet (CSV: its last section) carries the same.
    let now = chrono::Utc::now().timestamp_millis();
    let period = paydesk_reports::statement::Period::new(now - 86_400_000, now + 60_000).unwrap();
    let statement = f.dir.path().join("statement.csv");
    desk.export_statement(
        period,
        None,
        &statement,
        paydesk_core::output::Existing::Replace,
        paydesk_reports::statement::Zone::UTC,
    )
    .unwrap();
    let rows = csv_rows(&statement);
    let at = rows
        .iter()
        .position(|r| r.first().is_some_and(|c| c == "Trade number"))
        .expect("the orders section");
    let head = &rows[at];
    let p = head.iter().position(|h| h == "Purpose").unwrap();
    let rf = head.iter().position(|h| h == "Purpose reference").unwrap();
    let mer = head
        .iter()
        .position(|h| h == "Merchant order number")
        .unwrap();
    let line = rows[at + 1..]
        .iter()
        .find(|r| r.get(mer).is_some_and(|c| c == "PO-WHY-1"))
        .expect("the payout on the orders sheet");
    assert_eq!(
        (line[p].as_str(), line[rf].as_str()),
        ("March payroll — Nómina", "INV-1042")
    );
    let bare = rows[at + 1..]
        .iter()
        .find(|r| r.get(mer).is_some_and(|c| c == "PO-WHY-2"))
        .unwrap();
    assert_eq!(bare.get(p).map(String::as_str).unwrap_or(""), "");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_required_purpose_missing_is_refused_before_anything_is_journaled() {
    let f = common::Fixture::new("whyreq").await;
    require_purpose(&f);
    let desk = f.desk().await;
    let before = f.running.sandbox.traffic().requests;

    // Payout: refused at the confirmation's preview and at the send, naming the field.
    let form = clabe_payout("PO-REQ-1", "10", Purpose::new("  ", "INV-7"));
    let e = desk.money().payout_preview(&form).unwrap_err();
    assert_eq!(
        rule_of(&e),
        ("purpose".into(), Some("purposeRequired".into()))
    );
    let e = desk.money().payout(&form).await.unwrap_err();
    assert_eq!(
        rule_of(&e),
        ("purpose".into(), Some("purposeRequired".into()))
    );
    // Payin and card moves alike.
    let payin = PayinForm {
        email: "a@example.com".into(),
        user_id: "u1".into(),
        ..PayinForm::new(PayinMethod::Wechat, "PI-REQ-1", "10", "USD")
    };
    let e = desk.money().payin(&payin).await.unwrap_err();
    assert_eq!(rule_of(&e).0, "purpose");
    let card = CardForm {
        kind: CardMove::TopUp,
        card: "CARD-1".into(),
        reference: "TU-REQ-1".into(),
        amount: "5".into(),
        currency: "USD".into(),
        sub_mer_no: String::new(),
        remark: String::new(),
        purpose: Purpose::default(),
    };
    let e = desk.money().card(&card).await.unwrap_err();
    assert_eq!(rule_of(&e).0, "purpose");
    // A control or direction-changing character is refused naming its field, too.
    let e = desk
        .money()
        .payout(&clabe_payout(
            "PO-REQ-2",
            "10",
            Purpose::new("Rent", "INV\u{202e}1"),
        ))
        .await
        .unwrap_err();
    assert_eq!(
        rule_of(&e),
        ("purposeRef".into(), Some("purposeCharacter".into()))
    );
    let e = desk
        .money()
        .payout(&clabe_payout(
            "PO-REQ-3",
            "10",
            Purpose::new("x".repeat(141), ""),
        ))
        .await
        .unwrap_err();
    assert_eq!(
        rule_of(&e),
        ("purpose".into(), Some("purposeTooLong".into()))
    );

    // Nothing was journaled, nothing reached the gateway.
    for no in ["PO-REQ-1", "PI-REQ-1", "TU-REQ-1", "PO-REQ-2", "PO-REQ-3"] {
        assert!(
            desk.journal().entry_by_number(no).unwrap().is_none(),
            "{no}"
        );
    }
    assert_eq!(f.running.sandbox.traffic().requests, before);

    // With a purpose it goes; a top-up without a remark sends the purpose as its remark.
    let ok = desk
        .money()
        .card(&CardForm {
            purpose: Purpose::new("Float for the Monterrey office", "T-88"),
            ..card
        })
        .await
        .unwrap();
    assert_eq!(ok.entry.status, Status::Accepted);
    let e = desk.journal().entry_by_number("TU-REQ-1").unwrap().unwrap();
    assert_eq!(
        e.request.get("remark").and_then(|v| v.as_str()),
        Some("Float for the Monterrey office [ref T-88]")
    );
    assert_eq!(
        e.purpose,
        Some(Purpose::new("Float for the Monterrey office", "T-88"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bulk_rows_take_their_purpose_column_or_the_runs_and_a_required_one_is_a_row_error() {
    let f = common::Fixture::new("whybulk").await;
    let desk = f.desk().await;
    let csv = format!(
        "type,amount,currency,account,merOrderNo,purpose,reference\n\
         clabe,10.00,MXN,{CLABE},PO-B-1,Payroll Ana,EMP-1\n\
         clabe,11.00,MXN,{CLABE},PO-B-2,,EMP-2\n\
         clabe,12.00,MXN,{CLABE},PO-B-3,,\n\
         clabe,13.00,MXN,{CLABE},PO-B-4,\"bad\nline\",\n"
    );
    let path = f.dir.path().join("run.csv");
    std::fs::write(&path, csv).unwrap();
    let ctx = desk.money().bulk_context().unwrap();

    // Read: the bad purpose is that row's error, naming the file's column.
    let file = bulk::read(&path, &ctx).unwrap();
    let errors: Vec<(usize, &str)> = file
        .errors
        .iter()
        .map(|e| (e.line, e.field.as_str()))
        .collect();
    assert_eq!(errors, [(5, "purpose")]);

    // Required by the profile, with no run purpose: the rows without one are errors.
    let mut required = file.clone();
    required
        .with_default_purpose(&Purpose::default(), true)
        .unwrap();
    let mut lines: Vec<(usize, &str)> = required
        .errors
        .iter()
        .map(|e| (e.line, e.field.as_str()))
        .collect();
    lines.sort();
    assert_eq!(lines, [(3, "purpose"), (4, "purpose"), (5, "purpose")]);
    assert_eq!(required.rows.len(), 1);

    // The desk refuses a run of rows without a required purpose before journaling any.
    require_purpose(&f);
    let strict = f.desk().await;
    let e = strict
        .money()
        .bulk_payouts(&file, false, None, |_, _| {})
        .await
        .unwrap_err();
    assert_eq!(rule_of(&e).0, "purpose");
    for no in ["PO-B-1", "PO-B-2", "PO-B-3"] {
        assert!(
            strict.journal().entry_by_number(no).unwrap().is_none(),
            "{no}"
        );
    }

    // A run purpose fills the rows without one (a row's own reference kept).
    let mut file = file;
    file.with_default_purpose(&Purpose::new("March payroll", "RUN-3"), true)
        .unwrap();
    let results = strict
        .money()
        .bulk_payouts(&file, false, None, |_, _| {})
        .await
        .unwrap();
    assert_eq!(
        results
            .iter()
            .filter(|r| r.status == bulk::RowStatus::Accepted)
            .count(),
        3
    );
    let purpose = |no: &str| {
        strict
            .journal()
            .entry_by_number(no)
            .unwrap()
            .unwrap()
            .purpose
            .unwrap()
    };
    assert_eq!(purpose("PO-B-1"), Purpose::new("Payroll Ana", "EMP-1"));
    assert_eq!(purpose("PO-B-2"), Purpose::new("March payroll", "EMP-2"));
    assert_eq!(purpose("PO-B-3"), Purpose::new("March payroll", "RUN-3"));
}
