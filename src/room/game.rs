//! One room's game as a pure state machine: no I/O, no clock, no randomness.
//!
//! - [`Game::apply`] folds an event into the state; replaying a room's log
//!   through it rebuilds the room exactly (on load, after a restart, or after
//!   another writer won a race for the next version).
//! - [`Game::decide`] judges an action against the state with the rules
//!   engine and answers the events it causes, or why it is refused. It never
//!   changes the state: the caller persists the events, then applies them.
//!
//! Time, connections and new room ids come in through [`Context`], so the
//! same decision can be re-made (and checked by `senet verify`) at will.

use super::bot::{Bot, Step};
use crate::ai::Level;
use crate::engine::{Effect, Move, Position, Side, Sticks, Target};
use crate::fairness::{seed_hash, sticks_for};
use crate::protocol::{
    Action, CancelReason, ClientSeeds, EffectName, EndReason, ErrorCode, Event, GameResult,
    LegalMove, Mode, OffMarker, Phase, PlayerState, Players, Presence, Seat, State, Status, Throw,
    To, UnixMs, Version, Winner,
};
use crate::secrets::TokenHash;
use crate::store::{RoomRow, SeatRow};

/// Why an action (or a join) is refused: sent to the actor only.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ActionError {
    pub code: ErrorCode,
    pub message: String,
    /// For `illegal_move`: the engine's reason code.
    pub reason: Option<&'static str>,
}

impl ActionError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> ActionError {
        ActionError {
            code,
            message: message.into(),
            reason: None,
        }
    }
}

fn refuse<T>(code: ErrorCode, message: impl Into<String>) -> Result<T, ActionError> {
    Err(ActionError::new(code, message))
}

/// What a decision may depend on besides the state.
#[derive(Clone, Debug)]
pub struct Context {
    pub now: UnixMs,
    pub abandon_after_ms: i64,
    /// Whether each side (black, white) has an open connection.
    pub connected: [bool; 2],
    /// The id a rematch room would get; needed only for [`Action::Rematch`].
    pub rematch_room: Option<String>,
}

