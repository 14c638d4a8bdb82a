//! What a player is as stored: the rows the players' store reads and writes and its error, below
//! the store ([`super::store`], which re-exports them for the rest of the crate), the replay of
//! rated games ([`super::replay`]) and what is shown of them ([`super::shown`]), which all use them.

use skillratings::glicko2::Glicko2Rating;

use super::rating::{Score, Standing};
use crate::protocol::{UnixMs, Winner};

/// A player as stored.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerRow {
    pub id: String,
    /// The chosen name; `None` while unnamed (shown as [`super::name::generated_name`]) and
    /// once deleted.
    pub name: Option<String>,
    pub created_at: UnixMs,
    pub named_at: Option<UnixMs>,
    pub deleted_at: Option<UnixMs>,
    pub standing: Standing,
    pub wins: i64,
    pub losses: i64,
    pub draws: i64,
}

/// Who sits in a room's seats by identity, and whether its game is rated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RoomPlayers {
    pub rated: bool,
    pub black: Option<String>,
    pub white: Option<String>,
}

/// A finished game the rated-game rule accepted so far (the pair limit is judged by the store,
/// under the players' locks).
#[derive(Clone, Debug, PartialEq)]
pub struct FinishedGame {
    pub room: String,
    pub black: String,
    pub white: String,
    pub score: Score,
    /// The `game-over` event's time.
    pub at: UnixMs,
}

/// One player's change from one rated game.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Change {
    pub seq: i64,
    /// As of the game: the stored rating with its idle days' growth.
    pub before: Glicko2Rating,
    pub after: Glicko2Rating,
}

/// A rated game as numbered, for the history and for `senet ratings verify`.
#[derive(Clone, Debug, PartialEq)]
pub struct RatedGameRow {
    pub seq: i64,
    pub room: String,
    pub black: String,
    pub white: String,
    /// Black's points.
    pub score: f64,
    pub at: UnixMs,
}

/// What `PlayerStore::rate_game` did.
#[derive(Clone, Debug, PartialEq)]
pub enum Rated {
    /// Both changes, black's first.
    Changed([Change; 2]),
    /// Not rated: the pair's limit of rated games was reached.
    PairLimit,
    /// The room's game was rated already (nothing written again).
    Already,
}

/// A change with its game, as `GET /api/players/{id}` lists it.
#[derive(Clone, Debug, PartialEq)]
pub struct HistoryRow {
    pub change: Change,
    pub room: String,
    pub at: UnixMs,
    pub black: String,
    pub white: String,
    /// Black's points.
    pub score: f64,
}

/// A finished game a player sat in, rated or casual (the player page's recent games).
#[derive(Clone, Debug, PartialEq)]
pub struct RecentGameRow {
    pub room: String,
    /// The `game-over` event's time.
    pub at: UnixMs,
    /// The players bound to the seats (`None`: a seat taken without an identity).
    pub black: Option<String>,
    pub white: Option<String>,
    /// Black's points if the game was rated.
    pub rated_score: Option<f64>,
    pub winner: Winner,
}

#[derive(Debug, thiserror::Error)]
pub enum PlayerError {
    /// The request's own player: no cookie, or one that names nobody (unknown or deleted).
    #[error("no such player")]
    UnknownPlayer,
    /// A player looked up by id or name (a player page): no player has it.
    #[error("no player has this id or name")]
    NotFound,
    #[error("this name is taken")]
    NameTaken,
    #[error("a name may be changed once a week")]
    RenameTooSoon,
    #[error("no such transfer code")]
    BadCode,
    #[error("this transfer code has expired")]
    ExpiredCode,
    #[error("corrupt stored data: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
    /// Migrating on open failed, or this binary cannot run on the database's schema.
    #[error(transparent)]
    Schema(#[from] crate::store::StoreError),
}
