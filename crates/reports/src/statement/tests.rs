//! The statement's arithmetic on hand-built orders, through the SQLite cache's grouping.

use paydesk_gateway::wire::OrderListItem;
use rusqlite::Connection;
use rust_decimal::Decimal;

use super::*;
use crate::store::orders::MadeOrder;
use paydesk_store_sqlite::orders::Orders;

fn d(s: &str) -> Decimal {
    s.parse().unwrap()
}

fn o(n: u32, currency: &str, state: i64, amount: &str) -> OrderListItem {
    OrderListItem {
        state,
        mer_order_no: format!("M{n:06}"),
        trade_no: format!("T{n:06}"),
        source_amount: d(amount),
        source_currency: currency.into(),
        settlement_currency: currency.into(),
        ..OrderListItem::default()
    }
}

/// The orders of the period [1000, 2000) and two outside it.
fn cache() -> Connection {
    let mut conn = Connection::open_in_memory().unwrap();
    paydesk_store_sqlite::migrate(&mut conn).unwrap();
    let opt = |s: &str| Some(d(s));
    let a = OrderListItem {
        handling_fee: opt("0.1"),
        transaction_fixed_fee: opt("0.2"),
        exception_handling_fee: opt("0.05"),
        rolling_reserve: opt("10"),
        rolling_reserve_status: Some(0),
        settle: Some(1),
        settle_amount: opt("89.65"),
        receive_amount: opt("89.65"),
        ..o(1, "USD", 5, "100.00")
    };
    let c = OrderListItem {
        handling_fee: opt("0.2"),
        rolling_reserve: opt("2"),
        rolling_reserve_status: Some(1),
        settle: Some(0),
        receive_amount: opt("17.8"),
        refund_amount: opt("20"),
        ..o(3, "USD", 6, "20")
    };
    let dd = OrderListItem {
        handling_fee: opt("0.3"),
        rolling_reserve: opt("3"),
        receive_amount: opt("26.7"),
        ..o(4, "USD", 8, "30")
    };
    let e = OrderListItem {
        handling_fee: opt("1"),
        ..o(5, "USD", 3, "40")
    };
    let g = OrderListItem {
        handling_fee: opt("0.0001"),
        rolling_reserve: opt("0"),
        rolling_reserve_status: Some(0),
        settle: Some(1),
        settle_amount: opt("5"),
        receive_amount: opt("9.9999"),
        refund_amount: opt("5"),
        ..o(7, "USD", 7, "10")
    };
    let p = OrderListItem {
        handling_fee: opt("1.5"),
        transaction_fixed_fee: opt("0.5"),
        ..o(8, "USD", 5, "25")
    };
    let eur = OrderListItem {
        handling_fee: opt("0.1"),
        settle: Some(1),
        ..o(9, "EUR", 5, "10.10")
    };
    let jpy = OrderListItem {
        handling_fee: opt("30"),
        ..o(10, "JPY", 5, "1000")
    };
    let orders = Orders::on(&conn);
    let inside = vec![a, c, dd, e, o(6, "USD", 2, "60"), g, p, eur, jpy];
    orders.upsert_items(1, &inside, 1500, true).unwrap();
    orders
        .upsert_items(1, &[o(11, "USD", 5, "7")], 2000, true)
        .unwrap();
    orders
        .upsert_items(1, &[o(12, "USD", 5, "9")], 999, true)
        .unwrap();
    // Every order's kind is known (from the journal or the conventions' rules) but the
    // pending USD payin 6's: it is on the line of orders of unknown kind.
    let known = [1, 3, 4, 5, 7, 9, 10].map(|n| (n, OrderKind::Payin));
    for (n, kind) in known.into_iter().chain([(8, OrderKind::Payout)]) {
        let made = MadeOrder {
            trade_no: format!("T{n:06}"),
            mer_order_no: format!("M{n:06}"),
            kind,
            method: String::new(),
            currency: "USD".into(),
            amount: Decimal::ZERO,
            state: None,
            made_at: 1500,
        };
        assert!(orders.record_made(1, &made).unwrap());
    }
    conn
}

