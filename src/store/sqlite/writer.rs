//! SQLite's one writer: group commit for the appends of every room, and the
//! WAL checkpoints, timed so that neither waits on the other for long.
//!
//! Group commit: one task takes every append waiting at that moment, from
//! every room, and commits them with one statement. SQLite has one writer,
//! and sqlx runs each SQLite connection on a worker thread of its own; one
//! statement per action meant one round trip to that thread (two thread
//! wake-ups) and one commit per action, and profiled flat out, those
//! hand-offs took half the server's CPU. Here they are paid once per batch,
//! and the batch grows by itself with the load (whatever arrived while the
//! last one was being written).
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
//! Nothing changes for the caller: [`Writer::append`] returns once its
//! events are committed, and a clash on a (room, version) still answers
//! [`StoreError::VersionConflict`] for that append alone.
//!
//! Writes outside the batches (a room created, a seat taken) go through
//! [`Writer::write`]: they too must be seen by the checkpoints, or a flood
//! of room creations on an otherwise quiet server grows the WAL without
//! bound (nothing would ever copy it back), and they must not run while the
//! checkpoint has the writer paused.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use sqlx::SqlitePool;
use tokio::sync::{Mutex, mpsc, oneshot};
use tokio::time::MissedTickBehavior;
use tokio_util::task::AbortOnDropHandle;

use crate::store::rows::{appended, insert_events};
use crate::store::{StoreError, StoredEvent};

/// Appends queued for the writer at most: a room task waits for its own
/// append, so this bounds memory only if rooms outnumber it.
const QUEUE: usize = 1024;

/// Rows per statement at most: SQLite allows 32,766 bound values and an
/// event binds five.
const MAX_ROWS: usize = 1000;

/// How often the WAL is copied into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_secs(1);

/// One room's append, waiting for the writer.
struct Pending {
    room: String,
    events: Vec<StoredEvent>,
    done: oneshot::Sender<Result<(), StoreError>>,
}

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
    queue: mpsc::Sender<Pending>,
    shared: Arc<Shared>,
    _checkpoints: AbortOnDropHandle<()>,
}

impl Writer {
    /// Starts the writer and the checkpoints on the current tokio runtime.
    pub(super) fn start(pool: SqlitePool) -> Writer {
        let (queue, waiting) = mpsc::channel(QUEUE);
        let shared = Arc::new(Shared::default());
        tokio::spawn(write_batches(pool.clone(), waiting, shared.clone()));
        let checkpoints = tokio::spawn(checkpoint_now_and_then(pool, shared.clone()));
        Writer {
            queue,
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
        let (done, committed) = oneshot::channel();
        let pending = Pending {
            room: room.to_owned(),
            events: events.to_vec(),
            done,
        };
        self.queue.send(pending).await.map_err(|_| writer_gone())?;
        committed.await.map_err(|_| writer_gone())?
    }

    /// Runs a write made outside the batches as one of the writer's own: never while the
    /// checkpoint has the writer paused, and counted, so the checkpoints copy it back.
    pub(super) async fn write<T>(&self, write: impl Future<Output = T>) -> T {
        let _writing = self.shared.writing.lock().await;
        let written = write.await;
        self.shared.commits.fetch_add(1, Ordering::Relaxed);
        written
    }
}

/// The writer's loop: everything queued so far makes one batch.
async fn write_batches(
    pool: SqlitePool,
    mut waiting: mpsc::Receiver<Pending>,
    shared: Arc<Shared>,
) {
    let mut batch = Vec::new();
    while waiting.recv_many(&mut batch, QUEUE).await > 0 {
        let _writing = shared.writing.lock().await;
        for chunk in chunks_of_rows(std::mem::take(&mut batch)) {
            commit_chunk(&pool, chunk).await;
            shared.commits.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Splits a batch into runs of at most [`MAX_ROWS`] events (an append larger
/// than that goes alone).
fn chunks_of_rows(batch: Vec<Pending>) -> Vec<Vec<Pending>> {
    let mut chunks: Vec<Vec<Pending>> = Vec::new();
    let mut rows = 0;
    for pending in batch {
        let n = pending.events.len();
        match chunks.last_mut() {
            Some(chunk) if rows + n <= MAX_ROWS => chunk.push(pending),
            _ => {
                chunks.push(vec![pending]);
                rows = 0;
            }
        }
        rows += n;
    }
    chunks
}

/// Commits a chunk with one statement and answers each append. If that
/// statement fails (a version clash in one room fails them all), each
/// append is tried alone, so each gets its own answer.
async fn commit_chunk(pool: &SqlitePool, chunk: Vec<Pending>) {
    let appends: Vec<(&str, &[StoredEvent])> = chunk
        .iter()
        .map(|p| (p.room.as_str(), p.events.as_slice()))
        .collect();
    if insert_events(&appends).build().execute(pool).await.is_ok() {
        for pending in chunk {
            let _ = pending.done.send(Ok(()));
        }
        return;
    }
    for pending in chunk {
        let result = insert_events(&[(pending.room.as_str(), pending.events.as_slice())])
            .build()
            .execute(pool)
            .await;
        // The room task may have gone (shutdown); its events are committed anyway.
        let _ = pending.done.send(appended(result, pending.events[0].v));
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

fn writer_gone() -> StoreError {
    StoreError::Database(sqlx::Error::WorkerCrashed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pending(events: usize) -> Pending {
        let event = StoredEvent {
            v: 1,
            at: 0,
            kind: "k".into(),
            data: "{}".into(),
        };
        Pending {
            room: "r".into(),
            events: vec![event; events],
            done: oneshot::channel().0,
        }
    }

    fn sizes(chunks: &[Vec<Pending>]) -> Vec<Vec<usize>> {
        chunks
            .iter()
            .map(|chunk| chunk.iter().map(|p| p.events.len()).collect())
            .collect()
    }

    #[test]
    fn chunks_stay_under_the_row_limit_and_keep_appends_whole() {
        let batch = vec![
            pending(600),
            pending(400),
            pending(1),
            pending(1200),
            pending(3),
        ];
        assert_eq!(
            sizes(&chunks_of_rows(batch)),
            [vec![600, 400], vec![1], vec![1200], vec![3]]
        );
        assert!(chunks_of_rows(Vec::new()).is_empty());
    }
}
