//! WebSocket frames from the server to one connection ([`Reply`]) and the room state they carry.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use strum::{EnumDiscriminants, EnumIter, IntoStaticStr};

use super::chat::ChatState;
use super::players::{Change, PlayerRef};
use super::{
    ClientSeeds, Clocks, EndReason, ErrorCode, LegalMove, Mode, RefusedMove, Seat, TimeControl,
    UnixMs, Version, Winner,
};
use crate::ai::Level;
use crate::engine::Side;

/// The version of the wire protocol this server speaks, in every `welcome`. It only grows, by
/// one for each release whose protocol grew (new messages or fields; nothing is renamed or
/// removed, docs/UPGRADES.md): 1 is 0.1.0's, which did not send it.
pub const PROTOCOL: u32 = 2;

fn first_protocol() -> u32 {
    1
}

/// Messages sent to one connection only. [`ReplyKind`] names the variants without their data
/// (its names are serde's, checked by a test).
#[derive(Debug, Serialize, Deserialize, EnumDiscriminants)]
#[serde(tag = "t", content = "d", rename_all = "kebab-case")]
#[strum_discriminants(
    name(ReplyKind),
    derive(EnumIter, IntoStaticStr),
    strum(serialize_all = "kebab-case")
)]
pub enum Reply {
    Welcome {
        /// The wire protocol's version ([`PROTOCOL`]): a page built for an older one knows the
        /// server was upgraded under it (docs/UPGRADES.md). 0.1.0 sent none (version 1).
        #[serde(default = "first_protocol")]
        protocol: u32,
        seat: Seat,
        state: State,
        /// This socket carries a player's cookie: a spectator may chat (docs/PROTOCOL.md, Chat).
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        identified: bool,
    },
    State {
        #[serde(flatten)]
        state: State,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
    },
    Ack {
        id: Option<Value>,
        v: Version,
    },
    Error {
        code: ErrorCode,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        id: Option<Value>,
    },
    Pong {
        id: Option<Value>,
    },
    /// After a rematch: where this connection's player sits now.
    Seat {
        room: String,
        url: String,
        seat: Seat,
        token: String,
    },
    /// Not versioned, not persisted.
    Watchers {
        count: usize,
    },
    /// To every socket of a room, after a rated game's `game-over` (committed in the same
    /// transaction): both players' ratings before and after. Not versioned.
    Rated(RatingChanges),
}

impl Reply {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("replies always serialize")
    }
}

/// Everything a client needs to draw a room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub room: String,
    pub mode: Mode,
    /// The computer's level, in `ai` rooms only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    pub position: String,
    pub turn: Side,
    pub phase: Phase,
    pub throw: Option<Throw>,
    pub legal: Vec<LegalMove>,
    /// The pieces of the side to move that cannot use the throw, and why (phase `move` only).
    #[serde(default)]
    pub refused: Vec<RefusedMove>,
    /// The square of the engine's move for the current throw once a hint was shown (practice
    /// rooms), so a page opened again shows it too.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hint: Option<u8>,
    pub players: Players,
    pub spectators: usize,
    pub draw_offer: Option<Side>,
    /// Sides that offered a draw in this turn of theirs: they may offer again once their
    /// opponent has moved (a page disables its offer button meanwhile).
    pub draw_offers_spent: Vec<Side>,
    pub result: Option<GameResult>,
    pub seed_hash: String,
    /// Both sides' client seeds as logged so far (`""` for a side that set none).
    pub client_seeds: ClientSeeds,
    /// Whether a seated player may still send `seed`: from `started` until the first throw. A
    /// page sends its own seed when it sees this.
    pub client_seeds_open: bool,
    /// Sides that asked for a rematch and are waiting for the other.
    pub rematch_offers: Vec<Side>,
    pub rematch: Option<String>,
    /// The clocks of a timed game (`null` when untimed).
    pub clock: Option<ClockState>,
    /// The game was created rated: its result changes both players' ratings.
    #[serde(default)]
    pub rated: bool,
    /// A finished rated game's rating changes, as the `rated` event told them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratings: Option<RatingChanges>,
    /// The room's chat as this connection may read it (online rooms; issue 33).
    #[serde(default)]
    pub chat: ChatState,
    pub v: Version,
}

