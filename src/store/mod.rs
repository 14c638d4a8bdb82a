//! Persistence behind one trait: rooms with their seats, and each room's
//! append-only event log. [`sqlite`] is the embedded default; [`postgres`]
//! implements the same trait for several instances on one database. The
//! database URL selects one.
//!
//! The log's key (room, version) is what orders a room: [`Store::append`]
//! refuses a version that already exists with [`StoreError::VersionConflict`],
//! and the room task answers that by reloading and judging again.

pub mod backup;
mod group_commit;
pub mod postgres;
mod presence;
mod rows;
mod seeks;
pub mod sqlite;

pub use postgres::listener::{Listener, News, Subscription};
pub use seeks::Pairing;

use std::sync::Arc;

use async_trait::async_trait;

use crate::engine::Side;
use crate::fairness::Seed;
use crate::protocol::{Mode, SeekGone, SideChoice, TimeControl, UnixMs, Version};
use crate::secrets::TokenHash;

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

/// A room listed in the lobby: an open seek until it is taken, then a game in progress until it
/// ends (see `migrations/*/0015_seeks.sql`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeekRow {
    pub room: String,
    /// What the creator asked for, shown to takers.
    pub side: SideChoice,
    /// The room's time control, kept here so the list needs no look at the rooms.
    pub clock: Option<TimeControl>,
    pub created_at: UnixMs,
    /// An open seek not renewed by then is withdrawn (its creator's page is gone).
    pub expires_at: UnixMs,
    /// The client address that posted it, counted by the per-address cap; never sent.
    pub owner: String,
    /// Who posted it, so quick pairing skips one's own; never sent.
    pub visitor: String,
    /// When it was taken; `None` while open.
    pub taken_at: Option<UnixMs>,
}

/// Names one instance among those sharing a database (see [`Store::instance`]).
pub type InstanceId = u64;

/// How many open seeks may exist (0: no cap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeekCaps {
    /// Per client address.
    pub per_owner: u32,
    /// In all: each instance keeps every open seek in memory.
    pub total: u32,
}

/// What happened to a seek, as other instances hear it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeekChange {
    Open,
    Gone(SeekGone),
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer appended this version first: reload and judge again.
    #[error("version {0} of the room already exists")]
    VersionConflict(Version),
    #[error("a room with this id already exists")]
    RoomExists,
    /// Stored data this program cannot read.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The database lacks migrations this program needs (`/readyz` says not ready).
    #[error("{0} migration(s) not applied")]
    NotMigrated(usize),
    #[error("unsupported database URL: {0}")]
    UnsupportedUrl(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Migration(#[from] sqlx::migrate::MigrateError),
}

impl StoreError {
    /// A short name for the kind of failure, for the `senet_store_errors_total` metric.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::VersionConflict(_) => "version_conflict",
            StoreError::RoomExists => "room_exists",
            StoreError::Corrupt(_) => "corrupt",
            StoreError::NotMigrated(_) => "not_migrated",
            StoreError::UnsupportedUrl(_) => "unsupported_url",
            StoreError::Database(_) => "database",
            StoreError::Migration(_) => "migration",
        }
    }
}

