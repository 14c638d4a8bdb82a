//! The rematch's room, opened once the `rematch` event is committed.

use super::RoomTask;
use crate::room::create_room;
use crate::room::error::RoomError;
use crate::store::StoreError;

impl RoomTask {
    /// Opens the room a committed `rematch` event sends the players to, if the log has one: colours
    /// swapped, same tokens, already started. Its id comes from this room's, so an instance that
    /// finds it already opened (by another that decided the same rematch, or before a crash) has
    /// nothing to do; the room's task tries on load, and on every `rematch` asked again.
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
