//! Rooms read from the log without a task: a room's game folded from its log on the blocking
//! pool (also how a task loads), its summary, and its record; the events as the log keeps them.

use std::collections::HashSet;

use super::{Rooms, bounds, summary};
use crate::fairness::seed_hash;
use crate::protocol::chat::Channel;
use crate::protocol::{
    ClientSeeds, Event, EventKind, Record, RecordedEvent, RoomSummary, UnixMs, Version,
};
use crate::room::Command;
use crate::room::error::RoomError;
use crate::room::game::{self, Game, Room};
use crate::room::seats::Seats;
use crate::secrets::is_room_id;
use crate::store::{RoomRow, StoreError, StoredEvent};

impl Rooms {
    /// A live room answers itself (it knows its spectators); any other from its summary row
    /// (`room/summary.rs`), without loading it or reading its log, so that looking at many rooms
    /// holds no memory, and counts the spectators other instances announced.
    pub async fn summary(&self, id: &str) -> Result<RoomSummary, RoomError> {
        if let Some(handle) = self.live_handle(id)
            && let Some(summary) = handle.call(|reply| Command::Summary { reply }).await
        {
            return Ok(summary);
        }
        if !is_room_id(id) {
            return Err(RoomError::NotFound);
        }
        let stored = self.stored_summary(id).await?;
        Ok(summary::read(&stored, self.inner.watchers.elsewhere(id))?)
    }

    /// The whole log of a room, with the seed once the game is over.
    pub async fn record(&self, id: &str) -> Result<Record, RoomError> {
        let store = &self.inner.store;
        let row = store.log.room(id).await?.ok_or(RoomError::NotFound)?;
        let events = store.log.events_after(id, 0).await?;
        off_the_workers(move || record_of(row, events)).await?
    }
}

/// A room's record from its row and its whole log (see [`Rooms::record`]).
fn record_of(row: RoomRow, events: Vec<StoredEvent>) -> Result<Record, RoomError> {
    // The seed is revealed exactly when the log holds the game's end.
    let game_over: &str = EventKind::GameOver.into();
    let over = events.iter().any(|e| e.kind == game_over);
    let withheld = withheld_messages(&events, over)?;
    let seats = Seats::of_room(&row);
    Ok(Record {
        level: seats.bot().map(|bot| bot.level),
        room: row.id.clone(),
        mode: row.mode,
        clock: row.clock,
        seed_hash: seed_hash(&row.seed),
        seed: over.then(|| hex::encode(row.seed)),
        client_seeds: client_seeds(&events)?,
        events: events
            .into_iter()
            .map(|e| {
                let data = if withheld.contains(&e.v) {
                    game::withheld(&decode(&e)?).map(|said| said.to_parts().1)
                } else {
                    None
                };
                let d = serde_json::from_str(data.as_deref().unwrap_or(&e.data))
                    .map_err(|err| StoreError::Corrupt(err.to_string()))?;
                Ok(RecordedEvent {
                    v: e.v,
                    at: e.at,
                    d,
                    t: e.kind,
                })
            })
            .collect::<Result<_, StoreError>>()?,
    })
}

/// The chat messages a record shows without their words: those an operator hid, and during
/// the game the spectators' channel (which a player must not read then unless they choose to).
fn withheld_messages(events: &[StoredEvent], over: bool) -> Result<HashSet<Version>, StoreError> {
    let (said, hidden): (&str, &str) = (EventKind::Said.into(), EventKind::ChatHidden.into());
    let mut withheld = HashSet::new();
    for stored in events.iter().filter(|e| e.kind == said || e.kind == hidden) {
        match decode(stored)? {
            Event::ChatHidden { message } => withheld.insert(message),
            Event::Said { channel, .. } => {
                !over && channel == Channel::Spectators && withheld.insert(stored.v)
            }
            _ => false,
        };
    }
    Ok(withheld)
}

/// The client seeds a log sets: the last `client-seed` of each side (or, in a log from before
/// those, the ones `started` carried).
fn client_seeds(events: &[StoredEvent]) -> Result<ClientSeeds, StoreError> {
    let kinds: [&str; 2] = [EventKind::ClientSeed.into(), EventKind::Started.into()];
    let mut seeds = ClientSeeds::default();
    for stored in events.iter().filter(|e| kinds.contains(&e.kind.as_str())) {
        seeds.set_by(&decode(stored)?);
    }
    Ok(seeds)
}

/// Runs `work` on the blocking pool, answering [`RoomError::ReplayTooSlow`] past
/// [`bounds::REPLAY_TIMEOUT`]: replaying a log (up to `bounds::LOG_BOUND` events) must not hold
/// an async worker, and with it every socket and room that worker serves (issue 28: four
/// clients asking a long room's summary took unrelated games' p99 from 1.3 to 89 ms).
async fn off_the_workers<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, RoomError> {
    let bound = bounds::REPLAY_TIMEOUT;
    match tokio::time::timeout(bound, tokio::task::spawn_blocking(work)).await {
        Ok(done) => done.map_err(|_| RoomError::Unavailable),
        Err(_) => Err(RoomError::ReplayTooSlow(bound)),
    }
}

/// The game a room's row and its log make, folded on the blocking pool.
pub(super) async fn replay(row: RoomRow, events: Vec<StoredEvent>) -> Result<Game, RoomError> {
    off_the_workers(move || {
        let mut game = unplayed(&row);
        for stored in &events {
            game.apply(stored.v, stored.at, &decode(stored)?)?;
        }
        Ok(game)
    })
    .await?
}

/// A stored room before any of its events, as the pure game knows it (the game never sees a
/// row): replay its log through [`Game::apply`].
fn unplayed(row: &RoomRow) -> Game {
    let room = Room::new(row.id.clone(), row.mode, row.seed, row.clock);
    Game::new(room, Seats::of_room(row))
}

/// A logged event, read back.
pub(super) fn decode(stored: &StoredEvent) -> Result<Event, StoreError> {
    Event::from_parts(&stored.kind, &stored.data)
        .map_err(|e| StoreError::Corrupt(format!("event {} ({}): {e}", stored.v, stored.kind)))
}

/// An event as the log keeps it.
pub(super) fn stored_event(v: Version, at: UnixMs, event: &Event) -> StoredEvent {
    let (kind, data) = event.to_parts();
    StoredEvent { v, at, kind, data }
}
