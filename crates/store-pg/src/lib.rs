//! The team's PostgreSQL database: the connection ([`PgLink`]), the schema and its
//! roles (`team init`), and the tables a team shares (the journal, the audit log, the
//! requests waiting for approval). rust-postgres's async client (tokio-postgres) is
//! driven on a thread of its own, so the store's handles stay synchronous like
//! SQLite's: a call blocks its caller until the answer is back, whatever runtime (or
//! none) the caller is on.
//!
//! **Blocking is explicit, and decided here only** ([`off_workers`]): every wait of
//! this module on the network (a statement, a connection, a notice) goes through that
//! one function, which tells a multi-threaded tokio runtime that its worker is about to
//! block (`tokio::task::block_in_place`), so the runtime hands the worker's other tasks
//! to another thread before the wait starts. An async desk method on a team desk may so
//! call the store like a SQLite one: no runtime worker waits on the team's database
//! (`tests/team/team_blocking.rs`). A current-thread runtime has no other thread to
//! hand its tasks to: who drives a team desk from one runs the call on its blocking
//! pool (`spawn_blocking`), as the front ends' runtimes are multi-threaded.
//!
//! The rules of a team live in the database, not in this code: roles, grants and
//! row-level security say who may read, request, approve and execute
//! (`schema/0001_team.sql`); a desk only asks.

pub mod audit;
mod backend;
pub mod cache;
pub mod journal;
pub mod migrations;
pub mod orders;
mod run;
mod sql_rules;
pub mod team;
mod team_db;

pub use backend::PgStore;
pub use migrations::TeamMigration;
pub use team_db::AsPgLink;

use std::future::Future;
use std::sync::mpsc;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use futures_util::{StreamExt, pin_mut};
use tokio_postgres::binary_copy::BinaryCopyInWriter;
use tokio_postgres::types::{ToSql, Type};
use tokio_postgres::{AsyncMessage, Client, Row};

use paydesk_store::error::{CoreError, CoreResult};

/// Where a team's database is, and the rules of its names: the store's
/// (`paydesk-store`); kept at this path.
pub use paydesk_store::team::{Notice, PgConfig, USER_NAME_RULE, valid_user_name};

/// A member's password as the SCRAM-SHA-256 verifier PostgreSQL keeps (computed here:
/// the password never reaches the server).
pub fn scram_verifier(password: &str) -> String {
    postgres_protocol::password::scram_sha_256(password.as_bytes())
}

/// One connection to the team's database, usable from any thread or runtime.
pub struct PgLink {
    client: Mutex<Client>,
    backend_pid: i32,
    notices: Mutex<mpsc::Receiver<Notice>>,
    user: String,
}

impl std::fmt::Debug for PgLink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgLink")
            .field("user", &self.user)
            .field("backend_pid", &self.backend_pid)
            .finish_non_exhaustive()
    }
}

/// Runs a future of the client on the calling thread. The connection itself is driven
/// by its own thread, so this never needs (nor disturbs) the caller's runtime.
fn block<F: Future>(f: F) -> F::Output {
    off_workers(|| futures_executor::block_on(f))
}

/// The one rule of the PostgreSQL store's waits (module docs): `wait` runs on the
/// calling thread, and when that thread is a worker of a multi-threaded tokio runtime
/// the runtime is told first (`block_in_place`), so its other tasks move to another
/// thread and keep running while this one waits on the network. Off a runtime, on its
/// blocking pool, or on a current-thread runtime (which has no other thread), `wait`
/// just runs.
pub(crate) fn off_workers<T>(wait: impl FnOnce() -> T) -> T {
    match tokio::runtime::Handle::try_current().map(|h| h.runtime_flavor()) {
        Ok(tokio::runtime::RuntimeFlavor::MultiThread) => tokio::task::block_in_place(wait),
        _ => wait(),
    }
}

/// The unique index that gives a merchant order number to one live request row.
pub(crate) const LIVE_NUMBER_INDEX: &str = "request_rows_live_number";

/// A database error as the engine's: what PostgreSQL said, with its SQLSTATE, and a
/// refusal by the team's rules (permission, row-level security, a check of ours) as a
/// validation error naming the rule.
pub fn db_error(e: tokio_postgres::Error) -> CoreError {
    if let Some(db) = e.as_db_error() {
        let code = db.code().code();
        let message = db.message().to_string();
        return match code {
            // insufficient_privilege, raise_exception from our own rules, check_violation
            "42501" | "P0001" | "23514" => {
                CoreError::validation("team", sql_rules::rule_of(&message))
            }
            "28P01" | "28000" => CoreError::validation("team.password", message),
            "3D000" => CoreError::validation("team.database", message),
            // lock_not_available: a member's step waited its bound (10 s) for a lock
            // another session holds; it changed nothing.
            "55P03" => CoreError::storage(format!(
                "PostgreSQL 55P03: {message}: another session of the team holds what this step needs; nothing was changed, try again"
            )),
            // A number already in a live request row (the team's rule, not a fault):
            // `TeamTables::make` names the request that holds it.
            "23505" if db.constraint() == Some(LIVE_NUMBER_INDEX) => {
                CoreError::validation("merOrderNo", message)
            }
            _ => CoreError::storage(format!("PostgreSQL {code}: {message}")),
        };
    }
    CoreError::storage(format!("PostgreSQL: {e}"))
}

