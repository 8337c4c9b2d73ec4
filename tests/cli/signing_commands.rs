//! `paydesk sign`, `verify` and `keygen` as a user runs them: a real process, stdin,
//! stdout, exit codes. They must agree with every vector.

#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::common::paydesk_bin;

const VECTORS: &str = include_str!("../../crates/gateway/tests/vectors/signing.json");

fn run(args: &[&str], stdin: &str) -> Output {
    let mut child = Command::new(paydesk_bin())
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(stdin.as_bytes())
        .unwrap();
    child.wait_with_output().unwrap()
}

fn write(dir: &Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p.to_str().unwrap().to_string()
}

#[test]
fn sign_and_verify_agree_with_every_vector() {
    let v: Value = serde_json::from_str(VECTORS).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let pkcs8 = write(
        dir.path(),
        "m8.pem",
        v["keys"]["merchant"]["private_pkcs8"].as_str().unwrap(),
    );
    let pkcs1 = write(
        dir.path(),
        "m1.pem",
        v["keys"]["merchant"]["private_pkcs1"].as_str().unwrap(),
    );
    let public = write(
        dir.path(),
        "m.pub",
        v["keys"]["merchant"]["public_spki"].as_str().unwrap(),
    );
    let gateway_pub = write(
        dir.path(),
        "g.pub",
        v["keys"]["gateway"]["public_spki"].as_str().unwrap(),
    );
    let other_pub = write(
        dir.path(),
        "o.pub",
        v["keys"]["merchant4096"]["public_spki"].as_str().unwrap(),
    );

    for case in v["sign_cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let body = serde_json::to_string(&case["body"]).unwrap();
        for key in [&pkcs8, &pkcs1] {
            let out = run(&["sign", "--private-key", key], &body);
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let stdout = String::from_utf8(out.stdout).unwrap();
            assert_eq!(stdout.lines().count(), 1, "one line of JSON");
            let line: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(line["canonical"], case["canonical"], "{name}");
            assert_eq!(line["sign"], case["signature"], "{name}");
        }
        let sig = case["signature"].as_str().unwrap();
        let out = run(&["verify", "--public-key", &public, "--sign", sig], &body);
        assert_eq!(out.status.code(), Some(0), "{name} verifies");

        // A tampered body, and the right signature under the wrong key: exit 1.
        let mut tampered = case["body"].clone();
        tampered["merNo"] = Value::from(99999);
        let out = run(
            &["verify", "--public-key", &public, "--sign", sig],
            &tampered.to_string(),
        );
        assert_eq!(out.status.code(), Some(1), "{name} tampered");
        let out = run(
            &["verify", "--public-key", &other_pub, "--sign", sig],
            &body,
        );
        assert_eq!(out.status.code(), Some(1), "{name} wrong key");
    }

    for case in v["verify_cases"].as_array().unwrap() {
        let body = serde_json::to_string(&case["request"]).unwrap();
        let out = run(
            &[
                "verify",
                "--public-key",
                &gateway_pub,
                "--sign",
                case["response_sign"].as_str().unwrap(),
            ],
            &body,
        );
        let want = if case["valid"].as_bool().unwrap() {
            0
        } else {
            1
        };
        assert_eq!(out.status.code(), Some(want), "{}", case["name"]);
    }
}

#[test]
fn verify_reports_bad_input_with_exit_2_and_one_line() {
    let v: Value = serde_json::from_str(VECTORS).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let public = write(
        dir.path(),
        "m.pub",
        v["keys"]["merchant"]["public_spki"].as_str().unwrap(),
    );
    let case = &v["sign_cases"][0];
    let body = case["body"].to_string();
    let sig = case["signature"].as_str().unwrap();

    let garbled = format!("{}!!", &sig[..20]);
    let cases: Vec<(Vec<&str>, String)> = vec![
        (
            vec!["verify", "--public-key", &public, "--sign", &garbled],
            body.clone(),
        ),
        (
            vec!["verify", "--public-key", &public, "--sign", sig],
            "{not json".into(),
        ),
        (
            vec!["verify", "--public-key", &public, "--sign", sig],
            "[1,2]".into(),
        ),
        (
            vec![
                "verify",
                "--public-key",
                "/nonexistent/key.pem",
                "--sign",
                sig,
            ],
            body.clone(),
        ),
    ];
    for (args, stdin) in cases {
        let out = run(&args, &stdin);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.trim_end().lines().count(), 1, "one-line reason: {err}");
    }
    // A valid base64 signature of the wrong length is simply not valid: exit 1.
    let out = run(
        &["verify", "--public-key", &public, "--sign", "QUJD"],
        &body,
    );
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn keygen_writes_a_private_key_only_the_owner_can_read() {
    let dir = tempfile::tempdir().unwrap();
    let out_dir = dir.path().join("keys");
    let out = run(
        &[
            "keygen",
            "--bits",
            "2048",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        "",
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fingerprint = String::from_utf8(out.stdout).unwrap().trim().to_string();
    assert!(fingerprint.starts_with("SHA256:"), "{fingerprint}");

    let private = out_dir.join("private_key.pem");
    let public = out_dir.join("public_key.pem");
    let private_text = std::fs::read_to_string(&private).unwrap();
    assert!(private_text.starts_with("-----BEGIN PRIVATE KEY-----"));
    assert!(
        std::fs::read_to_string(&public)
            .unwrap()
            .starts_with("-----BEGIN PUBLIC KEY-----")
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(
            std::fs::metadata(&private).unwrap().permissions().mode() & 0o777,
            0o600
        );
    }
    let pk =
        paydesk_gateway::PublicKey::from_text(&std::fs::read_to_string(&public).unwrap()).unwrap();
    assert_eq!(pk.fingerprint(), fingerprint);

    // The pair works end to end through sign and verify.
    let body = r#"{"merNo":1,"merOrderNo":"K-1"}"#;
    let signed: Value = serde_json::from_slice(
        &run(&["sign", "--private-key", private.to_str().unwrap()], body).stdout,
    )
    .unwrap();
    let out = run(
        &[
            "verify",
            "--public-key",
            public.to_str().unwrap(),
            "--sign",
            signed["sign"].as_str().unwrap(),
        ],
        body,
    );
    assert_eq!(out.status.code(), Some(0));

    // Existing keys are not overwritten by accident; bad sizes are refused.
    let again = run(&["keygen", "--out", out_dir.to_str().unwrap()], "");
    assert_eq!(again.status.code(), Some(2));
    let bad = run(
        &[
            "keygen",
            "--bits",
            "1024",
            "--out",
            out_dir.to_str().unwrap(),
        ],
        "",
    );
    assert_eq!(bad.status.code(), Some(2));
}
