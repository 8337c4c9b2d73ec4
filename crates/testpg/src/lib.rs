//! For tests and benchmarks only: a real PostgreSQL server from the system's package
//! (Debian's `postgresql`), in a scratch folder, on a free loopback port, started by the
//! test itself as a child process and stopped by its PID when dropped.
//!
//! ```no_run
//! # fn main() -> std::io::Result<()> {
//! let pg = paydesk_testpg::TestPg::start()?;
//! pg.create_database("desk")?;
//! pg.psql_super("desk", "create role clerk login password 'secret';")?;
//! // For tokio_postgres::connect or psql:
//! let conninfo = pg.conninfo("clerk", "secret", "desk");
//! # drop(conninfo);
//! # Ok(()) }
//! ```
//!
//! The server's programs are found in `PAYDESK_PG_BIN`, else in the newest
//! `/usr/lib/postgresql/*/bin`, else through `pg_config --bindir`. With
//! `PAYDESK_PG_MIN_VERSION_NUM` set (as `server_version_num`, e.g. 160000), a server
//! older than that is refused: a run meant for PostgreSQL 16 cannot quietly use 15. As root (CI), the
//! server runs as the `postgres` system user, since initdb refuses root. Every
//! connection, local or TCP, authenticates with a password (scram-sha-256), so a test
//! sees what the database refuses to a role as a real client would. Unix only.

mod binaries;
mod client;
mod init;
mod owner;
mod postmaster;

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};
use std::{fmt, io, thread};

use client::{quote_conninfo, quote_ident};
use owner::RunAs;
use postmaster::Postmaster;

const HOST: &str = "127.0.0.1";
const SUPERUSER: &str = "paydesk_super";
/// The role that owns the databases this crate creates: CREATEROLE and CREATEDB, never
/// a superuser, as a team's database is owned in production (a SECURITY DEFINER
/// function runs with its owner's rights, so an owner that is a superuser would make
/// any hole in one a superuser's). The superuser only starts the cluster.
const OWNER: &str = "team_owner";
/// How long a started server may take to accept connections.
const READY_WITHIN: Duration = Duration::from_secs(30);
/// Starts tried when another process takes the free port first.
const START_ATTEMPTS: usize = 5;
/// The lowest `server_version_num` a run accepts (see the crate's documentation).
pub const MIN_VERSION_ENV: &str = "PAYDESK_PG_MIN_VERSION_NUM";
/// From PostgreSQL 16 a CREATEROLE role may grant only the roles it holds with ADMIN
/// OPTION, so the owner cannot take these itself: the README has a superuser grant them
/// on 16 and later, and so does this crate.
const OWNER_GRANTS_FROM_16: &str = "pg_signal_backend, pg_read_all_stats";
const LOG_TAIL_LINES: usize = 40;
/// Speed over safety, for a server whose data dies with the test.
const NOT_DURABLE: [(&str, &str); 3] = [
    ("fsync", "off"),
    ("synchronous_commit", "off"),
    ("full_page_writes", "off"),
];

/// How to start a server.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// `false` (the default) turns off fsync, synchronous commit and full-page writes,
    /// and initdb's sync, for speed; `true` keeps PostgreSQL's defaults, for benchmarks
    /// whose figures should hold on a real server.
    pub durable: bool,
    /// More `-c name=value` settings for postgres, applied after this crate's own, so
    /// they win.
    pub settings: Vec<(String, String)>,
    /// `true` leaves out the superuser's grant of `pg_signal_backend` and `pg_read_all_stats` to the owner
    /// on PostgreSQL 16 and later (the default makes it, as the README says), for a
    /// test of a team whose superuser never granted them. On 15 the owner takes them
    /// itself at `team init`; such a test revokes them as the superuser afterwards.
    pub without_owner_grants: bool,
}

impl Options {
    /// PostgreSQL's own durability settings (see [`Options::durable`]).
    pub fn durable(mut self) -> Options {
        self.durable = true;
        self
    }

