//! A tournament's log: every fact that changes its pairings or standings is one of these
//! events, committed before anyone sees it, numbered from 1 in the tournament's own log. The
//! log alone recomputes everything ([`crate::tournament::verify`]). Kinds are added, never
//! renamed (a stored log outlives the code that wrote it).

use serde::{Deserialize, Serialize};

use super::pairing::Colour;
use crate::protocol::{TimeControl, UnixMs};

/// A tournament's format and its length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "format", rename_all = "lowercase")]
pub enum Format {
    /// Lasts `minutes` from the start; players are paired as they come free.
    Arena { minutes: u32 },
    /// `rounds` rounds, every player paired each round.
    Swiss { rounds: u32 },
}

/// What the creator chose, fixed at creation.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Settings {
    pub name: String,
    #[serde(flatten)]
    pub format: Format,
    pub clock: TimeControl,
    pub starts_at: UnixMs,
    pub rated: bool,
    /// The creator's public player id.
    pub creator: String,
    /// Ratings a registering player must be within, if set.
    pub min_rating: Option<i32>,
    pub max_rating: Option<i32>,
}

/// How a game of the tournament ended, from black's side of the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Black,
    White,
    Draw,
}

impl Outcome {
    /// The half-points of a plain result (win 2, draw 1, loss 0) to the player of `colour`.
    pub fn half_points(self, colour: Colour) -> u32 {
        match (self, colour) {
            (Outcome::Draw, _) => 1,
            (Outcome::Black, Colour::Black) | (Outcome::White, Colour::White) => 2,
            _ => 0,
        }
    }
}

/// A board of a pairing and the room its game is played in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PairedBoard {
    pub black: u32,
    pub white: u32,
    pub room: String,
}

/// How long a player in an Arena's waiting pool had waited when the pool was paired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Waited {
    pub player: u32,
    pub waited_ms: u64,
}

/// One entry of a tournament's log.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", content = "data", rename_all = "kebab-case")]
pub enum Event {
    Created(Settings),
    /// A player joins under the next number (1, 2, …) with their rating of the moment.
    Registered {
        player: u32,
        id: String,
        name: String,
        rating: i32,
    },
    /// A player leaves for good: never paired again; their games so far count.
    Withdrawn {
        player: u32,
    },
    /// An Arena player leaves the waiting pool, or comes back to it.
    Paused {
        player: u32,
    },
    Resumed {
        player: u32,
    },
    Started,
    Cancelled {
        reason: String,
    },
    /// A Swiss round (`round` ≥ 1, with its bye) or an Arena pairing of the waiting pool
    /// (`round` 0, with how long each player in the pool had waited).
    Paired {
        round: u32,
        boards: Vec<PairedBoard>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        bye: Option<u32>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        pool: Vec<Waited>,
    },
    /// A game's end, as its room's log says it.
    Result {
        room: String,
        outcome: Outcome,
    },
    Finished,
}

impl Event {
    /// The stored `kind` column and the `data` JSON of the event.
    pub fn to_stored(&self) -> (String, String) {
        let mut value = serde_json::to_value(self).expect("an event serializes");
        let kind = value["kind"]
            .as_str()
            .expect("every event has a kind")
            .to_owned();
        let data = value
            .get_mut("data")
            .map(std::mem::take)
            .unwrap_or(serde_json::Value::Null);
        (kind, data.to_string())
    }

    /// The event a stored `kind` and `data` hold.
    pub fn from_stored(kind: &str, data: &str) -> Result<Event, serde_json::Error> {
        let data: serde_json::Value = serde_json::from_str(data)?;
        let value = match data {
            serde_json::Value::Null => serde_json::json!({ "kind": kind }),
            data => serde_json::json!({ "kind": kind, "data": data }),
        };
        serde_json::from_value(value)
    }
}