impl PgLink {
    /// Connects as `cfg.user`. TLS (verified against the system's roots) unless the
    /// host is loopback; a non-loopback host without TLS is refused by the client.
    pub fn connect(cfg: &PgConfig, password: &str) -> CoreResult<PgLink> {
        cfg.validate()?;
        let mut config = tokio_postgres::Config::new();
        config
            .host(cfg.host.trim())
            .port(cfg.port)
            .dbname(cfg.database.trim())
            .user(&cfg.user)
            .password(password)
            .application_name("paydesk")
            .connect_timeout(std::time::Duration::from_secs(10));
        let loopback = cfg.is_loopback();
        // A client certificate is sent over TLS only: then TLS is required, loopback too.
        config.ssl_mode(if loopback && cfg.cert_file.is_empty() {
            tokio_postgres::config::SslMode::Prefer
        } else {
            tokio_postgres::config::SslMode::Require
        });
        let ca_file = cfg.ca_file.clone();
        // Read (and refused, naming the field) before any connection.
        let client_cert = client_cert(cfg)?;
        let (client_tx, client_rx) = mpsc::sync_channel::<CoreResult<Client>>(1);
        let (notice_tx, notice_rx) = mpsc::channel::<Notice>();
        std::thread::Builder::new()
            .name("paydesk-pg".into())
            .spawn(move || {
                let rt = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(rt) => rt,
                    Err(e) => {
                        let _ = client_tx.send(Err(CoreError::internal(e.to_string())));
                        return;
                    }
                };
                rt.block_on(async move {
                    let tls = match tls_connector(loopback, &ca_file, client_cert) {
                        Ok(tls) => tls,
                        Err(e) => {
                            let _ = client_tx.send(Err(e));
                            return;
                        }
                    };
                    let connected = config
                        .connect(tls)
                        .await
                        .map(|(c, conn)| (c, Box::pin(drive(conn, notice_tx)) as DriveFut));
                    match connected {
                        Ok((client, driver)) => {
                            if client_tx.send(Ok(client)).is_ok() {
                                driver.await;
                            }
                        }
                        Err(e) => {
                            let _ = client_tx.send(Err(connect_error(e)));
                        }
                    }
                });
            })
            .map_err(|e| CoreError::internal(e.to_string()))?;
        let client = off_workers(|| client_rx.recv())
            .map_err(|_| CoreError::internal("the database thread ended"))??;
        let backend_pid: i32 = block(client.query_one("SELECT pg_backend_pid()", &[]))
            .map_err(db_error)?
            .get(0);
        Ok(PgLink {
            client: Mutex::new(client),
            backend_pid,
            notices: Mutex::new(notice_rx),
            user: cfg.user.clone(),
        })
    }

    /// The database user this link is (its role).
    pub fn user(&self) -> &str {
        &self.user
    }

    /// The server process serving this link (claims name it, so a dead holder is seen).
    pub fn backend_pid(&self) -> i32 {
        self.backend_pid
    }

    /// The link's client, for one statement or one transaction: while another caller
    /// holds it (and waits on the database), this caller waits too, by [`off_workers`].
    fn client(&self) -> MutexGuard<'_, Client> {
        match self.client.try_lock() {
            Ok(c) => c,
            Err(std::sync::TryLockError::Poisoned(p)) => p.into_inner(),
            Err(std::sync::TryLockError::WouldBlock) => {
                off_workers(|| self.client.lock().unwrap_or_else(PoisonError::into_inner))
            }
        }
    }

    pub(crate) fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> CoreResult<Vec<Row>> {
        let c = self.client();
        block(c.query(sql, params)).map_err(db_error)
    }

    pub(crate) fn query_opt(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> CoreResult<Option<Row>> {
        let c = self.client();
        block(c.query_opt(sql, params)).map_err(db_error)
    }

    pub(crate) fn query_one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> CoreResult<Row> {
        let c = self.client();
        block(c.query_one(sql, params)).map_err(db_error)
    }

    pub(crate) fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> CoreResult<u64> {
        let c = self.client();
        block(c.execute(sql, params)).map_err(db_error)
    }

    pub(crate) fn batch(&self, sql: &str) -> CoreResult<()> {
        let c = self.client();
        block(c.batch_execute(sql)).map_err(db_error)
    }

    /// Runs `f` in one transaction on this link (nothing else uses the link meanwhile):
    /// committed when `f` returns `Ok`, rolled back otherwise.
    pub(crate) fn atomic<T>(&self, f: impl FnOnce(&Tx<'_>) -> CoreResult<T>) -> CoreResult<T> {
        let c = self.client();
        block(c.batch_execute("BEGIN")).map_err(db_error)?;
        let tx = Tx { client: &c };
        match f(&tx) {
            Ok(v) => {
                block(c.batch_execute("COMMIT")).map_err(db_error)?;
                Ok(v)
            }
            Err(e) => {
                let _ = block(c.batch_execute("ROLLBACK"));
                Err(e)
            }
        }
    }

    /// Runs `f` in one read-only transaction with one snapshot (repeatable read): what it
    /// reads is one moment's data, so a screen's figures agree; it never waits for a
    /// writer nor holds one up.
    pub(crate) fn read<T>(&self, f: impl FnOnce(&Tx<'_>) -> CoreResult<T>) -> CoreResult<T> {
        let c = self.client();
        block(c.batch_execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"))
            .map_err(db_error)?;
        let tx = Tx { client: &c };
        let out = f(&tx);
        let end = if out.is_ok() { "COMMIT" } else { "ROLLBACK" };
        let ended = block(c.batch_execute(end)).map_err(db_error);
        let out = out?;
        ended?;
        Ok(out)
    }

    /// Streams the rows of `sql` to `f` as they arrive.
    pub(crate) fn stream(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        f: &mut dyn FnMut(&Row) -> CoreResult<()>,
    ) -> CoreResult<()> {
        let c = self.client();
        stream_on(&c, sql, params, f)
    }

    /// Writes `data` (rows in `COPY`'s text format) through `sql`, a `COPY ... FROM
    /// STDIN`; returns how many rows the server took.
    pub(crate) fn copy_in_text(&self, sql: &str, data: Vec<u8>) -> CoreResult<u64> {
        use futures_util::SinkExt;
        let c = self.client();
        block(async {
            let sink = c.copy_in::<_, std::collections::VecDeque<u8>>(sql).await?;
            pin_mut!(sink);
            sink.as_mut().send(data.into()).await?;
            sink.as_mut().finish().await
        })
        .map_err(db_error)
    }

    /// Starts listening on `channel` (a plain identifier of ours).
    pub fn listen(&self, channel: &str) -> CoreResult<()> {
        debug_assert!(channel.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
        self.batch(&format!("LISTEN {channel}"))
    }

    /// Waits up to `timeout` for a notification; `None` when none came.
    pub fn wait_notice(&self, timeout: std::time::Duration) -> Option<Notice> {
        off_workers(|| {
            let rx = self.notices.lock().unwrap_or_else(PoisonError::into_inner);
            rx.recv_timeout(timeout).ok()
        })
    }

    /// Whether the connection is still open.
    pub fn is_closed(&self) -> bool {
        self.client().is_closed()
    }
}

/// The client of a link inside [`PgLink::atomic`].
pub struct Tx<'a> {
    client: &'a Client,
}

impl std::fmt::Debug for Tx<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Tx")
    }
}

impl Tx<'_> {
    pub(crate) fn query(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> CoreResult<Vec<Row>> {
        block(self.client.query(sql, params)).map_err(db_error)
    }

    pub(crate) fn query_opt(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
    ) -> CoreResult<Option<Row>> {
        block(self.client.query_opt(sql, params)).map_err(db_error)
    }

    pub(crate) fn query_one(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> CoreResult<Row> {
        block(self.client.query_one(sql, params)).map_err(db_error)
    }

    pub(crate) fn execute(&self, sql: &str, params: &[&(dyn ToSql + Sync)]) -> CoreResult<u64> {
        block(self.client.execute(sql, params)).map_err(db_error)
    }

    pub(crate) fn batch(&self, sql: &str) -> CoreResult<()> {
        block(self.client.batch_execute(sql)).map_err(db_error)
    }

    pub(crate) fn stream(
        &self,
        sql: &str,
        params: &[&(dyn ToSql + Sync)],
        f: &mut dyn FnMut(&Row) -> CoreResult<()>,
    ) -> CoreResult<()> {
        stream_on(self.client, sql, params, f)
    }

    /// `COPY ... FROM STDIN (FORMAT binary)` in this transaction: the data is never a
    /// statement's text nor its parameters, so the server's statement log never shows it.
    pub(crate) fn copy_in<'r>(
        &self,
        sql: &str,
        types: &[Type],
        rows: impl Iterator<Item = Vec<&'r (dyn ToSql + Sync)>>,
    ) -> CoreResult<u64> {
        block(async {
            let sink = self.client.copy_in(sql).await?;
            let writer = BinaryCopyInWriter::new(sink, types);
            pin_mut!(writer);
            for row in rows {
                writer.as_mut().write(&row).await?;
            }
            writer.finish().await
        })
        .map_err(db_error)
    }
}

fn stream_on(
    client: &Client,
    sql: &str,
    params: &[&(dyn ToSql + Sync)],
    f: &mut dyn FnMut(&Row) -> CoreResult<()>,
) -> CoreResult<()> {
    block(async {
        let rows = client
            .query_raw(sql, params.iter().copied())
            .await
            .map_err(db_error)?;
        pin_mut!(rows);
        while let Some(row) = rows.next().await {
            f(&row.map_err(db_error)?)?;
        }
        Ok(())
    })
}

type DriveFut = std::pin::Pin<Box<dyn Future<Output = ()> + Send>>;

/// Drives a connection until it closes, passing its notifications on.
async fn drive<S, T>(mut conn: tokio_postgres::Connection<S, T>, notices: mpsc::Sender<Notice>)
where
    S: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    loop {
        let msg = std::future::poll_fn(|cx| conn.poll_message(cx)).await;
        match msg {
            Some(Ok(AsyncMessage::Notification(n))) => {
                let _ = notices.send(Notice {
                    channel: n.channel().to_string(),
                    payload: n.payload().to_string(),
                });
            }
            Some(Ok(_)) => {}
            Some(Err(e)) => {
                tracing::warn!(error = %e, "the team database's connection failed");
                break;
            }
            None => break,
        }
    }
}