/// A rated game's changes to both players (the `rated` event, a finished game's `ratings`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RatingChanges {
    pub black: BeforeAfter,
    pub white: BeforeAfter,
}

/// One player's rating before and after a rated game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BeforeAfter {
    pub before: Change,
    pub after: Change,
}

/// A timed game's clocks as the state is made: a page runs the `running` side's down from the
/// moment the state arrives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClockState {
    pub control: TimeControl,
    pub remaining: Clocks,
    /// The side whose time is running; `None` before the start and after the end.
    pub running: Option<Side>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Waiting,
    Roll,
    Move,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throw {
    pub sticks: [bool; 4],
    pub value: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Players {
    pub black: PlayerState,
    pub white: PlayerState,
}

/// A seat as a page draws it. The seat's player (issue 29), when it is bound to one, is
/// flattened in: `players.black.name`, `.rating`, ... are there for an identified player and
/// absent for an anonymous seat, the computer's or a local game's.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerState {
    pub seated: bool,
    pub connected: bool,
    pub claim_at: Option<UnixMs>,
    #[serde(flatten, default)]
    pub player: Option<PlayerRef>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    pub winner: Winner,
    pub reason: EndReason,
    /// The operator's words, when the operator ended the game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

#[cfg(test)]
mod tests {
    use strum::IntoEnumIterator;

    use super::*;

    /// One reply of each kind: the match is exhaustive, so a new kind must be added here.
    fn example(kind: ReplyKind) -> Reply {
        match kind {
            ReplyKind::Welcome => Reply::Welcome {
                protocol: PROTOCOL,
                seat: Seat::Spectator,
                state: example_state(),
                identified: false,
            },
            ReplyKind::State => Reply::State {
                state: example_state(),
                id: None,
            },
            ReplyKind::Ack => Reply::Ack { id: None, v: 1 },
            ReplyKind::Error => Reply::Error {
                code: ErrorCode::Internal,
                message: String::new(),
                reason: None,
                id: None,
            },
            ReplyKind::Pong => Reply::Pong { id: None },
            ReplyKind::Seat => Reply::Seat {
                room: String::new(),
                url: String::new(),
                seat: Seat::Black,
                token: String::new(),
            },
            ReplyKind::Watchers => Reply::Watchers { count: 0 },
            ReplyKind::Rated => {
                let change = Change {
                    rating: 1500,
                    deviation: 500,
                    provisional: true,
                };
                let side = BeforeAfter {
                    before: change,
                    after: change,
                };
                Reply::Rated(RatingChanges {
                    black: side,
                    white: side,
                })
            }
        }
    }

    fn example_state() -> State {
        let player = PlayerState {
            seated: false,
            connected: false,
            claim_at: None,
            player: None,
        };
        State {
            room: String::new(),
            mode: Mode::Online,
            level: None,
            position: String::new(),
            turn: Side::Black,
            phase: Phase::Waiting,
            throw: None,
            legal: Vec::new(),
            refused: Vec::new(),
            hint: None,
            players: Players {
                black: player.clone(),
                white: player,
            },
            spectators: 0,
            draw_offer: None,
            draw_offers_spent: Vec::new(),
            result: None,
            seed_hash: String::new(),
            client_seeds: ClientSeeds::default(),
            client_seeds_open: false,
            rematch_offers: Vec::new(),
            rematch: None,
            clock: None,
            rated: false,
            ratings: None,
            chat: ChatState::default(),
            v: 0,
        }
    }

    #[test]
    fn reply_kinds_are_the_wire_names() {
        for kind in ReplyKind::iter() {
            let reply: serde_json::Value = serde_json::from_str(&example(kind).to_json()).unwrap();
            assert_eq!(reply["t"], <&str>::from(kind));
        }
    }
}
