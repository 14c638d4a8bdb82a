//! One room's game as a pure state machine: no I/O, no clock, no randomness.
//!
//! - [`Game::decide`] judges an action against the state with the rules engine and answers a
//!   [`Decision`]: the events the action causes and the game after them, made together, so a
//!   move is played once (as shakmaty's `play(self, m) -> Result<Self, _>`). It never changes
//!   `self`: the room task persists the events, then keeps the decision's game.
//! - [`Game::apply`] folds a logged event into the state; replaying a room's log through it
//!   rebuilds the room (on load, after a restart, after another writer won a race). A log that
//!   does not replay is a [`ReplayError`](super::error::ReplayError) naming the event, never a panic.
//!
//! Time and connections come in through [`Context`], so the same decision can be re-made (and
//! checked by `senet verify`) at will.
//!
//! Timed games: each side's remaining time is what the last event carrying [`Clocks`](crate::protocol::Clocks) said
//! (`started`, a move, a pass, `resumed`), and the side to move's runs down from that event's
//! moment. A turn-ending event adds the increment to the side whose turn ended. The room task
//! sleeps until [`Game::deadline`] and then asks [`Game::decide_timeout`].
//!
//! Here: the state, what a decision is made of, and the accessors. Beside it, one file a job:
//! `start.rs` (seats, `started`, client seeds), `decide.rs` (the action's checks, throws, moves,
//! the end), `offers.rs` (draws, rematches), `presence.rs` (who is connected, claims), `hint.rs`,
//! `clock.rs`, `chat.rs`, `fold.rs` (apply and replay), `view.rs` (the state a client draws).

use std::sync::Arc;

use super::bot::{Bot, Step};
use super::seats::Seats;
use crate::ai::Level;
use crate::engine::{Position, Side, Sticks};
use crate::fairness::{Seed, seed_hash};
use crate::protocol::{
    ClientSeeds, EndReason, Event, Mode, Presence, TimeControl, UnixMs, Version, Winner,
};

mod chat;
mod clock;
mod decide;
mod fold;
mod hint;
mod offers;
mod presence;
mod start;
#[cfg(test)]
mod tests;
mod view;

pub use chat::{Readers, Speaker, side_name, withheld};
use view::{legal_move, refused_moves, to_wire};

/// What a decision may depend on besides the state.
#[derive(Clone, Debug)]
pub struct Context {
    pub now: UnixMs,
    pub abandon_after_ms: i64,
    /// How long the side to move of an untimed online game may go without ending its turn
    /// before the opponent may claim, connected or not.
    pub idle_turn_after_ms: i64,
    /// Whether each side (black, white) has an open connection.
    pub connected: [bool; 2],
}

pub(super) fn index(side: Side) -> usize {
    match side {
        Side::Black => 0,
        Side::White => 1,
    }
}

/// What a room is from its creation on.
#[derive(Debug)]
pub struct Room {
    pub id: String,
    pub mode: Mode,
    /// The throw seed: secret until the game is over.
    pub seed: Seed,
    /// Its published hash, computed once.
    seed_hash: String,
    /// The time control; `None` for an untimed game.
    pub clock: Option<TimeControl>,
}

impl Room {
    pub fn new(id: String, mode: Mode, seed: Seed, clock: Option<TimeControl>) -> Room {
        Room {
            seed_hash: seed_hash(&seed),
            id,
            mode,
            seed,
            clock,
        }
    }

    pub fn seed_hash(&self) -> &str {
        &self.seed_hash
    }
}

/// Where the game is, in more detail than the wire's [`Phase`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stage {
    Waiting,
    Roll,
    Move { sticks: Sticks },
    Over(Winner, EndReason),
}

/// A timed game's clocks: what each side had at `since`, the moment of the last event that
/// carried them. The side to move's clock has run since then, unless that event was `paused`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Clock {
    control: TimeControl,
    remaining: [i64; 2],
    since: UnixMs,
    /// A drain paused both clocks at `since` (see [`Game::decide_pause`]).
    paused: bool,
}

