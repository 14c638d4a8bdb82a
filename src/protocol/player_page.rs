//! The read-only player routes' bodies (issue 29's contract): a player's page
//! (`GET /api/players/{id}`, `GET /api/players?name=`) and the leaderboard (`GET /api/top`).

use serde::{Deserialize, Serialize};

use super::UnixMs;
use super::players::{Change, Player, PlayerRef};

/// A player with their rating history and their recent games.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PlayerPage {
    #[serde(flatten)]
    pub player: Player,
    /// Rating changes, newest first.
    pub history: Vec<HistoryEntry>,
    /// Finished games, rated or casual, newest first.
    pub recent: Vec<RecentGame>,
}

/// One rated game's change to the page's player.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HistoryEntry {
    pub room: String,
    pub at: UnixMs,
    pub opponent: PlayerRef,
    /// The page's player's points: 1, 0.5 or 0.
    pub score: f64,
    pub before: Change,
    pub after: Change,
}

/// A finished game the page's player sat in.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RecentGame {
    pub room: String,
    pub at: UnixMs,
    /// `None`: the other seat was taken without an identity.
    pub opponent: Option<PlayerRef>,
    /// The page's player's points: 1, 0.5 or 0; `None` for a game the operator ended without
    /// a result.
    pub score: Option<f64>,
    pub rated: bool,
}

/// `GET /api/top`: the best non-provisional players active lately, best first.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Top {
    pub players: Vec<Player>,
}

/// `GET /api/me/turns`: the asking player's correspondence games where they are to move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct YourTurn {
    /// The asking player's id; `None` without an identity (so a page learns who asks without a
    /// 404 from `GET /api/me`).
    pub player: Option<String>,
    /// Soonest due first.
    pub games: Vec<TurnGame>,
}

/// A correspondence game waiting for the asking player's move.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TurnGame {
    pub room: String,
    /// When the player's days for this move run out (the clock's timeout), unix ms.
    pub due_at: UnixMs,
    /// `None`: the other seat is not bound to a player.
    pub opponent: Option<PlayerRef>,
}
