//! The rematch's room: made in the commit of the `rematch` event that names it, so the event is
//! never logged without its room; and opened after the fact for a log written before that.

use std::sync::Arc;

use super::RoomTask;
use crate::protocol::Event;
use crate::room::error::RoomError;
use crate::room::{create_room, new_room_rows};
use crate::store::{CreateOnCommit, InCommit, StoreError};

impl RoomTask {
    /// The rematch's room to make in the transaction that appends `events`, if they hold the
    /// `rematch` event: colours swapped, same tokens, already started.
    pub(super) fn rematch_room_in(&self, events: &[Event]) -> Option<Arc<dyn InCommit>> {
        let id = events.iter().find_map(|event| match event {
            Event::Rematch { room } => Some(room),
            _ => None,
        })?;
        let seats = self.game.seats().swapped();
        let (mode, clock) = (self.game.mode(), self.game.room().clock);
        let (row, first_events, summary) = new_room_rows(id, mode, &seats, clock);
        Some(CreateOnCommit::new(row, first_events, summary))
    }

    /// Opens the room a logged `rematch` event sends the players to if it does not exist: a log
    /// written before rematch rooms were made in the event's commit may hold the event of a
    /// room a crash never opened. Its id comes from this room's, so an instance that finds it
    /// already opened has nothing to do; the room's task tries on load, and on every `rematch`
    /// asked again.
    pub(super) async fn open_rematch_room(&self) -> Result<(), RoomError> {
        let Some(id) = self.game.rematch_room() else {
            return Ok(());
        };
        if self.store.log.room(id).await?.is_some() {
            return Ok(());
        }
        tracing::info!(rematch = id, "opening the rematch room");
        let seats = self.game.seats().swapped();
        let (mode, clock) = (self.game.mode(), self.game.room().clock);
        match create_room(self.store.log.as_ref(), id, mode, &seats, clock).await {
            Ok(()) | Err(StoreError::RoomExists) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }
}