fn statement(conn: &Connection, currency: Option<&str>, period: Period) -> Statement {
    Statement::build(
        &Orders::on(conn),
        &StateDictionary::default(),
        period,
        currency,
    )
    .unwrap()
}

fn fig(f: &Figure) -> (i64, Decimal) {
    (f.count, d(&f.amount))
}

/// Every figure of a currency, with a name.
fn figures(c: &CurrencyStatement) -> Vec<(String, &Figure)> {
    let mut v: Vec<(String, &Figure)> = Vec::new();
    for (name, flow) in [
        ("payins", &c.payins),
        ("payouts", &c.payouts),
        ("unknownKind", &c.unknown_kind),
    ] {
        v.push((format!("{name}.all"), &flow.all));
        v.push((format!("{name}.succeeded"), &flow.succeeded));
        v.push((format!("{name}.failed"), &flow.failed));
        v.push((format!("{name}.pending"), &flow.pending));
        for l in &flow.by_state {
            v.push((format!("{name}.state{}", l.state), &l.figure));
        }
    }
    for (name, fees) in [("payinFees", &c.payin_fees), ("payoutFees", &c.payout_fees)] {
        v.push((format!("{name}.handling"), &fees.handling));
        v.push((format!("{name}.fixed"), &fees.fixed));
        v.push((format!("{name}.exception"), &fees.exception));
    }
    for (name, s) in [("settled", &c.settled), ("notSettled", &c.not_settled)] {
        v.push((format!("{name}.amount"), &s.amount));
        v.push((format!("{name}.settleAmount"), &s.settle_amount));
        v.push((format!("{name}.receiveAmount"), &s.receive_amount));
    }
    v.push(("reserveHeld".into(), &c.reserve_held));
    v.push(("reserveReleased".into(), &c.reserve_released));
    v.push(("refunds".into(), &c.refunds));
    v.push(("chargebacks".into(), &c.chargebacks));
    v
}

fn field_of(o: &crate::store::orders::CachedOrder, f: Field) -> Decimal {
    let v = match f {
        Field::SourceAmount => Some(o.source_amount.clone()),
        Field::HandlingFee => o.handling_fee.clone(),
        Field::TransactionFixedFee => o.transaction_fixed_fee.clone(),
        Field::ExceptionHandlingFee => o.exception_handling_fee.clone(),
        Field::RollingReserve => o.rolling_reserve.clone(),
        Field::RefundAmount => o.refund_amount.clone(),
        Field::SettleAmount => o.settle_amount.clone(),
        Field::ReceiveAmount => o.receive_amount.clone(),
        // No chargeback looked up in these caches: the order's amount.
        Field::ChargebackAmount => Some(o.source_amount.clone()),
    };
    v.map_or(Decimal::ZERO, |s| d(&s))
}

