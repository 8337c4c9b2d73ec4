//! The app's icons: `icons/paydesk.png` (1024 px, the one source) is drawn into every
//! size and format the bundle names (`src-tauri/tauri.conf.json`, `bundle.icon`) by the
//! Tauri CLI's `icon` command (`ui/node_modules`, no network). `cargo xtask icons` writes
//! them to `src-tauri/icons`; `cargo xtask test` checks the committed ones are current.

use crate::{Result, root, run};
use std::path::Path;

/// The source icon, relative to the workspace root.
const SOURCE: &str = "icons/paydesk.png";
/// Where the bundle's icons live, relative to the workspace root.
const BUNDLED_DIR: &str = "src-tauri/icons";
/// The files the bundle and the window use, of all that `tauri icon` draws (the store
/// logos and the mobile sets are not shipped).
const BUNDLED: &[&str] = &[
    "32x32.png",
    "128x128.png",
    "128x128@2x.png",
    "icon.icns",
    "icon.ico",
    "icon.png",
];

/// Draws the icons from the source into a scratch folder and returns it.
fn draw() -> Result<std::path::PathBuf> {
    let out = root().join("target/icons-drawn");
    if out.exists() {
        std::fs::remove_dir_all(&out).map_err(|e| format!("{}: {e}", out.display()))?;
    }
    let cli = root().join("ui/node_modules/.bin/tauri");
    if !cli.exists() {
        return Err("the Tauri CLI is missing: run `npm ci --prefix ui`".into());
    }
    run(
        &format!("drawing the icons from {SOURCE}"),
        &cli.to_string_lossy(),
        &["icon", SOURCE, "-o", &out.to_string_lossy()],
    )?;
    Ok(out)
}

/// `cargo xtask icons`: the bundle's icons drawn again from the source.
pub fn write() -> Result {
    let drawn = draw()?;
    for name in BUNDLED {
        let to = root().join(BUNDLED_DIR).join(name);
        std::fs::copy(drawn.join(name), &to).map_err(|e| format!("{}: {e}", to.display()))?;
    }
    println!("==> {BUNDLED_DIR} drawn from {SOURCE}: commit both");
    Ok(())
}

/// The committed icons are what the source draws now; names the stale ones.
pub fn check() -> Result {
    let drawn = draw()?;
    let stale: Vec<&str> = BUNDLED
        .iter()
        .copied()
        .filter(|name| !same_icon(&drawn.join(name), &root().join(BUNDLED_DIR).join(name)))
        .collect();
    if stale.is_empty() {
        println!("==> {BUNDLED_DIR} is current with {SOURCE}");
        Ok(())
    } else {
        Err(format!(
            "{BUNDLED_DIR} is stale against {SOURCE} ({}): run `cargo xtask icons` and commit it",
            stale.join(", ")
        ))
    }
}

fn same_icon(a: &Path, b: &Path) -> bool {
    match (std::fs::read(a), std::fs::read(b)) {
        (Ok(a), Ok(b)) if a.starts_with(b"icns") => icns_entries(&a) == icns_entries(&b),
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// An ICNS file's entries, sorted: the CLI writes the same entries in a different order
/// on each run, so two files are the same icon when their entries are.
fn icns_entries(data: &[u8]) -> Option<Vec<&[u8]>> {
    let mut entries = Vec::new();
    let mut at = 8;
    while at < data.len() {
        let len = u32::from_be_bytes(data.get(at + 4..at + 8)?.try_into().ok()?) as usize;
        if len < 8 {
            return None;
        }
        entries.push(data.get(at..at + len)?);
        at += len;
    }
    entries.sort();
    Some(entries)
}

#[cfg(test)]
mod tests {
    use super::icns_entries;

    fn icns(entries: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let body: Vec<u8> = entries
            .iter()
            .flat_map(|(kind, data)| {
                let len = (8 + data.len()) as u32;
                [kind.as_slice(), &len.to_be_bytes(), data].concat()
            })
            .collect();
        [
            b"icns".as_slice(),
            &(8 + body.len() as u32).to_be_bytes(),
            &body,
        ]
        .concat()
    }

    #[test]
    fn icns_files_compare_by_their_entries_in_any_order() {
        let a = icns(&[(b"ic07", b"one"), (b"ic08", b"two")]);
        let b = icns(&[(b"ic08", b"two"), (b"ic07", b"one")]);
        let c = icns(&[(b"ic08", b"TWO"), (b"ic07", b"one")]);
        assert_ne!(a, b);
        assert_eq!(icns_entries(&a), icns_entries(&b));
        assert_ne!(icns_entries(&a), icns_entries(&c));
        assert_eq!(icns_entries(&a[..a.len() - 1]), None, "a cut file");
    }
}
