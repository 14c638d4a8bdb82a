//! Pools on a SQLite database and the check that keeps a connection in step with its
//! transaction: used by every store on SQLite (the rooms', the bans', the players', the
//! puzzles'), so it sits below all of them.

use sqlx::sqlite::SqlitePoolOptions;
use sqlx::{Connection, SqliteConnection};

/// Options for a pool on a SQLite database: a connection released out of step with its
/// transaction ([`in_step`]) is closed, never lent again.
pub(crate) fn pool_options() -> SqlitePoolOptions {
    SqlitePoolOptions::new()
        .after_release(|connection, _| Box::pin(async move { Ok(in_step(connection).await) }))
}

/// Whether sqlx and SQLite agree that `connection` is in no transaction. On some errors (a full
/// disk, SQLITE_FULL; a trigger's `RAISE(ROLLBACK)`) SQLite rolls the transaction back by itself;
/// sqlx's own ROLLBACK then fails, and it believes the transaction still open: its next `begin`
/// is a SAVEPOINT, which opens a transaction of its own, and once a statement in that one fails
/// too, sqlx rolls back to the savepoint and leaves it open, so every later write on the
/// connection succeeds and is never committed. The `disk-full` fault run found it: throws
/// acknowledged and shown, then missing from the log (docs/RELIABILITY.md).
pub(crate) async fn in_step(connection: &mut SqliteConnection) -> bool {
    // The ping runs after the rollback a dropped transaction queued.
    connection.ping().await.is_ok() && !connection.is_in_transaction()
}
