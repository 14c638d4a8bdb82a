//! The log of rooms: each room as created with its seats, and its append-only event log (with
//! what is derived from a finished one, its analysis). Every backend keeps it.
//!
//! The log's key (room, version) is what orders a room: [`RoomLog::append`] refuses a version
//! that already exists with [`StoreError::VersionConflict`], and the room task answers that by
//! reloading and judging again.
//!
//! Beside the log, each room has a summary row (what `GET /api/rooms/{id}` shows, as JSON the
//! store does not interpret): whoever appends passes the summary after its events, and it is
//! committed with them, so that reading a room's summary never replays its log.

use std::sync::Arc;

use async_trait::async_trait;

use super::turns::{Turn, TurnOf};
use super::{StoreError, postgres, rows, sqlite};
use crate::engine::Side;
use crate::fairness::Seed;
use crate::protocol::{Mode, TimeControl, UnixMs, Version};
use crate::secrets::TokenHash;

/// Which rooms a background sweep deletes.
#[derive(Clone, Copy, Debug)]
pub enum Sweep {
    /// Created before the time, and their game never started (`--unstarted-room-ttl`).
    Unstarted,
    /// One-screen and computer games with no named player, untouched since the time
    /// (`--forget-local-games-after`).
    Forgotten,
}

/// A room as created, plus its seats as taken so far.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomRow {
    pub id: String,
    pub mode: Mode,
    pub seed: Seed,
    pub created_at: UnixMs,
    pub black: Option<SeatRow>,
    pub white: Option<SeatRow>,
    /// The time control; `None` for an untimed game.
    pub clock: Option<TimeControl>,
}

/// A taken seat: who holds it (by token hash), and the computer's level if it is the computer's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    pub token_hash: TokenHash,
    /// The computer's level name for its seat, empty for a person's. Kept in the
    /// `*_client_seed` column, which once held the seat's client seed: client seeds are now
    /// events in the log, sent after the room's seed is committed (see `crate::fairness`).
    pub level: String,
}

/// One entry of a room's log. `kind` and `data` are the wire `t` and `d`
/// (JSON text); the store does not interpret them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredEvent {
    pub v: Version,
    pub at: UnixMs,
    pub kind: String,
    pub data: String,
}

/// Work done in the transaction that appends a room's events: a rated game's ratings are
/// written with its `game-over` (issue 29), so a rating never disagrees with the log. It runs
/// after the events are inserted (it sees them) and before the commit; an error rolls the
/// append back with it. Defined here, implemented above the store (`crate::players`), so the
/// store calls it without knowing what it does.
#[async_trait]
pub trait InCommit: Send + Sync + 'static {
    async fn on_sqlite(&self, connection: &mut sqlx::SqliteConnection) -> Result<(), sqlx::Error>;
    async fn on_postgres(&self, connection: &mut sqlx::PgConnection) -> Result<(), sqlx::Error>;
}