    /// No superuser's grant of `pg_signal_backend, pg_read_all_stats` to the owner (see
    /// [`Options::without_owner_grants`]).
    pub fn without_owner_grants(mut self) -> Options {
        self.without_owner_grants = true;
        self
    }

    /// One more server setting, as `postgres -c name=value`.
    pub fn setting(mut self, name: impl Into<String>, value: impl Into<String>) -> Options {
        self.settings.push((name.into(), value.into()));
        self
    }
}

/// A running scratch server. Dropping it (or [`TestPg::stop`]) stops the server with a
/// fast shutdown (SIGINT; SIGKILL after 10 s), waits for the process and removes its
/// folder.
pub struct TestPg {
    // Stopped in `drop` before the folder is removed.
    postmaster: Postmaster,
    port: u16,
    password: String,
    owner_password: String,
    bin: PathBuf,
    log: PathBuf,
    scratch: Option<tempfile::TempDir>,
    scratch_path: PathBuf,
    /// `SHOW server_version_num`, asked once the server accepts connections.
    version_num: u32,
    /// `SHOW server_version`.
    version: String,
}

impl fmt::Debug for TestPg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TestPg")
            .field("host", &HOST)
            .field("port", &self.port)
            .field("superuser", &SUPERUSER)
            .field("superuser_password", &"<redacted>")
            .field("owner", &OWNER)
            .field("owner_password", &"<redacted>")
            .field("pid", &self.pid())
            .field("server_version", &self.version)
            .field("scratch_dir", &self.scratch_path)
            .finish()
    }
}

impl TestPg {
    /// Starts a non-durable server (see [`Options`]): initdb in a fresh scratch folder,
    /// postgres as a child process on a free loopback port, and waits (up to 30 s)
    /// until it accepts connections. An error carries the server's log tail.
    pub fn start() -> io::Result<TestPg> {
        TestPg::start_with(Options::default())
    }

    /// Starts a server with `opts` (see [`TestPg::start`]).
    pub fn start_with(opts: Options) -> io::Result<TestPg> {
        let bin = binaries::find()?;
        let scratch = tempfile::Builder::new()
            .prefix("paydesk-testpg-")
            .tempdir()?;
        let scratch_path = scratch.path().to_path_buf();
        let run_as = RunAs::for_scratch(&scratch_path)?;
        let sockets = scratch_path.join("sockets");
        fs::create_dir(&sockets)?;
        if let Some(run_as) = run_as {
            run_as.give(&sockets)?;
        }
        let password = init::random_hex(16)?;
        let owner_password = init::random_hex(16)?;
        let data = scratch_path.join("data");
        init::initdb(&bin, &scratch_path, &data, &password, run_as, opts.durable)?;

        let log = scratch_path.join("postgres.log");
        let mut settings: Vec<(String, String)> = vec![
            ("listen_addresses".into(), HOST.into()),
            (
                "unix_socket_directories".into(),
                sockets.to_string_lossy().into_owned(),
            ),
            ("max_connections".into(), "100".into()),
            ("shared_buffers".into(), "64MB".into()),
        ];
        if !opts.durable {
            settings.extend(NOT_DURABLE.map(|(k, v)| (k.to_owned(), v.to_owned())));
        }
        settings.extend(opts.settings);
        let owner_grants = !opts.without_owner_grants;

        let mut attempt = 1;
        loop {
            let port = init::free_port()?;
            let mut command = Command::new(bin.join("postgres"));
            command.arg("-D").arg(&data).arg("-p").arg(port.to_string());
            for (name, value) in &settings {
                command.arg("-c").arg(format!("{name}={value}"));
            }
            // Truncated on each attempt, so the tail is about this one.
            let out = File::create(&log)?;
            command
                .current_dir(&scratch_path)
                .stdin(Stdio::null())
                .stdout(out.try_clone()?)
                .stderr(out);
            if let Some(run_as) = run_as {
                run_as.apply(&mut command);
            }
            let child = command
                .spawn()
                .map_err(|e| io::Error::new(e.kind(), format!("could not start postgres: {e}")))?;
            let mut pg = TestPg {
                postmaster: Postmaster::new(child),
                port,
                password: password.clone(),
                owner_password: owner_password.clone(),
                bin: bin.clone(),
                log: log.clone(),
                scratch: None,
                scratch_path: scratch_path.clone(),
                version_num: 0,
                version: String::new(),
            };
            match pg
                .wait_ready()
                .and_then(|()| pg.read_version())
                .and_then(|()| pg.create_owner(owner_grants))
            {
                Ok(()) => {
                    pg.scratch = Some(scratch);
                    return Ok(pg);
                }
                Err(Ready::Exited) if attempt < START_ATTEMPTS && lost_the_port(&pg) => {
                    attempt += 1;
                }
                Err(failure) => {
                    let message = failure.describe(&pg);
                    // Stops the server before the folder goes with `scratch`.
                    drop(pg);
                    return Err(io::Error::other(message));
                }
            }
        }
    }

