//! The gateway crate's client drives every operation against the in-process sandbox
//! over real HTTP, and the state changes are the ones a merchant relies on.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use paydesk_gateway::wire::*;
use paydesk_gateway::{GatewayError, SignatureStatus};
use rust_decimal::Decimal;
use serde_json::json;

async fn balance(c: &paydesk_gateway::GatewayClient, cur: &str) -> BalanceRecord {
    c.send(&V2BalanceQuery {
        mer_no: MerNo(MER),
        currency: cur.into(),
    })
    .await
    .unwrap()
    .data
}

#[tokio::test]
async fn a_payin_lives_through_pay_settle_refund_and_the_balances_follow() {
    let r = start().await;
    let c = client(&r);
    let before = balance(&c, "CNY").await;

    let a = c
        .send(&V2Payment {
            common: payin("ORD-1", "100.00", "CNY"),
        })
        .await
        .unwrap();
    assert_eq!(a.data.pay_code, 2, "a new payin is pending");
    assert!(!a.data.pay_url.is_empty());
    let trade_no = a.data.trade_no.clone();

    // It is in the list, signed, as pending.
    let page = c.send(&list_by_mer_order(&["ORD-1"])).await.unwrap();
    assert_eq!(page.signature, SignatureStatus::Verified);
    assert_eq!(page.data.total, 1);
    assert_eq!(page.data.list[0].state, 2);
    assert_eq!(page.data.list[0].trade_no, trade_no);

    // Paid: fee 2.50, fixed 0.30, reserve 5.00, so 92.20 unchecked.
    let (status, _) = sim(&r, &format!("/__sandbox/orders/{trade_no}/pay"), json!({})).await;
    assert_eq!(status, 200);
    let after_pay = balance(&c, "CNY").await;
    assert_eq!(
        after_pay.un_checked_balance - before.un_checked_balance,
        dec("92.20")
    );
    assert_eq!(after_pay.balance, before.balance);
    assert_eq!(
        after_pay.total_balance,
        after_pay.balance + after_pay.un_checked_balance
    );

    let q = V2OrderQuery {
        version: "V4.0.0".into(),
        mer_no: MerNo(MER),
        mer_order_no: "ORD-1".into(),
        trade_no: trade_no.clone(),
        query_type: "sales".into(),
    };
    let rec = c.send(&q).await.unwrap();
    assert_eq!(rec.code, "200");
    assert_eq!(rec.signature, SignatureStatus::Verified);
    assert_eq!(
        (rec.data.status.as_str(), rec.data.state.as_str()),
        ("SUCCESS", "5")
    );
    assert_eq!(rec.data.settle, Some(0));

    // Settled: the money moves to the available balance.
    sim(
        &r,
        &format!("/__sandbox/orders/{trade_no}/settle"),
        json!({}),
    )
    .await;
    let settled = balance(&c, "CNY").await;
    assert_eq!(settled.balance - before.balance, dec("92.20"));
    assert_eq!(settled.un_checked_balance, before.un_checked_balance);

    // A partial refund shows in the V1 refund query and in the V2 query.
    let (status, body) = sim(
        &r,
        &format!("/__sandbox/orders/{trade_no}/refund"),
        json!({"amount": "30.00"}),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    let refund_no = body["order"]["refunds"][0]["refund_no"]
        .as_str()
        .unwrap()
        .to_string();
    let rq = V1RefundQuery {
        mer_no: MerNo(MER),
        mer_order_no: "ORD-1".into(),
        version: "V3.0.0".into(),
        trade_no: trade_no.clone(),
        query_type: "refund".into(),
        refund_no: refund_no.clone(),
        sing_variant: true,
    };
    let refund = c.send(&rq).await.unwrap().data;
    assert_eq!(
        (refund.state.as_str(), refund.refund_amount),
        ("3", Some(dec("30.00")))
    );
    let rec = c
        .send(&V2OrderQuery {
            query_type: "refund".into(),
            ..q.clone()
        })
        .await
        .unwrap()
        .data;
    assert_eq!(rec.refund_no, refund_no);
    assert_eq!(
        balance(&c, "CNY").await.balance - before.balance,
        dec("62.20")
    );
    let page = c.send(&list_by_mer_order(&["ORD-1"])).await.unwrap().data;
    assert_eq!(page.list[0].state, 7, "partly refunded");
    assert_eq!(page.list[0].refund_amount, Some(dec("30.00")));

    // A chargeback of the rest.
    let (status, _) = sim(
        &r,
        &format!("/__sandbox/orders/{trade_no}/chargeback"),
        json!({}),
    )
    .await;
    assert_eq!(status, 200);
    let rec = c
        .send(&V2OrderQuery {
            query_type: "chargeback".into(),
            ..q
        })
        .await
        .unwrap()
        .data;
    assert_eq!(rec.chargeback_amount, Some(dec("70.00")));
    assert_eq!(
        rec.status, "CHARGEBACK",
        "a value outside the dictionary, shown raw by clients"
    );
    r.sandbox.with_state(|s| s.check_ledger()).unwrap();
}

#[tokio::test]
async fn payouts_debit_the_balance_and_a_failed_one_gives_it_back() {
    let r = start().await;
    let c = client(&r);
    let before = balance(&c, "MXN").await.balance;
    let a = c.send(&clabe_payout("PO-1", "1000.00")).await.unwrap();
    assert_eq!(a.data.pay_code, 2);
    assert_eq!(
        balance(&c, "MXN").await.balance,
        before - dec("1001.00"),
        "amount plus the 1.00 fee"
    );
    sim(
        &r,
        &format!("/__sandbox/orders/{}/fail", a.data.trade_no),
        json!({}),
    )
    .await;
    assert_eq!(balance(&c, "MXN").await.balance, before);

    let card = V1CardPayout {
        mer_no: MerNo(MER),
        mer_order_no: "PO-2".into(),
        currency_code: "USD".into(),
        source_amount: dec("25.00"),
        withdraw_type: "1".into(),
        return_url: String::new(),
        notify_url: "https://shop.example/n".into(),
        version: "V3.0.0".into(),
        ip_address: "203.0.113.7".into(),
        card_no: "4111111111111111".into(),
        ben_first_name: "Ana".into(),
        ben_last_name: "Lima".into(),
        mobile: String::new(),
        address_line: String::new(),
        address_line2: String::new(),
        city: String::new(),
        state: String::new(),
        country_code: "MX".into(),
        post_code: String::new(),
        email: String::new(),
        beneficiary_type: "individual".into(),
        browser: None,
        products: vec![],
    };
    let usd = balance(&c, "USD").await.balance;
    let a = c.send(&card).await.unwrap();
    assert_eq!(a.data.mer_order_no, "PO-2");
    sim(
        &r,
        &format!("/__sandbox/orders/{}/pay", a.data.trade_no),
        json!({}),
    )
    .await;
    assert_eq!(balance(&c, "USD").await.balance, usd - dec("26.00"));
    let stored = r
        .sandbox
        .with_state(|s| s.order(&a.data.trade_no).unwrap().account.clone());
    assert_eq!(
        stored, "411111******1111",
        "the sandbox keeps card numbers masked too"
    );

    // The magic amount .13 fails at once and costs nothing.
    let a = c.send(&clabe_payout("PO-3", "50.13")).await.unwrap();
    assert_eq!(a.data.pay_code, 1);
    assert_eq!(balance(&c, "MXN").await.balance, before);
    r.sandbox.with_state(|s| s.check_ledger()).unwrap();
}

#[tokio::test]
async fn card_top_up_and_withdraw_move_the_card_balance() {
    let r = start().await;
    let c = client(&r);
    let usd = balance(&c, "USD").await.balance;
    let top = V2CardTopUp {
        mer_no: MerNo(MER),
        sub_mer_no: "SUB-1".into(),
        mer_order_no: "TU-1".into(),
        apply_order_no: CARD.into(),
        amount: dec("50.00"),
        currency: "USD".into(),
        remark: "季度充值".into(),
        sign_type: "RSA256".into(),
        version: "V2.0.0".into(),
    };
    c.send(&top).await.unwrap();
    let card = |r: &paydesk_sandbox::Running| {
        r.sandbox
            .with_state(|s| s.cards[&(MER, CARD.to_string())].balance)
    };
    assert_eq!(card(&r), dec("150.00"));
    assert_eq!(balance(&c, "USD").await.balance, usd - dec("50.00"));

    let w = c
        .send(&V1CardWithdraw {
            mer_no: MerNo(MER),
            apply_order_no: CARD.into(),
            amount: dec("20.00"),
            currency: "USD".into(),
        })
        .await
        .unwrap();
    assert_eq!(w.data.fee, "0.20");
    assert_eq!(card(&r), dec("130.00"));
    assert_eq!(
        balance(&c, "USD").await.balance,
        usd - dec("50.00") + dec("19.80")
    );
    // The top-up can be found again by its merOrderNo.
    assert_eq!(
        c.send(&list_by_mer_order(&["TU-1"]))
            .await
            .unwrap()
            .data
            .total,
        1
    );
    r.sandbox.with_state(|s| s.check_ledger()).unwrap();
}

#[tokio::test]
async fn v1_payins_for_every_method_answer_in_their_own_shape() {
    let r = start().await;
    let c = client(&r);
    let browser = Browser {
        screen_height: "1080".into(),
        screen_width: "1920".into(),
        time_zone_offset: "0".into(),
        user_agent: "UA".into(),
        visitor_id: "v".into(),
    };
    let products = vec![Product {
        price: dec("10.00"),
        product_name: "Tea".into(),
        product_url: String::new(),
        quantity: "1".into(),
        sku: "S".into(),
    }];
    let methods = vec![
        ("CNY", V1Method::Wechat(NoExtras {})),
        (
            "BRL",
            V1Method::Pix(PixExtras {
                name: "Ana".into(),
                social_security_number: "123.456.789-09".into(),
            }),
        ),
        (
            "USD",
            V1Method::ApplePay(WalletExtras {
                browser: browser.clone(),
                products: products.clone(),
            }),
        ),
        ("USD", V1Method::CashApp(WalletExtras { browser, products })),
        (
            "PHP",
            V1Method::Gcash(GcashExtras {
                os_type: "IOS".into(),
                terminal: "APP".into(),
                product_info_list: vec![ProductInfo {
                    sku: "S".into(),
                    product_name: "Tea".into(),
                    price: dec("10.00"),
                    quantity: "1".into(),
                }],
            }),
        ),
        (
            "EUR",
            V1Method::Sepa(SepaExtras {
                user_agent: "UA".into(),
                billing_first_name: "Ana".into(),
                billing_last_name: "Lima".into(),
            }),
        ),
    ];
    for (i, (cur, method)) in methods.into_iter().enumerate() {
        let sepa = matches!(method, V1Method::Sepa(_));
        let op = V1Payment {
            common: payin(&format!("V1-{i}"), "10.00", cur),
            version: "V3.0.0".into(),
            method,
        };
        let a = c.send(&op).await.unwrap();
        assert_eq!(a.data.mer_order_no, format!("V1-{i}"));
        if sepa {
            assert_eq!(a.data.iban.as_deref(), Some("DE89370400440532013000"));
            assert!(a.data.bic.is_some() && a.data.reference.is_some() && a.data.pay_url.is_none());
            // Review documents for the bank-transfer order.
            let review = V1TransferOrderSubmit {
                mer_no: MerNo(MER),
                trade_no: a.data.trade_no.clone(),
                info_list: vec![InfoItem {
                    info_type: "1".into(),
                    info_content: "Invoice 55".into(),
                }],
                file_list: vec![FileItem {
                    file_type: "21".into(),
                    file_content: base64_png(),
                    file_name: "id".into(),
                    suffix: ".png".into(),
                }],
            };
            c.send(&review).await.unwrap();
            let reviews = r.sandbox.with_state(|s| s.reviews.clone());
            assert_eq!(reviews.len(), 1);
            assert_eq!(reviews[0].files[0].size, 12);
            // The decoded file is served back as it was sent.
            let url = r
                .base_url()
                .join(&format!("__sandbox/reviews/{}/files/0", reviews[0].id))
                .unwrap();
            let resp = reqwest::get(url).await.unwrap();
            assert_eq!(resp.headers()["content-type"], "image/png");
            assert_eq!(
                resp.bytes().await.unwrap().as_ref(),
                b"\x89PNG\r\n\x1a\nabcd"
            );
        } else {
            assert!(a.data.pay_url.is_some());
        }
    }
    let vn = V1VnBankPayment {
        common: payin("VN-1", "150000", "VND"),
        version: "V3.0.0".into(),
        payment_method_str: "BANK".into(),
        product_name: "Cà phê".into(),
        vn_bank_id: 970436,
    };
    let a = c.send(&vn).await.unwrap();
    assert_eq!(a.signature, SignatureStatus::Verified);
    assert_eq!(a.data.mer_order_no, "VN-1");
    let err = c
        .send(&V1VnBankPayment {
            vn_bank_id: 1,
            common: payin("VN-2", "150000", "VND"),
            ..vn.clone()
        })
        .await
        .unwrap_err();
    assert!(
        matches!(err, GatewayError::Http { status: 404, .. }),
        "{err}"
    );
    let (status, body) = raw(&r, "/payment", &[("paymentType", "VN_BANK"), ("referer", ORIGIN)], json!({
        "merNo": MER, "merOrderNo": "VN-3", "currencyCode": "VND", "sourceAmount": "15.5", "notifyUrl": "https://shop.example/n",
        "ipAddress": "203.0.113.7", "version": "V3.0.0", "paymentMethodStr": "BANK", "productName": "x", "vnBankId": 970436})).await;
    assert_eq!(status, 400, "{body}");
    assert!(body["message"].as_str().unwrap().contains("sourceAmount"));
}

pub fn base64_png() -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(b"\x89PNG\r\n\x1a\nabcd")
}

