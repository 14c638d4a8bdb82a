//! Who is connected, as the log says it, and the claim it allows: the side to move of an online
//! game that stays away (or, untimed, idles) past its countdown may be claimed against.

use super::{Context, Decision, Game, Next, index};
use crate::engine::Side;
use crate::protocol::{EndReason, Event, Mode, Presence, UnixMs};
use crate::room::bounds::CHATTER_UNTIL;
use crate::room::error::Refusal;

impl Game {
    /// The `presence` event that brings the log up to date with who is connected, as a
    /// decision (empty if nothing changed).
    pub fn decide_presence(&self, ctx: &Context) -> Decision {
        let mut next = Next::from(self, ctx.now);
        if let Some(presence) = self.presence_update(ctx) {
            next.push(presence);
        }
        next.done()
    }

    pub(super) fn decide_claim(&self, side: Side, ctx: &Context) -> Result<Event, Refusal> {
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

    /// The `presence` event that brings the log up to date with who is
    /// connected and when a claim becomes possible, if anything changed. Only
    /// the side to move of a running online game gets a `claim_at`.
    pub(super) fn presence_update(&self, ctx: &Context) -> Option<Event> {
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
    /// is kept for the rest of the turn, so coming back for a moment does not restart it. An
    /// absence while a drain has paused the clock is the operator's doing (the player's socket
    /// was closed for them): it starts no countdown until the clock is resumed. In correspondence
    /// nobody is expected to stay: no countdown, the clock's allowance ends the turn.
    fn claim_at(&self, side: Side, connected: bool, ctx: &Context) -> Option<UnixMs> {
        if self.is_correspondence() {
            return None;
        }
        let idle = self
            .clock
            .is_none()
            .then(|| self.turn_began + ctx.idle_turn_after_ms);
        let kept = self.presence[index(side)]
            .claim_at
            .filter(|&at| Some(at) != idle);
        let absent = match connected || self.paused_for().is_some() {
            true => kept,
            false => Some(kept.unwrap_or(ctx.now + ctx.abandon_after_ms)),
        };
        idle.into_iter().chain(absent).min()
    }
}
