//! The `paydesk` binary itself, as Cargo builds it for this package's tests: it starts,
//! answers `--version` with its package's version, and `--help` names the command
//! groups the README documents. Being an integration test of this package also makes
//! every test build (`cargo test --no-run --workspace`, `cargo xtask test`) build the
//! binary with the same features as the rest of the build, so the scenarios in the
//! top-level `tests/` (`tests/cli/common`, `paydesk_bin`) and the window tests run the
//! binary of this build, never one left by an earlier build.

use std::process::Command;

fn paydesk(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_paydesk"))
        .args(args)
        .env(
            "PAYDESK_HOME",
            std::env::temp_dir().join("paydesk-binary-test-unused"),
        )
        .output()
        .expect("the paydesk binary starts")
}

#[test]
fn the_binary_answers_its_version_and_names_its_commands() {
    let v = paydesk(&["--version"]);
    assert!(v.status.success(), "{v:?}");
    let text = String::from_utf8_lossy(&v.stdout);
    assert!(
        text.contains(env!("CARGO_PKG_VERSION")),
        "--version says {text:?}"
    );
    let h = paydesk(&["--help"]);
    assert!(h.status.success(), "{h:?}");
    let help = String::from_utf8_lossy(&h.stdout);
    for group in ["payout", "orders", "team", "report"] {
        assert!(help.contains(group), "--help names `{group}`: {help}");
    }
}
