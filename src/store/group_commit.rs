//! Group commit, for both backends: one task per store takes every append
//! waiting at that moment, from every room, and commits them together.
//!
//! One commit per action was the cost that mattered on both: on SQLite the
//! hand-off to its connection's worker thread (half the server's CPU flat
//! out, see `sqlite/writer.rs`), on PostgreSQL a round trip and a WAL flush
//! per action (p99 53–127 ms at 2,000 actions/s, issue 18). Here both are
//! paid once per batch, and the batch grows by itself with the load
//! (whatever arrived while the last one was being written).
//!
//! Nothing changes for the caller: [`GroupCommit::append`] returns once its
//! events are committed, and a clash on a (room, version) still answers
//! [`StoreError::VersionConflict`] for that append alone: a batch whose
//! statement fails is retried one append at a time.

use std::sync::Arc;

use async_trait::async_trait;
use tokio::sync::{mpsc, oneshot};

use super::append::Append;
use super::rows::appended;
use super::{InCommit, StoreError, StoredEvent};

/// Appends queued at most: a room task waits for its own append, so this
/// bounds memory only if rooms outnumber it.
const QUEUE: usize = 1024;

/// Rows per statement at most: SQLite allows 32,766 bound values, PostgreSQL
/// 65,535, and an event binds five.
const MAX_ROWS: usize = 1000;

/// How a backend commits several rooms' appends at once.
#[async_trait]
pub(super) trait Committer: Send + Sync + 'static {
    /// Commits all of `appends` and does all of `work` in one transaction, or none of it.
    async fn commit(
        &self,
        appends: &[Append<'_>],
        work: &[Arc<dyn InCommit>],
    ) -> Result<(), sqlx::Error>;
}

/// One room's append, waiting for the writer.
struct Pending {
    room: String,
    events: Vec<StoredEvent>,
    summary: Option<String>,
    /// Done in the append's transaction.
    work: Option<Arc<dyn InCommit>>,
    done: oneshot::Sender<Result<(), StoreError>>,
}

/// The handle a store keeps; dropping it stops the writer once the appends
/// already queued are committed.
pub(super) struct GroupCommit {
    queue: mpsc::Sender<Pending>,
}

impl GroupCommit {
    /// Starts the writer on the current tokio runtime.
    pub(super) fn start(committer: impl Committer) -> GroupCommit {
        let (queue, waiting) = mpsc::channel(QUEUE);
        tokio::spawn(write_batches(committer, waiting));
        GroupCommit { queue }
    }

    /// Appends the events (at least one) to the room's log and keeps its summary, with `work`
    /// done in the same transaction, all or none; returns once committed.
    pub(super) async fn append(
        &self,
        append: Append<'_>,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError> {
        let (done, committed) = oneshot::channel();
        let pending = Pending {
            room: append.room.to_owned(),
            events: append.events.to_vec(),
            summary: append.summary.map(str::to_owned),
            work,
            done,
        };
        self.queue.send(pending).await.map_err(|_| writer_gone())?;
        committed.await.map_err(|_| writer_gone())?
    }
}

/// The writer's loop: everything queued so far makes one batch.
async fn write_batches(committer: impl Committer, mut waiting: mpsc::Receiver<Pending>) {
    let mut batch = Vec::new();
    while waiting.recv_many(&mut batch, QUEUE).await > 0 {
        for chunk in chunks_of_rows(std::mem::take(&mut batch)) {
            commit_chunk(&committer, chunk).await;
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

/// Commits a chunk at once and answers each append. If that fails (a version
/// clash in one room fails them all), each append is tried alone, so each
/// gets its own answer.
async fn commit_chunk(committer: &impl Committer, chunk: Vec<Pending>) {
    let appends: Vec<Append> = chunk.iter().map(Pending::append).collect();
    let work: Vec<Arc<dyn InCommit>> = chunk.iter().filter_map(|p| p.work.clone()).collect();
    if committer.commit(&appends, &work).await.is_ok() {
        for pending in chunk {
            let _ = pending.done.send(Ok(()));
        }
        return;
    }
    for pending in chunk {
        let work: Vec<Arc<dyn InCommit>> = pending.work.iter().cloned().collect();
        let result = committer.commit(&[pending.append()], &work).await;
        // The room task may have gone (shutdown); its events are committed anyway.
        let _ = pending.done.send(appended(result, pending.events[0].v));
    }
}

impl Pending {
    fn append(&self) -> Append<'_> {
        Append {
            room: &self.room,
            events: &self.events,
            summary: self.summary.as_deref(),
        }
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
            summary: None,
            work: None,
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