    /// Always "127.0.0.1": the server listens on loopback only.
    pub fn host(&self) -> &str {
        HOST
    }

    /// The TCP port it listens on, free when the server started.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The superuser initdb created, "paydesk_super".
    pub fn superuser(&self) -> &str {
        SUPERUSER
    }

    /// The superuser's password, random for each server.
    pub fn superuser_password(&self) -> &str {
        &self.password
    }

    /// The owner of the databases [`TestPg::create_database`] makes, "team_owner": a
    /// login role with CREATEROLE and CREATEDB, not a superuser.
    pub fn owner(&self) -> &str {
        OWNER
    }

    /// The owner's password, random for each server.
    pub fn owner_password(&self) -> &str {
        &self.owner_password
    }

    /// The postmaster's process id.
    pub fn pid(&self) -> u32 {
        self.postmaster.pid()
    }

    /// The server's `server_version_num` (160002 for 16.2).
    pub fn server_version_num(&self) -> u32 {
        self.version_num
    }

    /// The server's `server_version` ("16.2").
    pub fn server_version(&self) -> &str {
        &self.version
    }

    /// The scratch folder (data directory, sockets, log), removed when the server stops.
    pub fn scratch_dir(&self) -> &Path {
        &self.scratch_path
    }

    /// The folder of the server's programs (initdb, postgres, and on Debian psql,
    /// pg_dump and the other clients).
    pub fn bin_dir(&self) -> &Path {
        &self.bin
    }

    /// A libpq key=value connection string for `user` with `password` on `dbname`, as
    /// tokio-postgres and psql accept (values quoted, `'` and `\` escaped).
    pub fn conninfo(&self, user: &str, password: &str, dbname: &str) -> String {
        format!(
            "host={HOST} port={} user={} password={} dbname={}",
            self.port,
            quote_conninfo(user),
            quote_conninfo(password),
            quote_conninfo(dbname)
        )
    }

    /// Runs `sql` (one statement or a script) with psql as the superuser on `dbname`
    /// (`-X -q -At -v ON_ERROR_STOP=1`): psql's stdout, or an error with its stderr.
    pub fn psql_super(&self, dbname: &str, sql: &str) -> io::Result<String> {
        let out = client::psql(&self.bin, self.port, SUPERUSER, &self.password, dbname, sql)?;
        if out.status.success() {
            Ok(String::from_utf8_lossy(&out.stdout).into_owned())
        } else {
            Err(io::Error::other(format!(
                "psql as {SUPERUSER} on {dbname} failed ({}): {}",
                out.status,
                String::from_utf8_lossy(&out.stderr).trim_end()
            )))
        }
    }