#[test]
fn every_figure_of_a_period_in_several_currencies() {
    let conn = cache();
    let s = statement(&conn, None, Period::new(1000, 2000).unwrap());
    assert_eq!(s.orders, 9);
    let codes: Vec<&str> = s.currencies.iter().map(|c| c.currency.as_str()).collect();
    assert_eq!(codes, ["EUR", "JPY", "USD"]);
    let usd = &s.currencies[2];
    assert_eq!(fig(&usd.payins.all), (5, d("200")));
    assert_eq!(fig(&usd.payins.succeeded), (4, d("160")));
    assert_eq!(fig(&usd.payins.failed), (1, d("40")));
    assert_eq!(
        fig(&usd.payins.pending),
        (0, d("0")),
        "the pending one's kind is not known"
    );
    // Never counted as a payin: on its own line, in no other figure.
    assert_eq!(fig(&usd.unknown_kind.all), (1, d("60")));
    assert_eq!(fig(&usd.unknown_kind.pending), (1, d("60")));
    assert_eq!(usd.unknown_kind.unclassified, 1);
    assert_eq!(usd.payins.unclassified, 0);
    let states: Vec<(i64, Option<Meaning>, i64)> = usd
        .payins
        .by_state
        .iter()
        .map(|l| (l.state, l.meaning, l.figure.count))
        .collect();
    assert_eq!(
        states,
        [
            (3, Some(Meaning::Failed), 1),
            (5, Some(Meaning::Success), 1),
            (6, Some(Meaning::Refunded), 1),
            (7, Some(Meaning::PartlyRefunded), 1),
            (8, Some(Meaning::ChargedBack), 1),
        ]
    );
    // Fees of paid payins only (the failed one's 1 is not charged), summed exactly:
    // 0.1 + 0.2 + 0.3 + 0.0001, never 0.6000000000000001.
    assert_eq!(usd.payin_fees.handling.amount, "0.6001");
    assert_eq!(usd.payin_fees.fixed.amount, "0.20");
    assert_eq!(usd.payin_fees.exception.amount, "0.05");
    assert_eq!(usd.payin_fees.total, "0.8501");
    assert_eq!(fig(&usd.reserve_held), (3, d("13")), "held, and not given");
    assert_eq!(fig(&usd.reserve_released), (1, d("2")));
    assert_eq!(fig(&usd.refunds), (2, d("25")));
    assert_eq!(fig(&usd.chargebacks), (1, d("30")));
    assert_eq!(fig(&usd.settled.amount), (2, d("110")));
    assert_eq!(usd.settled.settle_amount.amount, "94.65");
    assert_eq!(usd.settled.receive_amount.amount, "99.6499");
    assert_eq!(fig(&usd.not_settled.amount), (2, d("50")));
    assert_eq!(usd.not_settled.settle_amount.amount, "0.00");
    assert_eq!(usd.not_settled.receive_amount.amount, "44.50");
    assert_eq!(fig(&usd.payouts.succeeded), (1, d("25")));
    assert_eq!(usd.payouts.unclassified, 0);
    assert_eq!(usd.payout_fees.total, "2.00");
    // 160 - 0.8501 - 13 - 25 - 30 - 25 - 2
    assert_eq!(usd.net, "64.1499");
    assert_eq!(s.currencies[0].net, "10.00", "EUR 10.10 less 0.1");
    assert_eq!(s.currencies[1].net, "970", "JPY 1000 less 30");
}

/// A figure is the sum of its field over exactly the orders its filter lists.
#[test]
fn every_figure_is_the_sum_over_its_filter() {
    let conn = cache();
    let s = statement(&conn, None, Period::new(1000, 2000).unwrap());
    let orders = Orders::on(&conn);
    for c in &s.currencies {
        for (name, f) in figures(c) {
            let (mut n, mut sum) = (0, Decimal::ZERO);
            orders
                .for_each(&f.filter, &mut |o| {
                    n += 1;
                    sum += field_of(o, f.field);
                    Ok(())
                })
                .unwrap();
            assert_eq!((n, sum), fig(f), "{} {name}", c.currency);
        }
    }
    assert_eq!(orders.count(&s.filter).unwrap(), s.orders);
}

#[test]
fn one_currency_and_an_empty_period() {
    let conn = cache();
    let s = statement(&conn, Some("EUR"), Period::new(1000, 2000).unwrap());
    assert_eq!(s.orders, 1);
    assert_eq!(s.currencies.len(), 1);
    assert_eq!(s.filter.currencies, ["EUR"]);
    let empty = statement(&conn, None, Period::new(5000, 6000).unwrap());
    assert_eq!((empty.orders, empty.currencies.len()), (0, 0));
    let cmp = Statement::compare(
        statement(&conn, None, Period::new(1000, 2000).unwrap()),
        empty,
    );
    let usd = cmp.currencies.iter().find(|c| c.currency == "USD").unwrap();
    assert_eq!(usd.net.previous, "0.00");
    assert_eq!(usd.net.difference, "64.1499");
    assert_eq!(usd.net.percent, None, "no percent of zero");
    assert!(Period::new(2000, 1000).is_err());
    let bad = Statement::build(
        &Orders::on(&conn),
        &StateDictionary::default(),
        Period::new(1000, 2000).unwrap(),
        Some("usd; DROP"),
    );
    assert!(bad.is_err());
}

#[test]
fn a_comparison_in_percent() {
    let c = Change::new(d("150"), d("120"), 2);
    assert_eq!(
        (c.difference.as_str(), c.percent.as_deref()),
        ("30.00", Some("25"))
    );
    let c = Change::new(d("1"), d("3"), 0);
    assert_eq!(c.current, "1", "JPY's digits");
    assert_eq!(c.percent.as_deref(), Some("-66.67"));
    assert_eq!(
        Period::new(1000, 2000).unwrap().previous(),
        Period { from: 0, to: 1000 }
    );
}

