//! The review desk's evidence (issue 36): every file a review submission sends is kept
//! as its name, type, size and SHA-256, in the journal before the request leaves, in
//! the submission's row, and on the order's timeline; a lost answer still leaves it.
//! The test computes each hash itself from the bytes it wrote, and a proxy in front of
//! the sandbox reads the journal's file at the moment the request arrives.

#![allow(clippy::unwrap_used)]

use crate::common;

use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri};
use paydesk_core::journal::Status;
use paydesk_core::new_mer_order_no;
use paydesk_core::store::reviews::ReviewStatus;
use paydesk_gateway::wire::MerNo;
use paydesk_sandbox::Fault;
use sha2::Digest as _;

/// What the test expects of one file: computed here, from the bytes written.
struct Written {
    name: String,
    code: &'static str,
    media_type: &'static str,
    size: u64,
    sha256: String,
}

fn write(dir: &std::path::Path, name: &str, code: &'static str, bytes: &[u8]) -> Written {
    std::fs::write(dir.join(name), bytes).unwrap();
    let media_type = match name.rsplit('.').next() {
        Some("png") => "image/png",
        Some("pdf") => "application/pdf",
        _ => "image/jpeg",
    };
    Written {
        name: name.to_string(),
        code,
        media_type,
        size: bytes.len() as u64,
        sha256: hex::encode(sha2::Sha256::digest(bytes)),
    }
}

/// A SEPA payin at the sandbox, made by the desk: an order that needs documents.
async fn sepa_order(desk: &paydesk_core::Desk) -> String {
    let op = paydesk_gateway::wire::V1Payment {
        common: paydesk_gateway::wire::PayinCommon {
            mer_no: MerNo(common::MER),
            mer_order_no: new_mer_order_no("PI"),
            currency_code: "EUR".into(),
            source_amount: "80.00".parse().unwrap(),
            return_url: String::new(),
            notify_url: "https://desk.example/n".into(),
            ip_address: "203.0.113.7".into(),
            user_id: String::new(),
            email: String::new(),
        },
        version: "V3.0.0".into(),
        method: paydesk_gateway::wire::V1Method::Sepa(paydesk_gateway::wire::SepaExtras {
            user_agent: "UA".into(),
            billing_first_name: "Ana".into(),
            billing_last_name: "Lima".into(),
        }),
    };
    desk.money()
        .payin_v1(op)
        .await
        .unwrap()
        .entry
        .trade_no
        .unwrap()
}

/// The journal's request of the review under `reference`, read from the database file
/// by a connection of its own (what is committed, not what the desk holds).
fn journal_request(db: &std::path::Path, reference: &str) -> Option<String> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    conn.query_row(
        "SELECT request FROM journal WHERE operation = 'v1.submit.transferOrder' AND mer_order_no = ?1",
        [reference],
        |r| r.get(0),
    )
    .ok()
}

/// A proxy in front of the sandbox: for each review request it reads the journal and
/// the audit log first (what it found is kept in `seen` and `audit_seen`), then passes
/// the request on.
async fn proxy(
    sandbox: url::Url,
    db: std::path::PathBuf,
    seen: Arc<Mutex<Vec<Option<String>>>>,
    audit_seen: Arc<Mutex<Vec<Vec<String>>>>,
) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let client = reqwest::Client::new();
    let app = axum::Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: Bytes| {
        let (client, sandbox, db, seen, audit_seen) = (
            client.clone(),
            sandbox.clone(),
            db.clone(),
            seen.clone(),
            audit_seen.clone(),
        );
        async move {
            if uri.path().ends_with("/submit/transferOrder") {
                let v: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
                let trade_no = v["tradeNo"].as_str().unwrap_or("");
                let committed = journal_of_trade(&db, trade_no);
                seen.lock().unwrap().push(committed);
                audit_seen.lock().unwrap().push(audited(&db, trade_no));
            }
            let mut req = client.post(sandbox.join(uri.path().trim_start_matches('/')).unwrap());
            for (k, v) in &headers {
                if k != "host" && k != "content-length" {
                    req = req.header(k, v);
                }
            }
            match req.body(body).send().await {
                Ok(r) => {
                    let status = StatusCode::from_u16(r.status().as_u16()).unwrap();
                    (status, r.bytes().await.unwrap_or_default())
                }
                // The sandbox dropped its answer: so does the proxy (an unreadable answer).
                Err(_) => (
                    StatusCode::BAD_GATEWAY,
                    Bytes::from_static(b"<html>bad gateway</html>"),
                ),
            }
        }
    });
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    format!("http://{addr}/")
}

