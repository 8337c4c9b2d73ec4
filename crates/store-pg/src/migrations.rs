//! The team schema's migrations versioned by their files (review r5, F1): the database
//! records each applied file's own number and the SHA-256 of its text
//! (`paydesk.schema_migrations.file`, `sha256`), beside the position `version` older
//! PayDesks read. A database whose record disagrees with this build's list (a file
//! of the same number with other text, a number this build does not know, a file of
//! the list skipped while a later one was applied: what a branch build that numbered
//! its files differently leaves) is refused with the file named, never migrated
//! around it.

use sha2::{Digest, Sha256};

use paydesk_store::error::{CoreError, CoreResult};

/// One migration of the team's schema: its file's name (`NNNN_what`, the number is its
/// version) and its SQL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamMigration {
    pub name: &'static str,
    pub sql: &'static str,
}

/// `team_migration!("0028_review_r5")`: the file `schema/0028_review_r5.sql`.
#[macro_export]
#[doc(hidden)]
macro_rules! team_migration {
    ($name:literal) => {
        $crate::migrations::TeamMigration {
            name: $name,
            sql: include_str!(concat!("schema/", $name, ".sql")),
        }
    };
}

impl TeamMigration {
    /// The file's number (`0028` of `0028_review_r5`): the version the database records.
    pub fn number(&self) -> i32 {
        self.name
            .split('_')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0)
    }

    /// The SHA-256 of the file's text, in hexadecimal.
    pub fn sha256(&self) -> String {
        hex::encode(Sha256::digest(self.sql.as_bytes()))
    }
}

/// One row of `paydesk.schema_migrations`: the position `version`, and the file's
/// number and hash (none on a row an older PayDesk wrote).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Applied {
    pub version: i32,
    pub file: Option<i32>,
    pub sha256: Option<String>,
}

/// Whether the database's record of applied files agrees with `ours` (this build's list,
/// in order): every recorded file this build knows has the same text; the files of
/// `ours` applied are a prefix of it (none skipped before one applied); and, when
/// `unknown_refused` (`team init`, which would migrate the database), no file is
/// recorded that this build does not have. Rows without a file (an older PayDesk's)
/// are not judged here.
pub fn check_applied(
    ours: &[TeamMigration],
    applied: &[Applied],
    unknown_refused: bool,
) -> CoreResult<()> {
    let recorded = |n: i32| applied.iter().find(|a| a.file == Some(n));
    for a in applied {
        let Some(file) = a.file else { continue };
        match ours.iter().find(|m| m.number() == file) {
            Some(m) if a.sha256.as_deref() != Some(m.sha256().as_str()) => {
                return Err(CoreError::keyed(
                    "team",
                    format!(
                        "the team's database applied its migration {file:04} from another text than this PayDesk's {}: a build with other migrations under the same number ran `team init` on it; nothing was changed",
                        m.name
                    ),
                    "teamSchemaDiffers",
                    &[("file", format!("{file:04}"))],
                ));
            }
            Some(_) => {}
            None if unknown_refused => {
                return Err(CoreError::keyed(
                    "team",
                    format!(
                        "the team's database applied a migration {file:04} this PayDesk does not have (a newer PayDesk's, or another build's): run `team init` with the PayDesk that applied it; nothing was changed"
                    ),
                    "teamSchemaUnknown",
                    &[("file", format!("{file:04}"))],
                ));
            }
            None => {}
        }
    }
    if let Some(gap) = ours.iter().position(|m| recorded(m.number()).is_none())
        && let Some(later) = ours[gap..].iter().find(|m| recorded(m.number()).is_some())
    {
        let missing = ours[gap].number();
        let later = later.number();
        return Err(CoreError::keyed(
            "team",
            format!(
                "the team's database applied migration {later:04} but not {missing:04}, which comes before it in this PayDesk: a build that skipped {missing:04} ran `team init` on it; nothing was changed"
            ),
            "teamSchemaSkipped",
            &[
                ("missing", format!("{missing:04}")),
                ("later", format!("{later:04}")),
            ],
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const A: TeamMigration = TeamMigration {
        name: "0001_a",
        sql: "CREATE TABLE a ();",
    };
    const B: TeamMigration = TeamMigration {
        name: "0003_b",
        sql: "CREATE TABLE b ();",
    };
    const C: TeamMigration = TeamMigration {
        name: "0002_c",
        sql: "CREATE TABLE c ();",
    };

    fn row(version: i32, m: &TeamMigration) -> Applied {
        Applied {
            version,
            file: Some(m.number()),
            sha256: Some(m.sha256()),
        }
    }

    fn key(r: CoreResult<()>) -> Option<String> {
        match r {
            Err(CoreError::Validation { rule, .. }) => rule.key,
            Err(e) => panic!("{e}"),
            Ok(()) => None,
        }
    }

    #[test]
    fn a_file_is_its_number_and_the_hash_of_its_text() {
        assert_eq!(B.number(), 3);
        // SHA-256 of "CREATE TABLE a ();", computed apart (`printf %s ... | sha256sum`).
        assert_eq!(
            A.sha256(),
            "902f5c947b00294d6b0cdb41666553a31c51672ed6e65af6209e622790dce7b1"
        );
        assert_ne!(A.sha256(), C.sha256());
    }

    #[test]
    fn a_record_that_is_a_prefix_of_the_list_with_the_same_texts_agrees() {
        let ours = [A, B, C];
        assert_eq!(key(check_applied(&ours, &[], true)), None);
        assert_eq!(
            key(check_applied(&ours, &[row(1, &A), row(2, &B)], true)),
            None
        );
        // Rows an older PayDesk wrote (no file) are not judged.
        let old = Applied {
            version: 1,
            file: None,
            sha256: None,
        };
        assert_eq!(key(check_applied(&ours, &[old], true)), None);
    }

    #[test]
    fn another_text_under_a_number_is_refused() {
        let other = TeamMigration {
            name: "0003_b",
            sql: "CREATE TABLE b (x int);",
        };
        assert_eq!(
            key(check_applied(&[A, B], &[row(1, &A), row(2, &other)], false)).as_deref(),
            Some("teamSchemaDiffers")
        );
    }

    #[test]
    fn a_number_this_build_lacks_is_refused_by_init_only() {
        let applied = [row(1, &A), row(2, &B), row(3, &C)];
        assert_eq!(
            key(check_applied(&[A, B], &applied, true)).as_deref(),
            Some("teamSchemaUnknown")
        );
        // A member's desk of an older PayDesk still opens a newer database.
        assert_eq!(key(check_applied(&[A, B], &applied, false)), None);
    }

    #[test]
    fn a_file_skipped_before_one_applied_is_refused() {
        // A branch build's list [A, C] ran; this build's is [A, B, C].
        let applied = [row(1, &A), row(2, &C)];
        assert_eq!(
            key(check_applied(&[A, B, C], &applied, true)).as_deref(),
            Some("teamSchemaSkipped")
        );
    }
}
