//! The refusals the server's own handlers raise (seating, puzzles), apart from the handlers and
//! from [`super::error`], which maps each to the wire: both import them, neither the other.

use crate::engine::IllegalMove;

/// Why a player may not sit or act.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatRefusal {
    /// A rated room or seek asked for without a player cookie.
    RatedNeedsPlayer,
    /// The player already holds the other seat of a rated room.
    SamePlayer,
    /// The seat is bound to another player than the cookie names.
    SeatOfAnotherPlayer,
}

/// Why a puzzle request is refused.
#[derive(Debug, thiserror::Error)]
pub enum PuzzleRefusal {
    #[error("no puzzle has the id {0:?}")]
    NotFound(String),
    #[error("no puzzle has the theme {0:?}: expected one of {1}")]
    UnknownTheme(String, String),
    #[error(
        "this puzzle was not handed to you (or its ticket is older than a day): fetch it first"
    )]
    NotAsked,
    #[error("{0}")]
    Illegal(IllegalMove),
}

/// Upcoming tournaments one player may have created.
pub const MAX_UPCOMING_PER_CREATOR: usize = 2;

/// Why a tournament is not created (issue 45's bounds; docs/TOURNAMENTS.md).
#[derive(Debug, thiserror::Error)]
pub enum TournamentRefusal {
    /// A setting out of its bounds: which, and the bounds.
    #[error("{0}")]
    BadSettings(String),
    #[error(
        "you have as many upcoming tournaments as you may create ({max}): wait until one starts",
        max = MAX_UPCOMING_PER_CREATOR
    )]
    TooManyUpcoming,
    #[error(
        "the server runs as many tournaments as it may ({max}): try again when one has ended",
        max = crate::tournament::director::MAX_DIRECTED
    )]
    TooManyOpen,
}
