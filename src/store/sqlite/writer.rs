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
//! commit starts it over from the beginning and it stays small.
//!
//! The WAL file itself keeps the size of the largest period between two
//! restarts. It is truncated when nothing was committed for a tick, and also
//! when it is many times larger than what the last tick wrote into it: a
//! burst's size left behind while a trickle of writes goes on (a flood of room
//! creations, then a game or two). Under steady load it is left alone:
//! truncating it at every restart stalled the writer for ~150 ms. Whether
//! anything was committed comes from SQLite (`PRAGMA data_version` on the
//! checkpoints' own connection), not from counting calls: the lobby's renewal
//! of no seeks, every second, is a call that writes nothing, and counted, it
//! kept the WAL from ever looking quiet. A truncation that finds readers in
//! the WAL answers busy and is tried again at the next tick.
//!
//! Writes outside the batches (a room created, a seat taken) go through
//! [`Writer::write`]: they must not run while the checkpoint has the writer
//! paused.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use sqlx::{Connection, QueryBuilder, SqliteConnection, SqlitePool};
use tokio::sync::Mutex;
use tokio::time::MissedTickBehavior;
use tokio_util::task::AbortOnDropHandle;

use super::pool::in_step;
use crate::store::InCommit;
use crate::store::StoreError;
use crate::store::append::Append;
use crate::store::group_commit::{Committer, GroupCommit};
use crate::store::rows::insert_events;
use crate::store::summaries::push_upsert;

/// How often the WAL is copied into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// The handle the store keeps; dropping it stops the writer (once the
/// appends already queued are committed) and the checkpoints.
pub(super) struct Writer {
    appends: GroupCommit,
    /// Held by the writer while it commits, and by the checkpoints while the
    /// writer must pause.
    writing: Arc<Mutex<()>>,
    _checkpoints: AbortOnDropHandle<()>,
}

impl Writer {
    /// Starts the writer and the checkpoints (on a connection of their own,
    /// taken from `pool`) on the current tokio runtime.
    pub(super) async fn start(pool: SqlitePool) -> Result<Writer, sqlx::Error> {
        let writing = Arc::new(Mutex::new(()));
        let checkpoints = Checkpoints::open(&pool).await?;
        let checkpoints = tokio::spawn(checkpoint_now_and_then(checkpoints, writing.clone()));
        Ok(Writer {
            appends: GroupCommit::start(Appends {
                connection: Mutex::new(Appends::connect(&pool).await?),
                writing: writing.clone(),
                pool,
            }),
            writing,
            _checkpoints: AbortOnDropHandle::new(checkpoints),
        })
    }

    /// Appends the events (at least one) to the room's log with its summary, and `work` done
    /// in the same transaction, all or none; returns once committed.
    pub(super) async fn append(
        &self,
        append: Append<'_>,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError> {
        self.appends.append(append, work).await
    }

    /// Runs a write made outside the batches as one of the writer's own:
    /// never while the checkpoint has the writer paused.
    pub(super) async fn write<T>(&self, write: impl Future<Output = T>) -> T {
        let _writing = self.writing.lock().await;
        write.await
    }
}

/// Commits a batch with one statement, never while a checkpoint has the
/// writer paused.
struct Appends {
    /// The writer's own connection, not one from the pool: each SQLite connection keeps a page
    /// cache, and one that another connection wrote after finds it stale and reads its pages
    /// again. With this and [`WRITER_CACHE`], the server's CPU per action flat out fell from
    /// ~85 to ~70 µs (docs/PERFORMANCE.md).
    connection: Mutex<SqliteConnection>,
    writing: Arc<Mutex<()>>,
    /// Where a connection that lost track of its transaction is replaced from ([`in_step`]).
    pool: SqlitePool,
}

impl Appends {
    async fn connect(pool: &SqlitePool) -> Result<SqliteConnection, sqlx::Error> {
        let mut connection = pool.acquire().await?.detach();
        sqlx::query(WRITER_CACHE).execute(&mut connection).await?;
        Ok(connection)
    }
}

/// The writer's page cache (KiB): the pages every batch walks (the B-trees' upper levels, and
/// each playing room's last page of events and its row, for the foreign key) fit in it many
/// times over. SQLite's default, 2 MiB, did not hold them flat out.
const WRITER_CACHE: &str = "PRAGMA cache_size = -16384";

