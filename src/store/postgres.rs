//! The [`Store`] for several instances: PostgreSQL, selected by a
//! `postgres://` or `postgresql://` URL, with the migrations in
//! `migrations/postgres/` applied on open.
//!
//! Every successful [`Store::append`] also sends a `NOTIFY` on
//! [`listener::CHANNEL`] in the same transaction, so other instances holding
//! the room learn that it moved on (see [`listener`]). The notification carries only the room id and its new
//! last version; listeners read the events themselves from the log. Which
//! players each instance holds connections of is kept in advisory locks
//! ([`super::presence`]).

use std::str::FromStr;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{PgPool, QueryBuilder};

pub mod listener;

use super::presence::PresenceLocks;
use super::rows::{self, Statements, appended, push_insert_events};
use super::{RoomRow, SeatRow, Store, StoreError, StoredEvent};
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

/// This backend's SQL for the statements every backend runs alike.
const SQL: Statements = Statements {
    insert_room: "INSERT INTO rooms (id, mode, seed, created_at, black_token_hash, \
                  black_client_seed, white_token_hash, white_client_seed) \
                  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
    select_room: "SELECT id, mode, seed, created_at, black_token_hash, black_client_seed, \
                  white_token_hash, white_client_seed FROM rooms WHERE id = $1",
    take_black_seat: "UPDATE rooms SET black_token_hash = $1, black_client_seed = $2 \
                      WHERE id = $3 AND black_token_hash IS NULL",
    take_white_seat: "UPDATE rooms SET white_token_hash = $1, white_client_seed = $2 \
                      WHERE id = $3 AND white_token_hash IS NULL",
    events_after: "SELECT v, at, kind, data FROM events WHERE room = $1 AND v > $2 ORDER BY v",
    select_analysis: "SELECT data FROM analyses WHERE room = $1",
    insert_analysis: "INSERT INTO analyses (room, data) VALUES ($1, $2) ON CONFLICT (room) DO NOTHING",
};

#[async_trait]
impl Store for PgStore {
    async fn create_room(&self, room: &RoomRow, events: &[StoredEvent]) -> Result<(), StoreError> {
        rows::create_room(&self.pool, &SQL, room, events).await
    }

    async fn room(&self, id: &str) -> Result<Option<RoomRow>, StoreError> {
        rows::room(&self.pool, &SQL, id).await
    }

    async fn take_seat(&self, room: &str, side: Side, seat: &SeatRow) -> Result<bool, StoreError> {
        rows::take_seat(&self.pool, &SQL, room, side, seat).await
    }

    async fn append(&self, room: &str, events: &[StoredEvent]) -> Result<(), StoreError> {
        let (Some(first), Some(last)) = (events.first(), events.last()) else {
            return Ok(());
        };
        // One statement, so one round trip and its own transaction: the INSERT, and a
        // notification that PostgreSQL delivers only when (and if) it commits. A clash on
        // any (room, v) fails the whole statement: nothing is written, nobody is notified.
        let mut query = QueryBuilder::new("WITH appended AS (");
        push_insert_events(&mut query, &[(room, events)]);
        query
            .push(" RETURNING v) SELECT pg_notify(")
            .push_bind(listener::CHANNEL)
            .push(", ")
            .push_bind(listener::payload(room, last.v))
            .push(")");
        appended(query.build().execute(&self.pool).await, first.v)
    }

    async fn events_after(
        &self,
        room: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        rows::events_after(&self.pool, &SQL, room, after).await
    }

    async fn analysis(&self, room: &str) -> Result<Option<String>, StoreError> {
        rows::analysis(&self.pool, &SQL, room).await
    }

    async fn save_analysis(&self, room: &str, analysis: &str) -> Result<(), StoreError> {
        rows::save_analysis(&self.pool, &SQL, room, analysis).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        rows::check_migrated(&self.pool, &MIGRATOR).await
    }

    async fn hold_presence(&self, room: &str, side: Side, held: bool) -> Result<(), StoreError> {
        Ok(self.presence.set(room, side, held).await?)
    }

    async fn held_elsewhere(&self, room: &str, side: Side) -> Result<bool, StoreError> {
        Ok(PresenceLocks::held_anywhere(&self.pool, room, side).await?)
    }
}
