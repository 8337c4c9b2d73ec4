//! A scratch PostgreSQL server for tests (written next).