    /// Runs `sql` with psql as the owner ([`TestPg::owner`]) on `dbname`: psql's stdout,
    /// or an error with its stderr.
    pub fn psql_owner(&self, dbname: &str, sql: &str) -> io::Result<String> {
        self.psql_as(OWNER, &self.owner_password, dbname, sql)
            .map_err(|e| {
                io::Error::other(format!(
                    "psql as {OWNER} on {dbname} failed: {}",
                    e.trim_end()
                ))
            })
    }

    /// Runs `sql` with psql as `user`: its stdout, or its stderr (such as
    /// "ERROR:  permission denied for table ...") when the database refuses.
    pub fn psql_as(
        &self,
        user: &str,
        password: &str,
        dbname: &str,
        sql: &str,
    ) -> Result<String, String> {
        match client::psql(&self.bin, self.port, user, password, dbname, sql) {
            Ok(out) if out.status.success() => Ok(String::from_utf8_lossy(&out.stdout).into()),
            Ok(out) => Err(String::from_utf8_lossy(&out.stderr).into()),
            Err(e) => Err(e.to_string()),
        }
    }

    /// Puts `lines` first in the server's pg_hba.conf (the first line that matches a
    /// connection decides how it authenticates) and has the server read it again.
    pub fn hba_first(&self, lines: &[&str]) -> io::Result<()> {
        let path = self.scratch_path.join("data").join("pg_hba.conf");
        let before = fs::read_to_string(&path)?;
        // Written in place, so the file keeps the server's user as its owner.
        fs::write(&path, format!("{}\n{before}", lines.join("\n")))?;
        self.psql_super("postgres", "SELECT pg_reload_conf()")
            .map(drop)
    }

    /// Creates a database owned by the owner ([`TestPg::owner`]), as the owner would
    /// with `createdb`.
    pub fn create_database(&self, name: &str) -> io::Result<()> {
        let sql = format!("CREATE DATABASE {}", quote_ident(name));
        self.psql_owner("postgres", &sql).map(drop)
    }

    /// The whole of the server's log (see [`TestPg::log_tail`] for its end).
    pub fn log(&self) -> String {
        fs::read(&self.log)
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    }

    /// The last lines of the server's log.
    pub fn log_tail(&self) -> String {
        let Ok(bytes) = fs::read(&self.log) else {
            return String::new();
        };
        let text = String::from_utf8_lossy(&bytes);
        let lines: Vec<&str> = text.lines().collect();
        lines[lines.len().saturating_sub(LOG_TAIL_LINES)..].join("\n")
    }

    /// Stops the server and removes its folder; the same as dropping it.
    pub fn stop(self) {}

    /// Polls `pg_isready` until the server accepts connections, then checks that the
    /// superuser's password works.
    fn wait_ready(&mut self) -> Result<(), Ready> {
        let deadline = Instant::now() + READY_WITHIN;
        loop {
            if self.postmaster.exited().is_some() {
                return Err(Ready::Exited);
            }
            match client::is_ready(&self.bin, self.port) {
                Ok(true) => break,
                Ok(false) => {}
                Err(e) => return Err(Ready::Failed(e.to_string())),
            }
            if Instant::now() >= deadline {
                return Err(Ready::TimedOut);
            }
            thread::sleep(Duration::from_millis(50));
        }
        match self.psql_super("postgres", "select 1") {
            Ok(_) => Ok(()),
            Err(e) => Err(Ready::Failed(e.to_string())),
        }
    }
}

impl TestPg {
    /// The server's version, refused when below [`MIN_VERSION_ENV`].
    fn read_version(&mut self) -> Result<(), Ready> {
        let out = self
            .psql_super("postgres", "SHOW server_version_num; SHOW server_version;")
            .map_err(|e| Ready::Failed(format!("could not read the server's version: {e}")))?;
        let mut lines = out.lines();
        self.version_num = lines
            .next()
            .and_then(|n| n.trim().parse().ok())
            .ok_or_else(|| Ready::Failed(format!("unreadable server_version_num: {out:?}")))?;
        self.version = lines.next().unwrap_or_default().trim().to_owned();
        let wanted = std::env::var(MIN_VERSION_ENV).ok();
        match check_version(self.version_num, wanted.as_deref()) {
            Ok(()) => Ok(()),
            Err(why) => Err(Ready::Refused(format!(
                "{why} (PostgreSQL {} from {})",
                self.version,
                self.bin.display()
            ))),
        }
    }

