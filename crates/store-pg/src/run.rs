//! [`Run`]: what a read-model handle runs its statements on, the link on its own or a
//! transaction on it ([`PgLink::atomic`], [`PgLink::read`]), so one handle serves both, as
//! a SQLite handle runs on a connection or inside a caller's transaction.

use tokio_postgres::Row;
use tokio_postgres::types::{FromSql, ToSql};

use super::{PgLink, Tx};
use paydesk_store::error::{CoreError, CoreResult};

pub(crate) type Params<'a> = &'a [&'a (dyn ToSql + Sync)];

/// A link, or a transaction on one.
pub(crate) trait Run {
    fn rows(&self, sql: &str, params: Params<'_>) -> CoreResult<Vec<Row>>;
    fn row(&self, sql: &str, params: Params<'_>) -> CoreResult<Option<Row>>;
    fn one(&self, sql: &str, params: Params<'_>) -> CoreResult<Row>;
    fn exec(&self, sql: &str, params: Params<'_>) -> CoreResult<u64>;
    /// Streams the rows to `f` as they arrive (an export of a million rows is never
    /// held in memory at once).
    fn each(
        &self,
        sql: &str,
        params: Params<'_>,
        f: &mut dyn FnMut(&Row) -> CoreResult<()>,
    ) -> CoreResult<()>;
    /// Runs `f` atomically: in a transaction of its own on a link, in a savepoint of
    /// the caller's transaction inside one (so it commits with the caller's).
    fn atomic_dyn(&self, f: &mut dyn FnMut(&dyn Run) -> CoreResult<()>) -> CoreResult<()>;
}

impl Run for PgLink {
    fn rows(&self, sql: &str, params: Params<'_>) -> CoreResult<Vec<Row>> {
        self.query(sql, params)
    }
    fn row(&self, sql: &str, params: Params<'_>) -> CoreResult<Option<Row>> {
        self.query_opt(sql, params)
    }
    fn one(&self, sql: &str, params: Params<'_>) -> CoreResult<Row> {
        self.query_one(sql, params)
    }
    fn exec(&self, sql: &str, params: Params<'_>) -> CoreResult<u64> {
        self.execute(sql, params)
    }
    fn each(
        &self,
        sql: &str,
        params: Params<'_>,
        f: &mut dyn FnMut(&Row) -> CoreResult<()>,
    ) -> CoreResult<()> {
        self.stream(sql, params, f)
    }
    fn atomic_dyn(&self, f: &mut dyn FnMut(&dyn Run) -> CoreResult<()>) -> CoreResult<()> {
        self.atomic(|tx| f(tx))
    }
}

impl Run for Tx<'_> {
    fn rows(&self, sql: &str, params: Params<'_>) -> CoreResult<Vec<Row>> {
        self.query(sql, params)
    }
    fn row(&self, sql: &str, params: Params<'_>) -> CoreResult<Option<Row>> {
        self.query_opt(sql, params)
    }
    fn one(&self, sql: &str, params: Params<'_>) -> CoreResult<Row> {
        self.query_one(sql, params)
    }
    fn exec(&self, sql: &str, params: Params<'_>) -> CoreResult<u64> {
        self.execute(sql, params)
    }
    fn each(
        &self,
        sql: &str,
        params: Params<'_>,
        f: &mut dyn FnMut(&Row) -> CoreResult<()>,
    ) -> CoreResult<()> {
        self.stream(sql, params, f)
    }
    fn atomic_dyn(&self, f: &mut dyn FnMut(&dyn Run) -> CoreResult<()>) -> CoreResult<()> {
        self.batch("SAVEPOINT read_model")?;
        match f(self) {
            Ok(()) => self.batch("RELEASE read_model"),
            Err(e) => {
                // Fails only when the transaction is already broken: the caller's
                // rollback undoes it all then.
                let _ = self.batch("ROLLBACK TO read_model; RELEASE read_model");
                Err(e)
            }
        }
    }
}

/// [`Run::atomic_dyn`] with a result.
pub(crate) fn atomically<T>(
    run: &dyn Run,
    f: impl FnOnce(&dyn Run) -> CoreResult<T>,
) -> CoreResult<T> {
    let mut f = Some(f);
    let mut out = None;
    run.atomic_dyn(&mut |r| {
        if let Some(f) = f.take() {
            out = Some(f(r)?);
        }
        Ok(())
    })?;
    out.ok_or_else(|| CoreError::internal("the transaction ran nothing"))
}

/// Column `i` of a read-model row, or a storage error naming it.
pub(crate) fn col<'a, T: FromSql<'a>>(r: &'a Row, i: usize) -> CoreResult<T> {
    r.try_get(i)
        .map_err(|e| CoreError::storage(format!("the team's read model, column {i}: {e}")))
}
