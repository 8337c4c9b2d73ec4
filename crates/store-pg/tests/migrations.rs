//! The team schema's migrations are versioned by their files (review r5, F1): `team
//! init` records each file's own number and the SHA-256 of its text, reads an older
//! PayDesk's record (positions only) once by this build's list, and refuses, naming the
//! file and changing nothing, a database whose record disagrees with this build: a file
//! of the same number with another text, a number this build lacks, a file of the list
//! skipped while a later one was applied. A member's desk (`PgStore::open`) refuses the
//! same record, except a newer PayDesk's extra files. Against a real PostgreSQL server.

#![allow(clippy::unwrap_used)]

use paydesk_store::error::CoreError;
use paydesk_store::team::TeamConfig;
use paydesk_store_pg::{PgLink, PgStore, TEAM_MIGRATIONS, init_team};
use paydesk_testpg::TestPg;
use sha2::{Digest, Sha256};

const MER: i64 = 77;

fn cfg(pg: &TestPg, db: &str) -> TeamConfig {
    TeamConfig {
        host: pg.host().into(),
        port: pg.port(),
        database: db.into(),
        user: pg.owner().into(),
        ca_file: String::new(),
        cert_file: String::new(),
        key_file: String::new(),
    }
}

fn owner(pg: &TestPg, db: &str) -> PgLink {
    PgLink::connect(&cfg(pg, db), pg.owner_password()).unwrap()
}

/// `(file, sha256)` of every row, in the order of `version`.
fn record(pg: &TestPg, db: &str) -> Vec<(String, String)> {
    pg.psql_owner(
        db,
        "SELECT coalesce(file::text, '-') || ' ' || coalesce(sha256, '-')
           FROM paydesk.schema_migrations ORDER BY version",
    )
    .unwrap()
    .lines()
    .map(str::trim)
    .filter(|l| !l.is_empty())
    .map(|l| {
        let (f, h) = l.split_once(' ').unwrap();
        (f.to_string(), h.to_string())
    })
    .collect()
}

/// The record this build should leave, computed from the schema's files on disk: each
/// file's number and the SHA-256 of its bytes, in the list's order.
fn expected() -> Vec<(String, String)> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/schema");
    TEAM_MIGRATIONS
        .iter()
        .map(|m| {
            let text = std::fs::read(dir.join(format!("{}.sql", m.name))).unwrap();
            let number: i32 = m.name[..4].parse().unwrap();
            (number.to_string(), format!("{:x}", Sha256::digest(&text)))
        })
        .collect()
}

fn refusal(r: Result<impl std::fmt::Debug, CoreError>) -> (String, String) {
    match r {
        Err(CoreError::Validation { rule, .. }) => {
            (rule.key.clone().unwrap_or_default(), rule.text)
        }
        other => panic!("not refused: {other:?}"),
    }
}

#[test]
fn each_file_is_recorded_by_its_number_and_hash_and_a_disagreeing_record_is_refused() {
    let pg = TestPg::start().unwrap();

    // A fresh team: one row per file, its own number and its text's hash.
    pg.create_database("fresh").unwrap();
    assert_eq!(
        init_team(&owner(&pg, "fresh"), MER).unwrap(),
        TEAM_MIGRATIONS.len()
    );
    assert_eq!(record(&pg, "fresh"), expected());
    assert_eq!(init_team(&owner(&pg, "fresh"), MER).unwrap(), 0);
    PgStore::connect(&cfg(&pg, "fresh"), pg.owner_password(), MER).unwrap();

    // An older PayDesk's record (positions only, its first 20 files): read once by this
    // build's list, and the rest applied after it.
    pg.create_database("older").unwrap();
    let before = 20;
    let mut old = String::from(
        "CREATE SCHEMA paydesk;
         CREATE TABLE paydesk.schema_migrations (
             version integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now(),
             applied_by text NOT NULL DEFAULT session_user);\n",
    );
    for (i, m) in TEAM_MIGRATIONS[..before].iter().enumerate() {
        old += &format!(
            "{}\nINSERT INTO paydesk.schema_migrations (version) VALUES ({});\n",
            m.sql,
            i + 1
        );
    }
    pg.psql_owner("older", &format!("BEGIN;\n{old}\nCOMMIT;"))
        .unwrap();
    assert_eq!(
        init_team(&owner(&pg, "older"), MER).unwrap(),
        TEAM_MIGRATIONS.len() - before
    );
    assert_eq!(record(&pg, "older"), expected());

    let position = |n: i32| {
        TEAM_MIGRATIONS
            .iter()
            .position(|m| m.name.starts_with(&format!("{n:04}_")))
            .unwrap()
    };
    // 0023 comes before 0025 in the list (files are listed in the order they were
    // released, not by number).
    assert!(position(23) < position(25));

    // Another text under a number: refused by init and by a member's desk, naming it.
    pg.psql_owner(
        "fresh",
        "UPDATE paydesk.schema_migrations SET sha256 = repeat('0', 64) WHERE file = 23",
    )
    .unwrap();
    let before_refusal = record(&pg, "fresh");
    let (key, text) = refusal(init_team(&owner(&pg, "fresh"), MER));
    assert_eq!(key, "teamSchemaDiffers", "{text}");
    assert!(text.contains("0023"), "{text}");
    let (key, _) = refusal(PgStore::connect(
        &cfg(&pg, "fresh"),
        pg.owner_password(),
        MER,
    ));
    assert_eq!(key, "teamSchemaDiffers");
    assert_eq!(record(&pg, "fresh"), before_refusal, "nothing was changed");
    pg.psql_owner(
        "fresh",
        &format!(
            "UPDATE paydesk.schema_migrations SET sha256 = '{}' WHERE file = 23",
            expected()[position(23)].1
        ),
    )
    .unwrap();

    // A number this build lacks: init refuses; a member's desk opens (a newer PayDesk's).
    pg.psql_owner(
        "fresh",
        "INSERT INTO paydesk.schema_migrations (version, file, sha256) VALUES (999, 9999, 'x')",
    )
    .unwrap();
    let (key, text) = refusal(init_team(&owner(&pg, "fresh"), MER));
    assert_eq!(key, "teamSchemaUnknown", "{text}");
    assert!(text.contains("9999"), "{text}");
    PgStore::connect(&cfg(&pg, "fresh"), pg.owner_password(), MER).unwrap();
    pg.psql_owner(
        "fresh",
        "DELETE FROM paydesk.schema_migrations WHERE file = 9999",
    )
    .unwrap();

    // A branch build that skipped 0023 and applied 0025: refused, naming both; its
    // objects are not created around the gap.
    pg.psql_owner(
        "fresh",
        "DELETE FROM paydesk.schema_migrations WHERE file = 23",
    )
    .unwrap();
    let before_refusal = record(&pg, "fresh");
    let (key, text) = refusal(init_team(&owner(&pg, "fresh"), MER));
    assert_eq!(key, "teamSchemaSkipped", "{text}");
    assert!(text.contains("0023") && text.contains("0025"), "{text}");
    let (key, _) = refusal(PgStore::connect(
        &cfg(&pg, "fresh"),
        pg.owner_password(),
        MER,
    ));
    assert_eq!(key, "teamSchemaSkipped");
    assert_eq!(record(&pg, "fresh"), before_refusal, "nothing was changed");
}

