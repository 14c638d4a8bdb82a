//! SQLite's one writer: the appends of every room committed in batches
//! ([`GroupCommit`]), and the WAL checkpoints, timed so that neither waits on
//! the other for long.
//!
//! Why batches: SQLite has one writer, and sqlx runs each SQLite connection
//! on a worker thread of its own; one statement per action meant one round
//! trip to that thread (two thread wake-ups) and one commit per action, and
//! profiled flat out, those hand-offs took half the server's CPU. Batched,
//! they are paid once per batch.
//!
//! Checkpoints: SQLite by default copies the WAL into the database file
//! inside whichever commit finds the WAL over 1,000 pages, and that commit
//! (with every room's appends behind it) waited tens of milliseconds: the
//! whole tail of the action latency. Here a task checkpoints every
//! [`CHECKPOINT_EVERY`] in two steps: first alongside the writer (PASSIVE
//! neither waits for nor blocks it), which copies nearly everything; then
//! once more with the writer paused between batches, which copies the few
//! pages written meanwhile and leaves the WAL fully copied, so that the next
//! commit starts it over from the beginning and it stays small. After a
//! period without commits the WAL file is also truncated, so a burst of load
//! does not leave its size on the disk (truncating it under load stalled the
//! writer for ~150 ms).
//!
//! Writes outside the batches (a room created, a seat taken) go through
//! [`Writer::write`]: they too must be seen by the checkpoints, or a flood
//! of room creations on an otherwise quiet server grows the WAL without
//! bound (nothing would ever copy it back), and they must not run while the
//! checkpoint has the writer paused.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_trait::async_trait;
use sqlx::SqlitePool;
use tokio::sync::Mutex;
use tokio::time::MissedTickBehavior;
use tokio_util::task::AbortOnDropHandle;

use crate::store::group_commit::{Append, Committer, GroupCommit};
use crate::store::rows::insert_events;
use crate::store::{StoreError, StoredEvent};

/// How often the WAL is copied into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// What the writer and the checkpoints share.
#[derive(Default)]
struct Shared {
    /// Held by the writer while it commits, and by the checkpoints while the
    /// writer must pause.
    writing: Mutex<()>,
    /// Statements committed so far, so the checkpoints can tell a quiet period.
    commits: AtomicU64,
}

/// The handle the store keeps; dropping it stops the writer (once the
/// appends already queued are committed) and the checkpoints.
pub(super) struct Writer {
    appends: GroupCommit,
    shared: Arc<Shared>,
    _checkpoints: AbortOnDropHandle<()>,
}

impl Writer {
    /// Starts the writer and the checkpoints on the current tokio runtime.
    pub(super) fn start(pool: SqlitePool) -> Writer {
        let shared = Arc::new(Shared::default());
        let checkpoints = tokio::spawn(checkpoint_now_and_then(pool.clone(), shared.clone()));
        Writer {
            appends: GroupCommit::start(Appends {
                pool,
                shared: shared.clone(),
            }),
            shared,
            _checkpoints: AbortOnDropHandle::new(checkpoints),
        }
    }

    /// Appends `events` (at least one) to `room`'s log, all or none;
    /// returns once committed.
    pub(super) async fn append(
        &self,
        room: &str,
        events: &[StoredEvent],
    ) -> Result<(), StoreError> {
        self.appends.append(room, events).await
    }

    /// Runs a write made outside the batches as one of the writer's own: never while the
    /// checkpoint has the writer paused, and counted, so the checkpoints copy it back.
    pub(super) async fn write<T>(&self, write: impl Future<Output = T>) -> T {
        self.shared.write(write).await
    }
}

impl Shared {
    /// Runs a write while the checkpoints are not pausing the writer, and counts it.
    async fn write<T>(&self, write: impl Future<Output = T>) -> T {
        let _writing = self.writing.lock().await;
        let written = write.await;
        self.commits.fetch_add(1, Ordering::Relaxed);
        written
    }
}

/// Commits a batch with one statement, never while a checkpoint has the
/// writer paused, and counts it for the checkpoints.
struct Appends {
    pool: SqlitePool,
    shared: Arc<Shared>,
}

#[async_trait]
impl Committer for Appends {
    async fn commit(&self, appends: &[Append<'_>]) -> Result<(), sqlx::Error> {
        let mut insert = insert_events(appends);
        let statement = insert.build().execute(&self.pool);
        self.shared.write(statement).await?;
        Ok(())
    }
}

/// Checkpoints every [`CHECKPOINT_EVERY`] after commits: once alongside the
/// writer, then once more with it paused, so the WAL ends fully copied. After
/// a period without commits, truncates the WAL file once (see the module doc).
async fn checkpoint_now_and_then(pool: SqlitePool, shared: Arc<Shared>) {
    let mut every = tokio::time::interval_at(
        tokio::time::Instant::now() + CHECKPOINT_EVERY,
        CHECKPOINT_EVERY,
    );
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    let mut seen = 0;
    let mut truncated = false;
    loop {
        every.tick().await;
        let commits = shared.commits.load(Ordering::Relaxed);
        if commits != seen {
            seen = commits;
            truncated = false;
            checkpoint(&pool, PASSIVE).await;
            let _paused = shared.writing.lock().await;
            checkpoint(&pool, PASSIVE).await;
        } else if !truncated {
            let _paused = shared.writing.lock().await;
            checkpoint(&pool, TRUNCATE).await;
            truncated = true;
        }
    }
}

/// Copies what no reader still needs into the database file; never waits.
const PASSIVE: &str = "PRAGMA wal_checkpoint(PASSIVE)";
/// Copies everything and empties the WAL file; run only with the writer paused.
const TRUNCATE: &str = "PRAGMA wal_checkpoint(TRUNCATE)";

async fn checkpoint(pool: &SqlitePool, pragma: &'static str) {
    if let Err(error) = sqlx::query(pragma).execute(pool).await {
        tracing::warn!(%error, pragma, "WAL checkpoint failed; will try again");
    }
}
