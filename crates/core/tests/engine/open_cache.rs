//! A desk's SQLite file opened by another program while the desk holds it open (a
//! support engineer's `sqlite3`, a backup tool, a window test) loses nothing the desk
//! writes afterwards, even after the desk opened the same file a second time (each
//! screen, the scheduler and the look-up open their own connection).

use std::process::Command;

use paydesk_store_sqlite::{self as db, Durability};

fn sqlite3(path: &std::path::Path, sql: &str) -> String {
    let out = Command::new("sqlite3")
        .arg("-cmd")
        .arg(".timeout 5000")
        .arg(path)
        .arg(sql)
        .output()
        .expect("the sqlite3 program (Debian's sqlite3, which `cargo xtask test` installs)");
    assert!(
        out.status.success(),
        "sqlite3 failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

#[test]
fn another_program_reading_an_open_cache_costs_the_desk_no_write() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("acme.sqlite");
    let first = db::open(&path, Durability::Journal).unwrap();
    first
        .execute_batch("CREATE TABLE t (n INTEGER); INSERT INTO t VALUES (1);")
        .unwrap();
    // A second connection of the same process, as the app opens one per task.
    let second = db::open(&path, Durability::Journal).unwrap();
    second.execute("INSERT INTO t VALUES (2)", []).unwrap();
    // Another program reads the file and closes it.
    assert_eq!(sqlite3(&path, "SELECT count(*) FROM t"), "2");
    let wal = dir.path().join("acme.sqlite-wal");
    assert!(
        wal.exists(),
        "the other program took the desk's database for unused and deleted its write-ahead log"
    );
    // What the desk writes afterwards is in the database for everyone.
    first.execute("INSERT INTO t VALUES (3)", []).unwrap();
    second.execute("INSERT INTO t VALUES (4)", []).unwrap();
    assert_eq!(sqlite3(&path, "SELECT group_concat(n) FROM t"), "1,2,3,4");
    drop((first, second));
    let again = db::open(&path, Durability::Journal).unwrap();
    let n: i64 = again
        .query_row("SELECT count(*) FROM t", [], |r| r.get(0))
        .unwrap();
    assert_eq!(n, 4, "every row the desk wrote is kept");
}
