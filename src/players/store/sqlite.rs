//! [`super::PlayerStore`] on the embedded SQLite file the rooms live in. A rating transaction
//! begins `IMMEDIATE`: it takes the write lock before reading the players, so no other writer
//! changes them between the read and the write (a deferred one could fail to upgrade).

use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteRow};

use super::sql::{LOCK_PLAYERS, impl_player_store};

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

pub struct SqlitePlayers {
    pool: SqlitePool,
}

impl SqlitePlayers {
    /// Opens (creating if missing) the database at `url` and migrates it.
    pub async fn open(url: &str) -> Result<SqlitePlayers, PlayerError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(2)
            .connect_with(options)
            .await?;
        MIGRATOR.run(&pool).await?;
        Ok(SqlitePlayers { pool })
    }
}

impl_player_store!(
    SqlitePlayers,
    SqlitePool,
    sqlx::SqliteConnection,
    SqliteRow,
    "BEGIN IMMEDIATE",
    ""
);
