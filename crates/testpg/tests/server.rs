//! A real server: started, used as a superuser and as a role with few rights, two at
//! once, and gone with its folder once dropped.

use std::io;
use std::path::Path;
use std::process::Command;

use paydesk_testpg::{Options, TestPg};

#[test]
fn runs_sql_and_shows_what_a_role_is_refused() -> io::Result<()> {
    let pg = TestPg::start()?;
    assert_eq!(pg.host(), "127.0.0.1");
    assert_eq!(pg.superuser(), "paydesk_super");
    pg.create_database("desk")?;
    // The databases belong to an owner who may create roles and databases, and is no
    // superuser: the superuser only starts the cluster.
    assert_eq!(
        pg.psql_owner(
            "desk",
            "select r.rolsuper, r.rolcreaterole, r.rolcreatedb, d.datdba = r.oid
               from pg_roles r, pg_database d
              where r.rolname = current_user and d.datname = current_database()",
        )?,
        "f|t|t|t\n"
    );
    assert_eq!(pg.owner(), "team_owner");
    pg.psql_super(
        "desk",
        "create table payouts (id int primary key, amount numeric not null);
         insert into payouts values (1, 10.50), (2, 3.00);
         create table notes (body text);
         create role clerk login password 'clerk-pw';
         grant select on notes to clerk;",
    )?;
    assert_eq!(
        pg.psql_super("desk", "select count(*), sum(amount) from payouts")?,
        "2|13.50\n"
    );

    assert_eq!(
        pg.psql_as("clerk", "clerk-pw", "desk", "select count(*) from notes"),
        Ok("0\n".to_owned())
    );
    let refused = pg.psql_as("clerk", "clerk-pw", "desk", "select * from payouts");
    let Err(stderr) = refused else {
        panic!("clerk read a table it has no grant on: {refused:?}");
    };
    assert!(stderr.contains("permission denied"), "{stderr}");

    let wrong = pg.psql_as("clerk", "not-the-password", "desk", "select 1");
    let Err(stderr) = wrong else {
        panic!("a wrong password was accepted: {wrong:?}");
    };
    assert!(
        stderr.contains("password authentication failed"),
        "{stderr}"
    );

    let failed = pg.psql_super("desk", "select * from no_such_table");
    let Err(error) = failed else {
        panic!("a failing statement succeeded: {failed:?}");
    };
    assert!(error.to_string().contains("no_such_table"), "{error}");
    Ok(())
}

#[test]
fn conninfo_reaches_the_server_with_awkward_values() -> io::Result<()> {
    let pg = TestPg::start()?;
    pg.create_database("odd 'name'")?;
    // standard_conforming_strings: only the quote is doubled in SQL.
    pg.psql_super(
        "postgres",
        r"create role odd login password 'it''s a \ test';",
    )?;
    let conninfo = pg.conninfo("odd", r"it's a \ test", "odd 'name'");
    let out = Command::new(pg.bin_dir().join("psql"))
        .args([
            "-X",
            "-At",
            "-c",
            "select current_user || '@' || current_database()",
        ])
        .arg(&conninfo)
        .env_remove("PGPASSWORD")
        .output()?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "odd@odd 'name'\n");
    Ok(())
}

#[test]
fn two_servers_at_once_and_nothing_left_after_drop() -> io::Result<()> {
    let first = TestPg::start()?;
    let second = TestPg::start()?;
    assert_ne!(first.port(), second.port());
    assert_ne!(first.pid(), second.pid());
    assert_ne!(first.superuser_password(), second.superuser_password());
    for pg in [&first, &second] {
        assert_eq!(
            pg.psql_super("postgres", "show port")?,
            format!("{}\n", pg.port())
        );
    }

    let (pid, folder) = (first.pid(), first.scratch_dir().to_path_buf());
    assert!(proc_entry(pid).exists());
    assert!(folder.join("data").join("PG_VERSION").exists());
    drop(first);
    assert!(!proc_entry(pid).exists(), "postgres {pid} still runs");
    assert!(!folder.exists(), "{} was left behind", folder.display());

    // The other server is untouched.
    assert_eq!(second.psql_super("postgres", "select 1")?, "1\n");
    let (pid, folder) = (second.pid(), second.scratch_dir().to_path_buf());
    second.stop();
    assert!(!proc_entry(pid).exists(), "postgres {pid} still runs");
    assert!(!folder.exists(), "{} was left behind", folder.display());
    Ok(())
}

