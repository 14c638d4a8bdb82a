//! One room's game as a pure state machine: no I/O, no clock, no randomness.
//!
//! - [`Game::decide`] judges an action against the state with the rules engine and answers a
//!   [`Decision`]: the events the action causes and the game after them, made together, so a
//!   move is played once (as shakmaty's `play(self, m) -> Result<Self, _>`). It never changes
//!   `self`: the room task persists the events, then keeps the decision's game.
//! - [`Game::apply`] folds a logged event into the state; replaying a room's log through it
//!   rebuilds the room (on load, after a restart, after another writer won a race). A log that
//!   does not replay is a [`ReplayError`] naming the event, never a panic.
//!
//! Time and connections come in through [`Context`], so the same decision can be re-made (and
//! checked by `senet verify`) at will.
//!
//! Timed games: each side's remaining time is what the last event carrying [`Clocks`] said
//! (`started`, a move, a pass, `resumed`), and the side to move's runs down from that event's
//! moment. A turn-ending event adds the increment to the side whose turn ended. The room task
//! sleeps until [`Game::deadline`] and then asks [`Game::decide_timeout`].

use std::sync::Arc;

use super::bot::{Bot, Step};
use super::bounds::{CHATTER_UNTIL, MAX_CLIENT_SEEDS};
use super::error::{Refusal, ReplayError};
use super::seats::Seats;
use crate::ai::{self, Level};
use crate::engine::{Effect, Move, Position, Side, Sticks, Target};
use crate::fairness::{Seed, seed_hash, sticks_for};
use crate::protocol::{
    Action, CancelReason, ClientSeed, ClientSeeds, ClockState, Clocks, EffectName, EndReason,
    Event, EventKind, GameResult, LegalMove, Mode, OffMarker, Phase, PlayerState, Players,
    Presence, RoomSummary, Seat, State, Status, Throw, TimeControl, To, UnixMs, Version, Winner,
};
use crate::secrets::rematch_room_id;

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
    Over(GameResult),
}

