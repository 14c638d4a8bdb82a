//! A deadline on every call to a database across a network (PostgreSQL), so that a database
//! that stops answering without closing (a partition, a hung proxy) or cannot be reached gives
//! the player a clear [`StoreError::Unavailable`] within the protocol's two seconds instead of
//! a request that hangs. A room's task handles one command at a time, so after one call found
//! the database unavailable, every call fails at once (none queues a second wait behind the
//! first) until a probe in the background, [`RoomLog::ping`] every [`PROBE_EVERY`], is answered
//! again: the store recovers by itself. `/readyz` says not ready meanwhile (its ping fails).
//!
//! A call that missed its deadline may still be committed later (its bytes were sent): the
//! room's task finds such an append as a version conflict, and reads it from the log; a resend
//! of its action is answered from the log, not judged again (`room/task/resends.rs`).

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use async_trait::async_trait;

use super::{
    Cluster, InCommit, InstanceId, RoomLog, RoomRow, SeatRow, StoreError, StoredEvent, Sweep, Turn,
    TurnOf,
};
use crate::engine::Side;
use crate::protocol::{UnixMs, Version};

/// How long one call may take: a player's request may wait for one call that hangs (and for
/// its players' names, `server/seating.rs`) and still be answered within two seconds; a
/// database 200 ms away still commits a rematch (several round trips) within it (1.0 s did
/// not: half the actions of a slowed run were refused).
pub const DEADLINE: Duration = Duration::from_millis(1500);

/// How often the probe asks a database found unavailable whether it answers again.
pub const PROBE_EVERY: Duration = Duration::from_millis(200);

/// A store whose every call ends by [`DEADLINE`], and fails at once while the database is
/// known to be unavailable.
pub struct Deadlined<S> {
    inner: Arc<S>,
    /// Set when a call found the database unavailable; cleared by the probe's first answer.
    down: Arc<AtomicBool>,
}

impl<S: RoomLog> Deadlined<S> {
    pub fn new(inner: Arc<S>) -> Deadlined<S> {
        Deadlined {
            inner,
            down: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Runs one call under the deadline, or fails it at once while the database is down.
    async fn within<T>(
        &self,
        call: impl Future<Output = Result<T, StoreError>>,
    ) -> Result<T, StoreError> {
        if self.down.load(Ordering::Relaxed) {
            return Err(StoreError::Unavailable);
        }
        let answer = deadline(call).await;
        if matches!(&answer, Err(error) if error.is_unavailable())
            && !self.down.swap(true, Ordering::Relaxed)
        {
            tracing::warn!("the database is unavailable; probing it");
            tokio::spawn(probe(self.inner.clone(), self.down.clone()));
        }
        answer
    }
}

async fn deadline<T>(call: impl Future<Output = Result<T, StoreError>>) -> Result<T, StoreError> {
    tokio::time::timeout(DEADLINE, call)
        .await
        .unwrap_or(Err(StoreError::Unavailable))
}

/// Pings until the database answers, then lets the calls through again.
async fn probe<S: RoomLog>(store: Arc<S>, down: Arc<AtomicBool>) {
    loop {
        tokio::time::sleep(PROBE_EVERY).await;
        if deadline(store.ping()).await.is_ok() {
            tracing::info!("the database answers again");
            down.store(false, Ordering::Relaxed);
            return;
        }
    }
}

#[async_trait]
impl<S: RoomLog> RoomLog for Deadlined<S> {
    async fn create_room(
        &self,
        room: &RoomRow,
        events: &[StoredEvent],
        summary: Option<&str>,
    ) -> Result<(), StoreError> {
        self.within(self.inner.create_room(room, events, summary))
            .await
    }

    async fn room(&self, id: &str) -> Result<Option<RoomRow>, StoreError> {
        self.within(self.inner.room(id)).await
    }

    async fn take_seat(&self, room: &str, side: Side, seat: &SeatRow) -> Result<bool, StoreError> {
        self.within(self.inner.take_seat(room, side, seat)).await
    }

    async fn summary(&self, room: &str) -> Result<Option<String>, StoreError> {
        self.within(self.inner.summary(room)).await
    }

    async fn save_summary(&self, room: &str, v: Version, summary: &str) -> Result<(), StoreError> {
        self.within(self.inner.save_summary(room, v, summary)).await
    }

    async fn unsummarized(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        self.within(self.inner.unsummarized(after, limit)).await
    }

    async fn append_with(
        &self,
        room: &str,
        events: &[StoredEvent],
        summary: Option<&str>,
        work: Option<Arc<dyn InCommit>>,
    ) -> Result<(), StoreError> {
        self.within(self.inner.append_with(room, events, summary, work))
            .await
    }

    async fn events_after(
        &self,
        room: &str,
        after: Version,
    ) -> Result<Vec<StoredEvent>, StoreError> {
        self.within(self.inner.events_after(room, after)).await
    }

    async fn analysis(&self, room: &str) -> Result<Option<String>, StoreError> {
        self.within(self.inner.analysis(room)).await
    }

    async fn save_analysis(&self, room: &str, analysis: &str) -> Result<(), StoreError> {
        self.within(self.inner.save_analysis(room, analysis)).await
    }

    async fn delete_swept(
        &self,
        sweep: Sweep,
        before: UnixMs,
        limit: u32,
    ) -> Result<Vec<String>, StoreError> {
        self.within(self.inner.delete_swept(sweep, before, limit))
            .await
    }

    async fn timed_in_play(&self, after: &str, limit: u32) -> Result<Vec<String>, StoreError> {
        self.within(self.inner.timed_in_play(after, limit)).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        self.within(self.inner.ping()).await
    }

    async fn set_turn(&self, room: &str, turn: Option<Turn>) -> Result<(), StoreError> {
        self.within(self.inner.set_turn(room, turn)).await
    }

    async fn due_turns(&self, before: UnixMs, limit: u32) -> Result<Vec<String>, StoreError> {
        self.within(self.inner.due_turns(before, limit)).await
    }

    async fn turns_of(&self, player: &str, limit: u32) -> Result<Vec<TurnOf>, StoreError> {
        self.within(self.inner.turns_of(player, limit)).await
    }
}

#[async_trait]
impl<S: Cluster + RoomLog> Cluster for Deadlined<S> {
    async fn hold_presence(&self, room: &str, side: Side, held: bool) -> Result<(), StoreError> {
        self.within(self.inner.hold_presence(room, side, held))
            .await
    }

    async fn held_elsewhere(&self, room: &str, side: Side) -> Result<bool, StoreError> {
        self.within(self.inner.held_elsewhere(room, side)).await
    }

    async fn keep_clock(&self, room: &str) -> Result<bool, StoreError> {
        self.within(self.inner.keep_clock(room)).await
    }

    async fn let_go_of_clock(&self, room: &str) -> Result<(), StoreError> {
        self.within(self.inner.let_go_of_clock(room)).await
    }

    fn instance(&self) -> InstanceId {
        self.inner.instance()
    }

    async fn announce_spectators(&self, counts: &[(String, u32)]) -> Result<(), StoreError> {
        self.within(self.inner.announce_spectators(counts)).await
    }

    async fn ask_for_spectators(&self) -> Result<(), StoreError> {
        self.within(self.inner.ask_for_spectators()).await
    }

    async fn instance_alive(&self, instance: InstanceId) -> Result<bool, StoreError> {
        self.within(self.inner.instance_alive(instance)).await
    }
}
