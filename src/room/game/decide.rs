//! Deciding an action: the checks every action shares, then the events of a client seed, a
//! throw, a move or a resignation (the offers, the claim and the hint have files of their own),
//! and the game's end.

use super::{Context, Decision, Game, Next, Stage, index, legal_move, refused_moves, to_wire};
use crate::engine::{Effect, Move, Position, Side};
use crate::fairness::sticks_for;
use crate::protocol::{
    Action, CancelReason, ClientSeed, Clocks, EffectName, EndReason, Event, Seat, UnixMs, Winner,
};
use crate::room::bounds::MAX_CLIENT_SEEDS;
use crate::room::error::Refusal;

impl Game {
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
            // A game the operator ended is not played on, not even in a new room.
            (Stage::Over(_, EndReason::Operator), _) => Err(Refusal::GameOver),
            (Stage::Over(..), Action::Rematch) => Ok(side),
            (_, Action::Rematch) => Err(Refusal::RematchBeforeTheEnd),
            (Stage::Over(..), _) => Err(Refusal::GameOver),
            (Stage::Waiting, _) => Err(Refusal::NotStarted),
            _ => Ok(side),
        }
    }

    pub(super) fn check_turn(&self, side: Side) -> Result<(), Refusal> {
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
            refused: refused_moves(&self.position, roll),
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

    /// The game's end at `now`, with the clocks of a timed game as they are then.
    pub fn game_over(&self, winner: Winner, reason: EndReason, now: UnixMs) -> Event {
        Event::GameOver {
            winner,
            reason,
            seed: hex::encode(self.room.seed),
            clocks: self.clocks_at(now, None),
            note: None,
        }
    }

    /// The server's operator ends the game being played (`senet admin end`): no winner, and
    /// `note` (why) logged with the end. Refused before the start, after the end, and once the
    /// side to move's time is out (its timeout is the end).
    pub fn decide_end(&self, note: &str, now: UnixMs) -> Result<Decision, Refusal> {
        if self.is_flagged(now) {
            return Err(Refusal::OutOfTime(self.position.turn()));
        }
        match self.stage {
            Stage::Waiting => return Err(Refusal::NotStarted),
            Stage::Over(..) => return Err(Refusal::GameOver),
            Stage::Roll | Stage::Move { .. } => {}
        }
        let mut next = Next::from(self, now);
        let mut over = self.game_over(Winner::None, EndReason::Operator, now);
        if let Event::GameOver { note: logged, .. } = &mut over {
            *logged = Some(note.to_owned());
        }
        next.push(over);
        Ok(next.done())
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