fn connect_error(e: tokio_postgres::Error) -> CoreError {
    if e.as_db_error().is_some() {
        return db_error(e);
    }
    CoreError::NotSent {
        message: format!("cannot reach the team's database: {e}"),
    }
}

/// A member's client certificate chain and its private key, read from their files.
struct ClientCert {
    chain: Vec<rustls::pki_types::CertificateDer<'static>>,
    key: rustls::pki_types::PrivateKeyDer<'static>,
}

/// The client certificate of `cfg`, if it names one: read and parsed here, so a file
/// that cannot be used is refused naming its field before any connection.
fn client_cert(cfg: &PgConfig) -> CoreResult<Option<ClientCert>> {
    use rustls::pki_types::pem::PemObject;
    if cfg.cert_file.is_empty() {
        return Ok(None);
    }
    let read = |field: &str, path: &str| {
        std::fs::read(path).map_err(|e| {
            CoreError::keyed(
                field,
                format!("{path} cannot be read: {e}"),
                "fileUnreadable",
                &[("file", path.to_string()), ("detail", e.to_string())],
            )
        })
    };
    let pem = read("team.certFile", &cfg.cert_file)?;
    let chain = rustls::pki_types::CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| {
            CoreError::keyed(
                "team.certFile",
                format!("{} is not PEM: {e}", cfg.cert_file),
                "notPem",
                &[("file", cfg.cert_file.clone()), ("detail", e.to_string())],
            )
        })?;
    if chain.is_empty() {
        return Err(CoreError::keyed(
            "team.certFile",
            format!("{} holds no certificate", cfg.cert_file),
            "noCertificate",
            &[("file", cfg.cert_file.clone())],
        ));
    }
    let pem = read("team.keyFile", &cfg.key_file)?;
    let key = rustls::pki_types::PrivateKeyDer::from_pem_slice(&pem).map_err(|e| {
        CoreError::keyed(
            "team.keyFile",
            format!("{} holds no private key in PEM: {e}", cfg.key_file),
            "noPrivateKey",
            &[("file", cfg.key_file.clone()), ("detail", e.to_string())],
        )
    })?;
    Ok(Some(ClientCert { chain, key }))
}

