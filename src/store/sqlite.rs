//! The embedded [`Store`]: one SQLite file in WAL mode, created on first
//! start, with the migrations in `migrations/sqlite/` applied on open.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};

use super::rows::{
    event_from_row, insert_events, is_unique_violation, room_from_row, seat_columns, version_to_i64,
};
use super::{RoomRow, SeatRow, Store, StoreError, StoredEvent};
use crate::engine::Side;
use crate::protocol::Version;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/sqlite");

pub struct SqliteStore {
    pool: SqlitePool,
}

impl SqliteStore {
    /// Opens (creating if missing) the database at `url` and migrates it.
    pub async fn open(url: &str) -> Result<SqliteStore, StoreError> {
        let options = SqliteConnectOptions::from_str(url)?
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            // With WAL, NORMAL survives a killed process (only a power cut
            // can lose the last commits) at a fraction of FULL's fsyncs.
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(5));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await?;
        MIGRATOR.run(&pool).await?;
        Ok(SqliteStore { pool })
    }
}

/// Takes a seat only while it is free: the check and the write are one statement.
fn take_seat_sql(side: Side) -> &'static str {
    match side {
        Side::Black => {
            "UPDATE rooms SET black_token_hash = ?, black_client_seed = ? \
             WHERE id = ? AND black_token_hash IS NULL"
        }
        Side::White => {
            "UPDATE rooms SET white_token_hash = ?, white_client_seed = ? \
             WHERE id = ? AND white_token_hash IS NULL"
        }
    }
}

#[async_trait]
impl Store for SqliteStore {
    async fn create_room(&self, room: &RoomRow, events: &[StoredEvent]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let (black_hash, black_seed) = seat_columns(&room.black);
        let (white_hash, white_seed) = seat_columns(&room.white);
        let inserted = sqlx::query(
            "INSERT INTO rooms (id, mode, seed, created_at, black_token_hash, black_client_seed, \
             white_token_hash, white_client_seed) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&room.id)
        .bind(room.mode.name())
        .bind(room.seed.as_slice())
        .bind(room.created_at)
        .bind(black_hash)
        .bind(black_seed)
        .bind(white_hash)
        .bind(white_seed)
        .execute(&mut *tx)
        .await;
        match inserted {
            Err(e) if is_unique_violation(&e) => return Err(StoreError::RoomExists),
            other => other?,
        };
        if !events.is_empty() {
            insert_events(&room.id, events)
                .build()
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn room(&self, id: &str) -> Result<Option<RoomRow>, StoreError> {
        let row = sqlx::query(
            "SELECT id, mode, seed, created_at, black_token_hash, black_client_seed, \
             white_token_hash, white_client_seed FROM rooms WHERE id = ?",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?;
        row.as_ref().map(room_from_row).transpose()
    }

    async fn take_seat(&self, room: &str, side: Side, seat: &SeatRow) -> Result<bool, StoreError> {
        let done = sqlx::query(take_seat_sql(side))
            .bind(seat.token_hash.as_slice())
            .bind(&seat.client_seed)
            .bind(room)
            .execute(&self.pool)
            .await?;
        Ok(done.rows_affected() == 1)
    }

    async fn append(&self, room: &str, events: &[StoredEvent]) -> Result<(), StoreError> {
        let Some(first) = events.first() else {
            return Ok(());
        };
        // One multi-row INSERT is atomic: a clash on any (room, v) inserts nothing.
        match insert_events(room, events)
            .build()
            .execute(&self.pool)
            .await
        {
            Err(e) if is_unique_violation(&e) => Err(StoreError::VersionConflict(first.v)),
            other => other.map(drop).map_err(StoreError::from),
        }
    }

    async fn events_after(
        &self,
        room: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows =
            sqlx::query("SELECT v, at, kind, data FROM events WHERE room = ? AND v > ? ORDER BY v")
                .bind(room)
                .bind(version_to_i64(after))
                .fetch_all(&self.pool)
                .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn ping(&self) -> Result<(), StoreError> {
        // Every built-in migration must be recorded as applied: a database file replaced or
        // rolled back under a running server is not ready.
        let applied: Vec<i64> =
            sqlx::query_scalar("SELECT version FROM _sqlx_migrations WHERE success")
                .fetch_all(&self.pool)
                .await?;
        let missing = MIGRATOR
            .iter()
            .filter(|m| !m.migration_type.is_down_migration() && !applied.contains(&m.version))
            .count();
        if missing > 0 {
            return Err(StoreError::Corrupt(format!(
                "{missing} migration(s) not applied"
            )));
        }
        Ok(())
    }
}
