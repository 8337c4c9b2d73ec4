//! Careless or hostile input at the CLI, and a gateway that says yes without saying
//! under which number: every case ends in a clear error naming the field and the rule
//! (exit 2), or in "outcome unknown" that a lookup settles; never a panic, never a
//! value that would break later calls.

#![allow(clippy::unwrap_used)]

use crate::common;

use common::*;
use paydesk_sandbox::Fault;

const CLABE: &str = "002010077777777771";

fn stderr(o: &std::process::Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn numbers_out_of_range_and_control_characters_are_refused_naming_the_rule() {
    let (mut env, _running, _) = setup().await;
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (
            vec!["orders", "sync", "--days", "100000000"],
            "",
            "1..=3650",
        ),
        (
            vec!["orders", "sync", "--days", "-1"],
            "",
            "-1 is not in 1..=3650",
        ),
        (
            vec!["orders", "sync", "--days", "0"],
            "",
            "0 is not in 1..=3650",
        ),
        (vec!["orders", "sync", "--window-hours", "0"], "", "1..=744"),
        (
            vec!["orders", "list", "--limit", "-1"],
            "",
            "-1 is not in 1..=10000",
        ),
        (vec!["journal", "list", "--limit", "0"], "", "1..=10000"),
        (
            vec![
                "payout",
                "clabe",
                "--amount",
                "-1",
                "--currency",
                "MXN",
                "--clabe",
                CLABE,
            ],
            "",
            "amount: must be greater than zero",
        ),
        (
            vec!["profile", "set-token", "ext"],
            "tok-1\r\nX-Evil: 1",
            "bearerToken",
        ),
        (
            vec![
                "profile",
                "add",
                "x",
                "--base-url",
                "https://gw.example",
                "--mer-no",
                "-5",
                "--origin",
                ORIGIN,
                "--notify-url",
                NOTIFY_URL,
            ],
            "",
            "-5 is not in 1..",
        ),
        (
            vec![
                "profile",
                "add",
                "x",
                "--base-url",
                "https://gw.example",
                "--mer-no",
                "5",
                "--origin",
                ORIGIN,
                "--notify-url",
                NOTIFY_URL,
                "--lang",
                "en\r\nX-Evil: 1",
            ],
            "",
            "lang",
        ),
        // The app's rule too (one rule in the core): the built-in sandbox is never given
        // a gateway address, where the CLI once replaced it silently.
        (
            vec![
                "profile",
                "add",
                "sandbox",
                "--base-url",
                "https://gw.example",
                "--mer-no",
                "5",
                "--origin",
                ORIGIN,
                "--notify-url",
                NOTIFY_URL,
            ],
            "",
            "name: \"sandbox\" is reserved for the built-in sandbox",
        ),
        (
            vec![
                "profile",
                "add",
                "x",
                "--base-url",
                "https://ana:pw@gw.example",
                "--mer-no",
                "5",
                "--origin",
                ORIGIN,
                "--notify-url",
                NOTIFY_URL,
            ],
            "",
            "baseUrl",
        ),
    ];
    for (args, stdin, said) in cases {
        let out = env.run(&args, stdin);
        assert_eq!(
            out.status.code(),
            Some(2),
            "{args:?}: {:?} {}",
            out.status.code(),
            stderr(&out)
        );
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
        assert!(!stderr(&out).contains("panicked"), "{args:?}");
    }
    // The token that was refused did not replace the good one: calls still work.
    env.ok(&["balance", "--currency", "MXN"]);

    // A key below the size rule says the rule.
    let weak = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../crates/gateway/tests/fixtures/rsa1024-pkcs8.pem");
    let out = env.run(
        &[
            "profile",
            "import-key",
            "ext",
            "--file",
            weak.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(stderr(&out).contains("1024 bits"), "{}", stderr(&out));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_success_without_a_trade_number_is_unknown_and_a_lookup_settles_it() {
    let (mut env, running, _) = setup().await;
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("USD".into()).or_default() += rust_decimal::Decimal::from(1_000);
    running.sandbox.add_merchant(m);
    running.sandbox.set_fault(
        "/v2/payout",
        Fault {
            blank_trade_no_rate: 1.0,
            ..Fault::default()
        },
    );
    let args = [
        "payout",
        "clabe",
        "--amount",
        "7.00",
        "--currency",
        "MXN",
        "--clabe",
        CLABE,
        "--mer-order-no",
        "PO-BLANK-1",
    ];
    let out = env.run(&args, "");
    assert_eq!(out.status.code(), Some(3), "{}", stderr(&out));
    let said = stderr(&out);
    assert!(said.contains("without a usable trade number"), "{said}");
    assert!(!said.contains("outcome unknown: outcome unknown"), "{said}");
    running.sandbox.clear_faults();
    let out = env.run(
        &["journal", "reconcile", "--mer-order-no", "PO-BLANK-1"],
        "",
    );
    assert!(out.status.success(), "{}", stderr(&out));
    let real = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .find(|o| o.mer_order_no == "PO-BLANK-1")
            .map(|o| o.trade_no.clone())
            .unwrap()
    });
    assert!(String::from_utf8_lossy(&out.stdout).contains(&real));
    let paid = running.sandbox.with_state(|s| {
        s.orders
            .iter()
            .filter(|o| o.mer_order_no == "PO-BLANK-1")
            .count()
    });
    assert_eq!(paid, 1, "looked up, never sent again");
}

/// Files and streams that never end or never open: a device, a device behind a symlink,
/// a FIFO without a writer, an endless stdin. Each is refused at once naming the rule;
/// nothing is read until memory runs out, nothing waits for ever.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn endless_files_and_streams_are_refused_at_once() {
    let (mut env, _running, _) = setup().await;
    let dir = tempfile::tempdir().unwrap();
    let link = dir.path().join("passport.png");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    let fifo = dir.path().join("payouts.csv");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let big = dir.path().join("big.png");
    let mut png = b"\x89PNG\r\n\x1a\n".to_vec();
    png.resize(5 * 1024 * 1024 + 1, 0);
    std::fs::write(&big, &png).unwrap();
    let (link, fifo, big) = (
        link.to_str().unwrap(),
        fifo.to_str().unwrap(),
        big.to_str().unwrap(),
    );
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "payout".into(),
                "bulk".into(),
                "--check".into(),
                "/dev/zero".into(),
            ],
            "not a regular file",
        ),
        (
            vec![
                "payout".into(),
                "bulk".into(),
                "--check".into(),
                fifo.into(),
            ],
            "not a regular file",
        ),
        (
            vec![
                "review".into(),
                "submit".into(),
                "--trade-no".into(),
                "T1".into(),
                "--file".into(),
                format!("21={link}"),
            ],
            "not a regular file",
        ),
        (
            vec![
                "review".into(),
                "submit".into(),
                "--trade-no".into(),
                "T1".into(),
                "--file".into(),
                format!("21={big}"),
            ],
            "larger than",
        ),
        (
            vec![
                "profile".into(),
                "import-key".into(),
                "ext".into(),
                "--file".into(),
                "/dev/zero".into(),
            ],
            "not a regular file",
        ),
        (
            vec![
                "profile".into(),
                "set-gateway-key".into(),
                "ext".into(),
                "--file".into(),
                fifo.into(),
            ],
            "not a regular file",
        ),
    ];
    for (args, said) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let started = std::time::Instant::now();
        let out = env.run(&args, "");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(stderr(&out).contains(said), "{args:?}: {}", stderr(&out));
        assert!(
            started.elapsed() < std::time::Duration::from_secs(30),
            "{args:?} waited"
        );
    }
    // An endless stdin: the token and a notification body are cut at their bound.
    for args in [
        &["profile", "set-token", "ext"][..],
        &["events", "verify"][..],
    ] {
        let out = env
            .cmd(args)
            .stdin(std::fs::File::open("/dev/zero").unwrap())
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("stdin is larger than"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    // The refused token did not replace the good one.
    env.ok(&["balance", "--currency", "MXN"]);
}

/// Random hostile arguments to the desk's commands, for a bounded time: every run ends
/// with an exit code the CLI documents (0 to 6; 6 is the duplicate guard, hit when a case repeats; never 101, a panic), and nothing it prints
/// carries a terminal escape or a bidi control.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_arguments_fuzzed_end_in_a_clear_answer() {
    let (mut env, _running, _) = setup().await;
    let hostile = [
        "-1",
        "0",
        "1e309",
        "99999999999999999999999999999",
        "NaN",
        "0x10",
        "",
        " ",
        "--",
        "\u{1b}[2J",
        "T1\u{202e}gpj.exe",
        "\u{7}\u{8}",
        "../../etc/passwd",
        "USD\r\nX: 1",
        "usd",
        "12.345",
        "-0.00",
        "1,5",
        "𝟙𝟚",
        "%s%n",
        "'; DROP TABLE orders; --",
    ];
    let long = "9".repeat(10_000);
    let templates: Vec<Vec<&str>> = vec![
        vec!["orders", "list", "--limit", "@", "--min-amount", "@"],
        vec!["orders", "list", "--search", "@", "--from", "@"],
        vec!["orders", "sync", "--days", "@"],
        vec!["orders", "show", "@"],
        vec!["balance", "--currency", "@"],
        vec!["refund", "show", "--trade-no", "@", "--refund-no", "@"],
        vec!["journal", "list", "--limit", "@"],
        vec!["journal", "reconcile", "--mer-order-no", "@"],
        vec!["journal", "reconcile", "--id", "@"],
        vec![
            "payout",
            "clabe",
            "--amount",
            "@",
            "--currency",
            "@",
            "--clabe",
            "@",
        ],
        vec![
            "payin",
            "create",
            "--method",
            "@",
            "--amount",
            "@",
            "--currency",
            "MXN",
        ],
        vec![
            "payin",
            "create",
            "--method",
            "WECHAT",
            "--amount",
            "1.00",
            "--currency",
            "USD",
            "--notify-url",
            "@",
        ],
        vec![
            "card",
            "topup",
            "--card",
            "@",
            "--amount",
            "@",
            "--currency",
            "USD",
        ],
        vec!["audit", "list", "--limit", "@"],
        vec!["events", "list", "--limit", "@"],
        vec!["profile", "add", "@", "--base-url", "@", "--mer-no", "@"],
    ];
    let mut rng = fastrand::Rng::with_seed(0xc11);
    let started = std::time::Instant::now();
    let (mut cases, mut failures) = (0, Vec::new());
    while started.elapsed() < std::time::Duration::from_secs(10) {
        cases += 1;
        let t = &templates[rng.usize(..templates.len())];
        let args: Vec<&str> = t
            .iter()
            .map(|a| {
                if *a != "@" {
                    a
                } else if rng.u8(..10) == 0 {
                    long.as_str()
                } else {
                    hostile[rng.usize(..hostile.len())]
                }
            })
            .collect();
        let out = env.run(&args, "");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        let code = out.status.code();
        if !matches!(code, Some(0..=6)) || text.contains("panicked") {
            failures.push(format!("{args:?}: exit {code:?}: {text}"));
        }
        if let Some(c) = text.chars().find(|c| {
            (c.is_control() && *c != '\n' && *c != '\t')
                || matches!(*c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        }) {
            failures.push(format!("{args:?}: printed {c:?}"));
        }
    }
    println!(
        "fuzz CLI arguments: {cases} cases, failures: {}",
        failures.len()
    );
    assert!(failures.is_empty(), "{failures:#?}");
}

/// What a careless operator types gets an error naming the field and the rule (exit 2),
/// never the parser's "unexpected argument" and never an empty answer: a currency that is
/// none, negative amounts and years, a spreadsheet's UTF-16 file, names the gateway
/// would get with a NUL or a megabyte. `--check` of a file with invalid rows says so in
/// its exit status.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn careless_input_is_refused_naming_the_field_and_the_rule() {
    let (mut env, running, _) = setup().await;
    let dir = env.home.path().to_path_buf();
    let out_csv = dir.join("s.csv");
    let out = out_csv.to_str().unwrap();
    let today = chrono::Utc::now().date_naive().to_string();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec![
                "report",
                "statement",
                "--from",
                &today,
                "--to",
                &today,
                "--currency",
                "XQZ",
                "--out",
                out,
            ],
            "currency: \"XQZ\" is not an ISO 4217 currency",
        ),
        (
            vec![
                "report",
                "statement",
                "--from",
                "-0001-01-01",
                "--to",
                &today,
                "--out",
                out,
            ],
            "from",
        ),
        (
            vec![
                "team",
                "rules",
                "set",
                "--currency",
                "MXN",
                "--above",
                "-5",
                "--approvals",
                "1",
            ],
            "above: must be 0 or more, got -5",
        ),
        (
            vec![
                "team",
                "rules",
                "set",
                "--currency",
                "MXN",
                "--above",
                "5",
                "--approvals",
                "-1",
            ],
            "approvals: must be 1 to 5 approvers, got -1",
        ),
        (
            vec![
                "team",
                "request",
                "payout",
                "--amount",
                "-5",
                "--currency",
                "MXN",
                "--clabe",
                CLABE,
            ],
            "amount: must be greater than zero",
        ),
    ];
    for (args, said) in cases {
        let o = env.run(&args, "");
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(said), "{args:?}: {}", stderr(&o));
        assert!(!stderr(&o).contains("unexpected argument"), "{args:?}");
    }
    assert!(
        !out_csv.exists(),
        "no statement written for a currency that is none"
    );

    // A spreadsheet's "Unicode text": UTF-16 without a byte-order mark.
    let header = "type,amount,currency,account,firstName,lastName,country";
    let text = format!("{header}\nclabe,50.00,MXN,{CLABE},Ana,Lima,MX\n");
    let utf16: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let file = dir.join("utf16.csv");
    std::fs::write(&file, utf16).unwrap();
    let o = env.run(&["payout", "bulk", file.to_str().unwrap(), "--check"], "");
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("UTF-16") && stderr(&o).contains("CSV UTF-8"),
        "{}",
        stderr(&o)
    );
    assert!(!stderr(&o).contains("no \"type\" column"), "{}", stderr(&o));

    // Names with control characters or a megabyte are refused row by row, and --check
    // exits non-zero when any row is invalid.
    let long = "x".repeat(1_000_000);
    const CARD: &str = "4111111111111111";
    let rows = format!(
        "{header}\ncard,5.00,USD,{CARD},Ana\u{0},Lima,MX\ncard,5.10,USD,{CARD},{long},Lima,MX\ncard,5.20,USD,{CARD},Ana,Li\u{202e}ma,MX\ncard,5.30,USD,{CARD},Ana,Lima,MX\n"
    );
    let file = dir.join("names.csv");
    std::fs::write(&file, rows).unwrap();
    let o = env.run(&["payout", "bulk", file.to_str().unwrap(), "--check"], "");
    let said = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{said}");
    assert!(
        said.contains("line 2: firstName: must not contain control"),
        "{said}"
    );
    assert!(
        said.contains("line 3: firstName: must be at most 100 characters"),
        "{said}"
    );
    assert!(
        said.contains("line 4: lastName: must not contain control"),
        "{said}"
    );
    assert!(said.contains("3 rows are invalid"), "{said}");
    assert!(said.len() < 20_000, "the megabyte is not printed back");
    // A run sends the valid row only.
    let mut m = running.sandbox.with_state(|s| s.merchants[&10001].clone());
    *m.opening.entry("MXN".into()).or_default() += rust_decimal::Decimal::from(1_000);
    running.sandbox.add_merchant(m);
    let o = env.run(&["payout", "bulk", file.to_str().unwrap(), "--yes"], "");
    assert!(o.status.success(), "{}", stderr(&o));
    running.sandbox.with_state(|s| {
        assert_eq!(s.orders.len(), 1);
        assert_eq!(s.orders[0].amount, "5.30".parse().unwrap());
    });
}