/// The TLS configuration with the member's client certificate, if any.
fn with_client_cert(
    builder: rustls::ConfigBuilder<rustls::ClientConfig, rustls::client::WantsClientCert>,
    cert: Option<ClientCert>,
) -> CoreResult<rustls::ClientConfig> {
    match cert {
        None => Ok(builder.with_no_client_auth()),
        Some(c) => builder.with_client_auth_cert(c.chain, c.key).map_err(|e| {
            CoreError::keyed(
                "team.keyFile",
                format!("the client certificate and its key cannot be used together: {e}"),
                "certKeyMismatch",
                &[("detail", e.to_string())],
            )
        }),
    }
}

/// TLS for the team's database: rustls with the operating system's roots (as the
/// gateway's client), or the roots of `ca_file` (a team's private PKI). On loopback any
/// certificate is taken: a server on this machine with TLS on (Debian's default, a
/// self-signed certificate) is reached, and the password's SCRAM exchange is bound to
/// the channel, so no one between can replay it.
fn tls_connector(
    loopback: bool,
    ca_file: &str,
    client_cert: Option<ClientCert>,
) -> CoreResult<tokio_postgres_rustls::MakeRustlsConnect> {
    use rustls_platform_verifier::BuilderVerifierExt;
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let builder = rustls::ClientConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| CoreError::internal(e.to_string()))?;
    let config = if loopback {
        let builder = builder
            .dangerous()
            .with_custom_certificate_verifier(Arc::new(AnyCertOnLoopback(provider)));
        with_client_cert(builder, client_cert)?
    } else if !ca_file.is_empty() {
        let pem = std::fs::read(ca_file).map_err(|e| {
            CoreError::keyed(
                "team.caFile",
                format!("{ca_file} cannot be read: {e}"),
                "fileUnreadable",
                &[("file", ca_file.to_string()), ("detail", e.to_string())],
            )
        })?;
        let mut roots = rustls::RootCertStore::empty();
        let certs: Vec<_> = rustls::pki_types::pem::PemObject::pem_slice_iter(&pem)
            .collect::<Result<Vec<rustls::pki_types::CertificateDer<'static>>, _>>()
            .map_err(|e| {
                CoreError::keyed(
                    "team.caFile",
                    format!("{ca_file} is not PEM: {e}"),
                    "notPem",
                    &[("file", ca_file.to_string()), ("detail", e.to_string())],
                )
            })?;
        if certs.is_empty() {
            return Err(CoreError::keyed(
                "team.caFile",
                format!("{ca_file} holds no certificate"),
                "noCertificate",
                &[("file", ca_file.to_string())],
            ));
        }
        for c in certs {
            roots.add(c).map_err(|e| {
                CoreError::keyed(
                    "team.caFile",
                    format!("{ca_file}: {e}"),
                    "notPem",
                    &[("file", ca_file.to_string()), ("detail", e.to_string())],
                )
            })?;
        }
        with_client_cert(builder.with_root_certificates(roots), client_cert)?
    } else {
        let builder = builder
            .with_platform_verifier()
            .map_err(|e| CoreError::internal(e.to_string()))?;
        with_client_cert(builder, client_cert)?
    };
    Ok(tokio_postgres_rustls::MakeRustlsConnect::new(config))
}

