//! A game ended by the server's operator (`senet admin end`), from outside every instance: the
//! room is folded from its log, the end decided against it ([`Game::decide_end`]) and appended
//! like any other decision, with its summary and the caller's work (the audit row) in the same
//! commit. An instance that holds the room hears of it as of any other writer's append (on
//! PostgreSQL through the channel; on SQLite by polling the audit log, see
//! [`crate::store::Listener`]), passes the end on to its sockets, and a later action meets the
//! version conflict and then the end.

use std::sync::Arc;

use super::error::RoomError;
use super::{now_ms, replay, stored_event, summary};
use crate::protocol::Version;
use crate::store::{InCommit, Store, StoreError};

/// How many times the end is decided again after another writer took the version first.
const MAX_CONFLICT_RETRIES: usize = 5;

/// Ends the game being played in room `id` with `note` as the operator's reason, `work` done in
/// the same transaction; answers the version of the `game-over`.
pub async fn end_by_operator(
    store: &Store,
    id: &str,
    note: &str,
    work: Arc<dyn InCommit>,
) -> Result<Version, RoomError> {
    for _ in 0..MAX_CONFLICT_RETRIES {
        let row = store.log.room(id).await?.ok_or(RoomError::NotFound)?;
        let game = replay(row, store.log.events_after(id, 0).await?).await?;
        let decision = game.decide_end(note, now_ms())?;
        let first = game.version() + 1;
        let events: Vec<_> = (first..)
            .zip(&decision.events)
            .map(|(v, event)| stored_event(v, decision.at, event))
            .collect();
        let summary = summary::of(&decision.game);
        let appended = store
            .log
            .append_with(id, &events, Some(&summary), Some(work.clone()))
            .await;
        match appended {
            Ok(()) => return Ok(decision.game.version()),
            Err(StoreError::VersionConflict(_)) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(RoomError::Busy)
}
