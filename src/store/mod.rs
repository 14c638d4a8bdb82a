//! Persistence behind one trait: rooms with their seats, and each room's
//! append-only event log. [`sqlite`] is the embedded default; a PostgreSQL
//! implementation of the same trait can be selected by the database URL.
//!
//! The log's key (room, version) is what orders a room: [`Store::append`]
//! refuses a version that already exists with [`StoreError::VersionConflict`],
//! and the room task answers that by reloading and judging again.

pub mod sqlite;

use std::sync::Arc;

use async_trait::async_trait;

use crate::engine::Side;
use crate::fairness::Seed;
use crate::protocol::{Mode, UnixMs, Version};
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
}

/// A taken seat: who holds it (by token hash) and the seed they brought.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeatRow {
    pub token_hash: TokenHash,
    pub client_seed: String,
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

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer appended this version first: reload and judge again.
    #[error("version {0} of the room already exists")]
    VersionConflict(Version),
    #[error("a room with this id already exists")]
    RoomExists,
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    #[error("unsupported database URL: {0}")]
    UnsupportedUrl(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Migration(#[from] sqlx::migrate::MigrateError),
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

    /// Succeeds when the database answers (for readiness checks).
    async fn ping(&self) -> Result<(), StoreError>;
}

/// Opens the store a database URL names, applying migrations.
pub async fn open(url: &str) -> Result<Arc<dyn Store>, StoreError> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(sqlite::SqliteStore::open(url).await?))
    } else {
        Err(StoreError::UnsupportedUrl(format!(
            "{}: only sqlite: URLs are supported",
            url.split(':').next().unwrap_or_default()
        )))
    }
}
