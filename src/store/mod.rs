//! Persistence, split by concern, one trait each, every one on the same database:
//!
//! - [`RoomLog`] (`log.rs`): rooms with their seats, and each room's append-only event log;
//! - [`SeekList`] (`listing.rs`): the lobby's seeks, open and taken;
//! - [`TournamentLog`] (`tournaments.rs`): tournaments and each one's append-only event log;
//! - [`Cluster`] (`cluster.rs`): what only several instances on one database need — presence,
//!   clocks, spectator counts; the news feed between them is [`Listener`].
//!
//! [`sqlite`] is the embedded default (one instance: no cluster); [`postgres`] implements every
//! trait, for several instances on one database. The database URL selects one ([`open`]), and
//! [`Store`] holds one trait object per concern. A new concern is a trait of its own in a file
//! of its own, implemented by both backends, a field of [`Store`] that [`open`] fills, and a
//! part of the contract in `tests/store.rs` that runs on both.

mod append;
pub mod backup;
pub mod bans;
mod cluster;
pub mod deadline;
mod group_commit;
mod listing;
mod log;
pub mod postgres;
mod presence;
mod rows;
pub mod schema;
mod seeks;
pub mod sqlite;
mod summaries;
mod sweep;
mod tournament_news;
mod tournaments;
mod turns;

pub use cluster::{Cluster, InstanceId};
pub use listing::{Poster, SeekCaps, SeekChange, SeekList, SeekRow};
pub use log::{
    AllOnCommit, CreateOnCommit, InCommit, RoomLog, RoomRow, SeatRow, StoredEvent, Sweep,
};
pub use postgres::listener::{Listener, News, Subscription};
pub use seeks::{Pairing, Window};
pub use tournament_news::TournamentNews;
pub use tournaments::{TournamentLog, TournamentRow};
pub use turns::{TURNS_OF_LIMIT, Turn, TurnOf, TurnOnCommit};

use std::sync::Arc;

use crate::protocol::Version;

/// The store: one trait object per concern, all on the same database.
#[derive(Clone)]
pub struct Store {
    pub log: Arc<dyn RoomLog>,
    pub seeks: Arc<dyn SeekList>,
    /// Tournaments' logs (`tournaments.rs`).
    pub tournaments: Arc<dyn TournamentLog>,
    /// Who follows a tournament here hears of its appends (`tournament_news.rs`).
    pub tournament_news: TournamentNews,
    /// `None` with one instance (SQLite): nobody else to ask or tell.
    pub cluster: Option<Arc<dyn Cluster>>,
}

impl Store {
    /// This instance's name among several; `None` alone.
    pub fn instance(&self) -> Option<InstanceId> {
        self.cluster.as_ref().map(|cluster| cluster.instance())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Another writer appended this version first: reload and judge again.
    #[error("version {0} of the room already exists")]
    VersionConflict(Version),
    #[error("a room with this id already exists")]
    RoomExists,
    #[error("a tournament with this id already exists")]
    TournamentExists,
    /// Stored data this program cannot read.
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    /// The database lacks migrations this program needs (`/readyz` says not ready).
    #[error("{0} migration(s) not applied")]
    NotMigrated(usize),
    #[error("unsupported database URL: {0}")]
    UnsupportedUrl(String),
    /// A newer release contracted the schema past what this binary can run on
    /// (`schema.rs`): the message says which release is needed.
    #[error("{0}")]
    SchemaTooNew(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    #[error(transparent)]
    Migration(#[from] sqlx::migrate::MigrateError),
    /// The database did not answer within the deadline (`deadline.rs`), or failed so just
    /// before: nothing is known of the call's outcome.
    #[error("the database is not answering")]
    Unavailable,
    /// The database's disk is full (or nearly: `sqlite.rs`): nothing can be written for now.
    #[error("the database's disk is full")]
    DiskFull,
}

impl StoreError {
    /// A short name for the kind of failure, for the `senet_store_errors_total` metric.
    pub fn kind(&self) -> &'static str {
        match self {
            StoreError::VersionConflict(_) => "version_conflict",
            StoreError::RoomExists => "room_exists",
            StoreError::TournamentExists => "tournament_exists",
            StoreError::Corrupt(_) => "corrupt",
            StoreError::NotMigrated(_) => "not_migrated",
            StoreError::UnsupportedUrl(_) => "unsupported_url",
            StoreError::SchemaTooNew(_) => "schema_too_new",
            StoreError::Database(_) => "database",
            StoreError::Migration(_) => "migration",
            StoreError::Unavailable => "unavailable",
            StoreError::DiskFull => "disk_full",
        }
    }

    /// Whether the database could not be reached or cannot write for now (rather than refusing
    /// the call): a missed deadline, a connection lost, refused or not to be had from the pool,
    /// or a full disk (SQLite's SQLITE_FULL, PostgreSQL's `disk_full`).
    pub fn is_unavailable(&self) -> bool {
        use sqlx::Error::{Database, Io, PoolClosed, PoolTimedOut};
        match self {
            StoreError::Unavailable | StoreError::DiskFull => true,
            StoreError::Database(Io(_) | PoolTimedOut | PoolClosed) => true,
            StoreError::Database(Database(error)) => {
                matches!(error.code().as_deref(), Some("13" | "53100"))
            }
            _ => false,
        }
    }
}

/// What [`open`] would migrate in the database `url` names, without changing it.
pub async fn migration_plan(url: &str) -> Result<schema::Plan, StoreError> {
    if url.starts_with("sqlite:") {
        sqlite::migration_plan(url).await
    } else if is_postgres_url(url) {
        postgres::migration_plan(url).await
    } else {
        Err(unsupported_url(url))
    }
}

/// Opens the store a database URL names, applying migrations.
pub async fn open(url: &str) -> Result<Store, StoreError> {
    if url.starts_with("sqlite:") {
        let sqlite = Arc::new(sqlite::SqliteStore::open(url).await?);
        Ok(Store {
            log: sqlite.clone(),
            tournaments: sqlite.clone(),
            tournament_news: TournamentNews::default(),
            seeks: sqlite,
            cluster: None,
        })
    } else if is_postgres_url(url) {
        let postgres = Arc::new(postgres::PgStore::open(url).await?);
        // A database across a network may stop answering without closing: the rooms' calls
        // get a deadline (`deadline.rs`).
        let deadlined = Arc::new(deadline::Deadlined::new(postgres.clone()));
        Ok(Store {
            log: deadlined.clone(),
            tournaments: postgres.clone(),
            tournament_news: TournamentNews::default(),
            seeks: postgres,
            cluster: Some(deadlined),
        })
    } else {
        Err(unsupported_url(url))
    }
}

fn unsupported_url(url: &str) -> StoreError {
    StoreError::UnsupportedUrl(format!(
        "{}: expected a sqlite:, postgres: or postgresql: URL",
        url.split(':').next().unwrap_or_default()
    ))
}

/// Whether `url` names a PostgreSQL database (and so possibly other instances).
pub fn is_postgres_url(url: &str) -> bool {
    url.starts_with("postgres://") || url.starts_with("postgresql://")
}
