//! Players on the wire (issue 29's contract, shared by the identity routes, the player pages and
//! the room's and lobby's frames): a [`PlayerRef`] beside a board or a seek, a whole [`Player`]
//! for `/api/me` and `/api/players`, and a rating [`Change`].

use serde::{Deserialize, Serialize};

use super::UnixMs;

/// A player as shown beside a board, a seek or a game in a list.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerRef {
    /// The public id, 16 hex digits.
    pub id: String,
    /// The chosen name; a generated one while unnamed; "deleted player" once deleted.
    pub name: String,
    pub named: bool,
    pub deleted: bool,
    /// Rounded to an integer.
    pub rating: i64,
    /// The deviation is still large: shown with `?`.
    pub provisional: bool,
}

/// Who sits in a game's seats by identity (a game in progress in the lobby); `None` for an
/// anonymous seat.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeatPlayers {
    pub black: Option<PlayerRef>,
    pub white: Option<PlayerRef>,
}

/// A whole player: `GET /api/me`, `POST /api/me` and the player pages.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Player {
    #[serde(flatten)]
    pub player: PlayerRef,
    /// Rounded to an integer.
    pub deviation: i64,
    pub volatility: f64,
    pub wins: i64,
    pub losses: i64,
    pub draws: i64,
    /// When the name was last chosen (renaming waits a week after it).
    pub renamed_at: Option<UnixMs>,
}

/// A rating as of one moment, as shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    pub rating: i64,
    pub deviation: i64,
    pub provisional: bool,
}

/// `PUT /api/me/name`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rename {
    pub name: String,
}

/// `POST /api/me/transfer`'s answer: the code to type on the other device.
#[derive(Debug, Serialize, Deserialize)]
pub struct TransferCode {
    pub code: String,
    pub expires_at: UnixMs,
}

/// `POST /api/me/redeem`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Redeem {
    pub code: String,
}