/// Rooms, seats and event logs. Object safe, so the server holds an
/// `Arc<dyn Store>` and never knows which database is behind it.
#[async_trait]
pub trait Store: Send + Sync + 'static {
    /// Creates a room and its first events (possibly none) atomically.
    async fn create_room(&self, room: &RoomRow, events: &[StoredEvent]) -> Result<(), StoreError>;

    /// The room row, or `None` for an unknown id.
    async fn room(&self, id: &str) -> Result<Option<RoomRow>, StoreError>;

    /// Takes a free seat; `false` if someone holds it already (the check and
    /// the write are one atomic step, so two joiners never share a seat).
    async fn take_seat(&self, room: &str, side: Side, seat: &SeatRow) -> Result<bool, StoreError>;

    /// Appends events, all or none. The caller numbers them consecutively
    /// from the last version it knows + 1; if any of those versions exists
    /// (another writer was first) nothing is written and the answer is
    /// [`StoreError::VersionConflict`].
    async fn append(&self, room: &str, events: &[StoredEvent]) -> Result<(), StoreError>;

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

    /// Deletes up to `limit` rooms created before `before` whose game never started, with
    /// their events; returns their ids. A room that starts meanwhile is kept.
    async fn delete_unstarted(&self, before: UnixMs, limit: u32)
    -> Result<Vec<String>, StoreError>;

    /// Ids of timed rooms whose game has started and not ended, above `after` in id order, at
    /// most `limit`: a starting server loads them so that their clocks run with nobody there.
    async fn timed_in_play(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError>;

    /// Lists a seek, unless a cap is reached (`false`).
    async fn post_seek(&self, seek: &SeekRow, caps: SeekCaps) -> Result<bool, StoreError>;

    /// A listed room's seek, open or taken.
    async fn seek(&self, room: &str) -> Result<Option<SeekRow>, StoreError>;

    /// Every open seek, newest first.
    async fn open_seeks(&self) -> Result<Vec<SeekRow>, StoreError>;

    /// Up to `limit` taken seeks (games started from the lobby), most recently taken first.
    async fn taken_seeks(&self, limit: u32) -> Result<Vec<SeekRow>, StoreError>;

    /// Marks an open seek taken; `false` if it is not open (taken or gone already): of several
    /// takers at once exactly one gets `true`.
    async fn take_seek(&self, room: &str, at: UnixMs) -> Result<bool, StoreError>;

    /// Deletes an open seek with its room, unless someone joined the room by its id and started
    /// its game (then the room stays, unlisted); `false` if the seek is not open.
    async fn withdraw_seek(&self, room: &str, why: SeekGone) -> Result<bool, StoreError>;

    /// Deletes a listed room's row, open or taken (its game ended).
    async fn unlist_seek(&self, room: &str) -> Result<(), StoreError>;

    /// Keeps these open seeks listed until `until`.
    async fn renew_seeks(&self, rooms: &[String], until: UnixMs) -> Result<(), StoreError>;

    /// Withdraws the open seeks not renewed before `now` (as [`Store::withdraw_seek`]); returns
    /// their rooms.
    async fn expire_seeks(&self, now: UnixMs) -> Result<Vec<String>, StoreError>;

    /// Quick pairing: takes the oldest compatible open seek (see [`Pairing`]) and returns its
    /// room, or `None`. Pairings are serialized, so of two askers who both posted a seek, the
    /// later one to ask again finds the other's.
    async fn pair_seek(&self, pairing: &Pairing<'_>) -> Result<Option<String>, StoreError>;

    /// Succeeds when the database answers and every migration is applied (`GET /readyz`).
    async fn ping(&self) -> Result<(), StoreError>;

    /// Several instances: records that this instance now holds (`true`) or
    /// no longer holds a connection of `side` in `room`, so that
    /// [`Store::held_elsewhere`] answers other instances truthfully — also
    /// after this instance dies. Recording the same again makes sure the
    /// record still stands. One instance knows its own connections, so by
    /// default there is nothing to record.
    async fn hold_presence(&self, _room: &str, _side: Side, _held: bool) -> Result<(), StoreError> {
        Ok(())
    }

    /// Several instances: whether a live instance holds a connection of
    /// `side` in `room` (asked for sides this instance holds none of). With
    /// one instance there is no other.
    async fn held_elsewhere(&self, _room: &str, _side: Side) -> Result<bool, StoreError> {
        Ok(false)
    }

    /// Several instances: records that this instance keeps `room`'s clock (its task holds the
    /// timed room in memory, its timer running) until [`Store::let_go_of_clock`] or its death,
    /// and answers whether another live instance kept it already: then the clock has run all
    /// along and taking the game up gives no time back. Of two instances asking at once, one
    /// hears of the other. With one instance there is no other.
    async fn keep_clock(&self, _room: &str) -> Result<bool, StoreError> {
        Ok(false)
    }

    /// Several instances: this instance no longer keeps `room`'s clock.
    async fn let_go_of_clock(&self, _room: &str) -> Result<(), StoreError> {
        Ok(())
    }

    /// Several instances: this instance's name among them, in what it announces. `None` with
    /// one instance: there is nobody to tell anything.
    fn instance(&self) -> Option<InstanceId> {
        None
    }

    /// Several instances: tells the others how many spectators this instance holds in each of
    /// these rooms (0: none any more), heard as [`News::Spectators`]. From then until this
    /// instance dies, [`Store::instance_alive`] answers for it.
    async fn announce_spectators(&self, _counts: &[(String, u32)]) -> Result<(), StoreError> {
        Ok(())
    }

    /// Several instances: asks every other to announce all its spectators again
    /// ([`News::SpectatorsAsked`]), after this one may have missed some.
    async fn ask_for_spectators(&self) -> Result<(), StoreError> {
        Ok(())
    }

    /// Several instances: whether the instance that announced spectators as `instance` lives.
    async fn instance_alive(&self, _instance: InstanceId) -> Result<bool, StoreError> {
        Ok(false)
    }
}

/// Opens the store a database URL names, applying migrations.
pub async fn open(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(sqlite::SqliteStore::open(url).await?))
    } else if is_postgres_url(url) {
        Ok(Arc::new(postgres::PgStore::open(url).await?))
    } else {
        Err(StoreError::UnsupportedUrl(format!(
            "{}: expected a sqlite:, postgres: or postgresql: URL",
            url.split(':').next().unwrap_or_default()
        )))
    }
}

/// Whether `url` names a PostgreSQL database (and so possibly other instances).
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}
