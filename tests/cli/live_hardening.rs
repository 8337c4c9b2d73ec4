//! Ready for a live gateway, as an operator meets it at the CLI: notifications go to the
//! profile's own URL, card numbers and tax ids never ride on the command line, proxies
//! from the environment never see loopback traffic, the data files are the user's
//! alone, the audit log says what it checked and catches a cut end, and its CSV cannot
//! carry a formula.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use common::*;
use rusqlite::Connection;

const CLABE: &str = "002010077777777771";

fn fund(running: &paydesk_sandbox::Running) {
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(1_000_000);
    running.sandbox.add_merchant(m);
}

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_payout_tells_the_gateway_the_profiles_notify_url() {
    let (mut env, running, _) = setup().await;
    fund(&running);
    env.ok(&[
        "payout",
        "clabe",
        "--amount",
        "10.00",
        "--currency",
        "MXN",
        "--clabe",
        CLABE,
        "--mer-order-no",
        "PO-NOTIFY-1",
    ]);
    let told = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| o.mer_order_no == "PO-NOTIFY-1")
            .map(|o| o.notify_url.clone())
    });
    assert_eq!(told.as_deref(), Some(NOTIFY_URL));

    // A profile for a real gateway without a notification URL is refused, naming it.
    let out = env.run(
        &[
            "profile",
            "add",
            "bare",
            "--base-url",
            "https://gateway.example",
            "--mer-no",
            "7",
            "--origin",
            ORIGIN,
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("notifyUrl"), "{}", stderr(&out));
    // An explicit proxy with a password in it is refused too: it would be kept outside
    // the keyring.
    let out = env.run(
        &[
            "profile",
            "add",
            "proxied",
            "--base-url",
            "https://gateway.example",
            "--mer-no",
            "7",
            "--origin",
            ORIGIN,
            "--notify-url",
            NOTIFY_URL,
            "--proxy",
            "http://ana:secret@proxy.corp:3128",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("proxy"), "{}", stderr(&out));
    // The desk's loopback receiver is for a gateway on this machine only, and a base
    // URL with a query would lose it.
    let remote = |extra: &[&str], base: &str| {
        let mut args = vec![
            "profile",
            "add",
            "remote",
            "--base-url",
            base,
            "--mer-no",
            "7",
            "--origin",
            ORIGIN,
        ];
        args.extend_from_slice(extra);
        args.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    for (args, field) in [
        (
            remote(&["--notify-at-desk"], "https://gateway.example"),
            "notifyAtDesk",
        ),
        (
            remote(
                &["--notify-url", NOTIFY_URL],
                "https://gateway.example/api?v=2",
            ),
            "baseUrl",
        ),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let out = env.run(&args, "");
        assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
        assert!(stderr(&out).contains(field), "{field}: {}", stderr(&out));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn card_numbers_and_tax_ids_are_read_from_stdin_never_from_arguments() {
    let (mut env, running, _) = setup().await;
    let before = running.sandbox.with_state(|s| s.orders.len());
    let card = [
        "payout",
        "card",
        "--amount",
        "5.00",
        "--currency",
        "USD",
        "--first-name",
        "Ana",
        "--last-name",
        "Lima",
    ];
    let mut with_arg = card.to_vec();
    with_arg.extend(["--card-no", "4111111111111111"]);
    let out = env.run(&with_arg, "");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("--card-no") && stderr(&out).contains("ps"),
        "{}",
        stderr(&out)
    );
    let out = env.run(
        &[
            "payin",
            "create",
            "--method",
            "PIX",
            "--amount",
            "20.00",
            "--currency",
            "BRL",
            "--name",
            "Ana Lima",
            "--ssn",
            "12345678909",
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("--ssn"), "{}", stderr(&out));
    // Nothing on stdin: refused, naming the field.
    let out = env.run(&card, "");
    assert_eq!(out.status.code(), Some(2));
    assert!(stderr(&out).contains("cardNo"), "{}", stderr(&out));
    assert_eq!(
        running.sandbox.with_state(|s| s.orders.len()),
        before,
        "nothing was sent"
    );

    // On stdin it goes through; the journal and the output show it masked.
    let out = env.run(&card, "4111111111111111\n");
    assert!(out.status.success(), "{}", stderr(&out));
    let journal: String = Connection::open(env.db())
        .unwrap()
        .query_row(
            "SELECT request FROM journal WHERE operation = 'v1.payout'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(journal.contains("411111******1111"), "{journal}");
    let out = env.run(
        &[
            "payin",
            "create",
            "--method",
            "PIX",
            "--amount",
            "20.00",
            "--currency",
            "BRL",
            "--name",
            "Ana Lima",
            "--email",
            "ana@example.com",
        ],
        "12345678909\n",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let cpf_sent = running.sandbox.with_state(|s| s.orders.len());
    assert_eq!(cpf_sent, before + 2);
    for text in &env.outputs {
        assert!(
            !text.contains("4111111111111111") || text.contains("--card-no"),
            "a full card number was printed: {text}"
        );
        assert!(
            !text.contains("12345678909"),
            "a full CPF was printed: {text}"
        );
    }
}

/// A stand-in proxy that records every connection made to it.
async fn fake_proxy() -> (String, Arc<Mutex<usize>>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(0));
    let s = seen.clone();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            *s.lock().unwrap() += 1;
            drop(stream);
        }
    });
    (url, seen)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn proxies_from_the_environment_never_see_loopback_traffic_and_files_are_private() {
    let (env, running, _) = setup().await;
    fund(&running);
    let (proxy, seen) = fake_proxy().await;
    let out = env
        .cmd(&[
            "payout",
            "clabe",
            "--amount",
            "3.00",
            "--currency",
            "MXN",
            "--clabe",
            CLABE,
        ])
        .env("HTTP_PROXY", &proxy)
        .env("http_proxy", &proxy)
        .env("HTTPS_PROXY", &proxy)
        .env("ALL_PROXY", &proxy)
        .env("all_proxy", &proxy)
        .env_remove("NO_PROXY")
        .env_remove("no_proxy")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(
        *seen.lock().unwrap(),
        0,
        "loopback traffic went to the proxy"
    );

    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &std::path::Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let home = env.home.path();
        assert_eq!(mode(home), 0o700, "the PayDesk folder");
        assert_eq!(mode(&home.join("data")), 0o700, "the data folder");
        assert_eq!(mode(&home.join("profiles.json")), 0o600);
        assert_eq!(mode(&env.db()), 0o600, "the database");
        let wal = home.join("data").join("ext.sqlite-wal");
        if wal.exists() {
            assert_eq!(mode(&wal), 0o600, "the database's WAL");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn audit_verify_says_what_it_checked_and_catches_a_cut_end() {
    let (mut env, running, _) = setup().await;
    fund(&running);
    // An operator name that a spreadsheet would run as a formula (the profile changed in
    // place: `--replace`, or the name is taken).
    let base = running.base_url().to_string();
    env.ok(&[
        "profile",
        "add",
        "ext",
        "--base-url",
        &base,
        "--mer-no",
        "10001",
        "--origin",
        ORIGIN,
        "--notify-url",
        NOTIFY_URL,
        "--operator",
        "=2+5",
        "--replace",
    ]);
    for n in 0..3 {
        env.ok(&[
            "payout",
            "clabe",
            "--amount",
            &format!("{}.00", n + 1),
            "--currency",
            "MXN",
            "--clabe",
            CLABE,
        ]);
    }
    let ok = env.ok(&["audit", "verify"]);
    assert!(ok.contains("audit chain intact"), "{ok}");
    assert!(ok.contains("checked:"), "{ok}");
    assert!(ok.contains("HMAC-SHA-256"), "{ok}");
    assert!(ok.contains("the keyring recorded"), "{ok}");

    let csv_path = env.home.path().join("audit.csv");
    env.ok(&["audit", "export", csv_path.to_str().unwrap()]);
    let mut rd = csv::Reader::from_path(&csv_path).unwrap();
    let operators: Vec<String> = rd.records().map(|r| r.unwrap()[3].to_string()).collect();
    assert!(!operators.is_empty());
    assert!(
        operators.iter().all(|o| o == "'=2+5"),
        "a formula cell must be neutralised: {operators:?}"
    );

    // Someone with write access to the database cuts the last rows and mends the head.
    let rows: i64 = {
        let conn = Connection::open(env.db()).unwrap();
        let rows: i64 = conn
            .query_row("SELECT COUNT(*) FROM audit_log", [], |r| r.get(0))
            .unwrap();
        conn.execute_batch(&format!(
            "DELETE FROM audit_log WHERE id > {keep};
             UPDATE audit_head SET last_id = {keep}, count = {keep},
               last_hash = (SELECT hash FROM audit_log WHERE id = {keep});",
            keep = rows - 2
        ))
        .unwrap();
        rows
    };
    let out = env.run(&["audit", "verify"], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains("BROKEN") && said.contains(&format!("keyring recorded {rows} rows")),
        "{said}"
    );
    // The desk goes on working; its next entries are not written over the cut, so the
    // alarm stands, and the failed write is on record too.
    env.ok(&[
        "payout",
        "clabe",
        "--amount",
        "9.00",
        "--currency",
        "MXN",
        "--clabe",
        CLABE,
    ]);
    let out = env.run(&["audit", "verify"], "");
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    let said = String::from_utf8_lossy(&out.stdout);
    assert!(
        said.contains(&format!("keyring recorded {rows} rows")),
        "{said}"
    );
    assert!(said.contains("could NOT be written"), "{said}");
}