#[test]
fn options_choose_durability_and_settings() -> io::Result<()> {
    let fast = TestPg::start_with(Options::default().setting("work_mem", "8MB"))?;
    assert_eq!(
        fast.psql_super(
            "postgres",
            "show fsync; show synchronous_commit; show full_page_writes; show work_mem;"
        )?,
        "off\noff\noff\n8MB\n"
    );
    assert!(
        fast.log_tail()
            .contains("database system is ready to accept connections"),
        "{}",
        fast.log_tail()
    );
    drop(fast);

    let durable = TestPg::start_with(Options::default().durable())?;
    assert_eq!(
        durable.psql_super("postgres", "show fsync; show synchronous_commit;")?,
        "on\non\n"
    );
    Ok(())
}

#[test]
fn debug_hides_the_password() -> io::Result<()> {
    let pg = TestPg::start()?;
    let shown = format!("{pg:?}");
    assert!(!shown.contains(pg.superuser_password()), "{shown}");
    assert!(!shown.contains(pg.owner_password()), "{shown}");
    assert!(shown.contains(&pg.port().to_string()), "{shown}");
    Ok(())
}

fn proc_entry(pid: u32) -> std::path::PathBuf {
    Path::new("/proc").join(pid.to_string())
}

#[test]
fn a_server_that_cannot_start_says_why() {
    let failed = TestPg::start_with(Options::default().setting("no_such_setting", "1"));
    let Err(error) = failed else {
        panic!("a server with an unknown setting started: {failed:?}");
    };
    let message = error.to_string();
    assert!(message.contains("exited while starting"), "{message}");
    assert!(message.contains("no_such_setting"), "{message}");
}

#[test]
fn runs_as_the_postgres_user_under_root() -> io::Result<()> {
    let pg = TestPg::start()?;
    let status = std::fs::read_to_string(proc_entry(pg.pid()).join("status"))?;
    let server_uid = uid_in(&status);
    let own_uid = uid_in(&std::fs::read_to_string("/proc/self/status")?);
    if own_uid == Some(0) {
        assert_ne!(server_uid, Some(0), "postgres runs as root");
    } else {
        assert_eq!(server_uid, own_uid);
    }
    Ok(())
}

/// The effective uid from a /proc/<pid>/status text.
fn uid_in(status: &str) -> Option<u32> {
    let line = status.lines().find(|line| line.starts_with("Uid:"))?;
    line.split_whitespace().nth(2)?.parse().ok()
}

#[test]
fn a_port_taken_by_someone_else_is_reported_after_retries() -> io::Result<()> {
    // A `port` setting overrides the free port each attempt picks, so every attempt
    // loses its port to this listener: the retries end and the log says why.
    let holder = std::net::TcpListener::bind("127.0.0.1:0")?;
    let taken = holder.local_addr()?.port();
    let failed = TestPg::start_with(Options::default().setting("port", taken.to_string()));
    let Err(error) = failed else {
        panic!("postgres started on a port that is taken: {failed:?}");
    };
    let message = error.to_string();
    assert!(message.contains("could not bind"), "{message}");
    Ok(())
}

#[test]
fn the_server_says_its_version_as_its_program_does() -> io::Result<()> {
    let pg = TestPg::start()?;
    let out = Command::new(pg.bin_dir().join("postgres"))
        .arg("--version")
        .output()?;
    // "postgres (PostgreSQL) 16.14" (Debian adds its own words after the number).
    let program = String::from_utf8_lossy(&out.stdout).into_owned();
    let number = pg.server_version().split(' ').next().unwrap_or_default();
    assert!(
        program.contains(&format!("PostgreSQL) {number}")),
        "{program} vs {}",
        pg.server_version()
    );
    let major: u32 = pg
        .server_version()
        .split(['.', ' '])
        .next()
        .and_then(|m| m.parse().ok())
        .unwrap_or(0);
    assert_eq!(pg.server_version_num() / 10_000, major);
    assert!(major >= 15, "{}", pg.server_version());
    Ok(())
}