/// A room's state. Cloning is cheap: what never changes in a game is shared.
#[derive(Clone, Debug)]
pub struct Game {
    room: Arc<Room>,
    seats: Arc<Seats>,
    position: Position,
    stage: Stage,
    /// The players' client seeds as the log last set them: part of every throw.
    client_seeds: Arc<ClientSeeds>,
    /// How many `client-seed` events each side (black, white) logged: bounded (see `bounds`).
    client_seeds_logged: [u8; 2],
    /// Number of the next throw (0, 1, 2, ...): fixes it through the seed.
    throws: u32,
    /// Moves played so far: how far along a game is, for the lobby's list of games.
    moves: u32,
    draw_offer: Option<Side>,
    /// Which sides (black, white) offered a draw since their opponent last ended a turn: one
    /// offer per turn of one's own, so a seat cannot fill the log with offers.
    draw_offer_spent: [bool; 2],
    presence: [Presence; 2],
    /// When the side to move's turn began.
    turn_began: UnixMs,
    rematch_offers: [bool; 2],
    rematch: Option<String>,
    /// The square of the engine's move shown for the current throw (a `hinted` event): a second
    /// request answers it without logging again, and the state shows it to a page opened later.
    hint: Option<u8>,
    clock: Option<Clock>,
    /// The operator's words, when the operator ended the game (`senet admin end`).
    note: Option<Arc<str>>,
    /// The chat's last messages, choices and mutes (shared until one changes).
    chat: Arc<chat::Chat>,
    /// When the last event was logged: a resumed clock starts from what it had then.
    at: UnixMs,
    v: Version,
}

/// What [`Game::decide`] decided: the events to persist, in order, and the game after them.
#[derive(Debug)]
pub struct Decision {
    pub events: Vec<Event>,
    pub game: Game,
    /// The moment the decision was made: the events' time in the log, which the clocks they
    /// carry are counted to.
    pub at: UnixMs,
}

impl Decision {
    /// A decision with nothing to log.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }
}

/// A decision being made: each event is folded into the next game as it is added.
struct Next {
    events: Vec<Event>,
    game: Game,
    now: UnixMs,
}

impl Next {
    fn from(game: &Game, now: UnixMs) -> Next {
        Next {
            events: Vec::with_capacity(3),
            game: game.clone(),
            now,
        }
    }

    fn push(&mut self, event: Event) {
        self.game.fold(&event, self.now);
        self.game.v += 1;
        self.events.push(event);
    }

    /// The game's end, with the clocks as they are after the events so far.
    fn push_over(&mut self, winner: Winner, reason: EndReason) {
        let over = self.game.game_over(winner, reason, self.now);
        self.push(over);
    }

    /// A move, with the position the engine already played it to.
    fn push_move(&mut self, event: Event, after: Position) {
        self.game.position = after;
        self.push(event);
    }

    fn done(self) -> Decision {
        Decision {
            events: self.events,
            game: self.game,
            at: self.now,
        }
    }
}

impl Game {
    /// A room with no events yet.
    pub fn new(room: Room, seats: Seats) -> Game {
        let absent = Presence {
            connected: false,
            claim_at: None,
        };
        Game {
            room: Arc::new(room),
            seats: Arc::new(seats),
            position: Position::start(),
            stage: Stage::Waiting,
            client_seeds: Arc::default(),
            client_seeds_logged: [0; 2],
            throws: 0,
            moves: 0,
            draw_offer: None,
            draw_offer_spent: [false; 2],
            presence: [absent; 2],
            turn_began: 0,
            rematch_offers: [false; 2],
            rematch: None,
            hint: None,
            clock: None,
            note: None,
            chat: Arc::default(),
            at: 0,
            v: 0,
        }
    }

    pub fn id(&self) -> &str {
        &self.room.id
    }

    pub fn mode(&self) -> Mode {
        self.room.mode
    }

    pub fn version(&self) -> Version {
        self.v
    }

    pub fn room(&self) -> &Room {
        &self.room
    }

    pub fn seats(&self) -> &Seats {
        &self.seats
    }

    /// The computer's seat, in `ai` rooms.
    pub fn bot(&self) -> Option<Bot> {
        self.seats.bot()
    }

    pub fn level(&self) -> Option<Level> {
        self.bot().map(|bot| bot.level)
    }

    /// What the computer must do now, if the game is running and it is its
    /// turn: only the position and the current throw, nothing of the seed.
    pub fn bot_step(&self) -> Option<(Bot, Step)> {
        let bot = self.bot().filter(|bot| bot.side == self.position.turn())?;
        let step = match self.stage {
            Stage::Roll => Step::Roll,
            Stage::Move { sticks } => Step::Move {
                position: self.position,
                roll: sticks.roll(),
                throw: self.throws - 1,
            },
            Stage::Waiting | Stage::Over(..) => return None,
        };
        Some((bot, step))
    }

    /// The room a rematch opened, once it was decided.
    pub fn rematch_room(&self) -> Option<&str> {
        self.rematch.as_deref()
    }

    pub fn is_over(&self) -> bool {
        matches!(self.stage, Stage::Over(..))
    }

    fn is_playing(&self) -> bool {
        matches!(self.stage, Stage::Roll | Stage::Move { .. })
    }
}
