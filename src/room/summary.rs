//! A room's summary row: what `GET /api/rooms/{id}` and the lobby's games show of a room not in
//! memory. Whoever commits events commits the summary after them with them (the room task, a
//! room's creation), so reading it never replays the log (issue 28: replayed, a long log's
//! summary took 45–81 ms). Rooms older than the row get theirs replayed once: on first read, or
//! by [`Rooms::backfill_summaries`] when a server starts.

use super::{Game, RoomError, Rooms, replay};
use crate::protocol::RoomSummary;
use crate::store::StoreError;

/// The summary a room's row keeps after `game`'s last event: without spectators, who are
/// counted live.
pub(super) fn of(game: &Game) -> String {
    serde_json::to_string(&game.summary(0)).expect("a summary serializes")
}

/// A stored summary, with the spectators counted now.
pub(super) fn read(stored: &str, spectators: usize) -> Result<RoomSummary, StoreError> {
    let mut summary: RoomSummary = serde_json::from_str(stored)
        .map_err(|e| StoreError::Corrupt(format!("room summary: {e}")))?;
    summary.spectators = spectators;
    Ok(summary)
}

impl Rooms {
    /// The room's summary row; a room older than summaries has its log replayed once, and the
    /// summary stored.
    pub(super) async fn stored_summary(&self, id: &str) -> Result<String, RoomError> {
        match self.inner.store.log.summary(id).await? {
            Some(stored) => Ok(stored),
            None => self.summarize(id).await,
        }
    }

    /// Replays a room's log (off the async workers, bounded in time) and stores its summary.
    async fn summarize(&self, id: &str) -> Result<String, RoomError> {
        let log = &self.inner.store.log;
        let row = log.room(id).await?.ok_or(RoomError::NotFound)?;
        let game = replay(row, log.events_after(id, 0).await?).await?;
        let summary = of(&game);
        log.save_summary(id, game.version(), &summary).await?;
        Ok(summary)
    }

    /// Stores the summary of every room made before summaries were, a page at a time, in the
    /// background: after this, no summary replays a log.
    pub fn backfill_summaries(&self) {
        let rooms = self.clone();
        tokio::spawn(async move {
            match rooms.summarize_all().await {
                Ok(0) => {}
                Ok(done) => tracing::info!(rooms = done, "room summaries backfilled"),
                Err(error) => tracing::warn!(%error, "could not backfill room summaries"),
            }
        });
    }

    async fn summarize_all(&self) -> Result<usize, RoomError> {
        const PAGE: u32 = 200;
        let mut after = String::new();
        let mut done = 0;
        loop {
            let ids = self.inner.store.log.unsummarized(&after, PAGE).await?;
            for id in &ids {
                if self.inner.shutdown.is_cancelled() {
                    return Ok(done);
                }
                match self.summarize(id).await {
                    Ok(_) => done += 1,
                    Err(error) => tracing::warn!(room = %id, %error, "could not summarize a room"),
                }
            }
            match ids.last() {
                Some(last) if ids.len() == PAGE as usize => after.clone_from(last),
                _ => return Ok(done),
            }
        }
    }
}