/// Takes any certificate of a server on this machine, still checking that the server
/// holds its key (the handshake's signatures).
#[derive(Debug)]
struct AnyCertOnLoopback(Arc<rustls::crypto::CryptoProvider>);

impl rustls::client::danger::ServerCertVerifier for AnyCertOnLoopback {
    fn verify_server_cert(
        &self,
        _end_entity: &rustls::pki_types::CertificateDer<'_>,
        _intermediates: &[rustls::pki_types::CertificateDer<'_>],
        _server_name: &rustls::pki_types::ServerName<'_>,
        _ocsp: &[u8],
        _now: rustls::pki_types::UnixTime,
    ) -> Result<rustls::client::danger::ServerCertVerified, rustls::Error> {
        Ok(rustls::client::danger::ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls12_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &rustls::pki_types::CertificateDer<'_>,
        dss: &rustls::DigitallySignedStruct,
    ) -> Result<rustls::client::danger::HandshakeSignatureValid, rustls::Error> {
        rustls::crypto::verify_tls13_signature(
            message,
            cert,
            dss,
            &self.0.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<rustls::SignatureScheme> {
        self.0.signature_verification_algorithms.supported_schemes()
    }
}

/// The team schema's migrations, in order; applied by `team init` (as the database's
/// owner), never by a member's desk. Never edit a released one: add the next, with a
/// number above every other (the database records each file's number and hash:
/// `migrations.rs`).
pub const TEAM_MIGRATIONS: &[TeamMigration] = &[
    team_migration!("0001_team"),
    team_migration!("0002_read_model"),
    team_migration!("0003_more_requests"),
    team_migration!("0004_live_numbers"),
    team_migration!("0005_moved_at"),
    team_migration!("0006_rows_match_forms"),
    team_migration!("0007_hostile_callers"),
    team_migration!("0008_rules_without_holes"),
    team_migration!("0009_nobody_waits_on_the_chain"),
    team_migration!("0012_review_fixes"),
    team_migration!("0013_made_by_requests"),
    team_migration!("0014_review_team30"),
    team_migration!("0015_review_team30_r2"),
    team_migration!("0016_review_team30_r3"),
    team_migration!("0017_saved_views"),
    team_migration!("0018_review_evidence"),
    team_migration!("0020_stalls_without_grants"),
    team_migration!("0022_review_team30_r4"),
    team_migration!("0027_moved_on_the_writers_clock"),
    team_migration!("0023_purpose"),
    team_migration!("0025_member_limits"),
    team_migration!("0024_beneficiaries"),
    team_migration!("0028_review_r5"),
    team_migration!("0029_team_payees_paid"),
    team_migration!("0030_journal_day"),
    team_migration!("0031_review_r6"),
    team_migration!("0032_review_sql_r6"),
    team_migration!("0033_review_r7"),
    team_migration!("0034_review_r7"),
    team_migration!("0035_review_r7b"),
    team_migration!("0036_review_r7c"),
    team_migration!("0037_review_r8"),
    team_migration!("0038_review_r8b"),
    team_migration!("0039_review_r8c"),
    team_migration!("0040_review_r9"),
    team_migration!("0041_review_r10"),
];

/// Who may run `team init`: the database's owner, with CREATEROLE, never a superuser.
/// Every SECURITY DEFINER function of the team runs with its owner's rights, so a
/// superuser owner would turn any hole in one into a member's superuser.
pub const OWNER_RULE: &str = "team init runs as the database's owner: a role with CREATEROLE that is not a superuser (CREATE ROLE owner LOGIN CREATEROLE CREATEDB; createdb as it)";

/// Refuses a link that may not own the team: a superuser, a role without CREATEROLE, or
/// one that does not own the database.
fn check_owner(link: &PgLink) -> CoreResult<()> {
    let r = link.query_one(
        "SELECT r.rolsuper, r.rolcreaterole, d.datdba = r.oid, current_database()::text
           FROM pg_catalog.pg_roles r, pg_catalog.pg_database d
          WHERE r.rolname = current_user AND d.datname = current_database()",
        &[],
    )?;
    let (superuser, createrole, owns, db): (bool, bool, bool, String) =
        (r.get(0), r.get(1), r.get(2), r.get(3));
    if superuser {
        return Err(CoreError::keyed(
            "team.user",
            format!("{} is a superuser: {OWNER_RULE}", link.user()),
            "ownerSuperuser",
            &[("user", link.user().to_string())],
        ));
    }
    if !createrole {
        return Err(CoreError::keyed(
            "team.user",
            format!("{} has no CREATEROLE: {OWNER_RULE}", link.user()),
            "ownerNoCreaterole",
            &[("user", link.user().to_string())],
        ));
    }
    if !owns {
        return Err(CoreError::keyed(
            "team.user",
            format!(
                "{} does not own the database {db} (ALTER DATABASE {db} OWNER TO {}): {OWNER_RULE}",
                link.user(),
                link.user()
            ),
            "ownerNotOwner",
            &[("user", link.user().to_string()), ("db", db.to_string())],
        ));
    }
    Ok(())
}

/// Creates or brings up to date the team's schema, roles and policies. `link` must be
/// the database's owner, with CREATEROLE and not a superuser ([`OWNER_RULE`]). `mer_no`
/// is the merchant the team works for: a database holds one merchant's team.
pub fn init_team(link: &PgLink, mer_no: i64) -> CoreResult<usize> {
    check_owner(link)?;
    link.batch(
        "CREATE SCHEMA IF NOT EXISTS paydesk;
         CREATE TABLE IF NOT EXISTS paydesk.schema_migrations (
             version integer PRIMARY KEY,
             applied_at timestamptz NOT NULL DEFAULT now(),
             applied_by text NOT NULL DEFAULT session_user
         );
         ALTER TABLE paydesk.schema_migrations
             ADD COLUMN IF NOT EXISTS file integer UNIQUE,
             ADD COLUMN IF NOT EXISTS sha256 text;",
    )?;
    let mut applied = 0;
    // The record of an older PayDesk (positions only) read as this build's list, once;
    // from then on each row says which file it was, and what its text was.
    link.atomic(|tx| {
        tx.batch("LOCK TABLE paydesk.schema_migrations IN EXCLUSIVE MODE")?;
        check_legacy_record(tx)?;
        for (i, m) in TEAM_MIGRATIONS.iter().enumerate() {
            tx.execute(
                "UPDATE paydesk.schema_migrations SET file = $2, sha256 = $3
                  WHERE version = $1 AND file IS NULL",
                &[&(i as i32 + 1), &m.number(), &m.sha256()],
            )?;
        }
        migrations::check_applied(TEAM_MIGRATIONS, &applied_in(tx)?, true)
    })?;
    for (i, m) in TEAM_MIGRATIONS.iter().enumerate() {
        let version = i as i32 + 1;
        link.atomic(|tx| {
            // Review sql-r6 F3: an upgrade waits a bounded time for each lock, so a
            // member's open read (a viewer's idle transaction) cannot hold it, and the
            // signer's worker queued behind it, for ever; it fails naming who holds it.
            tx.batch(&format!(
                "SET LOCAL lock_timeout = '{}ms'",
                INIT_LOCK_WAIT.as_millis()
            ))?;
            tx.batch("LOCK TABLE paydesk.schema_migrations IN EXCLUSIVE MODE")?;
            let done = tx
                .query_opt(
                    "SELECT 1 FROM paydesk.schema_migrations WHERE file = $1",
                    &[&m.number()],
                )?
                .is_some();
            if !done {
                migrations::check_applied(TEAM_MIGRATIONS, &applied_in(tx)?, true)?;
                tx.batch(m.sql)?;
                tx.execute(
                    "INSERT INTO paydesk.schema_migrations (version, file, sha256) VALUES ($1, $2, $3)",
                    &[&version, &m.number(), &m.sha256()],
                )?;
                applied += 1;
            }
            Ok(())
        })
        .map_err(|e| match &e {
            CoreError::Storage { message, .. } if message.starts_with("PostgreSQL 55P03") => {
                lock_holders_named(link, m.number(), &e)
            }
            _ => e,
        })?;
    }
    link.atomic(|tx| {
        let row = tx.query_opt("SELECT mer_no FROM paydesk.team WHERE id = 1", &[])?;
        match row {
            Some(r) => {
                let existing: i64 = r.get(0);
                if existing != mer_no {
                    return Err(CoreError::keyed(
                        "merNo",
                        format!("this database is the team of merchant {existing}, not {mer_no}"),
                        "teamOtherMerchant",
                        &[
                            ("existing", existing.to_string()),
                            ("merNo", mer_no.to_string()),
                        ],
                    ));
                }
            }
            None => {
                tx.execute(
                    "INSERT INTO paydesk.team (id, mer_no) VALUES (1, $1)",
                    &[&mer_no],
                )?;
            }
        }
        Ok(())
    })?;
    Ok(applied)
}

/// How long `team init` waits for each lock an upgrade step needs (review sql-r6 F3).
pub const INIT_LOCK_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// An upgrade step that waited [`INIT_LOCK_WAIT`] for a lock: the error names the
/// sessions holding locks on the team's tables (member, process id, state, table), so
/// the owner knows whom to ask (or whose session to end) before trying again.
fn lock_holders_named(link: &PgLink, file: i32, e: &CoreError) -> CoreError {
    let holders = link
        .query(
            "SELECT string_agg(DISTINCT pg_catalog.format('%s (pid %s, %s) on %s',
                        coalesce(a.usename::text, '?'), l.pid, coalesce(a.state, '?'), c.relname), '; ')
               FROM pg_catalog.pg_locks l
               JOIN pg_catalog.pg_class c ON c.oid = l.relation
               JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
               LEFT JOIN pg_catalog.pg_stat_activity a ON a.pid = l.pid
              WHERE n.nspname = 'paydesk' AND l.granted AND l.pid <> pg_catalog.pg_backend_pid()",
            &[],
        )
        .ok()
        .and_then(|rows| rows.first().and_then(|r| r.get::<_, Option<String>>(0)))
        .unwrap_or_else(|| "another session (gone since)".into());
    CoreError::storage(format!(
        "team upgrade: schema file {file:04} waited {} s for a lock held by {holders}; nothing of that file was applied. \
         Ask them to close PayDesk (or end those sessions), stop the signer's worker, and run `paydesk team init` again ({e})",
        INIT_LOCK_WAIT.as_secs()
    ))
}

/// The roles the team's owner (`link`'s user) may take itself to see and end members'
/// stalling sessions: PostgreSQL 15 lets a CREATEROLE role grant them; from 16 on only a
/// superuser does (README, *A team on PostgreSQL*). Tried at each `team init`.
pub const STALL_GRANTS: [&str; 2] = ["pg_signal_backend", "pg_read_all_stats"];

/// Which of [`STALL_GRANTS`] the owner still lacks (their privileges, not a bare
/// membership), after trying to take them itself. Without them no member's stalling
/// session is ended: a step held up by one waits its bound and fails, naming the grant.
pub fn owner_stall_grants_missing(link: &PgLink) -> CoreResult<Vec<String>> {
    link.batch(
        "DO $$ BEGIN
             EXECUTE pg_catalog.format('GRANT pg_signal_backend, pg_read_all_stats TO %I', current_user);
         EXCEPTION WHEN others THEN NULL;
         END $$",
    )?;
    let rows = link.query(
        "SELECT g FROM unnest($1::text[]) WITH ORDINALITY AS x (g, o)
          WHERE NOT pg_catalog.pg_has_role(current_user, g, 'USAGE') ORDER BY o",
        &[&STALL_GRANTS.to_vec()],
    )?;
    Ok(rows.iter().map(|r| r.get(0)).collect())
}

/// The most positions an older PayDesk's record (positions only, before each row named
/// its file) can hold: the last such list ended at 0028, its 23rd file.
const LEGACY_POSITIONS: i32 = 23;

/// An object each file creates that older PayDesks' lists placed at different
/// positions (branch builds had 0023, 0024 or 0025 where this list has 0027): a SQL
/// condition true once the file was applied. (0027 only replaces a function's body.)
const LEGACY_MARKERS: &[(i32, &str)] = &[
    (
        23,
        "EXISTS (SELECT 1 FROM pg_catalog.pg_attribute WHERE attrelid = pg_catalog.to_regclass('paydesk.journal')
                   AND attname = 'purpose' AND NOT attisdropped)",
    ),
    (24, "pg_catalog.to_regclass('paydesk.beneficiaries') IS NOT NULL"),
    (25, "pg_catalog.to_regclass('paydesk.member_limits') IS NOT NULL"),
    (
        28,
        "EXISTS (SELECT 1 FROM pg_catalog.pg_constraint c JOIN pg_catalog.pg_namespace n ON n.oid = c.connamespace
                  WHERE n.nspname = 'paydesk' AND c.conname = 'beneficiaries_printable')",
    ),
];

