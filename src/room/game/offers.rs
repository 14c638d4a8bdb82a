//! What one side offers the other: a draw (online only, once per turn of one's own) and a
//! rematch (online both must ask; elsewhere one asks for both).

use super::{Game, index};
use crate::engine::Side;
use crate::protocol::{CancelReason, EndReason, Event, Mode, UnixMs, Winner};
use crate::room::error::Refusal;
use crate::secrets::rematch_room_id;

impl Game {
    fn check_draw_allowed(&self) -> Result<(), Refusal> {
        if self.room.mode == Mode::Online {
            Ok(())
        } else {
            Err(Refusal::DrawNotAllowed)
        }
    }

    pub(super) fn decide_draw_offer(&self, side: Side) -> Result<Event, Refusal> {
        self.check_draw_allowed()?;
        match self.draw_offer {
            Some(offerer) if offerer == side => Err(Refusal::DrawAlreadyOffered),
            Some(_) => Err(Refusal::DrawOfferPending),
            None if self.draw_offer_spent[index(side)] => Err(Refusal::DrawOfferSpent),
            None => Ok(Event::DrawOffered { side }),
        }
    }

    pub(super) fn decide_draw_accept(&self, side: Side, now: UnixMs) -> Result<Event, Refusal> {
        self.check_draw_allowed()?;
        if self.draw_offer != Some(side.other()) {
            return Err(Refusal::NoDrawToAccept);
        }
        Ok(self.game_over(Winner::Draw, EndReason::Agreement, now))
    }

    pub(super) fn decide_draw_decline(&self, side: Side) -> Result<Event, Refusal> {
        self.check_draw_allowed()?;
        let offerer = self.draw_offer.ok_or(Refusal::NoDrawToDecline)?;
        let why = if offerer == side {
            CancelReason::Withdrawn
        } else {
            CancelReason::Declined
        };
        Ok(Event::DrawCancelled { side: offerer, why })
    }

    /// Online, both players must ask; elsewhere one asks for both. The rematch's room is
    /// named after this one, so whoever decides it names the same room.
    pub(super) fn decide_rematch(&self, side: Side) -> Result<Event, Refusal> {
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
}
