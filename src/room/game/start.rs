//! The start of a game: the seats as the store has them, the `started` event once both are
//! taken, and the client seeds the players (and the computer) set before the first throw.

use std::sync::Arc;

use super::{Context, Decision, Game, Next, Stage};
use crate::engine::Position;
use crate::protocol::{ClientSeed, ClientSeeds, Event, UnixMs};
use crate::room::seats::Seats;

impl Game {
    /// Records the seats as the store has them (taken here or by another instance).
    pub fn set_seats(&mut self, seats: Seats) {
        self.seats = Arc::new(seats);
    }

    /// The `started` event, once both seats are taken and it was not logged (an empty
    /// decision otherwise).
    pub fn decide_start(&self, now: UnixMs) -> Decision {
        let mut next = Next::from(self, now);
        self.push_start(&mut next);
        next.done()
    }

    /// [`Game::decide_start`] with who is connected worked out in the same commit, so that a
    /// first mover who never connects is absent, and counted down, from the start.
    pub fn decide_start_present(&self, ctx: &Context) -> Decision {
        let mut next = Next::from(self, ctx.now);
        self.push_start(&mut next);
        if !next.events.is_empty()
            && let Some(presence) = next.game.presence_update(ctx)
        {
            next.push(presence);
        }
        next.done()
    }

    fn push_start(&self, next: &mut Next) {
        if self.stage != Stage::Waiting || !self.seats.are_full() {
            return;
        }
        next.push(Event::Started {
            position: Position::start().to_string(),
            turn: Position::start().turn(),
            seed_hash: self.room.seed_hash.clone(),
            client_seeds: None,
            clock: self.room.clock,
        });
    }

    /// The computer's client seed (drawn by the caller from the OS generator) right after
    /// `started` in an `ai` room; an empty decision elsewhere.
    pub fn decide_computer_seed(&self, seed: ClientSeed, now: UnixMs) -> Decision {
        let mut next = Next::from(self, now);
        if let Some(bot) = self.bot()
            && self.client_seeds_open()
        {
            next.push(Event::ClientSeed {
                side: bot.side,
                client_seed: seed.as_str().to_string(),
            });
        }
        next.done()
    }

    /// The client seeds as the log last set them.
    pub fn client_seeds(&self) -> &ClientSeeds {
        &self.client_seeds
    }

    /// Whether client seeds may still be set: after `started` (which logged `seed_hash`), until
    /// the first throw.
    pub(super) fn client_seeds_open(&self) -> bool {
        self.stage == Stage::Roll && self.throws == 0
    }
}
