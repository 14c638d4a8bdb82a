//! [`super::PlayerStore`] on the embedded SQLite file the rooms live in. A rating transaction
//! begins `IMMEDIATE`: it takes the write lock before reading the players, so no other writer
//! changes them between the read and the write (a deferred one could fail to upgrade).

use std::str::FromStr;
use std::time::Duration;

use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqliteRow};

use super::rerate::impl_rerate;
use super::sql::{LOCK_PLAYERS, impl_player_store};

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
        let pool = crate::store::sqlite::pool::pool_options()
            .max_connections(2)
            .connect_with(options)
            .await?;
        crate::store::sqlite::migrate(&pool).await?;
        rerate(&pool).await?;
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

impl_rerate!(SqlitePool, sqlx::Sqlite, "BEGIN IMMEDIATE", "");

#[cfg(test)]
mod tests {
    use sqlx::Row;

    use super::*;

    /// A player page's recent games come by the seat indexes (0291), not by reading every
    /// game-over event or room.
    #[tokio::test]
    async fn a_players_games_are_looked_up_by_index() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("sqlite://{}", dir.path().join("senet.db").display());
        let store = SqlitePlayers::open(&url).await.unwrap();
        let explain = format!("EXPLAIN QUERY PLAN {}", super::super::sql::RECENT_GAMES);
        // The statement is ours: the constant the store runs, with EXPLAIN before it.
        let query = sqlx::query(sqlx::AssertSqlSafe(explain));
        let rows = query.fetch_all(&store.pool).await.unwrap();
        let plan: Vec<String> = rows.iter().map(|row| row.get("detail")).collect();
        for index in ["room_players_black", "room_players_white"] {
            assert!(plan.iter().any(|step| step.contains(index)), "{plan:?}");
        }
        assert!(
            !plan.iter().any(|step| step.starts_with("SCAN")),
            "{plan:?}"
        );
    }
}
