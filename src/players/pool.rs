//! One pool on either backend for the smaller stores (puzzle ratings, challenges, blocks and
//! follows, push subscriptions, classes): their statements are the same text on SQLite and PostgreSQL (SQLite
//! reads `$1` as PostgreSQL does), so each runs once through [`on_pool`] instead of through a
//! trait implemented twice. The database is migrated by the players' store before these open.

use std::str::FromStr;
use std::time::Duration;

use sqlx::Row;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool};

pub(crate) enum Pool {
    Sqlite(SqlitePool),
    Pg(PgPool),
}

impl Pool {
    /// A small pool of `connections` on the database `url` names.
    pub(crate) async fn open(url: &str, connections: u32) -> Result<Pool, sqlx::Error> {
        Ok(if url.starts_with("sqlite:") {
            let options = SqliteConnectOptions::from_str(url)?
                .create_if_missing(true)
                .journal_mode(SqliteJournalMode::Wal)
                .foreign_keys(true)
                .busy_timeout(Duration::from_secs(5));
            Pool::Sqlite(
                crate::store::sqlite::pool::pool_options()
                    .max_connections(connections)
                    .connect_with(options)
                    .await?,
            )
        } else {
            Pool::Pg(
                PgPoolOptions::new()
                    .max_connections(connections)
                    .acquire_timeout(Duration::from_secs(10))
                    .connect_with(PgConnectOptions::from_str(url)?)
                    .await?,
            )
        })
    }
}

/// Runs `$body` with `$pool` bound to whichever backend's pool the store (a struct with a
/// `pool: Pool` field) has; `$begin` opens a writing transaction and `$lock` locks the rows a
/// `SELECT` reads (`FOR UPDATE` on PostgreSQL; SQLite's `BEGIN IMMEDIATE` locks everything).
macro_rules! on_pool {
    ($store:expr, |$pool:ident, $begin:ident, $lock:ident| $body:expr) => {
        match &$store.pool {
            $crate::players::pool::Pool::Sqlite($pool) => {
                let ($begin, $lock) = ("BEGIN IMMEDIATE", "");
                $body
            }
            $crate::players::pool::Pool::Pg($pool) => {
                let ($begin, $lock) = ("BEGIN", " FOR UPDATE");
                $body
            }
        }
    };
}
pub(crate) use on_pool;

/// The one thing the decoders need of either backend's row.
pub(crate) trait RowLike {
    fn f64_at(&self, index: usize) -> Result<f64, sqlx::Error>;
    fn i64_at(&self, index: usize) -> Result<i64, sqlx::Error>;
    fn text_at(&self, index: usize) -> Result<String, sqlx::Error>;
    fn opt_text_at(&self, index: usize) -> Result<Option<String>, sqlx::Error>;
}

macro_rules! row_like {
    ($row:ty) => {
        impl RowLike for $row {
            fn f64_at(&self, index: usize) -> Result<f64, sqlx::Error> {
                self.try_get(index)
            }
            fn i64_at(&self, index: usize) -> Result<i64, sqlx::Error> {
                self.try_get(index)
            }
            fn text_at(&self, index: usize) -> Result<String, sqlx::Error> {
                self.try_get(index)
            }
            fn opt_text_at(&self, index: usize) -> Result<Option<String>, sqlx::Error> {
                self.try_get(index)
            }
        }
    };
}
row_like!(sqlx::sqlite::SqliteRow);
row_like!(sqlx::postgres::PgRow);