/// Review sql-r6 F11: an older PayDesk's record (rows without a file) is read by this
/// build's list only when the database agrees with it: no position beyond what such a
/// list held, and each file with a marker applied exactly when the record's positions
/// say this list's file there was. A database another build set up (0024 at position
/// 19) is refused naming the file, before anything is changed or applied.
fn check_legacy_record(tx: &Tx<'_>) -> CoreResult<()> {
    let legacy: Vec<i32> = tx
        .query(
            "SELECT version FROM paydesk.schema_migrations WHERE file IS NULL ORDER BY version",
            &[],
        )?
        .iter()
        .map(|r| r.get(0))
        .collect();
    if legacy.is_empty() {
        return Ok(());
    }
    let most = LEGACY_POSITIONS.min(TEAM_MIGRATIONS.len() as i32);
    if let Some(beyond) = legacy.iter().find(|v| **v > most || **v < 1) {
        return Err(CoreError::keyed(
            "team",
            format!(
                "the team's database holds an older PayDesk's record with position {beyond}, beyond the {most} files such a record can name: another build set it up; run `team init` with that build; nothing was changed"
            ),
            "teamSchemaLegacyBeyond",
            &[("position", beyond.to_string()), ("most", most.to_string())],
        ));
    }
    for (i, m) in TEAM_MIGRATIONS.iter().enumerate() {
        let Some((_, marker)) = LEGACY_MARKERS.iter().find(|(n, _)| *n == m.number()) else {
            continue;
        };
        let position = i as i32 + 1;
        let listed = legacy.contains(&position);
        let present: bool = tx.query_one(&format!("SELECT {marker}"), &[])?.get(0);
        if listed != present {
            let file = format!("{:04}", m.number());
            let (key, text) = if listed {
                (
                    "teamSchemaLegacyMissing",
                    format!(
                        "the team's database holds an older PayDesk's record naming position {position} as applied, where this PayDesk has migration {file}, but {file}'s objects are not there: another build set it up; run `team init` with that build; nothing was changed"
                    ),
                )
            } else {
                (
                    "teamSchemaLegacyExtra",
                    format!(
                        "the team's database holds migration {file}'s objects, but its older PayDesk's record does not name position {position}, where this PayDesk has {file}: another build set it up; run `team init` with that build; nothing was changed"
                    ),
                )
            };
            return Err(CoreError::keyed(
                "team",
                text,
                key,
                &[("file", file), ("position", position.to_string())],
            ));
        }
    }
    Ok(())
}