/// Rooms, seats and event logs.
#[async_trait]
pub trait RoomLog: Send + Sync + 'static {
    /// Creates a room, its first events (possibly none) and its summary after them atomically.
    async fn create_room(
        &self,
        room: &RoomRow,
        events: &[StoredEvent],
        summary: Option<&str>,
    ) -> Result<(), StoreError>;

    /// The room row, or `None` for an unknown id.
    async fn room(&self, id: &str) -> Result<Option<RoomRow>, StoreError>;

    /// Takes a free seat; `false` if someone holds it already (the check and
    /// the write are one atomic step, so two joiners never share a seat).
    async fn take_seat(&self, room: &str, side: Side, seat: &SeatRow) -> Result<bool, StoreError>;

    /// Appends events, all or none. The caller numbers them consecutively
    /// from the last version it knows + 1; if any of those versions exists
    /// (another writer was first) nothing is written and the answer is
    /// [`StoreError::VersionConflict`]. The room's summary becomes `summary` in the same
    /// commit (`None` leaves it: a log written by a tool that does not fold it).
    async fn append(
        &self,
        room: &str,
        events: &[StoredEvent],
        summary: Option<&str>,
    ) -> Result<(), StoreError> {
        self.append_with(room, events, summary, None).await
    }

    /// The room's stored summary, if it has one.
    async fn summary(&self, room: &str) -> Result<Option<String>, StoreError>;

    /// Stores a summary replayed from the log up to version `v`, unless a newer one is stored.
    async fn save_summary(&self, room: &str, v: Version, summary: &str) -> Result<(), StoreError>;

    /// Ids of rooms with no summary (older than summaries), above `after` in id order, at most
    /// `limit`.
    async fn unsummarized(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError>;

    /// [`RoomLog::append`], with `work` (if any) done in the same transaction.
    async fn append_with(
        &self,
        room: &str,
        events: &[StoredEvent],
        summary: Option<&str>,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError>;

    /// The room's events with a version above `after`, in order.
    async fn events_after(
        &self,
        room: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError>;

    /// The stored analysis (JSON) of a room's finished game, if it was computed.
    async fn analysis(&self, room: &str) -> Result<Option<String>, StoreError>;

    /// Stores a finished game's analysis; if the room has one already (two
    /// first requests at once) that one stays: both are the same.
    async fn save_analysis(&self, room: &str, analysis: &str) -> Result<(), StoreError>;

    /// Deletes up to `limit` rooms that `sweep` finds as of `before` (a room created, or last
    /// touched, before then), with their events and analysis; returns their ids. A room that
    /// changes meanwhile (starts, gets an event) is kept.
    async fn delete_swept(
        &self,
        sweep: Sweep,
        before: UnixMs,
        limit: u32,
    ) -> Result<Vec<String>, StoreError>;

    /// Ids of live timed rooms (not correspondence ones: see `store/turns.rs`) whose game has
    /// started and not ended, above `after` in id order, at most `limit`: a starting server
    /// loads them so that their clocks run with nobody there.
    async fn timed_in_play(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError>;

    /// Succeeds when the database answers and every migration is applied (`GET /readyz`).
    async fn ping(&self) -> Result<(), StoreError>;

    /// Stores a correspondence game's turn as it is (`None`: not being played), outside an
    /// append (see `store/turns.rs`).
    async fn set_turn(&self, room: &str, turn: Option<Turn>) -> Result<(), StoreError>;

    /// Ids of the correspondence games whose side to move's time runs out at or before
    /// `before`, soonest first, at most `limit`.
    async fn due_turns(&self, before: UnixMs, limit: u32) -> Result<Vec<String>, StoreError>;

    /// The correspondence games where `player` is to move, soonest due first, at most `limit`.
    async fn turns_of(&self, player: &str, limit: u32) -> Result<Vec<TurnOf>, StoreError>;
}

/// Several pieces of work in one append's transaction, in order.
pub struct AllOnCommit(pub Vec<Arc<dyn InCommit>>);

#[async_trait]
impl InCommit for AllOnCommit {
    async fn on_sqlite(&self, connection: &mut sqlx::SqliteConnection) -> Result<(), sqlx::Error> {
        for work in &self.0 {
            work.on_sqlite(connection).await?;
        }
        Ok(())
    }

    async fn on_postgres(&self, connection: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
        for work in &self.0 {
            work.on_postgres(connection).await?;
        }
        Ok(())
    }
}

/// A room made in the transaction of another room's append: a rematch's room with the
/// `rematch` event that sends the players there, so the log never names a room that was never
/// made (a crash or a failed write between the two left exactly that).
pub struct CreateOnCommit {
    room: RoomRow,
    events: Vec<StoredEvent>,
    summary: String,
}

impl CreateOnCommit {
    /// The room as [`RoomLog::create_room`] takes it: its row, first events and summary.
    pub fn new(room: RoomRow, events: Vec<StoredEvent>, summary: String) -> Arc<CreateOnCommit> {
        Arc::new(CreateOnCommit {
            room,
            events,
            summary,
        })
    }
}

#[async_trait]
impl InCommit for CreateOnCommit {
    async fn on_sqlite(&self, connection: &mut sqlx::SqliteConnection) -> Result<(), sqlx::Error> {
        let (room, events, summary) = (&self.room, &self.events, Some(self.summary.as_str()));
        rows::insert_room::<sqlx::Sqlite>(connection, &sqlite::SQL, room, events, summary).await
    }

    async fn on_postgres(&self, connection: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
        let (room, events, summary) = (&self.room, &self.events, Some(self.summary.as_str()));
        rows::insert_room::<sqlx::Postgres>(connection, &postgres::SQL, room, events, summary).await
    }
}
