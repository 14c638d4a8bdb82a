//! HTTP request and response bodies (`/api/...`): what a room's creator, a joiner and a reader of
//! records send and get back.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use strum::EnumIter;

use super::{
    ClientSeeds, GameResult, Mode, Players, Seat, SideChoice, TimeControl, UnixMs, Version,
};
use crate::ai::Level;
use crate::engine::Side;

/// `POST /api/rooms`. `mode` stays a string so that an unknown or not yet
/// supported mode gets a clear message instead of a serde error. Unknown fields are refused:
/// a `client_seed` here (before the room exists) would be learnt before the room's seed is
/// committed, so it is refused rather than ignored; it is sent on the WebSocket (`seed`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CreateRoom {
    pub mode: String,
    #[serde(default)]
    pub side: SideChoice,
    /// The computer's strength in `ai` rooms (default `medium`); a string so
    /// that an unknown level gets a message naming the known ones.
    #[serde(default)]
    pub level: Option<String>,
    /// The time control, or `null` (the default) for an untimed game.
    #[serde(default)]
    pub clock: Option<TimeControl>,
    /// A rated game (online only, for a player with a cookie); casual by default.
    #[serde(default)]
    pub rated: bool,
}

/// The computer's level when a room against it names none: a fair game for most people.
pub const DEFAULT_LEVEL: Level = Level::Medium;

#[derive(Debug, Serialize, Deserialize)]
pub struct RoomCreated {
    pub room: String,
    pub url: String,
    pub seat: Seat,
    pub token: String,
}

/// `POST /api/rooms/{id}/join`; unknown fields are refused as in [`CreateRoom`].
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinRoom {
    #[serde(default)]
    pub side: Option<Side>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Joined {
    pub seat: Seat,
    pub token: String,
}

/// `GET /api/rooms/{id}`.
#[derive(Debug, Serialize, Deserialize)]
pub struct RoomSummary {
    pub room: String,
    pub mode: Mode,
    /// The computer's level, in `ai` rooms only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    pub status: Status,
    pub players: Players,
    pub spectators: usize,
    pub result: Option<GameResult>,
    /// Moves played so far.
    #[serde(default)]
    pub moves: u32,
}

/// A room's `status` in its summary (`GET /api/rooms/{id}`); the page reads it from
/// `web/js/protocol.js`'s `Status`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Waiting,
    Playing,
    Finished,
}

/// `GET /api/rooms/{id}/record`: everything needed to verify a game.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    pub room: String,
    pub mode: Mode,
    /// The computer's level, in `ai` rooms only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    /// The time control of a timed game.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock: Option<TimeControl>,
    pub seed_hash: String,
    /// Hex; only once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    pub client_seeds: ClientSeeds,
    pub events: Vec<RecordedEvent>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecordedEvent {
    pub v: Version,
    pub at: UnixMs,
    pub t: String,
    pub d: Value,
}

/// Every HTTP error body.
#[derive(Debug, Serialize, Deserialize)]
pub struct HttpError {
    pub error: String,
    pub message: String,
}
