//! Puzzles with exact answers (issue 49): positions from finished games, after a throw, in
//! which one move is clearly best — its winning chance beats every other move's by at least
//! [`MARGIN`] — by the endgame tablebase's exact values, or by a search that a deeper search
//! confirms ([`mine`]). Each is named by a [`Theme`] ([`theme`]) and rated by how often the
//! computer's levels find the answer ([`Difficulty`]).
//!
//! The shipped set is data in the repository (`puzzles/shipped.jsonl`, one puzzle a line),
//! built by the command docs/AI.md gives and compiled into the binary: [`shipped`] parses it
//! once. Pure, like the analysis: the command line mines, the server serves.

pub mod mine;
pub mod theme;

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::engine::{Position, Roll, Square};

pub use theme::Theme;

/// How far the best move's winning chance must be above every other move's (15 points).
/// Below it a player who finds the second move has not really missed anything.
pub const MARGIN: f64 = 0.15;

const SHIPPED: &str = include_str!("../../puzzles/shipped.jsonl");

/// One puzzle: a position, the throw, the answer and every move's chance.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Puzzle {
    /// Ten hex digits of the SHA-256 of `"<position> <throw>"`: stable across mining runs.
    pub id: String,
    /// Engine notation; the side to move solves.
    pub position: String,
    pub throw: u8,
    /// The square of the piece to move.
    pub best: Square,
    /// Every legal move's square and the mover's chance after it, by square.
    pub moves: Vec<(Square, f64)>,
    /// The chances are the tablebase's exact values; else the deeper search's estimates.
    pub exact: bool,
    pub theme: Theme,
    pub difficulty: Difficulty,
    /// How often each level found the answer, 0 to 1 (easy over several seeds).
    pub hits: Hits,
}

/// How often each of the computer's levels plays the answer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hits {
    pub easy: f64,
    pub medium: f64,
    /// `hard` without the tablebase (with it, every exact puzzle would be found by lookup).
    pub hard: f64,
}

/// The weakest level that finds the answer: `easy` when `easy` plays it at least half the
/// time, `medium` when `medium` does, `hard` when only `hard` does, `expert` when none does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Difficulty {
    Easy,
    Medium,
    Hard,
    Expert,
}

impl Difficulty {
    pub const ALL: [Difficulty; 4] = [
        Difficulty::Easy,
        Difficulty::Medium,
        Difficulty::Hard,
        Difficulty::Expert,
    ];

    pub fn of(hits: &Hits) -> Difficulty {
        if hits.easy >= 0.5 {
            Difficulty::Easy
        } else if hits.medium >= 0.5 {
            Difficulty::Medium
        } else if hits.hard >= 0.5 {
            Difficulty::Hard
        } else {
            Difficulty::Expert
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
            Difficulty::Expert => "expert",
        }
    }
}

impl Puzzle {
    /// The position, parsed (the shipped set is checked to parse by its tests).
    pub fn parsed(&self) -> Position {
        self.position.parse().expect("a puzzle's position parses")
    }

    pub fn roll(&self) -> Roll {
        Roll::new(self.throw).expect("a puzzle's throw is 1 to 5")
    }

    /// The chance after the move from `from`, if it is one of the legal moves.
    pub fn chance_of(&self, from: Square) -> Option<f64> {
        self.moves.iter().find(|(s, _)| *s == from).map(|(_, p)| *p)
    }

    /// How far the best move is above the second best.
    pub fn margin(&self) -> f64 {
        let best = self.chance_of(self.best).unwrap_or(0.0);
        let second = self
            .moves
            .iter()
            .filter(|(s, _)| *s != self.best)
            .map(|(_, p)| *p)
            .fold(f64::NEG_INFINITY, f64::max);
        best - second
    }
}

/// A puzzle's id: ten hex digits of the SHA-256 of its position and throw.
pub fn id_of(position: &Position, roll: Roll) -> String {
    let digest = Sha256::digest(format!("{position} {}", roll.value()));
    digest[..5].iter().map(|b| format!("{b:02x}")).collect()
}

/// The set as JSON lines, one puzzle each, in mining order.
pub fn to_lines(puzzles: &[Puzzle]) -> String {
    puzzles
        .iter()
        .map(|p| serde_json::to_string(p).expect("a puzzle serializes") + "\n")
        .collect()
}

/// The SHA-256 of a set's JSON lines, in hex: what docs/AI.md records for the shipped set.
pub fn checksum(lines: &str) -> String {
    Sha256::digest(lines.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[derive(Debug, thiserror::Error)]
#[error("puzzle line {line}: {message}")]
pub struct ParseError {
    pub line: usize,
    pub message: String,
}

/// Parses JSON lines into puzzles, refusing a line that does not parse.
pub fn parse_lines(text: &str) -> Result<Vec<Puzzle>, ParseError> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| !line.trim().is_empty())
        .map(|(i, line)| {
            serde_json::from_str(line).map_err(|e| ParseError {
                line: i + 1,
                message: e.to_string(),
            })
        })
        .collect()
}

/// The shipped set, parsed once.
pub fn shipped() -> &'static [Puzzle] {
    static SET: LazyLock<Vec<Puzzle>> =
        LazyLock::new(|| parse_lines(SHIPPED).expect("the shipped puzzles parse (tested)"));
    &SET
}

/// The shipped set's text, for its checksum.
pub fn shipped_text() -> &'static str {
    SHIPPED
}

#[cfg(test)]
mod tests;