/// A timed game's clocks: what each side had at `since`, the moment of the last event that
/// carried them. The side to move's clock has run since then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Clock {
    control: TimeControl,
    remaining: [i64; 2],
    since: UnixMs,
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
            Stage::Waiting | Stage::Over(_) => return None,
        };
        Some((bot, step))
    }

    /// The room a rematch opened, once it was decided.
    pub fn rematch_room(&self) -> Option<&str> {
        self.rematch.as_deref()
    }

    pub fn is_over(&self) -> bool {
        matches!(self.stage, Stage::Over(_))
    }

    fn is_playing(&self) -> bool {
        matches!(self.stage, Stage::Roll | Stage::Move { .. })
    }

    // ------------------------------------------------------------ seats

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
    fn client_seeds_open(&self) -> bool {
        self.stage == Stage::Roll && self.throws == 0
    }

    // ------------------------------------------------------------ clocks

    /// The side whose clock runs: the side to move, while a timed game is being played.
    fn running(&self) -> Option<Side> {
        (self.clock.is_some() && self.is_playing()).then(|| self.position.turn())
    }

    /// Both sides' time at `now`; with `turn_of`, that side's turn ends then and it gets the
    /// increment. `None` in untimed games.
    fn clocks_at(&self, now: UnixMs, turn_of: Option<Side>) -> Option<Clocks> {
        let clock = self.clock?;
        let mut remaining = clock.remaining;
        if let Some(side) = self.running() {
            remaining[index(side)] -= now - clock.since;
        }
        if let Some(side) = turn_of {
            remaining[index(side)] += clock.control.increment_ms();
        }
        Some(Clocks {
            black: remaining[0],
            white: remaining[1],
        })
    }

    /// When the side to move runs out of time, in a timed game being played.
    pub fn deadline(&self) -> Option<UnixMs> {
        let clock = self.clock?;
        let side = self.running()?;
        Some(clock.since + clock.remaining[index(side)])
    }

    /// Whether the side to move has no time left at `now`.
    pub fn is_flagged(&self, now: UnixMs) -> bool {
        self.deadline().is_some_and(|deadline| deadline <= now)
    }

    /// The `timeout` that ends the game if the side to move has run out of time at `now`
    /// (an empty decision otherwise).
    pub fn decide_timeout(&self, now: UnixMs) -> Decision {
        let mut next = Next::from(self, now);
        if self.is_flagged(now) {
            next.push_over(self.position.turn().other().into(), EndReason::Timeout);
        }
        next.done()
    }

    /// The `resumed` event for a timed game loaded while it was being played: the clocks as
    /// they were at the last logged event, so the time nothing was logged (the server was
    /// down) is charged to nobody. Empty for other games, and for a side that had already run
    /// out, whose timeout is then decided.
    pub fn decide_resume(&self, now: UnixMs) -> Decision {
        let mut next = Next::from(self, now);
        if let Some(clocks) = self.clocks_at(self.at, None)
            && self.running().is_some()
            && !self.is_flagged(self.at)
        {
            next.push(Event::Resumed { clocks });
        }
        next.done()
    }

    fn set_clocks(&mut self, clocks: Option<Clocks>, at: UnixMs) {
        if let (Some(clock), Some(clocks)) = (&mut self.clock, clocks) {
            clock.remaining = [clocks.black, clocks.white];
            clock.since = at;
        }
    }

    fn clock_state(&self, now: UnixMs) -> Option<ClockState> {
        let control = self.room.clock?;
        // Before the start each side has its whole time, and neither runs.
        let whole = Clocks {
            black: control.initial_ms(),
            white: control.initial_ms(),
        };
        Some(ClockState {
            control,
            remaining: self.clocks_at(now, None).unwrap_or(whole),
            running: self.running(),
        })
    }

    // ------------------------------------------------------------ apply

    /// Folds the logged event numbered `v`, logged at `at`, into the state. A move is played
    /// again by the engine; one it refuses (or a version out of order) is a [`ReplayError`].
    pub fn apply(&mut self, v: Version, at: UnixMs, event: &Event) -> Result<(), ReplayError> {
        let fails = |why: String| ReplayError {
            v,
            kind: EventKind::from(event).into(),
            why,
        };
        if v != self.v + 1 {
            return Err(fails(format!("the state is at version {}", self.v)));
        }
        if let Event::ClientSeed { client_seed, .. } = event {
            if self.stage == Stage::Waiting {
                return Err(fails(
                    "a client seed before `started` logged seed_hash".into(),
                ));
            }
            if !self.client_seeds_open() {
                return Err(fails(
                    "client seeds are locked after the first throw".into(),
                ));
            }
            ClientSeed::parse(client_seed).map_err(fails)?;
        }
        if let Event::Moved { from, .. } = event {
            let Stage::Move { sticks } = self.stage else {
                return Err(fails("a move must follow a throw".into()));
            };
            let (after, _) = self
                .position
                .play(*from, sticks.roll())
                .map_err(|illegal| fails(illegal.to_string()))?;
            self.position = after;
        }
        self.fold(event, at);
        self.v = v;
        Ok(())
    }

    /// What an event logged at `at` changes, besides the position a move leaves (set by the
    /// caller, who played the move) and the version.
    fn fold(&mut self, event: &Event, at: UnixMs) {
        self.at = at;
        // A hint is for one throw: the throw's move or pass ends it (and so does the game's end).
        if matches!(
            event,
            Event::Moved { .. } | Event::Passed { .. } | Event::GameOver { .. }
        ) {
            self.hint = None;
        }
        match event {
            Event::Started {
                clock,
                client_seeds,
                ..
            } => {
                if client_seeds.is_some() {
                    Arc::make_mut(&mut self.client_seeds).set_by(event);
                }
                self.stage = Stage::Roll;
                self.turn_began = at;
                self.clock = clock.map(|control| Clock {
                    control,
                    remaining: [control.initial_ms(); 2],
                    since: at,
                });
            }
            Event::ClientSeed { side, .. } => {
                Arc::make_mut(&mut self.client_seeds).set_by(event);
                let logged = &mut self.client_seeds_logged[index(*side)];
                *logged = logged.saturating_add(1);
            }
            Event::Rolled { sticks, .. } => {
                self.throws += 1;
                self.stage = Stage::Move {
                    sticks: Sticks::from_faces(*sticks),
                };
            }
            // The game-over event that follows a winning move sets Over.
            Event::Moved {
                side, next, clocks, ..
            } => {
                self.moves += 1;
                self.stage = Stage::Roll;
                self.set_clocks(*clocks, at);
                if next != side {
                    self.begin_turn(*next, at);
                }
            }
            Event::Passed { clocks, next, .. } => {
                self.position = self.position.pass();
                self.stage = Stage::Roll;
                self.set_clocks(*clocks, at);
                self.begin_turn(*next, at);
            }
            Event::Resumed { clocks } => self.set_clocks(Some(*clocks), at),
            Event::Hinted { from, .. } => self.hint = Some(*from),
            Event::DrawOffered { side } => {
                self.draw_offer = Some(*side);
                self.draw_offer_spent[index(*side)] = true;
            }
            Event::DrawCancelled { .. } => self.draw_offer = None,
            Event::Presence { black, white } => self.presence = [*black, *white],
            Event::GameOver {
                winner,
                reason,
                clocks,
                ..
            } => {
                self.set_clocks(*clocks, at);
                self.draw_offer = None;
                self.stage = Stage::Over(GameResult {
                    winner: *winner,
                    reason: *reason,
                });
            }
            Event::RematchOffered { side } => self.rematch_offers[index(*side)] = true,
            Event::Rematch { room } => self.rematch = Some(room.clone()),
        }
    }

    /// `side`'s turn begins at `at`: its opponent has moved, so `side` may offer a draw again.
    fn begin_turn(&mut self, side: Side, at: UnixMs) {
        self.turn_began = at;
        self.draw_offer_spent[index(side)] = false;
    }

    // ------------------------------------------------------------ decide

    /// Judges `action` by the holder of `seat`: the events it causes and the game after them,
    /// with who is connected brought up to date in the same decision.
    pub fn decide(&self, seat: Seat, action: Action, ctx: &Context) -> Result<Decision, Refusal> {
        let side = self.acting_side(seat, action, ctx.now)?;
        let mut next = Next::from(self, ctx.now);
        match action {
            Action::Seed(seed) => self.decide_client_seed(seat, seed, &mut next)?,
            Action::Roll => self.decide_roll(side, &mut next)?,
            Action::Move { from } => self.decide_move(side, from, &mut next)?,
            Action::Resign => next.push_over(side.other().into(), EndReason::Resign),
            Action::DrawOffer => next.push(self.decide_draw_offer(side)?),
            Action::DrawAccept => next.push(self.decide_draw_accept(side, ctx.now)?),
            Action::DrawDecline => next.push(self.decide_draw_decline(side)?),
            Action::ClaimVictory => next.push(self.decide_claim(side, ctx)?),
            Action::Rematch => next.push(self.decide_rematch(side)?),
            Action::Hint => {
                if let Some(hinted) = self.decide_hint(side)? {
                    next.push(hinted);
                }
            }
        }
        // The end of the game is the log's last word on it.
        if !next.game.is_over()
            && let Some(presence) = next.game.presence_update(ctx)
        {
            next.push(presence);
        }
        Ok(next.done())
    }

    /// The `presence` event that brings the log up to date with who is connected, as a
    /// decision (empty if nothing changed).
    pub fn decide_presence(&self, ctx: &Context) -> Decision {
        let mut next = Next::from(self, ctx.now);
        if let Some(presence) = self.presence_update(ctx) {
            next.push(presence);
        }
        next.done()
    }

    /// Who acts, after the checks every action shares: a seat, a game in the right stage,
    /// time left on the clock. A `both` seat acts for the side to move.
    fn acting_side(&self, seat: Seat, action: Action, now: UnixMs) -> Result<Side, Refusal> {
        if self.is_flagged(now) {
            return Err(Refusal::OutOfTime(self.position.turn()));
        }
        let side = match seat {
            Seat::Spectator => return Err(Refusal::NotSeated),
            Seat::Both => self.position.turn(),
            Seat::Black => Side::Black,
            Seat::White => Side::White,
        };
        match (self.stage, action) {
            (Stage::Over(_), Action::Rematch) => Ok(side),
            (_, Action::Rematch) => Err(Refusal::RematchBeforeTheEnd),
            (Stage::Over(_), _) => Err(Refusal::GameOver),
            (Stage::Waiting, _) => Err(Refusal::NotStarted),
            _ => Ok(side),
        }
    }

    fn check_turn(&self, side: Side) -> Result<(), Refusal> {
        let turn = self.position.turn();
        if side == turn {
            Ok(())
        } else {
            Err(Refusal::NotYourTurn(turn))
        }
    }

    /// A seated player's client seed, for each side the seat holds (both in a local room),
    /// until the first throw, at most [`MAX_CLIENT_SEEDS`] per side; the seed a side has already
    /// logs nothing.
    fn decide_client_seed(
        &self,
        seat: Seat,
        seed: ClientSeed,
        next: &mut Next,
    ) -> Result<(), Refusal> {
        if !self.client_seeds_open() {
            return Err(Refusal::ClientSeedLocked);
        }
        let new = |side: Side| self.client_seeds.of(side) != seed.as_str();
        let sides = Side::BOTH
            .into_iter()
            .filter(|&side| seat.holds(side) && new(side));
        if sides
            .clone()
            .any(|side| self.client_seeds_logged[index(side)] >= MAX_CLIENT_SEEDS)
        {
            return Err(Refusal::ClientSeedsSpent(MAX_CLIENT_SEEDS));
        }
        for side in sides {
            next.push(Event::ClientSeed {
                side,
                client_seed: seed.as_str().to_string(),
            });
        }
        Ok(())
    }

    fn decide_roll(&self, side: Side, next: &mut Next) -> Result<(), Refusal> {
        self.check_turn(side)?;
        if let Stage::Move { sticks } = self.stage {
            return Err(Refusal::AlreadyRolled(sticks.roll().value()));
        }
        let sticks = sticks_for(
            &self.room.seed,
            &self.room.id,
            &self.client_seeds.black,
            &self.client_seeds.white,
            self.throws,
        );
        let roll = sticks.roll();
        let legal = self.position.legal_moves(roll);
        if self.draw_offer == Some(side.other()) {
            next.push(Event::DrawCancelled {
                side: side.other(),
                why: CancelReason::Lapsed,
            });
        }
        next.push(Event::Rolled {
            side,
            n: self.throws,
            sticks: sticks.faces(),
            value: roll.value(),
            legal: legal.iter().map(legal_move).collect(),
        });
        if legal.is_empty() {
            next.push(Event::Passed {
                side,
                value: roll.value(),
                next: side.other(),
                clocks: next.game.clocks_at(next.now, Some(side)),
            });
        }
        Ok(())
    }

    fn decide_move(&self, side: Side, from: u8, next: &mut Next) -> Result<(), Refusal> {
        self.check_turn(side)?;
        let Stage::Move { sticks } = self.stage else {
            return Err(Refusal::MustRoll);
        };
        let (after, mv) = self
            .position
            .play(from, sticks.roll())
            .map_err(Refusal::Illegal)?;
        let turn_ends = (after.turn() != side).then_some(side);
        let clocks = self.clocks_at(next.now, turn_ends);
        next.push_move(moved_event(side, &mv, &after, clocks), after);
        if let Some(winner) = after.winner() {
            next.push_over(winner.into(), EndReason::BorneOff);
        }
        Ok(())
    }

    fn check_draw_allowed(&self) -> Result<(), Refusal> {
        if self.room.mode == Mode::Online {
            Ok(())
        } else {
            Err(Refusal::DrawNotAllowed)
        }
    }

    fn decide_draw_offer(&self, side: Side) -> Result<Event, Refusal> {
        self.check_draw_allowed()?;
        match self.draw_offer {
            Some(offerer) if offerer == side => Err(Refusal::DrawAlreadyOffered),
            Some(_) => Err(Refusal::DrawOfferPending),
            None if self.draw_offer_spent[index(side)] => Err(Refusal::DrawOfferSpent),
            None => Ok(Event::DrawOffered { side }),
        }
    }

    fn decide_draw_accept(&self, side: Side, now: UnixMs) -> Result<Event, Refusal> {
        self.check_draw_allowed()?;
        if self.draw_offer != Some(side.other()) {
            return Err(Refusal::NoDrawToAccept);
        }
        Ok(self.game_over(Winner::Draw, EndReason::Agreement, now))
    }

    fn decide_draw_decline(&self, side: Side) -> Result<Event, Refusal> {
        self.check_draw_allowed()?;
        let offerer = self.draw_offer.ok_or(Refusal::NoDrawToDecline)?;
        let why = if offerer == side {
            CancelReason::Withdrawn
        } else {
            CancelReason::Declined
        };
        Ok(Event::DrawCancelled { side: offerer, why })
    }

    fn decide_claim(&self, side: Side, ctx: &Context) -> Result<Event, Refusal> {
        if self.room.mode != Mode::Online {
            return Err(Refusal::ClaimNotOnline);
        }
        let opponent = self.presence[index(side.other())];
        match opponent.claim_at {
            Some(at) if at <= ctx.now => {
                Ok(self.game_over(side.into(), EndReason::Abandon, ctx.now))
            }
            Some(at) => Err(Refusal::ClaimTooEarly(at - ctx.now)),
            None => Err(Refusal::ClaimNoCountdown),
        }
    }

    /// The `hinted` event with the engine's move for the current throw: in practice rooms only,
    /// for the side to move after its throw. The move is the one the analysis of a finished game
    /// calls best ([`ai::odds`], two throws deep: about 0.1 ms, so it is searched right here);
    /// it sees the position and the throw, nothing of the seed. `None` when this throw's hint
    /// was already shown (asking again logs nothing), or when there is no move to show (never
    /// seen: a throw without a legal move passes in the same decision).
    fn decide_hint(&self, side: Side) -> Result<Option<Event>, Refusal> {
        if self.room.mode == Mode::Online {
            return Err(Refusal::HintNotAllowed);
        }
        self.check_turn(side)?;
        let Stage::Move { sticks } = self.stage else {
            return Err(Refusal::MustRoll);
        };
        if self.hint.is_some() {
            return Ok(None);
        }
        let best = ai::odds(&self.position, sticks.roll()).best();
        Ok(best.map(|(mv, _)| Event::Hinted {
            side,
            n: self.throws - 1,
            from: mv.from,
        }))
    }

    /// Online, both players must ask; elsewhere one asks for both. The rematch's room is
    /// named after this one, so whoever decides it names the same room.
    fn decide_rematch(&self, side: Side) -> Result<Event, Refusal> {
        if let Some(room) = &self.rematch {
            return Err(Refusal::RematchOpen(room.clone()));
        }
        let both_asked = self.room.mode != Mode::Online || self.rematch_offers[index(side.other())];
        if both_asked {
            return Ok(Event::Rematch {
                room: rematch_room_id(&self.room.id),
            });
        }
        if self.rematch_offers[index(side)] {
            return Err(Refusal::RematchAlreadyAsked);
        }
        Ok(Event::RematchOffered { side })
    }

    /// The game's end at `now`, with the clocks of a timed game as they are then.
    pub fn game_over(&self, winner: Winner, reason: EndReason, now: UnixMs) -> Event {
        Event::GameOver {
            winner,
            reason,
            seed: hex::encode(self.room.seed),
            clocks: self.clocks_at(now, None),
        }
    }

    /// The `presence` event that brings the log up to date with who is
    /// connected and when a claim becomes possible, if anything changed. Only
    /// the side to move of a running online game gets a `claim_at`.
    fn presence_update(&self, ctx: &Context) -> Option<Event> {
        // A log this long keeps what is left for play (see `bounds`).
        if self.v >= CHATTER_UNTIL {
            return None;
        }
        let current = |side: Side| {
            let connected = ctx.connected[index(side)];
            let to_move =
                self.room.mode == Mode::Online && self.is_playing() && self.position.turn() == side;
            Presence {
                connected,
                claim_at: to_move
                    .then(|| self.claim_at(side, connected, ctx))
                    .flatten(),
            }
        };
        let next = [current(Side::Black), current(Side::White)];
        (next != self.presence).then_some(Event::Presence {
            black: next[0],
            white: next[1],
        })
    }

    /// When the opponent of `side`, the side to move, may claim the game: once the turn has
    /// lasted `idle_turn_after` (untimed games: in a timed one the clock ends a turn that long),
    /// or `abandon_after` after `side` was first seen absent in this turn. The absence countdown
    /// is kept for the rest of the turn, so coming back for a moment does not restart it.
    fn claim_at(&self, side: Side, connected: bool, ctx: &Context) -> Option<UnixMs> {
        let idle = self
            .clock
            .is_none()
            .then(|| self.turn_began + ctx.idle_turn_after_ms);
        let kept = self.presence[index(side)]
            .claim_at
            .filter(|&at| Some(at) != idle);
        let absent = match connected {
            true => kept,
            false => Some(kept.unwrap_or(ctx.now + ctx.abandon_after_ms)),
        };
        idle.into_iter().chain(absent).min()
    }

    // ------------------------------------------------------------ views

    pub fn phase(&self) -> Phase {
        match self.stage {
            Stage::Waiting => Phase::Waiting,
            Stage::Roll => Phase::Roll,
            Stage::Move { .. } => Phase::Move,
            Stage::Over(_) => Phase::Over,
        }
    }

    pub fn status(&self) -> Status {
        match self.stage {
            Stage::Waiting => Status::Waiting,
            Stage::Over(_) => Status::Finished,
            _ => Status::Playing,
        }
    }

    pub fn result(&self) -> Option<GameResult> {
        match self.stage {
            Stage::Over(result) => Some(result),
            _ => None,
        }
    }

    /// Whether the log last said `side` has a connection open.
    pub fn is_connected(&self, side: Side) -> bool {
        self.presence[index(side)].connected
    }

    /// What `GET /api/rooms/{id}` shows, with the spectators its task counts (none if the room
    /// is not in memory).
    pub fn summary(&self, spectators: usize) -> RoomSummary {
        RoomSummary {
            room: self.id().to_string(),
            mode: self.mode(),
            level: self.level(),
            status: self.status(),
            players: self.players(),
            spectators,
            result: self.result(),
            moves: self.moves,
        }
    }

    pub fn players(&self) -> Players {
        let player = |side: Side| {
            let presence = self.presence[index(side)];
            PlayerState {
                seated: self.seats.is_taken(side),
                connected: presence.connected,
                claim_at: presence.claim_at,
                // Who sits is the players' store's to say: the server adds it (server::seating).
                player: None,
            }
        };
        Players {
            black: player(Side::Black),
            white: player(Side::White),
        }
    }

    /// The full state a client draws at `now`; `spectators` is live, not logged.
    pub fn state(&self, spectators: usize, now: UnixMs) -> State {
        let (throw, legal) = match self.stage {
            Stage::Move { sticks } => (
                Some(Throw {
                    sticks: sticks.faces(),
                    value: sticks.roll().value(),
                }),
                self.position
                    .legal_moves(sticks.roll())
                    .iter()
                    .map(legal_move)
                    .collect(),
            ),
            _ => (None, Vec::new()),
        };
        State {
            room: self.room.id.clone(),
            mode: self.room.mode,
            level: self.level(),
            position: self.position.to_string(),
            turn: self.position.turn(),
            phase: self.phase(),
            throw,
            legal,
            hint: self.hint,
            players: self.players(),
            spectators,
            draw_offer: self.draw_offer,
            result: self.result(),
            seed_hash: self.room.seed_hash.clone(),
            client_seeds: ClientSeeds::clone(&self.client_seeds),
            client_seeds_open: self.client_seeds_open(),
            rematch_offers: Side::BOTH
                .into_iter()
                .filter(|&side| self.rematch_offers[index(side)])
                .collect(),
            draw_offers_spent: Side::BOTH
                .into_iter()
                .filter(|&side| self.draw_offer_spent[index(side)])
                .collect(),
            rematch: self.rematch.clone(),
            clock: self.clock_state(now),
            // The players' store's, added by the server (server::seating) like the players.
            rated: false,
            ratings: None,
            v: self.v,
        }
    }
}