#[test]
fn exports_carry_their_header_and_the_same_digest() {
    let conn = cache();
    let s = statement(&conn, None, Period::new(1000, 2000).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let tz = chrono::FixedOffset::east_opt(8 * 3600).unwrap();
    let dict = StateDictionary::default();
    let write = |name: &str| {
        export::export(
            &Orders::on(&conn),
            &s,
            &dict,
            crate::output::create(&dir.path().join(name), crate::output::Existing::Replace)?,
            tz,
            86_400_000,
            "Demo (merNo 10001)",
        )
    };
    let csv = write("s.csv").unwrap();
    let xlsx = write("s.xlsx").unwrap();
    let pdf = write("s.pdf").unwrap();
    assert_eq!(csv.rows, 9);
    assert_eq!(csv.sha256, xlsx.sha256);
    assert_eq!(csv.sha256, pdf.sha256);
    let text = std::fs::read_to_string(dir.path().join("s.csv")).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // The header in a finance team's words: no field names, no JSON, no epoch times;
    // the period's true last day (the period ends before 2000 ms: 1970-01-01 08:00:01).
    assert_eq!(lines[0], "Statement,PayDesk statement");
    assert_eq!(lines[1], "Merchant,Demo (merNo 10001)");
    assert_eq!(lines[2], "First day,1970-01-01");
    assert_eq!(lines[3], "Last day,1970-01-01");
    assert!(lines.contains(&"Time zone,UTC+08:00"));
    assert!(lines.contains(&"Made at,1970-01-02 08:00:00"));
    assert!(lines.contains(&"Orders,9"));
    assert!(lines.contains(&"Orders whose kind the gateway did not give (in no figure),1"));
    assert!(lines.contains(&format!("SHA-256 of the orders,{}", csv.sha256).as_str()));
    assert!(text.contains("USD,Net,Net movement of the balance,,,,64.1499"));
    assert!(text.contains("USD,Kind not given by the gateway (in no other figure),All,,,1,60.00"));
    assert!(!text.contains('{'), "no JSON filter");
    assert!(
        text.contains("EUR,Payouts,All,,,0,0.00,Order amount,payouts"),
        "amounts keep their currency's digits"
    );
    assert!(std::fs::metadata(dir.path().join("s.xlsx")).unwrap().len() > 1000);
    // The PDF: its pages, its text in the standard fonts, the figures as printed.
    let bytes = std::fs::read(dir.path().join("s.pdf")).unwrap();
    let body = String::from_utf8_lossy(&bytes);
    assert!(body.starts_with("%PDF-"), "{}", &body[..20]);
    assert!(
        !body.contains("/Count 1\n") && body.contains("/Count "),
        "more than one page for three currencies"
    );
    assert!(body.contains("/Helvetica"));
    assert!(
        body.contains("(64.1499)"),
        "the net, in USD's digits and more"
    );
    assert!(body.contains("(1,000)"), "JPY without decimals, grouped");
    assert!(body.contains(&format!("({})", csv.sha256)));
    assert!(body.contains("(Demo (merNo 10001))"), "the merchant");
    assert!(body.contains("(Net movement of the balance)"));
    assert!(write("s.txt").is_err());
}

#[test]
fn days_in_a_time_zone_and_zones() {
    let day = |s: &str| chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").unwrap();
    let tz = parse_zone("tz", "+08:00").unwrap();
    let p = Period::days(day("2026-11-01"), day("2026-11-30"), tz).unwrap();
    // 2026-10-31 16:00 UTC to 2026-11-30 16:00 UTC.
    assert_eq!(p.from, 1_793_462_400_000);
    assert_eq!(p.to - p.from, 30 * 86_400_000);
    assert_eq!(
        p.last_day(&tz),
        "2026-11-30",
        "the true last day, not the day after"
    );
    assert_eq!(
        parse_zone("tz", "UTC")
            .unwrap()
            .offset_at(0)
            .local_minus_utc(),
        0
    );
    assert_eq!(
        parse_zone("tz", "UTC-05:00")
            .unwrap()
            .offset_at(0)
            .local_minus_utc(),
        -5 * 3600
    );
    let shanghai = parse_zone("tz", "Asia/Shanghai").unwrap();
    assert_eq!(
        Period::days(day("2026-11-01"), day("2026-11-30"), shanghai).unwrap(),
        p
    );
    let e = parse_zone("tz", "Mars/Olympus").unwrap_err().to_string();
    assert!(e.contains("tz") && e.contains("Europe/Berlin"), "{e}");
    assert!(Period::days(day("2026-11-02"), day("2026-11-01"), tz).is_err());
    // New York leaves summer time on 2026-11-01: October starts at 04:00 UTC (EDT,
    // -04:00), November at 04:00 UTC too, and 2 November at 05:00 UTC (EST, -05:00).
    let ny = parse_zone("tz", "America/New_York").unwrap();
    let october = Period::days(day("2026-10-01"), day("2026-10-31"), ny).unwrap();
    assert_eq!(october.from, 1_790_827_200_000, "2026-10-01T04:00:00Z");
    assert_eq!(october.to, 1_793_505_600_000, "2026-11-01T04:00:00Z");
    let first = Period::days(day("2026-11-01"), day("2026-11-01"), ny).unwrap();
    assert_eq!(first.to - first.from, 25 * 3_600_000, "a 25-hour day");
    assert_eq!(first.last_day(&ny), "2026-11-01");
}

/// A gateway whose open orders are "processing" (or "submitted"): they are pending
/// orders in the statement, never left out of every bucket.
#[test]
fn processing_and_submitted_states_are_pending() {
    let mut conn = Connection::open_in_memory().unwrap();
    paydesk_store_sqlite::migrate(&mut conn).unwrap();
    let orders = Orders::on(&conn);
    let items = vec![
        o(1, "MXN", 20, "100"),
        o(2, "MXN", 21, "50"),
        o(3, "MXN", 22, "7"),
        o(4, "MXN", 23, "1"),
    ];
    orders.upsert_items(1, &items, 1500, true).unwrap();
    let mut entries = std::collections::BTreeMap::new();
    entries.insert(
        StateField::OrderState,
        std::collections::BTreeMap::from([
            ("20".to_string(), Meaning::Processing),
            ("21".to_string(), Meaning::Submitted),
            ("22".to_string(), Meaning::Success),
        ]),
    );
    let dict = StateDictionary::from_entries(&entries);
    let s = Statement::build(
        &Orders::on(&conn),
        &dict,
        Period::new(1000, 2000).unwrap(),
        None,
    )
    .unwrap();
    let mxn = &s.currencies[0];
    // Orders of no known kind (none was labelled): their own line, not payins.
    assert_eq!(fig(&mxn.payins.all), (0, d("0")));
    let flow = &mxn.unknown_kind;
    assert_eq!(fig(&flow.pending), (2, d("150")));
    assert_eq!(fig(&flow.succeeded), (1, d("7")));
    // A state the dictionary does not know is its own line, shown raw.
    let unknown: Vec<_> = flow
        .by_state
        .iter()
        .filter(|l| l.meaning.is_none())
        .map(|l| (l.state, fig(&l.figure)))
        .collect();
    assert_eq!(unknown, [(23, (1, d("1")))]);
}

/// Amounts up to the 10^15 the desk accepts add up exactly (no 10^-4 units saturating,
/// no floating point), written in their currency's digits; a partial chargeback counts
/// at the amount charged back once looked up; a refund counts after a later chargeback;
/// pending payouts, card top-ups and withdrawals are lines of the net.
#[test]
fn big_sums_partial_chargebacks_pending_payouts_and_cards() {
    let mut conn = Connection::open_in_memory().unwrap();
    paydesk_store_sqlite::migrate(&mut conn).unwrap();
    let opt = |s: &str| Some(d(s));
    let big = "999999999999999.99";
    let items = vec![
        OrderListItem {
            handling_fee: opt("0.0001"),
            ..o(1, "USD", 5, big)
        },
        OrderListItem {
            handling_fee: opt("0.0002"),
            ..o(2, "USD", 5, big)
        },
        // Partly refunded (3), then charged back for 40 of the 100 left.
        OrderListItem {
            refund_amount: opt("3"),
            ..o(3, "USD", 8, "100")
        },
        // A pending payout of 50 with a fee of 1.
        OrderListItem {
            handling_fee: opt("1"),
            ..o(4, "USD", 2, "50")
        },
        o(5, "USD", 5, "20"),
        OrderListItem {
            handling_fee: opt("0.5"),
            ..o(6, "USD", 5, "8")
        },
    ];
    let orders = Orders::on(&conn);
    orders.upsert_items(1, &items, 1500, true).unwrap();
    let kinds = [
        (1, OrderKind::Payin),
        (2, OrderKind::Payin),
        (3, OrderKind::Payin),
        (4, OrderKind::Payout),
        (5, OrderKind::TopUp),
        (6, OrderKind::Withdraw),
    ];
    for (n, kind) in kinds {
        let made = MadeOrder {
            trade_no: format!("T{n:06}"),
            mer_order_no: format!("M{n:06}"),
            kind,
            method: String::new(),
            currency: "USD".into(),
            amount: Decimal::ZERO,
            state: None,
            made_at: 1500,
        };
        assert!(orders.record_made(1, &made).unwrap());
    }
    let period = Period::new(1000, 2000).unwrap();
    let before = statement(&conn, None, period);
    let usd = &before.currencies[0];
    assert_eq!(usd.digits, 2);
    assert_eq!(usd.payins.succeeded.amount, "2000000000000099.98");
    assert_eq!(usd.payin_fees.total, "0.0003");
    assert_eq!(
        fig(&usd.refunds),
        (1, d("3")),
        "refunded, then charged back"
    );
    assert_eq!(usd.refunds.amount, "3.00");
    assert_eq!(
        fig(&usd.chargebacks),
        (1, d("100")),
        "not looked up: in full"
    );
    assert_eq!(usd.chargebacks_not_looked_up, 1);
    assert_eq!(fig(&usd.pending_payouts), (1, d("50")));
    assert_eq!(usd.pending_payout_fees.total, "1.00");
    assert_eq!(fig(&usd.card_top_ups), (1, d("20")));
    assert_eq!(fig(&usd.card_withdrawals), (1, d("8")));
    assert_eq!(usd.card_withdrawal_fees.total, "0.50");
    // Looked up: 40 of it was charged back.
    use crate::store::reversals::ReversalStore;
    paydesk_store_sqlite::reversals::Reversals::on(&conn)
        .chargeback(crate::store::reversals::ChargebackSeen {
            trade_no: "T000003",
            amount: opt("40"),
            currency: "USD",
            actual_amount: opt("40"),
            actual_currency: "USD",
            status: "CHARGEBACK",
        })
        .unwrap();
    let s = statement(&conn, None, period);
    let usd = &s.currencies[0];
    assert_eq!(fig(&usd.chargebacks), (1, d("40")));
    assert_eq!(usd.chargebacks_not_looked_up, 0);
    // 1999999999999999.98 + 100 paid, less fees 0.0003, refunds 3, chargebacks 40,
    // pending payout 50 and its fee 1, top-up 20; plus the withdrawal 8 less 0.5.
    assert_eq!(usd.net, "1999999999999993.4797");
    assert_eq!(
        d(&usd.net),
        d("1999999999999999.98") + d("100")
            - d("0.0003")
            - d("3")
            - d("40")
            - d("50")
            - d("1")
            - d("20")
            + d("8")
            - d("0.5")
    );
    // The XLSX writes amounts beyond a spreadsheet number's 15 digits as exact text,
    // with a note: the figure and the order's amount.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.xlsx");
    export::export(
        &orders,
        &s,
        &StateDictionary::default(),
        crate::output::create(&path, crate::output::Existing::Replace).unwrap(),
        Zone::UTC,
        86_400_000,
        "Big",
    )
    .unwrap();
    let mut book = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
    let mut xml = String::new();
    let mut notes = 0;
    for i in 0..book.len() {
        let mut f = book.by_index(i).unwrap();
        if f.name().unwrap().contains("comments") {
            notes += 1;
        }
        std::io::Read::read_to_string(&mut f, &mut xml).unwrap();
    }
    assert!(xml.contains(">2000000000000099.98<"), "the figure, exact");
    assert!(
        xml.contains(">999999999999999.99<"),
        "the order's amount, exact"
    );
    assert!(
        notes >= 2,
        "a note on the figure's sheet and the orders' ({notes})"
    );
    // The dashboard's volume of the day adds them up too (an i64 SUM overflowed).
    let days = orders.day_figures(0).unwrap();
    assert_eq!(days.len(), 1);
    assert_eq!(days[0].orders, 6);
    assert_eq!(
        d(&days[0].volume),
        d("999999999999999.99") * Decimal::TWO + d("100") + d("50") + d("20") + d("8")
    );
    // JPY has no minor digits.
    assert_eq!(super::money(d("1000"), minor_digits("JPY")), "1000");
    assert_eq!(super::money(d("7.5"), minor_digits("KWD")), "7.500");
}

/// A merchant named in Chinese prints in Chinese: the PDF embeds a subset of a font of
/// the machine that covers the name (fonts-noto-cjk here), with a ToUnicode map that
/// gives the characters back; Latin-1 text stays in Helvetica.
#[test]
fn a_chinese_name_prints_in_an_embedded_font_subset() {
    assert!(
        super::font::CidFont::find("上海支付").is_some(),
        "no font on this machine covers Chinese: install fonts-noto-cjk (`cargo xtask setup` does) or set PAYDESK_PDF_FONT to a CJK font file"
    );
    let conn = cache();
    let s = statement(&conn, None, Period::new(1000, 2000).unwrap());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.pdf");
    export::export(
        &Orders::on(&conn),
        &s,
        &StateDictionary::default(),
        crate::output::create(&path, crate::output::Existing::Replace).unwrap(),
        parse_zone("tz", "Asia/Shanghai").unwrap(),
        86_400_000,
        "上海支付 (merNo 10001)",
    )
    .unwrap();
    let bytes = std::fs::read(&path).unwrap();
    let body = String::from_utf8_lossy(&bytes);
    assert!(
        body.contains("/Type0") && body.contains("/Identity-H"),
        "a CID font"
    );
    assert!(
        body.contains("/FontFile3") || body.contains("/FontFile2"),
        "embedded"
    );
    assert!(body.contains("PDSKAA+"), "a subset, named as one");
    // The ToUnicode map gives 上 海 支 付 back.
    for c in ['上', '海', '支', '付'] {
        let hex = format!("<{:04x}>", u32::from(c));
        assert!(
            body.to_lowercase().contains(&hex),
            "{c} in the ToUnicode map"
        );
    }
    assert!(!body.contains("(?? (merNo"), "not question marks");
    assert!(
        body.contains("/Helvetica"),
        "Latin-1 text in Helvetica still"
    );
    // A subset, not the whole font (Noto Sans CJK is about 20 MB).
    assert!(bytes.len() < 200_000, "{} bytes", bytes.len());
}

/// On a machine with no font that covers a name outside Latin-1, the PDF is refused
/// with what to install (the format named), never printed with `?` in its place; a name
/// in Latin-1 needs no such font.
#[test]
fn a_pdf_whose_name_no_font_covers_is_refused_with_what_to_install() {
    let chinese = [("Merchant", "上海支付 (merNo 10001)".to_string())];
    let err = super::pdf::write_with(&super::pdf::Heading { pairs: &chinese }, &[], &[], |_| None)
        .unwrap_err();
    match err {
        crate::error::CoreError::Validation { field, rule } => {
            assert_eq!(field, "format");
            assert!(rule.contains("上海支付"), "{rule}");
            assert!(rule.contains("fonts-noto-cjk"), "{rule}");
            assert!(rule.contains("PAYDESK_PDF_FONT"), "{rule}");
        }
        other => panic!("not a validation error: {other:?}"),
    }
    let latin = [("Merchant", "Café Ñandú (merNo 10001)".to_string())];
    let bytes =
        super::pdf::write_with(&super::pdf::Heading { pairs: &latin }, &[], &[], |_| None).unwrap();
    assert!(bytes.starts_with(b"%PDF"));
}