/// The rows of `paydesk.schema_migrations` (which files, with which texts, were applied).
fn applied_in(tx: &Tx<'_>) -> CoreResult<Vec<migrations::Applied>> {
    Ok(tx
        .query(
            "SELECT version, file, sha256 FROM paydesk.schema_migrations ORDER BY version",
            &[],
        )?
        .iter()
        .map(|r| migrations::Applied {
            version: r.get(0),
            file: r.get(1),
            sha256: r.get(2),
        })
        .collect())
}

/// What a member's desk finds of the team's schema: the rows of the migrations applied,
/// by file where `team init` of this PayDesk recorded them (none: never initialised).
pub fn team_schema_applied(link: &PgLink) -> CoreResult<Vec<migrations::Applied>> {
    let exists: bool = link
        .query_one(
            "SELECT to_regclass('paydesk.schema_migrations') IS NOT NULL",
            &[],
        )?
        .get(0);
    if !exists {
        return Ok(Vec::new());
    }
    let has_file: bool = link
        .query_one(
            "SELECT EXISTS (SELECT 1 FROM information_schema.columns
                             WHERE table_schema = 'paydesk' AND table_name = 'schema_migrations'
                               AND column_name = 'file')",
            &[],
        )?
        .get(0);
    let sql = if has_file {
        "SELECT version, file, sha256 FROM paydesk.schema_migrations ORDER BY version"
    } else {
        "SELECT version, NULL::integer, NULL::text FROM paydesk.schema_migrations ORDER BY version"
    };
    Ok(link
        .query(sql, &[])?
        .iter()
        .map(|r| migrations::Applied {
            version: r.get(0),
            file: r.get(1),
            sha256: r.get(2),
        })
        .collect())
}

