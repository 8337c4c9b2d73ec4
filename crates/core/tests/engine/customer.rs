//! Support finds an order this desk made by its customer (e-mail, name, user id), and
//! the order's page names the customer.

#![allow(clippy::unwrap_used)]

use crate::common;

use paydesk_core::new_mer_order_no;
use paydesk_core::store::orders::OrderFilter;
use paydesk_gateway::wire::{self, MerNo};

fn common_fields(email: &str, user_id: &str) -> wire::PayinCommon {
    wire::PayinCommon {
        mer_no: MerNo(common::MER),
        mer_order_no: new_mer_order_no("PI"),
        currency_code: "BRL".into(),
        source_amount: "25.00".parse().unwrap(),
        return_url: String::new(),
        notify_url: "http://127.0.0.1:9/notify".into(),
        ip_address: "203.0.113.7".into(),
        user_id: user_id.into(),
        email: email.into(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn orders_are_found_by_their_customers_email_name_and_user_id() {
    let f = common::Fixture::new("cust").await;
    let desk = f.desk().await;
    let pix = |email: &str, user: &str, name: &str| wire::V1Payment {
        common: common_fields(email, user),
        version: wire::V1Payment::VERSION.into(),
        method: wire::V1Method::Pix(wire::PixExtras {
            name: name.into(),
            social_security_number: "12345678901".into(),
        }),
    };
    let ana = desk
        .money()
        .payin_v1(pix("ana.lima@example.com", "cust-0042", "Ana Lima"))
        .await
        .unwrap()
        .entry
        .trade_no
        .unwrap();
    let bruno = desk
        .money()
        .payin_v1(pix("bruno@example.org", "cust-0077", "Bruno Souza"))
        .await
        .unwrap()
        .entry
        .trade_no
        .unwrap();

    let found = |text: &str| {
        let filter = OrderFilter {
            search: Some(text.into()),
            ..Default::default()
        };
        let mut rows: Vec<String> = desk
            .orders()
            .page(&filter, 0, 100)
            .unwrap()
            .rows
            .into_iter()
            .map(|o| o.trade_no)
            .collect();
        rows.sort();
        rows
    };
    assert_eq!(found("ana.lima@"), vec![ana.clone()], "by e-mail");
    assert_eq!(found("ANA LIMA"), vec![ana.clone()], "by name, any case");
    assert_eq!(found("cust-0077"), vec![bruno.clone()], "by user id");
    let mut both = vec![ana.clone(), bruno.clone()];
    both.sort();
    assert_eq!(found("@example."), both, "a fragment both e-mails share");
    assert_eq!(found("carla@"), Vec::<String>::new());
    // A wildcard typed is a character, not "anything".
    assert_eq!(found("cust_00"), Vec::<String>::new());
    // Order numbers are still found as before.
    assert_eq!(found(&ana[ana.len() - 8..]), vec![ana.clone()]);

    let c = desk.orders().order_customer(&ana).unwrap().unwrap();
    assert_eq!(c.email.as_deref(), Some("ana.lima@example.com"));
    assert_eq!(c.name.as_deref(), Some("Ana Lima"));
    assert_eq!(c.user_id.as_deref(), Some("cust-0042"));
}
