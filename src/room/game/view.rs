//! What the game shows: its phase and status, the summary the lobby lists, the players, and the
//! full state a client draws; the engine's moves in the wire's terms.

use super::{Game, Stage, index};
use crate::engine::{Move, Position, Roll, Side, Target};
use crate::protocol::{
    ClientSeeds, GameResult, LegalMove, OffMarker, Phase, PlayerState, Players, RefusedMove,
    RoomSummary, Seat, State, Status, Throw, To, UnixMs,
};

impl Game {
    pub fn phase(&self) -> Phase {
        match self.stage {
            Stage::Waiting => Phase::Waiting,
            Stage::Roll => Phase::Roll,
            Stage::Move { .. } => Phase::Move,
            Stage::Over(..) => Phase::Over,
        }
    }

    pub fn status(&self) -> Status {
        match self.stage {
            Stage::Waiting => Status::Waiting,
            Stage::Over(..) => Status::Finished,
            _ => Status::Playing,
        }
    }

    pub fn result(&self) -> Option<GameResult> {
        match self.stage {
            Stage::Over(winner, reason) => Some(GameResult {
                winner,
                reason,
                note: self.note.as_deref().map(str::to_owned),
            }),
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
        let (throw, legal, refused) = match self.stage {
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
                refused_moves(&self.position, sticks.roll()),
            ),
            _ => (None, Vec::new(), Vec::new()),
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
            refused,
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
            // Each connection's own: see [`Game::state_for`].
            chat: Default::default(),
            v: self.v,
        }
    }

    /// [`Game::state`] with the chat `seat` may read.
    pub fn state_for(&self, seat: Seat, spectators: usize, now: UnixMs) -> State {
        State {
            chat: self.chat_state(seat),
            ..self.state(spectators, now)
        }
    }
}

pub(super) fn legal_move(mv: &Move) -> LegalMove {
    LegalMove {
        from: mv.from,
        to: to_wire(mv.to),
    }
}

/// The pieces of the side to move that cannot use `roll`, each with the engine's reason code.
pub(super) fn refused_moves(position: &Position, roll: Roll) -> Vec<RefusedMove> {
    position
        .refusals(roll)
        .map(|(from, reason)| RefusedMove {
            from,
            reason: reason.code().to_string(),
        })
        .collect()
}

pub(super) fn to_wire(target: Target) -> To {
    match target {
        Target::Square(square) => To::Square(square),
        Target::Off => To::Off(OffMarker::Off),
    }
}