    /// The owner role, made by the superuser once the server is up; from PostgreSQL 16
    /// with what the README has a superuser grant it there ([`OWNER_GRANTS_FROM_16`]),
    /// unless `grants` is false.
    fn create_owner(&self, grants: bool) -> Result<(), Ready> {
        let mut sql = format!(
            "CREATE ROLE {OWNER} LOGIN CREATEROLE CREATEDB NOSUPERUSER PASSWORD '{}';",
            self.owner_password
        );
        if grants && self.version_num >= 160_000 {
            sql.push_str(&format!("GRANT {OWNER_GRANTS_FROM_16} TO {OWNER};"));
        }
        self.psql_super("postgres", &sql)
            .map(drop)
            .map_err(|e| Ready::Failed(format!("could not create the owner role: {e}")))
    }
}

/// Whether `version_num` is at least the `wanted` one (`server_version_num` digits); an
/// unreadable wish is an error, not ignored, so a typo cannot turn the check off.
fn check_version(version_num: u32, wanted: Option<&str>) -> Result<(), String> {
    let Some(wanted) = wanted else {
        return Ok(());
    };
    let Ok(min) = wanted.trim().parse::<u32>() else {
        return Err(format!(
            "{MIN_VERSION_ENV}={wanted:?} is not a server_version_num such as 160000"
        ));
    };
    if version_num < min {
        return Err(format!(
            "the server's server_version_num is {version_num}, below {MIN_VERSION_ENV}={min}"
        ));
    }
    Ok(())
}

impl Drop for TestPg {
    fn drop(&mut self) {
        self.postmaster.stop();
        if let Some(scratch) = self.scratch.take() {
            // A folder left in the temporary directory is no reason to fail a test.
            let _ = scratch.close();
        }
    }
}

/// Why a started server is not usable.
enum Ready {
    Exited,
    TimedOut,
    Failed(String),
    /// Not the server this run asked for.
    Refused(String),
}

impl Ready {
    fn describe(self, pg: &TestPg) -> String {
        let what = match self {
            Ready::Exited => "PostgreSQL exited while starting".to_owned(),
            Ready::TimedOut => format!(
                "PostgreSQL did not accept connections on {HOST}:{} within {} s",
                pg.port,
                READY_WITHIN.as_secs()
            ),
            Ready::Failed(why) => format!("PostgreSQL started but is not usable: {why}"),
            Ready::Refused(why) => return format!("PostgreSQL refused for this run: {why}"),
        };
        format!("{what}; its log ends with:\n{}", pg.log_tail())
    }
}

/// Whether the server exited because another process took its port between
/// `free_port` and its own bind.
fn lost_the_port(pg: &TestPg) -> bool {
    let tail = pg.log_tail();
    tail.contains("could not bind") || tail.contains("could not create any TCP/IP sockets")
}

#[cfg(test)]
mod tests {
    use super::check_version;

    #[test]
    fn a_server_below_the_wanted_version_is_refused() {
        assert_eq!(check_version(150_014, None), Ok(()));
        assert_eq!(check_version(160_014, Some("160000")), Ok(()));
        assert_eq!(check_version(160_000, Some(" 160000 ")), Ok(()));
        let old = check_version(150_014, Some("160000")).unwrap_err();
        assert!(old.contains("150014") && old.contains("160000"), "{old}");
        assert!(check_version(160_014, Some("sixteen")).is_err());
    }
}
