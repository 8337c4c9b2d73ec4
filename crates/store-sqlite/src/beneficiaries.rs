//! `beneficiaries`: the book of payees of one desk's SQLite file (migration 0015). The
//! account is kept masked and sealed, with its keyed digest; never in clear.

/// The table's trait and types are the store's (`paydesk-store`); kept at this path.
pub use paydesk_store::beneficiaries::*;

use std::ops::Deref;

use rusqlite::{Connection, OptionalExtension, params};

use super::now_ms;
use paydesk_model::beneficiaries::{
    Beneficiary, StoredBeneficiary, kind_name, kind_of, nickname_key,
};
use paydesk_store::error::{CoreError, CoreResult};

/// The book of one desk's SQLite file.
#[derive(Debug, Clone, Copy)]
pub struct Beneficiaries<C> {
    conn: C,
}

impl<C: Deref<Target = Connection>> Beneficiaries<C> {
    pub fn on(conn: C) -> Self {
        Beneficiaries { conn }
    }
}

fn db(e: rusqlite::Error) -> CoreError {
    CoreError::storage(format!("the book of payees: {e}"))
}

const COLUMNS: &str = "nickname, kind, first_name, last_name, account_masked, bank, country, created_at, account_sealed, account_digest";

fn row(r: &rusqlite::Row<'_>) -> rusqlite::Result<StoredBeneficiary> {
    let kind: String = r.get(1)?;
    Ok(StoredBeneficiary {
        shown: Beneficiary {
            nickname: r.get(0)?,
            kind: kind_of(&kind).ok_or_else(|| {
                rusqlite::Error::FromSqlConversionFailure(
                    1,
                    rusqlite::types::Type::Text,
                    format!("payee kind {kind:?}").into(),
                )
            })?,
            first_name: r.get(2)?,
            last_name: r.get(3)?,
            account: r.get(4)?,
            bank: r.get(5)?,
            country: r.get(6)?,
            created_at: r.get(7)?,
            awaiting_approval: false,
            team_row: None,
        },
        sealed_account: r.get(8)?,
        account_digest: r.get(9)?,
    })
}

impl<C: Deref<Target = Connection>> BeneficiaryStore for Beneficiaries<C> {
    fn list(&self) -> CoreResult<Vec<StoredBeneficiary>> {
        let mut stmt = self
            .conn
            .prepare(&format!(
                "SELECT {COLUMNS} FROM beneficiaries ORDER BY nickname_key"
            ))
            .map_err(db)?;
        let rows = stmt.query_map([], row).map_err(db)?;
        rows.collect::<rusqlite::Result<Vec<_>>>().map_err(db)
    }

    fn by_nickname(&self, nickname: &str) -> CoreResult<Option<StoredBeneficiary>> {
        self.conn
            .query_row(
                &format!("SELECT {COLUMNS} FROM beneficiaries WHERE nickname_key = ?1"),
                [nickname_key(nickname)],
                row,
            )
            .optional()
            .map_err(db)
    }

    fn by_digest(&self, digest: &str) -> CoreResult<Option<StoredBeneficiary>> {
        self.conn
            .query_row(
                &format!(
                    "SELECT {COLUMNS} FROM beneficiaries WHERE account_digest = ?1 ORDER BY id LIMIT 1"
                ),
                [digest],
                row,
            )
            .optional()
            .map_err(db)
    }

    fn add(&self, b: &StoredBeneficiary) -> CoreResult<Beneficiary> {
        let s = &b.shown;
        let now = now_ms();
        let added = self.conn.execute(
            "INSERT INTO beneficiaries (nickname, nickname_key, kind, first_name, last_name, account_masked, account_sealed, account_digest, bank, country, created_at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)
             ON CONFLICT (nickname_key) DO NOTHING",
            params![
                s.nickname,
                nickname_key(&s.nickname),
                kind_name(s.kind),
                s.first_name,
                s.last_name,
                s.account,
                b.sealed_account,
                b.account_digest,
                s.bank,
                s.country,
                now
            ],
        )
        .map_err(db)?;
        if added == 0 {
            return Err(CoreError::keyed(
                "nickname",
                format!(
                    "the book already has a payee {:?}; choose another nickname",
                    s.nickname
                ),
                "payeeNicknameTaken",
                &[("nickname", s.nickname.clone())],
            ));
        }
        Ok(Beneficiary {
            created_at: now,
            ..s.clone()
        })
    }

    fn remove(&self, nickname: &str) -> CoreResult<bool> {
        Ok(self
            .conn
            .execute(
                "DELETE FROM beneficiaries WHERE nickname_key = ?1",
                [nickname_key(nickname)],
            )
            .map_err(db)?
            > 0)
    }
}
