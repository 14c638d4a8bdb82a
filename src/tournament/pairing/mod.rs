//! Pairing, as pure functions of what a round (Swiss) or a moment (Arena) knows of its players:
//! no clock, no store, no randomness. The same input, in any order, always gives the same
//! boards, so `senet tournament verify` recomputes every pairing from the log, and another
//! feature (a classroom's quick round) can pair with [`swiss::pair_round`] alone.
//!
//! Both formats are one maximum-weight matching ([`matching`]) over a graph whose edge weights
//! encode their rules as costs of strictly decreasing priority (docs/TOURNAMENTS.md).

pub mod arena;
pub mod matching;
pub mod swiss;

use serde::{Deserialize, Serialize};

/// The most players one pairing takes: the tournament's bound, and what keeps the matching's
/// O(n³) and its weights (`i128`) within reach.
pub const MAX_PLAYERS: usize = 1000;

/// A side of the board. Black moves first in Senet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Colour {
    Black,
    White,
}

impl Colour {
    pub fn other(self) -> Colour {
        match self {
            Colour::Black => Colour::White,
            Colour::White => Colour::Black,
        }
    }
}

/// One game of a pairing, by the players' numbers in the tournament.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Board {
    pub black: u32,
    pub white: u32,
}

/// Why players cannot be paired at all (a caller's mistake, named).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PairingError {
    #[error("{0} players to pair; at most {MAX_PLAYERS}")]
    TooManyPlayers(usize),
    #[error("player {0} is listed twice")]
    DuplicatePlayer(u32),
}

/// Checks the bound and the ids' uniqueness of the players about to be paired.
fn check_players(ids: impl Iterator<Item = u32>) -> Result<(), PairingError> {
    let mut seen = std::collections::BTreeSet::new();
    for id in ids {
        if !seen.insert(id) {
            return Err(PairingError::DuplicatePlayer(id));
        }
    }
    match seen.len() {
        n if n > MAX_PLAYERS => Err(PairingError::TooManyPlayers(n)),
        _ => Ok(()),
    }
}
