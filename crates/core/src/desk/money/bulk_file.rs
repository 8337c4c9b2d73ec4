//! A bulk payout file read or parsed with the desk's book of payees.

use crate::bulk;
use crate::error::CoreResult;
use std::path::Path;

impl<'d> crate::desk::Money<'d> {
    /// Reads and checks a bulk payout file, its `beneficiary` column's nicknames taken
    /// from the book; nothing is sent.
    pub fn bulk_read(&self, path: &Path) -> CoreResult<bulk::BulkFile> {
        bulk::read_with_book(path, &self.bulk_context()?, &self.desk.bulk_book()?)
    }

    /// [`Money::bulk_read`] of a file held in memory.
    pub fn bulk_parse(&self, bytes: &[u8]) -> CoreResult<bulk::BulkFile> {
        bulk::parse_with_book(bytes, &self.bulk_context()?, &self.desk.bulk_book()?)
    }
}
