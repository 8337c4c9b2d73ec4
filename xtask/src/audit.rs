//! The dependency audit: cargo-deny's advisories, bans and sources checks.
//!
//! The RustSec database lives on GitHub. Where it can be fetched, the audit uses it. These
//! machines reach only the package registries, so otherwise the audit reads the offline
//! snapshot in `../shared/advisory-db` (see `../shared/advisory-db.md`): it is copied into a
//! scratch git repository where cargo-deny looks for its default database (under a `db-path`
//! of our own in `target/audit`, so the user's `~/.cargo` is left alone), and cargo-deny runs
//! with `--offline`. Before it trusts that a clean result means anything, the audit plants a
//! made-up advisory against a crate of the lock file in a second copy and checks that
//! cargo-deny fails on it: an audit that cannot fail is not run.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use crate::{Result, root, run, setup};

/// The folder cargo-deny 0.20 names the default database (https://github.com/rustsec/advisory-db)
/// inside its `db-path`; its error message names it when it is missing.
const DEFAULT_DB_FOLDER: &str = "advisory-db-3157b0e258782691";

/// A crate every build of the workspace locks, for the planted advisory.
const CANARY_CRATE: &str = "rust_decimal";
const CANARY_ID: &str = "RUSTSEC-2099-0001";

pub fn audit() -> Result {
    setup::ensure_cargo_tool("deny", "cargo-deny", "0.20.2")?;
    let fetched = Command::new("cargo")
        .args(["deny", "fetch", "db"])
        .current_dir(root())
        .output()
        .is_ok_and(|o| o.status.success());
    if fetched {
        return run(
            "dependency audit (advisories from the fetched RustSec database, bans, sources)",
            "cargo",
            &["deny", "--locked", "check", "advisories", "bans", "sources"],
        );
    }
    let snapshot = root().join("..").join("shared").join("advisory-db");
    let snapshot = snapshot.canonicalize().unwrap_or(snapshot);
    if !snapshot.join("crates").is_dir() {
        return Err(format!(
            "the RustSec advisory database can be neither fetched nor read offline: {} is missing",
            snapshot.display()
        ));
    }
    println!(
        "==> the RustSec database cannot be fetched from here; auditing against the offline snapshot {}",
        snapshot.display()
    );
    let work = root().join("target").join("audit");
    let config = offline_db(&work.join("db"), &snapshot, None)?;
    canary(&work, &snapshot)?;
    let config = config.to_string_lossy().into_owned();
    run(
        "dependency audit (advisories offline, bans, sources)",
        "cargo",
        &[
            "deny",
            "--offline",
            "--locked",
            "--config",
            &config,
            "check",
            "advisories",
            "bans",
            "sources",
        ],
    )
}

/// Proves the offline audit can fail: a made-up advisory against a locked crate must fail it.
fn canary(work: &Path, snapshot: &Path) -> Result {
    let advisory = format!(
        "```toml\n[advisory]\nid = \"{CANARY_ID}\"\npackage = \"{CANARY_CRATE}\"\ndate = \"2099-01-01\"\n\
         url = \"https://example.invalid/paydesk-audit-canary\"\n\n[versions]\npatched = []\n```\n\n\
         # PayDesk audit canary\n\nA made-up vulnerability planted to check that the audit fails on one.\n"
    );
    let config = offline_db(&work.join("canary-db"), snapshot, Some(&advisory))?;
    println!(
        "==> checking that the audit fails on a new advisory (one planted against {CANARY_CRATE})"
    );
    let out = Command::new("cargo")
        .args(["deny", "--offline", "--locked", "--config"])
        .arg(&config)
        .args(["check", "advisories"])
        .current_dir(root())
        .output()
        .map_err(|e| format!("audit canary: cannot start cargo deny: {e}"))?;
    let said = String::from_utf8_lossy(&out.stderr);
    if out.status.success() || !said.contains(CANARY_ID) {
        return Err(format!(
            "the offline audit did not report the planted advisory {CANARY_ID}; it cannot be trusted:\n{said}"
        ));
    }
    println!("    the planted advisory failed the audit, as it must");
    Ok(())
}

/// Copies the snapshot into `db_path` as the git repository cargo-deny expects (plus one
/// planted advisory if given) and writes a deny.toml that reads it; returns that config.
fn offline_db(db_path: &Path, snapshot: &Path, planted: Option<&str>) -> Result<PathBuf> {
    let repo = db_path.join(DEFAULT_DB_FOLDER);
    if db_path.exists() {
        fs::remove_dir_all(db_path).map_err(|e| format!("clearing {}: {e}", db_path.display()))?;
    }
    copy_dir(snapshot, &repo)?;
    if let Some(text) = planted {
        let dir = repo.join("crates").join(CANARY_CRATE);
        fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        fs::write(dir.join(format!("{CANARY_ID}.md")), text)
            .map_err(|e| format!("planting the canary advisory: {e}"))?;
    }
    let git = |args: &[&str]| -> Result {
        let out = Command::new("git")
            .args([
                "-c",
                "user.name=paydesk-audit",
                "-c",
                "user.email=audit@paydesk.invalid",
            ])
            .args(["-c", "commit.gpgsign=false"])
            .args(args)
            .current_dir(&repo)
            .output()
            .map_err(|e| format!("cannot start git: {e}"))?;
        if out.status.success() {
            Ok(())
        } else {
            Err(format!(
                "git {} in {}: {}",
                args.join(" "),
                repo.display(),
                String::from_utf8_lossy(&out.stderr)
            ))
        }
    };
    git(&["init", "-q"])?;
    git(&["add", "-A"])?;
    git(&[
        "commit",
        "-q",
        "-m",
        "RustSec advisory-db snapshot (offline)",
    ])?;

    let base = fs::read_to_string(root().join("deny.toml"))
        .map_err(|e| format!("reading deny.toml: {e}"))?;
    let db = db_path.to_string_lossy().replace('\\', "/");
    let mut config = String::new();
    let mut placed = false;
    for line in base.lines() {
        config.push_str(line);
        config.push('\n');
        if line.trim() == "[advisories]" {
            config.push_str(&format!("db-path = \"{db}\"\n"));
            placed = true;
        }
    }
    if !placed {
        return Err("deny.toml has no [advisories] table".into());
    }
    let path = db_path.with_extension("toml");
    fs::write(&path, config).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(path)
}

fn copy_dir(from: &Path, to: &Path) -> Result {
    fs::create_dir_all(to).map_err(|e| format!("{}: {e}", to.display()))?;
    let entries = fs::read_dir(from).map_err(|e| format!("{}: {e}", from.display()))?;
    for entry in entries {
        let entry = entry.map_err(|e| format!("{}: {e}", from.display()))?;
        let kind = entry
            .file_type()
            .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        let target = to.join(entry.file_name());
        if kind.is_dir() {
            if entry.file_name() != ".git" {
                copy_dir(&entry.path(), &target)?;
            }
        } else {
            fs::copy(entry.path(), &target)
                .map_err(|e| format!("{}: {e}", entry.path().display()))?;
        }
    }
    Ok(())
}