/// An older PayDesk's record, positions only: `files` applied in order, position by
/// position, in a new database `db`.
fn older_database(pg: &TestPg, db: &str, files: &[&paydesk_store_pg::TeamMigration]) {
    pg.create_database(db).unwrap();
    let mut old = String::from(
        "CREATE SCHEMA paydesk;
         CREATE TABLE paydesk.schema_migrations (
             version integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now(),
             applied_by text NOT NULL DEFAULT session_user);\n",
    );
    for (i, m) in files.iter().enumerate() {
        old += &format!(
            "{}\nINSERT INTO paydesk.schema_migrations (version) VALUES ({});\n",
            m.sql,
            i + 1
        );
    }
    pg.psql_owner(db, &format!("BEGIN;\n{old}\nCOMMIT;"))
        .unwrap();
}

/// Review sql-r6 F11: an older record is read by this build's list only when the
/// database agrees with it. A branch build's database (0024 at position 19, where this
/// list has 0027) was read as 0027 applied, and failed later re-applying 0024 with a
/// misleading error; a position beyond any older list stayed unjudged. Both are refused
/// naming the file or position, and nothing is changed.
#[test]
fn an_older_record_another_build_wrote_is_refused_naming_the_file() {
    let pg = TestPg::start().unwrap();
    let by_number = |n: i32| TEAM_MIGRATIONS.iter().find(|m| m.number() == n).unwrap();
    // Files 1 to 18 as every build had them, then 0024 at position 19.
    let mut files: Vec<&paydesk_store_pg::TeamMigration> = TEAM_MIGRATIONS[..18].iter().collect();
    files.push(by_number(24));
    older_database(&pg, "branch", &files);
    let (key, text) = refusal(init_team(&owner(&pg, "branch"), MER));
    assert_eq!(key, "teamSchemaLegacyExtra", "{text}");
    assert!(text.contains("0024"), "{text}");
    // Nothing read or applied: the same 19 positions, none named a file.
    let after = record(&pg, "branch");
    assert_eq!(after.len(), 19);
    assert!(after.iter().all(|(f, _)| f == "-"), "{after:?}");

    // This list's first 20 files, and a position no older list had.
    let files: Vec<&paydesk_store_pg::TeamMigration> = TEAM_MIGRATIONS[..20].iter().collect();
    older_database(&pg, "beyond", &files);
    pg.psql_owner(
        "beyond",
        "INSERT INTO paydesk.schema_migrations (version) VALUES (40)",
    )
    .unwrap();
    let (key, text) = refusal(init_team(&owner(&pg, "beyond"), MER));
    assert_eq!(key, "teamSchemaLegacyBeyond", "{text}");
    assert!(text.contains("position 40"), "{text}");
    let after = record(&pg, "beyond");
    assert_eq!(after.len(), 21);
    assert!(after.iter().all(|(f, _)| f == "-"), "{after:?}");
    // Without it, the same record is read and brought up to date.
    pg.psql_owner(
        "beyond",
        "DELETE FROM paydesk.schema_migrations WHERE version = 40",
    )
    .unwrap();
    assert_eq!(
        init_team(&owner(&pg, "beyond"), MER).unwrap(),
        TEAM_MIGRATIONS.len() - 20
    );
    assert_eq!(record(&pg, "beyond"), expected());
}

/// The list itself: every file named once by its number, and from 0028 on each new
/// file numbered above every file before it (so list order is version order for the
/// files to come; the four before it were released out of order).
#[test]
fn the_list_names_each_number_once_and_new_files_in_order() {
    let numbers: Vec<i32> = TEAM_MIGRATIONS.iter().map(|m| m.number()).collect();
    let mut unique = numbers.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), numbers.len(), "{numbers:?}");
    let from = numbers.iter().position(|&n| n == 28).unwrap();
    for i in from..numbers.len() {
        assert!(
            numbers[..i].iter().all(|&n| n < numbers[i]),
            "{:04} comes after a higher number: {numbers:?}",
            numbers[i]
        );
    }
}