/// The audit log's `review.evidence` rows naming `trade_no`, as committed.
fn audited(db: &std::path::Path, trade_no: &str) -> Vec<String> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT identifiers FROM audit_log WHERE operation = 'review.evidence' ORDER BY id",
        )
        .unwrap();
    stmt.query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .filter(|i: &String| i.contains(&format!("tradeNo={trade_no} ")))
        .collect()
}

/// Every review request of the journal for `trade_no`, as committed.
fn journal_of_trade(db: &std::path::Path, trade_no: &str) -> Option<String> {
    let conn =
        rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
            .unwrap();
    let mut stmt = conn
        .prepare(
            "SELECT request FROM journal WHERE operation = 'v1.submit.transferOrder' ORDER BY id",
        )
        .unwrap();
    let rows: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .filter(|r: &String| r.contains(trade_no))
        .collect();
    rows.last().cloned()
}

/// Each file of `written` is in the journal's masked request as its size and SHA-256,
/// and nothing of its bytes is.
fn assert_journal_has(request: &str, written: &[Written], bytes: &[&[u8]]) {
    let v: serde_json::Value = serde_json::from_str(request).unwrap();
    let files = v["fileList"].as_array().unwrap();
    assert_eq!(files.len(), written.len(), "{request}");
    for (f, w) in files.iter().zip(written) {
        assert_eq!(
            f["fileContent"].as_str().unwrap(),
            format!("<{} bytes, sha256 {}>", w.size, w.sha256),
            "{request}"
        );
        assert_eq!(f["fileType"], w.code);
    }
    for b in bytes {
        use base64::Engine as _;
        let encoded = base64::engine::general_purpose::STANDARD.encode(b);
        assert!(
            !request.contains(&encoded),
            "the journal keeps no file bytes"
        );
    }
}