/// The version of the team schema in the database, 0 if `team init` never ran.
pub fn team_schema_version(link: &PgLink) -> CoreResult<i32> {
    let row = link.query_one(
        "SELECT CASE WHEN to_regclass('paydesk.schema_migrations') IS NULL THEN 0
                ELSE (SELECT coalesce(max(version), 0) FROM paydesk.schema_migrations) END",
        &[],
    )?;
    Ok(row.get(0))
}

#[cfg(test)]
mod balance_trigger_tests {
    use paydesk_model::orders::BALANCE_FIELDS;

    /// The PostgreSQL trigger's columns (schema 0028, which replaced 0027's), read from its SQL: the same
    /// balance fields, in the order of the list.
    #[test]
    fn the_postgres_trigger_moves_on_the_balance_fields() {
        let sql = include_str!("schema/0028_review_r5.sql");
        // The columns compared on an update: the tuples after `ELSIF`.
        let sql = &sql[sql.find("ELSIF").unwrap()..];
        let tuple = |side: &str| -> Vec<String> {
            let start = sql.find(&format!("({side}.")).unwrap();
            let end = start + sql[start..].find(')').unwrap();
            sql[start + 1..end]
                .split(',')
                .map(|c| c.trim().trim_start_matches(&format!("{side}.")).to_string())
                .collect()
        };
        assert_eq!(tuple("NEW"), BALANCE_FIELDS);
        assert_eq!(tuple("OLD"), BALANCE_FIELDS);
    }
}