#[tokio::test]
async fn the_order_list_pages_through_a_date_window() {
    let r = start().await;
    let c = client(&r);
    let added = r.sandbox.seed(&paydesk_sandbox::SeedSpec {
        from: Some("2026-10-01 00:00:00".into()),
        to: Some("2026-10-31 23:59:59".into()),
        ..paydesk_sandbox::SeedSpec::new(1234)
    });
    assert_eq!(added, 1234);
    let mut seen = std::collections::HashSet::new();
    let mut page_num = 1;
    loop {
        let op = V2OrderList {
            mer_no: MerNo(MER),
            mer_order_nos: vec![],
            trade_nos: vec![],
            date_limit: Some(DateLimit {
                from: "2026-10-01 00:00:00".into(),
                to: "2026-10-31 23:59:59".into(),
            }),
            page_num,
            page_size: 500,
            version: "V2.0.0".into(),
        };
        let page = c.send(&op).await.unwrap();
        assert_eq!(page.signature, SignatureStatus::Verified);
        assert_eq!((page.data.total, page.data.total_page), (1234, 3));
        for item in &page.data.list {
            assert!(seen.insert(item.trade_no.clone()), "no order twice");
        }
        if page_num == page.data.total_page {
            break;
        }
        page_num += 1;
    }
    assert_eq!(seen.len(), 1234);
    // A narrower window holds fewer.
    let op = V2OrderList {
        mer_no: MerNo(MER),
        mer_order_nos: vec![],
        trade_nos: vec![],
        date_limit: Some(DateLimit {
            from: "2026-10-10 00:00:00".into(),
            to: "2026-10-10 23:59:59".into(),
        }),
        page_num: 1,
        page_size: 500,
        version: "V2.0.0".into(),
    };
    let day = c.send(&op).await.unwrap().data.total;
    assert!(day > 20 && day < 80, "{day}");
    r.sandbox.with_state(|s| s.check_ledger()).unwrap();
    let _ = Decimal::ZERO;
}
