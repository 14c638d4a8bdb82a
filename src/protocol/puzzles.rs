//! The puzzle routes' bodies (`/api/puzzles/...`, docs/PROTOCOL.md "Puzzles"). A question never
//! carries its answer: the chances, the best move and the theme come only in the verdict, after
//! the answer.

use serde::{Deserialize, Serialize};

use super::LegalMove;
use crate::engine::{Side, Square};

/// `GET /api/puzzles/daily|next|{id}`: a position to solve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PuzzleQuestion {
    pub id: String,
    /// Engine notation.
    pub position: String,
    pub throw: u8,
    /// The side to move: the solver plays it.
    pub turn: Side,
    /// The squares of the pieces that may move with the throw.
    pub legal: Vec<Square>,
    /// The same moves with where each lands (a square, 27 for the water, or `"off"`), for the
    /// board's labels: not the answer, which only the verdict names.
    pub choices: Vec<LegalMove>,
    /// The puzzle's rating now.
    pub rating: f64,
    /// Given back with the answer: proof the server handed this puzzle to this client (signed,
    /// valid for a day).
    pub ticket: String,
}

/// `POST /api/puzzles/{id}/answer`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PuzzleAnswer {
    /// The square of the piece moved.
    pub from: Square,
    pub ticket: String,
}

/// One legal move and the mover's chance of winning after it.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveChance {
    pub from: Square,
    pub chance: f64,
}

/// The answer judged.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PuzzleVerdict {
    pub id: String,
    pub solved: bool,
    pub best: Square,
    pub moves: Vec<MoveChance>,
    /// The chances are the endgame table's exact values.
    pub exact: bool,
    /// `bearing_off`, `swap`, `stop_26`, `water`, `safe_squares`, `blocking` or `race`.
    pub theme: String,
    /// `easy`, `medium`, `hard` or `expert`.
    pub difficulty: String,
    /// The player's puzzle rating before and after: only an identified player's first attempt.
    pub rating: Option<PuzzleRatingChange>,
}

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct PuzzleRatingChange {
    pub before: f64,
    pub after: f64,
    pub deviation: f64,
}
