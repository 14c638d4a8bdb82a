//! The [`Store`] for several instances: PostgreSQL, selected by a
//! `postgres://` or `postgresql://` URL, with the migrations in
//! `migrations/postgres/` applied on open.
//!
//! Every successful [`Store::append`] also sends a `NOTIFY` on
//! [`cluster::CHANNEL`](crate::cluster::CHANNEL) in the same transaction, so
//! other instances holding the room learn that it moved on (see
//! [`crate::cluster`]). The notification carries only the room id and its new
//! last version; listeners read the events themselves from the log. Which
//! players each instance holds connections of is kept in advisory locks
//! ([`super::presence`]).

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::PgPool;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};

use super::presence::PresenceLocks;
use super::rows::{
    event_from_row, insert_events, is_unique_violation, room_from_row, seat_columns, version_to_i64,
};
use super::{RoomRow, SeatRow, Store, StoreError, StoredEvent};
use crate::cluster;
use crate::engine::Side;
use crate::protocol::Version;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations/postgres");

/// Connections per instance: enough for many rooms writing at once while
/// leaving room on a default server (100 connections) for several instances.
const MAX_CONNECTIONS: u32 = 10;

pub struct PgStore {
    pool: PgPool,
    presence: PresenceLocks,
}

impl PgStore {
    /// Connects to the database at `url` and migrates it. The schema is the
    /// connection's `search_path` (set it in the URL with
    /// `?options=-c%20search_path%3Dname` to keep several deployments apart).
    pub async fn open(url: &str) -> Result<PgStore, StoreError> {
        let options = PgConnectOptions::from_str(url)?;
        let pool = PgPoolOptions::new()
            .max_connections(MAX_CONNECTIONS)
            .acquire_timeout(Duration::from_secs(10))
            .connect_with(options.clone())
            .await?;
        // The migrator holds an advisory lock, so instances starting together
        // migrate once.
        MIGRATOR.run(&pool).await?;
        Ok(PgStore {
            pool,
            presence: PresenceLocks::new(&options),
        })
    }
}

/// Takes a seat only while it is free: the check and the write are one statement.
fn take_seat_sql(side: Side) -> &'static str {
    match side {
        Side::Black => {
            "UPDATE rooms SET black_token_hash = $1, black_client_seed = $2 \
             WHERE id = $3 AND black_token_hash IS NULL"
        }
        Side::White => {
            "UPDATE rooms SET white_token_hash = $1, white_client_seed = $2 \
             WHERE id = $3 AND white_token_hash IS NULL"
        }
    }
}

#[async_trait]
impl Store for PgStore {
    async fn create_room(&self, room: &RoomRow, events: &[StoredEvent]) -> Result<(), StoreError> {
        let mut tx = self.pool.begin().await?;
        let (black_hash, black_seed) = seat_columns(&room.black);
        let (white_hash, white_seed) = seat_columns(&room.white);
        let inserted = sqlx::query(
            "INSERT INTO rooms (id, mode, seed, created_at, black_token_hash, black_client_seed, \
             white_token_hash, white_client_seed) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
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
             white_token_hash, white_client_seed FROM rooms WHERE id = $1",
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
        let (Some(first), Some(last)) = (events.first(), events.last()) else {
            return Ok(());
        };
        let mut tx = self.pool.begin().await?;
        // A clash on any (room, v) fails the INSERT and so the transaction:
        // nothing is written and nobody is notified.
        match insert_events(room, events).build().execute(&mut *tx).await {
            Err(e) if is_unique_violation(&e) => return Err(StoreError::VersionConflict(first.v)),
            other => other?,
        };
        // Delivered to listeners only when (and if) the transaction commits.
        sqlx::query("SELECT pg_notify($1, $2)")
            .bind(cluster::CHANNEL)
            .bind(cluster::payload(room, last.v))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    async fn events_after(
        &self,
        room: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        let rows = sqlx::query(
            "SELECT v, at, kind, data FROM events WHERE room = $1 AND v > $2 ORDER BY v",
        )
        .bind(room)
        .bind(version_to_i64(after))
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(event_from_row).collect()
    }

    async fn ping(&self) -> Result<(), StoreError> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    async fn hold_presence(&self, room: &str, side: Side, held: bool) -> Result<(), StoreError> {
        Ok(self.presence.set(room, side, held).await?)
    }

    async fn held_elsewhere(&self, room: &str, side: Side) -> Result<bool, StoreError> {
        Ok(PresenceLocks::held_anywhere(&self.pool, room, side).await?)
    }
}