fn legal_move(mv: &Move) -> LegalMove {
    LegalMove {
        from: mv.from,
        to: to_wire(mv.to),
    }
}

fn to_wire(target: Target) -> To {
    match target {
        Target::Square(square) => To::Square(square),
        Target::Off => To::Off(OffMarker::Off),
    }
}

fn moved_event(side: Side, mv: &Move, after: &Position, clocks: Option<Clocks>) -> Event {
    let (effect, rest, swapped) = match mv.effect {
        Effect::Step => (EffectName::Step, None, None),
        Effect::Swap => (EffectName::Swap, None, Some(mv.from)),
        Effect::Water { rest } => (EffectName::Water, Some(rest), None),
        Effect::BearOff => (EffectName::Off, None, None),
    };
    Event::Moved {
        side,
        from: mv.from,
        to: to_wire(mv.to),
        effect,
        rest,
        swapped,
        position: after.to_string(),
        next: after.turn(),
        extra: after.winner().is_none() && mv.roll.grants_extra_throw(),
        clocks,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::room::seats::Sitter;
    use crate::secrets::hash_token;

    const ROOM: &str = "0123456789abcdef0123456789abcdef";

    fn person(token: &str) -> Option<Sitter> {
        Some(Sitter::person(hash_token(token)))
    }

    fn started(mode: Mode, seed: Seed, seats: Seats) -> Game {
        let game = Game::new(Room::new(ROOM.into(), mode, seed, None), seats);
        let started = game.decide_start(0);
        assert_eq!(started.events.len(), 1);
        started.game
    }

    fn client_seed(text: &str) -> Action {
        Action::Seed(ClientSeed::parse(text).unwrap())
    }

    /// Started, with the client seeds `b-seed` and `w-seed`.
    fn started_game(mode: Mode) -> Game {
        let mut game = started(mode, [3; 32], Seats::new(person("b"), person("w")));
        act(&mut game, Seat::Black, client_seed("b-seed")).unwrap();
        act(&mut game, Seat::White, client_seed("w-seed")).unwrap();
        game
    }

    fn ctx() -> Context {
        Context {
            now: 1_000,
            abandon_after_ms: 60_000,
            idle_turn_after_ms: 300_000,
            connected: [true, true],
        }
    }

    /// Decides and keeps the next game, as the room task does after persisting.
    fn act(game: &mut Game, seat: Seat, action: Action) -> Result<Vec<Event>, Refusal> {
        let decision = game.decide(seat, action, &ctx())?;
        *game = decision.game;
        Ok(decision.events)
    }

    /// A decision's game is the game its events replay to.
    #[test]
    fn a_decision_replays_from_its_events() {
        let mut game = started_game(Mode::Local);
        let mut replayed = game.clone();
        for _ in 0..200 {
            if game.is_over() {
                break;
            }
            let action = match game.state(0, 0).legal.first() {
                Some(legal) => Action::Move { from: legal.from },
                None => Action::Roll,
            };
            for event in act(&mut game, Seat::Both, action).unwrap() {
                replayed.apply(replayed.version() + 1, 0, &event).unwrap();
            }
            assert_eq!(replayed.state(0, 0), game.state(0, 0));
        }
    }

    #[test]
    fn a_log_that_does_not_replay_names_the_event() {
        let mut game = started_game(Mode::Local);
        let moved = Event::Moved {
            side: Side::Black,
            from: 10,
            to: To::Square(11),
            effect: EffectName::Step,
            rest: None,
            swapped: None,
            position: String::new(),
            next: Side::White,
            extra: false,
            clocks: None,
        };
        let error = game.apply(2, 0, &moved).unwrap_err();
        assert_eq!((error.v, error.kind), (2, "moved"));
        assert_eq!(game.apply(5, 0, &moved).unwrap_err().v, 5);
    }

    /// Whole local games through decide/apply: at every move, each square
    /// that is not a legal `from` is refused with the engine's own reason and
    /// leaves the state as it was. Over a few games every reason shows up.
    #[test]
    fn every_refused_move_carries_the_engine_reason_and_changes_nothing() {
        let mut reasons = std::collections::BTreeSet::new();
        for game_number in 0..20u8 {
            let seats = Seats::new(person("b"), person("w"));
            let mut game = started(Mode::Local, [game_number; 32], seats);
            while !game.is_over() {
                let events = act(&mut game, Seat::Both, Action::Roll).unwrap();
                let Some(Event::Rolled { legal, value, .. }) =
                    events.iter().find(|e| matches!(e, Event::Rolled { .. }))
                else {
                    unreachable!()
                };
                if legal.is_empty() {
                    continue;
                }
                let before = game.state(0, 0);
                let roll = crate::engine::Roll::new(*value).unwrap();
                let position: Position = before.position.parse().unwrap();
                for from in 0..=31u8 {
                    if legal.iter().any(|m| m.from == from) {
                        continue;
                    }
                    let refused = game
                        .decide(Seat::Both, Action::Move { from }, &ctx())
                        .unwrap_err();
                    let expected = position.check(from, roll).unwrap_err();
                    assert_eq!(refused, Refusal::Illegal(expected));
                    reasons.insert(expected.code());
                }
                assert_eq!(game.state(0, 0), before);
                let chosen = legal[usize::from(game_number) % legal.len()].from;
                act(&mut game, Seat::Both, Action::Move { from: chosen }).unwrap();
            }
        }
        let all = [
            "blocked",
            "must_stop_on_26",
            "no_own_piece",
            "not_exact_to_bear_off",
            "occupied_by_own",
            "safe_square",
        ];
        assert_eq!(reasons.into_iter().collect::<Vec<_>>(), all);
    }

    #[test]
    fn the_bot_steps_in_only_on_its_own_turn_and_sees_only_the_current_throw() {
        let computer = Some(Sitter::computer(Level::Hard));
        let seats = Seats::new(person("b"), computer);
        let waiting = Game::new(
            Room::new(ROOM.into(), Mode::Ai, [3; 32], None),
            seats.clone(),
        );
        assert_eq!(waiting.bot_step(), None, "not started");
        let mut game = started(Mode::Ai, [3; 32], seats);
        assert_eq!(game.bot_step(), None, "black, the person, throws first");
        assert_eq!(game.seats().seat_of(&hash_token("w")), Seat::Spectator);
        while game.position.turn() == Side::Black {
            act(&mut game, Seat::Black, Action::Roll).unwrap();
            if let Stage::Move { .. } = game.stage {
                let from = game.state(0, 0).legal[0].from;
                act(&mut game, Seat::Black, Action::Move { from }).unwrap();
            }
        }
        let (bot, step) = game.bot_step().expect("white's turn");
        assert_eq!(
            (bot.side, bot.level, step),
            (Side::White, Level::Hard, Step::Roll)
        );
        let events = act(&mut game, Seat::White, Action::Roll).unwrap();
        let Event::Rolled { n, value, .. } = events[0] else {
            panic!("{events:?}")
        };
        match game.bot_step() {
            Some((
                _,
                Step::Move {
                    position,
                    roll,
                    throw,
                },
            )) => {
                assert_eq!((position, roll.value(), throw), (game.position, value, n));
            }
            // The throw had no legal move: passed back to the person.
            other => assert_eq!((other, game.position.turn()), (None, Side::Black)),
        }
        assert_eq!(game.state(0, 0).level, Some(Level::Hard));
    }

    #[test]
    fn turn_order_errors_leave_the_state_unchanged() {
        let mut game = started_game(Mode::Online);
        let before = game.state(0, 0);
        let refusal = |r: Result<Decision, Refusal>| r.unwrap_err();
        let c = ctx();
        assert_eq!(
            refusal(game.decide(Seat::White, Action::Roll, &c)),
            Refusal::NotYourTurn(Side::Black)
        );
        let mv = Action::Move { from: 10 };
        assert_eq!(refusal(game.decide(Seat::Black, mv, &c)), Refusal::MustRoll);
        let spectate = game.decide(Seat::Spectator, Action::Roll, &c);
        assert_eq!(refusal(spectate), Refusal::NotSeated);
        assert_eq!(game.state(0, 0), before);
        // Every throw has a move from the start position, so the turn stays black's.
        let events = act(&mut game, Seat::Black, Action::Roll).unwrap();
        let Event::Rolled { value, .. } = events[0] else {
            panic!("{events:?}")
        };
        let twice = game.decide(Seat::Black, Action::Roll, &c);
        assert_eq!(refusal(twice), Refusal::AlreadyRolled(value));
    }

    #[test]
    fn throws_follow_the_seed_formula() {
        let mut game = started_game(Mode::Local);
        let events = act(&mut game, Seat::Both, Action::Roll).unwrap();
        let expected = sticks_for(&[3; 32], game.id(), "b-seed", "w-seed", 0);
        let Event::Rolled { n, sticks, .. } = &events[0] else {
            panic!("{events:?}")
        };
        assert_eq!((*n, *sticks), (0, expected.faces()));
    }

    #[test]
    fn draws_are_refused_in_local_rooms() {
        let game = started_game(Mode::Local);
        let refused = game.decide(Seat::Both, Action::DrawOffer, &ctx());
        assert_eq!(refused.unwrap_err(), Refusal::DrawNotAllowed);
    }

    #[test]
    fn a_hint_comes_after_the_throw_once_and_goes_with_the_move() {
        let mut game = started_game(Mode::Local);
        assert_eq!(
            act(&mut game, Seat::Both, Action::Hint),
            Err(Refusal::MustRoll)
        );
        while game.phase() != Phase::Move {
            act(&mut game, Seat::Both, Action::Roll).unwrap();
        }
        let events = act(&mut game, Seat::Both, Action::Hint).unwrap();
        let [Event::Hinted { from, .. }] = events[..] else {
            panic!("{events:?}")
        };
        assert!(
            game.state(0, 0)
                .legal
                .iter()
                .any(|legal| legal.from == from)
        );
        assert_eq!(game.state(0, 0).hint, Some(from));
        let again = act(&mut game, Seat::Both, Action::Hint);
        assert_eq!(again, Ok(Vec::new()), "asked again: nothing new is logged");
        act(&mut game, Seat::Both, Action::Move { from }).unwrap();
        assert_eq!(game.state(0, 0).hint, None);

        let online = started_game(Mode::Online);
        let refused = online.decide(Seat::Black, Action::Hint, &ctx());
        assert_eq!(refused.unwrap_err(), Refusal::HintNotAllowed);
    }

    #[test]
    fn an_offer_lapses_when_the_other_side_throws() {
        let mut game = started_game(Mode::Online);
        act(&mut game, Seat::White, Action::DrawOffer).unwrap();
        let events = act(&mut game, Seat::Black, Action::Roll).unwrap();
        assert_eq!(
            events[0],
            Event::DrawCancelled {
                side: Side::White,
                why: CancelReason::Lapsed
            }
        );
        assert_eq!(game.state(0, 0).draw_offer, None);
    }

    #[test]
    fn a_side_offers_a_draw_once_until_its_opponent_has_moved() {
        let mut game = started_game(Mode::Online);
        act(&mut game, Seat::White, Action::DrawOffer).unwrap();
        act(&mut game, Seat::White, Action::DrawDecline).unwrap();
        let again = game.decide(Seat::White, Action::DrawOffer, &ctx());
        assert_eq!(again.unwrap_err(), Refusal::DrawOfferSpent);
        assert_eq!(game.state(0, 0).draw_offers_spent, [Side::White]);
        // Black's turn ends: white's begins, and its offer is back.
        while game.position.turn() == Side::Black {
            act(&mut game, Seat::Black, Action::Roll).unwrap();
            if let Some(legal) = game.state(0, 0).legal.first() {
                act(&mut game, Seat::Black, Action::Move { from: legal.from }).unwrap();
            }
        }
        assert_eq!(game.state(0, 0).draw_offers_spent, []);
        act(&mut game, Seat::White, Action::DrawOffer).unwrap();
    }

    #[test]
    fn absence_on_own_turn_starts_a_countdown_that_a_claim_needs() {
        let mut game = started_game(Mode::Online);
        let mut c = ctx();
        c.connected = [false, true];
        let presence = game.decide_presence(&c);
        assert_eq!(presence.events.len(), 1, "black left");
        game = presence.game;
        assert_eq!(game.players().black.claim_at, Some(61_000));
        let early = game.decide(Seat::White, Action::ClaimVictory, &c);
        assert_eq!(early.unwrap_err(), Refusal::ClaimTooEarly(60_000));
        c.now = 61_000;
        let decision = game.decide(Seat::White, Action::ClaimVictory, &c).unwrap();
        assert!(matches!(
            decision.events[0],
            Event::GameOver {
                winner: Winner::White,
                reason: EndReason::Abandon,
                ..
            }
        ));
    }

    /// Client seeds come after `started` (which logged `seed_hash`) and until the first throw;
    /// the last one of each side is the one the throws use.
    #[test]
    fn client_seeds_are_taken_between_the_start_and_the_first_throw() {
        let seats = Seats::new(person("b"), person("w"));
        let waiting = Game::new(Room::new(ROOM.into(), Mode::Online, [3; 32], None), seats);
        let early = waiting.decide(Seat::Black, client_seed("x"), &ctx());
        assert_eq!(early.unwrap_err(), Refusal::NotStarted);
        let mut game = started_game(Mode::Online);
        let spectator = game.decide(Seat::Spectator, client_seed("x"), &ctx());
        assert_eq!(spectator.unwrap_err(), Refusal::NotSeated);
        act(&mut game, Seat::Black, client_seed("b2")).unwrap();
        assert!(game.state(0, 0).client_seeds_open);
        let events = act(&mut game, Seat::Black, Action::Roll).unwrap();
        let expected = sticks_for(&[3; 32], game.id(), "b2", "w-seed", 0);
        assert!(matches!(&events[0], Event::Rolled { sticks, .. } if *sticks == expected.faces()));
        assert!(!game.state(0, 0).client_seeds_open);
        let late = game.decide(Seat::White, client_seed("late"), &ctx());
        assert_eq!(late.unwrap_err(), Refusal::ClientSeedLocked);
        // A log that says otherwise does not replay.
        let seed = Event::ClientSeed {
            side: Side::White,
            client_seed: "late".into(),
        };
        let v = game.version() + 1;
        assert!(game.clone().apply(v, 0, &seed).is_err());
        let fresh = Game::new(
            Room::new(ROOM.into(), Mode::Online, [3; 32], None),
            Seats::default(),
        );
        assert!(fresh.clone().apply(1, 0, &seed).is_err(), "before started");
    }

    #[test]
    fn a_both_seat_sets_both_seeds_and_the_computer_gets_its_own() {
        let mut local = started(Mode::Local, [3; 32], Seats::new(person("p"), person("p")));
        let events = act(&mut local, Seat::Both, client_seed("s")).unwrap();
        let seeds = events
            .iter()
            .filter(|e| matches!(e, Event::ClientSeed { .. }));
        assert_eq!(seeds.count(), 2);
        assert_eq!(local.client_seeds().black, "s");
        assert_eq!(local.client_seeds().white, "s");
        let seats = Seats::new(Some(Sitter::computer(Level::Easy)), person("p"));
        let ai = started(Mode::Ai, [3; 32], seats);
        let seeded = ai.decide_computer_seed(ClientSeed::parse("c0ffee").unwrap(), 0);
        assert_eq!(seeded.game.client_seeds().black, "c0ffee");
        assert_eq!(seeded.game.client_seeds().white, "");
        let none = local.decide_computer_seed(ClientSeed::default(), 0);
        assert!(none.is_empty(), "no computer in a local room");
    }
}