fn assert_evidence(evidence: &[paydesk_core::store::reviews::FileEvidence], written: &[Written]) {
    let got: Vec<_> = evidence
        .iter()
        .map(|e| {
            (
                e.name.as_str(),
                e.file_type.as_str(),
                e.media_type.as_str(),
                e.size,
                e.sha256.as_str(),
            )
        })
        .collect();
    let want: Vec<_> = written
        .iter()
        .map(|w| {
            (
                w.name.as_str(),
                w.code,
                w.media_type,
                w.size,
                w.sha256.as_str(),
            )
        })
        .collect();
    assert_eq!(got, want);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_keeps_each_files_sha256_size_and_type_in_the_journal_before_it_leaves() {
    let f = common::Fixture::new("evidence").await;
    let desk = f.desk().await;
    let trade_no = sepa_order(&desk).await;
    // The order waits for documents: it is in the queue.
    let queue = desk.records().review_queue().unwrap();
    let row = queue.iter().find(|q| q.trade_no == trade_no).unwrap();
    assert_eq!(row.status, ReviewStatus::NeedsDocuments);
    assert_eq!(row.submissions, 0);

    let dir = f.dir.path();
    let png: Vec<u8> = [b"\x89PNG\r\n\x1a\n".as_slice(), &[7u8; 300]].concat();
    let pdf: Vec<u8> = b"%PDF-1.4\n1 0 obj << /Type /Page >> endobj\n%%EOF\n".to_vec();
    let written = vec![
        write(dir, &format!("{trade_no}_passport.png"), "21", &png),
        write(dir, "proof.pdf", "22", &pdf),
    ];
    let request = paydesk_core::ReviewRequest {
        trade_no: trade_no.clone(),
        info: vec![("1".into(), "Invoice 55".into())],
        files: written
            .iter()
            .map(|w| (w.code.to_string(), dir.join(&w.name).display().to_string()))
            .collect(),
    };

    // Through a proxy that reads the journal's file when the request reaches it.
    let seen = Arc::new(Mutex::new(Vec::new()));
    let db = f.home.database(&f.name);
    let audit_seen = Arc::new(Mutex::new(Vec::new()));
    let via = proxy(
        f.running.base_url(),
        db.clone(),
        seen.clone(),
        audit_seen.clone(),
    )
    .await;
    let direct = f.home.get(&f.name).unwrap();
    f.home
        .put(paydesk_core::Profile {
            base_url: Some(via),
            ..direct
        })
        .unwrap();
    let proxied = f.desk().await;
    let sent = proxied
        .money()
        .submit_review("RV-E1", &request)
        .await
        .unwrap();
    assert_eq!(sent.entry.status, Status::Accepted);
    let seen_then = seen.lock().unwrap().clone();
    assert_eq!(seen_then.len(), 1, "one review request reached the gateway");
    let at_arrival = seen_then[0]
        .as_deref()
        .expect("the journal held the review's entry when its request arrived");
    assert_journal_has(at_arrival, &written, &[&png, &pdf]);
    // The audit log's chain held it too, each file as size, type and SHA-256.
    let audit_then = audit_seen.lock().unwrap()[0].clone();
    assert_eq!(audit_then.len(), 1, "{audit_then:?}");
    for (i, w) in written.iter().enumerate() {
        assert!(
            audit_then[0].contains(&format!(
                "file{i}={}:{}:{}",
                w.size,
                w.name.rsplit('.').next().unwrap(),
                w.sha256
            )),
            "{audit_then:?}"
        );
    }

    // The gateway received exactly these bytes.
    let reviews = f.running.sandbox.with_state(|s| s.reviews.clone());
    let at_gateway: Vec<(u64, String)> = reviews[0]
        .files
        .iter()
        .map(|x| (x.size as u64, x.sha256.clone()))
        .collect();
    let expected: Vec<(u64, String)> = written.iter().map(|w| (w.size, w.sha256.clone())).collect();
    assert_eq!(at_gateway, expected);

    // The submission's row and the order's timeline show the same evidence.
    let listed = desk.money().review_submissions(Some(&trade_no)).unwrap();
    assert_evidence(&listed[0].evidence, &written);
    use paydesk_core::desk::TimelineEvent as T;
    let timeline = desk.orders().order_timeline(&trade_no).unwrap();
    let on_timeline = timeline
        .iter()
        .find_map(|e| match e {
            T::Review { evidence, .. } => Some(evidence.clone()),
            _ => None,
        })
        .unwrap();
    assert_evidence(&on_timeline, &written);
    let row = desk
        .records()
        .review_queue()
        .unwrap()
        .into_iter()
        .find(|q| q.trade_no == trade_no)
        .unwrap();
    assert_eq!(
        (row.status, row.submissions, row.files),
        (ReviewStatus::Submitted, 1, 2)
    );

    // A lost answer (the gateway took the files and the answer never came) still
    // leaves the evidence: in the journal, and in the submission's row.
    f.running.sandbox.set_fault(
        "/submit/transferOrder",
        Fault {
            drop_rate: 1.0,
            ..Fault::default()
        },
    );
    let other = vec![write(
        dir,
        "statement.pdf",
        "22",
        b"%PDF-1.7\nlost answer\n%%EOF\n",
    )];
    let lost_request = paydesk_core::ReviewRequest {
        trade_no: trade_no.clone(),
        info: vec![],
        files: vec![("22".into(), dir.join("statement.pdf").display().to_string())],
    };
    let _ = proxied.money().submit_review("RV-E2", &lost_request).await;
    let seen_lost = seen.lock().unwrap()[1].clone();
    assert_journal_has(
        seen_lost
            .as_deref()
            .expect("the journal held the entry when the request arrived"),
        &other,
        &[],
    );
    let entry = proxied
        .journal()
        .entries(&[], 10)
        .unwrap()
        .into_iter()
        .find(|e| e.mer_order_no == "RV-E2")
        .unwrap();
    assert_eq!(entry.status, Status::Unknown, "the answer was lost");
    assert_journal_has(&journal_request(&db, "RV-E2").unwrap(), &other, &[]);
    let listed = desk.money().review_submissions(Some(&trade_no)).unwrap();
    let lost = listed.iter().find(|s| s.reference == "RV-E2").unwrap();
    assert_eq!(lost.outcome, "unknown");
    assert_evidence(&lost.evidence, &other);
    let at_gateway = f
        .running
        .sandbox
        .with_state(|s| s.reviews[1].files[0].sha256.clone());
    assert_eq!(at_gateway, other[0].sha256, "the request did leave");
    let row = desk
        .records()
        .review_queue()
        .unwrap()
        .into_iter()
        .find(|q| q.trade_no == trade_no)
        .unwrap();
    assert_eq!(row.status, ReviewStatus::Unknown);

    // Two files dropped together: the one named after the order is matched to it, the
    // other listed as unmatched.
    let matched = desk
        .records()
        .review_match(&[
            dir.join(&written[0].name).display().to_string(),
            dir.join("holiday.png").display().to_string(),
        ])
        .unwrap();
    assert_eq!(matched[0].trade_no.as_deref(), Some(trade_no.as_str()));
    assert_eq!(
        matched[1].status,
        paydesk_core::review_match::MatchStatus::Unmatched
    );
}