fn index(side: Side) -> usize {
    match side {
        Side::Black => 0,
        Side::White => 1,
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

#[derive(Clone, Debug)]
pub struct Game {
    room: RoomRow,
    seed_hash: String,
    position: Position,
    stage: Stage,
    /// The players' seeds as logged in `started`: part of every throw.
    client_seeds: ClientSeeds,
    /// Number of the next throw (0, 1, 2, ...): fixes it through the seed.
    throws: u32,
    draw_offer: Option<Side>,
    presence: [Presence; 2],
    rematch_offers: [bool; 2],
    rematch: Option<String>,
    v: Version,
}

impl Game {
    /// A room with no events yet.
    pub fn new(room: RoomRow) -> Game {
        let absent = Presence {
            connected: false,
            claim_at: None,
        };
        Game {
            seed_hash: seed_hash(&room.seed),
            room,
            position: Position::start(),
            stage: Stage::Waiting,
            client_seeds: ClientSeeds {
                black: String::new(),
                white: String::new(),
            },
            throws: 0,
            draw_offer: None,
            presence: [absent; 2],
            rematch_offers: [false; 2],
            rematch: None,
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

    pub fn row(&self) -> &RoomRow {
        &self.room
    }

    /// The computer's seat, in `ai` rooms.
    pub fn bot(&self) -> Option<Bot> {
        Bot::of_room(&self.room)
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

    pub fn is_over(&self) -> bool {
        matches!(self.stage, Stage::Over(_))
    }

    fn is_playing(&self) -> bool {
        matches!(self.stage, Stage::Roll | Stage::Move { .. })
    }

    fn seat_row(&self, side: Side) -> Option<&SeatRow> {
        match side {
            Side::Black => self.room.black.as_ref(),
            Side::White => self.room.white.as_ref(),
        }
    }

    fn client_seed(&self, side: Side) -> String {
        self.seat_row(side)
            .map(|seat| seat.client_seed.clone())
            .unwrap_or_default()
    }

    // ------------------------------------------------------------ seats

    /// The seat a token holds; spectators hold none.
    pub fn seat_of(&self, token_hash: &TokenHash) -> Seat {
        let holds = |side| {
            self.seat_row(side)
                .is_some_and(|s| &s.token_hash == token_hash)
        };
        match (holds(Side::Black), holds(Side::White)) {
            (true, true) => Seat::Both,
            (true, false) => Seat::Black,
            (false, true) => Seat::White,
            (false, false) => Seat::Spectator,
        }
    }

    /// The seat a joiner gets: the one asked for, or any free one.
    pub fn free_seat(&self, wanted: Option<Side>) -> Result<Side, ActionError> {
        let free = |side: &Side| self.seat_row(*side).is_none();
        match wanted {
            Some(side) if free(&side) => Ok(side),
            Some(side) => refuse(ErrorCode::RoomFull, format!("the {side} seat is taken")),
            None => Side::BOTH
                .into_iter()
                .find(free)
                .ok_or_else(|| ActionError::new(ErrorCode::RoomFull, "both seats are taken")),
        }
    }

    /// Records a seat taken in the store (by this instance or another).
    pub fn set_seats(&mut self, black: Option<SeatRow>, white: Option<SeatRow>) {
        self.room.black = black;
        self.room.white = white;
    }

    /// The `started` event, once both seats are taken and it was not sent.
    pub fn start_event(&self) -> Option<Event> {
        let ready =
            self.stage == Stage::Waiting && self.room.black.is_some() && self.room.white.is_some();
        ready.then(|| Event::Started {
            position: Position::start().to_string(),
            turn: Position::start().turn(),
            seed_hash: self.seed_hash.clone(),
            client_seeds: ClientSeeds {
                black: self.client_seed(Side::Black),
                white: self.client_seed(Side::White),
            },
        })
    }

    // ------------------------------------------------------------ apply

    /// Folds the event numbered `v` into the state. Events come from this
    /// module's own decisions, so they are trusted to be legal.
    pub fn apply(&mut self, v: Version, event: &Event) {
        self.v = v;
        match event {
            Event::Started { client_seeds, .. } => {
                self.client_seeds = client_seeds.clone();
                self.stage = Stage::Roll;
            }
            Event::Rolled { sticks, .. } => {
                self.throws += 1;
                self.stage = Stage::Move {
                    sticks: Sticks::from_faces(*sticks),
                };
            }
            Event::Moved { from, .. } => {
                let Stage::Move { sticks } = self.stage else {
                    unreachable!("a move follows a throw")
                };
                let (position, _) = self
                    .position
                    .play(*from, sticks.roll())
                    .expect("logged moves are legal");
                self.position = position;
                // The game-over event that follows a winning move sets Over.
                self.stage = Stage::Roll;
            }
            Event::Passed { .. } => {
                self.position = self.position.pass();
                self.stage = Stage::Roll;
            }
            Event::DrawOffered { side } => self.draw_offer = Some(*side),
            Event::DrawCancelled { .. } => self.draw_offer = None,
            Event::Presence { black, white } => self.presence = [*black, *white],
            Event::GameOver { winner, reason, .. } => {
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

    // ------------------------------------------------------------ decide

    /// Judges `action` by the holder of `seat`. On success the events to
    /// persist (in order); the state itself is unchanged.
    pub fn decide(
        &self,
        seat: Seat,
        action: Action,
        ctx: &Context,
    ) -> Result<Vec<Event>, ActionError> {
        let side = self.acting_side(seat, action)?;
        let mut events = match action {
            Action::Roll => self.decide_roll(side)?,
            Action::Move { from } => self.decide_move(side, from)?,
            Action::Resign => vec![self.game_over(side.other().into(), EndReason::Resign)],
            Action::DrawOffer => self.decide_draw_offer(side)?,
            Action::DrawAccept => self.decide_draw_accept(side)?,
            Action::DrawDecline => self.decide_draw_decline(side)?,
            Action::ClaimVictory => self.decide_claim(side, ctx)?,
            Action::Rematch => self.decide_rematch(side, ctx)?,
        };
        let mut after = self.clone();
        for (i, event) in events.iter().enumerate() {
            after.apply(self.v + 1 + i as Version, event);
        }
        events.extend(after.presence_update(ctx));
        Ok(events)
    }

    /// Who acts, after the checks every action shares: a seat, and a game in
    /// the right stage. A `both` seat acts for the side to move.
    fn acting_side(&self, seat: Seat, action: Action) -> Result<Side, ActionError> {
        let side = match seat {
            Seat::Spectator => return refuse(ErrorCode::NotSeated, "spectators cannot act"),
            Seat::Both => self.position.turn(),
            Seat::Black => Side::Black,
            Seat::White => Side::White,
        };
        match (self.stage, action) {
            (Stage::Over(_), Action::Rematch) => Ok(side),
            (_, Action::Rematch) => refuse(
                ErrorCode::RematchNotAvailable,
                "a rematch is possible once the game is over",
            ),
            (Stage::Over(_), _) => refuse(ErrorCode::GameOver, "the game is over"),
            (Stage::Waiting, _) => refuse(
                ErrorCode::GameNotStarted,
                "the game starts when both seats are taken",
            ),
            _ => Ok(side),
        }
    }

    fn check_turn(&self, side: Side) -> Result<(), ActionError> {
        if side == self.position.turn() {
            Ok(())
        } else {
            refuse(
                ErrorCode::NotYourTurn,
                format!("it is {}'s turn", self.position.turn()),
            )
        }
    }

    fn decide_roll(&self, side: Side) -> Result<Vec<Event>, ActionError> {
        self.check_turn(side)?;
        if let Stage::Move { sticks } = self.stage {
            let value = sticks.roll();
            return refuse(
                ErrorCode::AlreadyRolled,
                format!("you already threw a {value}: move a piece"),
            );
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
        let mut events = Vec::with_capacity(3);
        if self.draw_offer == Some(side.other()) {
            events.push(Event::DrawCancelled {
                side: side.other(),
                why: CancelReason::Lapsed,
            });
        }
        events.push(Event::Rolled {
            side,
            n: self.throws,
            sticks: sticks.faces(),
            value: roll.value(),
            legal: legal.iter().map(legal_move).collect(),
        });
        if legal.is_empty() {
            events.push(Event::Passed {
                side,
                value: roll.value(),
                next: side.other(),
            });
        }
        Ok(events)
    }

    fn decide_move(&self, side: Side, from: u8) -> Result<Vec<Event>, ActionError> {
        self.check_turn(side)?;
        let Stage::Move { sticks } = self.stage else {
            return refuse(ErrorCode::MustRoll, "throw the sticks before moving");
        };
        let (after, mv) =
            self.position
                .play(from, sticks.roll())
                .map_err(|illegal| ActionError {
                    code: ErrorCode::IllegalMove,
                    message: illegal.to_string(),
                    reason: Some(illegal.code()),
                })?;
        let mut events = vec![moved_event(side, &mv, &after)];
        if let Some(winner) = after.winner() {
            events.push(self.game_over(winner.into(), EndReason::BorneOff));
        }
        Ok(events)
    }

    fn check_draw_allowed(&self) -> Result<(), ActionError> {
        if self.room.mode == Mode::Online {
            Ok(())
        } else {
            refuse(
                ErrorCode::DrawNotAllowed,
                "draw offers need two players: there is no one to offer a draw to here",
            )
        }
    }

    fn decide_draw_offer(&self, side: Side) -> Result<Vec<Event>, ActionError> {
        self.check_draw_allowed()?;
        match self.draw_offer {
            Some(offerer) if offerer == side => {
                refuse(ErrorCode::BadRequest, "you have already offered a draw")
            }
            Some(_) => refuse(
                ErrorCode::BadRequest,
                "your opponent has offered a draw: accept or decline it",
            ),
            None => Ok(vec![Event::DrawOffered { side }]),
        }
    }

    fn decide_draw_accept(&self, side: Side) -> Result<Vec<Event>, ActionError> {
        self.check_draw_allowed()?;
        if self.draw_offer != Some(side.other()) {
            return refuse(
                ErrorCode::NoDrawOffer,
                "your opponent has not offered a draw",
            );
        }
        Ok(vec![self.game_over(Winner::Draw, EndReason::Agreement)])
    }

    fn decide_draw_decline(&self, side: Side) -> Result<Vec<Event>, ActionError> {
        self.check_draw_allowed()?;
        let why = match self.draw_offer {
            None => return refuse(ErrorCode::NoDrawOffer, "there is no draw offer"),
            Some(offerer) if offerer == side => CancelReason::Withdrawn,
            Some(_) => CancelReason::Declined,
        };
        Ok(vec![Event::DrawCancelled {
            side: self.draw_offer.expect("checked above"),
            why,
        }])
    }

    fn decide_claim(&self, side: Side, ctx: &Context) -> Result<Vec<Event>, ActionError> {
        if self.room.mode != Mode::Online {
            return refuse(ErrorCode::CannotClaim, "only online games can be abandoned");
        }
        let opponent = self.presence[index(side.other())];
        match opponent.claim_at {
            Some(at) if !opponent.connected && at <= ctx.now => {
                Ok(vec![self.game_over(side.into(), EndReason::Abandon)])
            }
            Some(at) => refuse(
                ErrorCode::CannotClaim,
                format!(
                    "your opponent may still come back: wait {} ms",
                    at - ctx.now
                ),
            ),
            None => refuse(
                ErrorCode::CannotClaim,
                "your opponent is connected or it is not their turn",
            ),
        }
    }

    fn decide_rematch(&self, side: Side, ctx: &Context) -> Result<Vec<Event>, ActionError> {
        if let Some(room) = &self.rematch {
            return refuse(
                ErrorCode::RematchNotAvailable,
                format!("the rematch is already open in room {room}"),
            );
        }
        let both_asked = self.room.mode != Mode::Online || self.rematch_offers[index(side.other())];
        if !both_asked {
            if self.rematch_offers[index(side)] {
                return refuse(ErrorCode::BadRequest, "you already asked for a rematch");
            }
            return Ok(vec![Event::RematchOffered { side }]);
        }
        let room = ctx
            .rematch_room
            .clone()
            .ok_or_else(|| ActionError::new(ErrorCode::Internal, "no rematch room id"))?;
        Ok(vec![Event::Rematch { room }])
    }

    fn game_over(&self, winner: Winner, reason: EndReason) -> Event {
        Event::GameOver {
            winner,
            reason,
            seed: hex::encode(self.room.seed),
        }
    }

    /// The `presence` event that brings the log up to date with who is
    /// connected, if anything changed. A side that is absent on its own turn
    /// in a running online game gets a `claim_at`, kept once set so that the
    /// countdown does not restart on unrelated changes.
    pub fn presence_update(&self, ctx: &Context) -> Option<Event> {
        let current = |side: Side| {
            let connected = ctx.connected[index(side)];
            let countdown = self.room.mode == Mode::Online
                && self.is_playing()
                && !connected
                && self.position.turn() == side;
            let claim_at = countdown.then(|| {
                self.presence[index(side)]
                    .claim_at
                    .unwrap_or(ctx.now + ctx.abandon_after_ms)
            });
            Presence {
                connected,
                claim_at,
            }
        };
        let next = [current(Side::Black), current(Side::White)];
        (next != self.presence).then_some(Event::Presence {
            black: next[0],
            white: next[1],
        })
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

    pub fn players(&self) -> Players {
        let player = |side: Side| {
            let presence = self.presence[index(side)];
            PlayerState {
                seated: self.seat_row(side).is_some(),
                connected: presence.connected,
                claim_at: presence.claim_at,
            }
        };
        Players {
            black: player(Side::Black),
            white: player(Side::White),
        }
    }

    /// The full state a client draws; `spectators` is live, not logged.
    pub fn state(&self, spectators: usize) -> State {
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
            players: self.players(),
            spectators,
            draw_offer: self.draw_offer,
            result: self.result(),
            seed_hash: self.seed_hash.clone(),
            rematch_offers: Side::BOTH
                .into_iter()
                .filter(|&side| self.rematch_offers[index(side)])
                .collect(),
            rematch: self.rematch.clone(),
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

fn moved_event(side: Side, mv: &Move, after: &Position) -> Event {
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::hash_token;

    fn seat(token: &str) -> SeatRow {
        SeatRow {
            token_hash: hash_token(token),
            client_seed: format!("{token}-seed"),
        }
    }

    fn started_game(mode: Mode) -> Game {
        let mut game = Game::new(RoomRow {
            id: "0123456789abcdef0123456789abcdef".into(),
            mode,
            seed: [3; 32],
            created_at: 0,
            black: Some(seat("b")),
            white: Some(seat("w")),
        });
        let started = game.start_event().expect("both seats are taken");
        game.apply(1, &started);
        game
    }

    fn ctx() -> Context {
        Context {
            now: 1_000,
            abandon_after_ms: 60_000,
            connected: [true, true],
            rematch_room: Some("next".into()),
        }
    }

    /// Decides and applies, as the room task does after persisting.
    fn act(game: &mut Game, seat: Seat, action: Action) -> Result<Vec<Event>, ActionError> {
        let events = game.decide(seat, action, &ctx())?;
        for event in &events {
            game.apply(game.version() + 1, event);
        }
        Ok(events)
    }

    /// Whole local games through decide/apply: at every move, each square
    /// that is not a legal `from` is refused with the engine's own reason and
    /// leaves the state as it was. Over a few games every reason shows up.
    #[test]
    fn every_refused_move_carries_the_engine_reason_and_changes_nothing() {
        let mut reasons = std::collections::BTreeSet::new();
        for game_number in 0..20u8 {
            let mut room = started_game(Mode::Local).row().clone();
            room.seed = [game_number; 32];
            let mut game = Game::new(room);
            let started = game.start_event().unwrap();
            game.apply(1, &started);
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
                let before = game.state(0);
                let roll = crate::engine::Roll::new(*value).unwrap();
                let position: Position = before.position.parse().unwrap();
                for from in 0..=31u8 {
                    if legal.iter().any(|m| m.from == from) {
                        continue;
                    }
                    let refused = game
                        .decide(Seat::Both, Action::Move { from }, &ctx())
                        .unwrap_err();
                    assert_eq!(refused.code, ErrorCode::IllegalMove);
                    let expected = position.check(from, roll).unwrap_err().code();
                    assert_eq!(refused.reason, Some(expected));
                    reasons.insert(expected);
                }
                assert_eq!(game.state(0), before);
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
    fn seats_are_found_by_token_hash() {
        let game = started_game(Mode::Online);
        assert_eq!(game.seat_of(&hash_token("b")), Seat::Black);
        assert_eq!(game.seat_of(&hash_token("w")), Seat::White);
        assert_eq!(game.seat_of(&hash_token("x")), Seat::Spectator);
    }

    #[test]
    fn turn_order_errors_leave_the_state_unchanged() {
        let mut game = started_game(Mode::Online);
        let before = game.state(0);
        let code = |r: Result<Vec<Event>, ActionError>| r.unwrap_err().code;
        let c = ctx();
        assert_eq!(
            code(game.decide(Seat::White, Action::Roll, &c)),
            ErrorCode::NotYourTurn
        );
        let mv = Action::Move { from: 10 };
        assert_eq!(code(game.decide(Seat::Black, mv, &c)), ErrorCode::MustRoll);
        let spectate = game.decide(Seat::Spectator, Action::Roll, &c);
        assert_eq!(code(spectate), ErrorCode::NotSeated);
        assert_eq!(game.state(0), before);
        act(&mut game, Seat::Black, Action::Roll).unwrap();
        let twice = game.decide(Seat::Black, Action::Roll, &c);
        assert_eq!(code(twice), ErrorCode::AlreadyRolled);
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
        assert_eq!(refused.unwrap_err().code, ErrorCode::DrawNotAllowed);
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
        assert_eq!(game.state(0).draw_offer, None);
    }

    #[test]
    fn absence_on_own_turn_starts_a_countdown_that_a_claim_needs() {
        let mut game = started_game(Mode::Online);
        let mut c = ctx();
        c.connected = [false, true];
        let presence = game.presence_update(&c).expect("black left");
        game.apply(2, &presence);
        assert_eq!(game.players().black.claim_at, Some(61_000));
        let early = game.decide(Seat::White, Action::ClaimVictory, &c);
        assert_eq!(early.unwrap_err().code, ErrorCode::CannotClaim);
        c.now = 61_000;
        let events = game.decide(Seat::White, Action::ClaimVictory, &c).unwrap();
        assert!(matches!(
            events[0],
            Event::GameOver {
                winner: Winner::White,
                reason: EndReason::Abandon,
                ..
            }
        ));
    }
}