#[async_trait]
impl Committer for Appends {
    /// One statement; in a transaction with the work, when there is any (the ratings of a
    /// batch's finished rated games: rare beside its moves).
    async fn commit(
        &self,
        appends: &[Append<'_>],
        work: &[Arc<dyn InCommit>],
    ) -> Result<(), sqlx::Error> {
        let mut insert = insert_events(appends);
        let mut upsert = QueryBuilder::new("");
        let summarized = push_upsert(&mut upsert, appends);
        let _writing = self.writing.lock().await;
        let mut connection = self.connection.lock().await;
        if !summarized && work.is_empty() {
            insert.build().execute(&mut *connection).await?;
            return Ok(());
        }
        // The summaries and the work are committed with their events (one transaction).
        let committed = async {
            let mut tx = connection.begin().await?;
            insert.build().execute(&mut *tx).await?;
            if summarized {
                upsert.build().execute(&mut *tx).await?;
            }
            for work in work {
                work.on_sqlite(&mut tx).await?;
            }
            tx.commit().await
        }
        .await;
        if committed.is_err() && !in_step(&mut connection).await {
            tracing::warn!("the writer's connection lost track of its transaction: replaced");
            *connection = Appends::connect(&self.pool).await?;
        }
        committed
    }
}

/// Checkpoints every [`CHECKPOINT_EVERY`] after commits: once alongside the
/// writer, then once more with it paused, so the WAL ends fully copied; and
/// truncates the WAL file when a burst is over (see the module doc).
async fn checkpoint_now_and_then(mut checkpoints: Checkpoints, writing: Arc<Mutex<()>>) {
    let mut every = tokio::time::interval_at(
        tokio::time::Instant::now() + CHECKPOINT_EVERY,
        CHECKPOINT_EVERY,
    );
    every.set_missed_tick_behavior(MissedTickBehavior::Delay);
    loop {
        every.tick().await;
        if let Err(error) = checkpoints.tick(&writing).await {
            tracing::warn!(%error, "WAL checkpoint failed; will try again");
        }
    }
}

/// Copies what no reader still needs into the database file; never waits.
const PASSIVE: &str = "PRAGMA wal_checkpoint(PASSIVE)";
/// Copies everything and empties the WAL file; run only with the writer paused.
const TRUNCATE: &str = "PRAGMA wal_checkpoint(TRUNCATE)";

/// How long (ms) a truncation waits for readers to leave the WAL, with the
/// writer paused, before it gives up, answers busy, and is tried at the next tick.
const PATIENCE: &str = "PRAGMA busy_timeout = 100";
/// A WAL file this small is truncated only once nothing is written.
const TRUNCATE_ABOVE: u64 = 4 << 20;
/// A WAL file this many times larger than what it holds since its last
/// restart keeps a burst's size that the current load does not need.
const LEFT_OVER: u64 = 8;

/// The checkpoints' own connection, and what they need to tell a burst's leftover.
struct Checkpoints {
    /// Only `PRAGMA data_version` on a connection that commits nothing
    /// tells whether anything was committed since it was last asked.
    connection: SqliteConnection,
    data_version: i64,
    wal: PathBuf,
    /// Bytes in a WAL frame: a page and its header.
    frame: u64,
}

/// What `PRAGMA wal_checkpoint` answers.
#[derive(sqlx::FromRow)]
struct Checkpointed {
    /// Could not wait for every reader or writer: only part was done.
    busy: i64,
    /// Frames in the WAL (written since it was last started over).
    log: i64,
}

impl Checkpoints {
    async fn open(pool: &SqlitePool) -> Result<Checkpoints, sqlx::Error> {
        let mut connection = pool.acquire().await?.detach();
        sqlx::query(PATIENCE).execute(&mut connection).await?;
        let page: i64 = sqlx::query_scalar("PRAGMA page_size")
            .fetch_one(&mut connection)
            .await?;
        let mut wal = pool.connect_options().get_filename().as_os_str().to_owned();
        wal.push("-wal");
        Ok(Checkpoints {
            data_version: data_version(&mut connection).await?,
            connection,
            wal: wal.into(),
            frame: page as u64 + 24,
        })
    }

    /// Checkpoints if anything was committed since the last tick, then
    /// truncates the WAL file if it is a burst's leftover.
    async fn tick(&mut self, writing: &Mutex<()>) -> Result<(), sqlx::Error> {
        let version = data_version(&mut self.connection).await?;
        let committed = version != self.data_version;
        self.data_version = version;
        // Taken before this tick's checkpoints let the writer start the WAL over.
        let recent = if committed {
            Some(self.checkpoint(PASSIVE).await?.log)
        } else {
            None
        };
        let truncate = self.left_over(recent).await;
        if !committed && !truncate {
            return Ok(());
        }
        let _paused = writing.lock().await;
        if committed {
            self.checkpoint(PASSIVE).await?;
        }
        if truncate && self.checkpoint(TRUNCATE).await?.busy != 0 {
            tracing::debug!("WAL truncation busy with readers; will try again");
        }
        Ok(())
    }

    /// Whether the WAL file should be truncated, given the frames `recent`ly
    /// written into it (`None`: nothing was committed since the last tick).
    /// Under steady load the file is about what each tick writes and is left
    /// alone: truncating it every restart stalled the writer ~150 ms.
    async fn left_over(&self, recent: Option<i64>) -> bool {
        let size = tokio::fs::metadata(&self.wal).await.map_or(0, |m| m.len());
        match recent {
            None => size > 0,
            Some(frames) => {
                let needed = WAL_HEADER + frames.max(0) as u64 * self.frame;
                size > TRUNCATE_ABOVE && size > LEFT_OVER * needed
            }
        }
    }

    async fn checkpoint(&mut self, pragma: &'static str) -> Result<Checkpointed, sqlx::Error> {
        sqlx::query_as(pragma).fetch_one(&mut self.connection).await
    }
}

/// Bytes before the WAL's first frame.
const WAL_HEADER: u64 = 32;

async fn data_version(connection: &mut SqliteConnection) -> Result<i64, sqlx::Error> {
    sqlx::query_scalar("PRAGMA data_version")
        .fetch_one(connection)
        .await
}
