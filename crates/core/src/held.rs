//! Bulk rows held by a run (the duplicate guard: the same as, or a changed version of, an
//! earlier payout) wait for a person, like the journal's entries that need one, but they
//! are not in the journal (nothing was written for them): each run's held rows are kept
//! with the profile in the home, by input file, until a later run of the same file sends
//! or no longer holds them. The Dashboard's "Needs attention" lists them, each opening
//! its bulk run.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::bulk::{RowResult, RowStatus};
use crate::error::{CoreError, CoreResult};
use crate::profile::Home;

/// A row a bulk run held, and where it is.
#[cfg_attr(feature = "specta", derive(specta::Type))]
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldBulkRow {
    /// The bulk file the run read (what opening the run checks again).
    pub file: String,
    /// The run's result file, which lists the row held.
    pub result_file: Option<String>,
    /// The row's line in the file.
    pub line: u32,
    /// The row's number, when the run gave it one (a held row may have none yet).
    pub mer_order_no: String,
    /// Why it was held, as the result file says.
    pub detail: String,
    /// Why it was held, as the bulk plan says it (a window words it in its language);
    /// none in a list kept by an earlier PayDesk.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "specta", specta(optional))]
    pub why: Option<crate::bulk::RowReason>,
    /// When the run held it (ms since the epoch).
    pub held_at: i64,
}

/// At most this many held rows are kept per profile (the newest runs'): a person works
/// through them from the bulk run, not from a list of thousands.
const MAX_KEPT: usize = 1_000;

impl Home {
    fn held_file(&self, profile: &str) -> PathBuf {
        self.dir()
            .join("data")
            .join(format!("{profile}.bulk-held.json"))
    }

    /// The bulk rows held by this profile's runs, oldest run first.
    pub fn held_bulk_rows(&self, profile: &str) -> CoreResult<Vec<HeldBulkRow>> {
        match std::fs::read(self.held_file(profile)) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                CoreError::storage(format!(
                    "{}: cannot be read ({e})",
                    self.held_file(profile).display()
                ))
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e.into()),
        }
    }

    /// Keeps what a run of `input` held (its rows with status `held`), in place of what
    /// an earlier run of the same file held: a row the new run sent, found paid or no
    /// longer holds leaves the list.
    pub fn note_bulk_run(
        &self,
        profile: &str,
        input: &Path,
        result_file: Option<&Path>,
        results: &[RowResult],
        now: i64,
    ) -> CoreResult<()> {
        // Absolute, so the Dashboard opens the same file whoever ran it from where.
        let absolute = |p: &Path| {
            std::fs::canonicalize(p)
                .unwrap_or_else(|_| p.to_path_buf())
                .display()
                .to_string()
        };
        let file = absolute(input);
        let result_file = result_file.map(absolute);
        let mut rows = self.held_bulk_rows(profile)?;
        rows.retain(|r| r.file != file);
        rows.extend(
            results
                .iter()
                .filter(|r| r.status == RowStatus::Held)
                .map(|r| HeldBulkRow {
                    file: file.clone(),
                    result_file: result_file.clone(),
                    line: u32::try_from(r.line).unwrap_or(u32::MAX),
                    mer_order_no: r.mer_order_no.clone(),
                    detail: r.detail.clone(),
                    why: r.why.clone(),
                    held_at: now,
                }),
        );
        if rows.len() > MAX_KEPT {
            rows.drain(..rows.len() - MAX_KEPT);
        }
        let path = self.held_file(profile);
        if let Some(dir) = path.parent() {
            crate::private_fs::dir(dir)?;
        }
        let tmp = path.with_extension("json.tmp");
        let text =
            serde_json::to_vec_pretty(&rows).map_err(|e| CoreError::internal(e.to_string()))?;
        crate::private_fs::write(&tmp, &text)?;
        std::fs::rename(&tmp, &path)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(line: usize, no: &str, status: RowStatus) -> RowResult {
        RowResult {
            line,
            mer_order_no: no.into(),
            status,
            trade_no: String::new(),
            detail: format!("row {line}"),
            this_run: false,
            why: None,
        }
    }

    #[test]
    fn a_runs_held_rows_are_kept_until_a_later_run_of_its_file_sends_them() {
        let dir = tempfile::tempdir().unwrap();
        let home = Home::at(dir.path());
        let a = dir.path().join("a.csv");
        let b = dir.path().join("b.csv");
        assert!(home.held_bulk_rows("p").unwrap().is_empty());
        home.note_bulk_run(
            "p",
            &a,
            Some(&dir.path().join("a.result.csv")),
            &[
                row(2, "B-1", RowStatus::Accepted),
                row(3, "B-2", RowStatus::Held),
                row(4, "B-3", RowStatus::Held),
            ],
            10,
        )
        .unwrap();
        home.note_bulk_run("p", &b, None, &[row(2, "C-1", RowStatus::Held)], 20)
            .unwrap();
        let held = home.held_bulk_rows("p").unwrap();
        let numbers: Vec<&str> = held.iter().map(|r| r.mer_order_no.as_str()).collect();
        assert_eq!(numbers, ["B-2", "B-3", "C-1"]);
        assert_eq!(held[0].line, 3);
        assert_eq!(
            held[0].file,
            std::fs::canonicalize(dir.path())
                .unwrap()
                .join("a.csv")
                .display()
                .to_string()
        );
        // Another profile's are its own.
        assert!(home.held_bulk_rows("q").unwrap().is_empty());
        // The file run again with its held rows included: sent, off the list.
        home.note_bulk_run(
            "p",
            &a,
            None,
            &[
                row(2, "B-1", RowStatus::Accepted),
                row(3, "B-2", RowStatus::Accepted),
                row(4, "B-3", RowStatus::Held),
            ],
            30,
        )
        .unwrap();
        let numbers: Vec<String> = home
            .held_bulk_rows("p")
            .unwrap()
            .into_iter()
            .map(|r| r.mer_order_no)
            .collect();
        assert_eq!(numbers, ["C-1", "B-3"]);
    }
}
