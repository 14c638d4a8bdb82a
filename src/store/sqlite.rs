//! The embedded [`Store`]: one SQLite file in WAL mode, created on first
//! start, with the migrations in `migrations/sqlite/` applied on open.

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{QueryBuilder, Row, SqlitePool};

use super::{RoomRow, SeatRow, Store, StoreError, StoredEvent};
use crate::engine::Side;
use crate::protocol::{Mode, Version};

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

fn seat_from(hash: Option<Vec<u8>>, seed: Option<String>) -> Result<Option<SeatRow>, StoreError> {
    match hash {
        None => Ok(None),
        Some(hash) => Ok(Some(SeatRow {
            token_hash: hash
                .try_into()
                .map_err(|_| StoreError::Corrupt("token hash is not 32 bytes".into()))?,
            client_seed: seed.unwrap_or_default(),
        })),
    }
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(e) if e.is_unique_violation())
}

fn version_to_i64(v: Version) -> i64 {
    i64::try_from(v).expect("versions stay far below i64::MAX")
}

#[async_trait]
impl Store for SqliteStore {
    async fn create_room(&self, room: &RoomRow, events: &[StoredEvent]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let seat_parts = |seat: &Option<SeatRow>| {
            seat.as_ref()
                .map(|s| (s.token_hash.to_vec(), s.client_seed.clone()))
                .unzip()
        };
        let (black_hash, black_seed): (Option<Vec<u8>>, Option<String>) = seat_parts(&room.black);
        let (white_hash, white_seed): (Option<Vec<u8>>, Option<String>) = seat_parts(&room.white);
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
        let Some(row) = row else { return Ok(None) };
        let mode: String = row.try_get("mode")?;
        let seed: Vec<u8> = row.try_get("seed")?;
        Ok(Some(RoomRow {
            id: row.try_get("id")?,
            mode: Mode::from_name(&mode)
                .ok_or_else(|| StoreError::Corrupt(format!("unknown mode {mode:?}")))?,
            seed: seed
                .try_into()
                .map_err(|_| StoreError::Corrupt("seed is not 32 bytes".into()))?,
            created_at: row.try_get("created_at")?,
            black: seat_from(
                row.try_get("black_token_hash")?,
                row.try_get("black_client_seed")?,
            )?,
            white: seat_from(
                row.try_get("white_token_hash")?,
                row.try_get("white_client_seed")?,
            )?,
        }))
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
        rows.iter()
            .map(|row| {
                let v: i64 = row.try_get("v")?;
                Ok(StoredEvent {
                    v: v as Version,
                    at: row.try_get("at")?,
                    kind: row.try_get("kind")?,
                    data: row.try_get("data")?,
                })
            })
            .collect()
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }
}

fn insert_events<'a>(room: &'a str, events: &'a [StoredEvent]) -> QueryBuilder<sqlx::Sqlite> {
    let mut query = QueryBuilder::new("INSERT INTO events (room, v, at, kind, data) ");
    query.push_values(events, |mut row, event| {
        row.push_bind(room.to_owned())
            .push_bind(version_to_i64(event.v))
            .push_bind(event.at)
            .push_bind(event.kind.clone())
            .push_bind(event.data.clone());
    });
    query
}
