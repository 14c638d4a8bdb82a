//! The rules of Kendall-style Senet as pure values: no I/O, no async, no
//! allocation on the hot path. Everything else in the crate (rooms, the AI,
//! the web client through the protocol) asks this module what is legal.
//!
//! - [`sticks`]: the four throwing sticks and the value 1..=5 they show.
//! - [`position`]: the board, legal moves and [`Position::play`].
//! - [`notation`]: the 32-character text form of a position.
//! - [`perft`]: counting the game tree, for testing and benchmarking.
//!
//! The rules themselves are written out in `docs/RULES.md`.

pub mod notation;
pub mod perft;
pub mod position;
pub mod sticks;

pub use notation::ParsePositionError;
pub use position::{
    Effect, HOUSE_OF_HAPPINESS, HOUSE_OF_REBIRTH, HOUSE_OF_WATER, IllegalMove, Move, MoveList,
    PIECES_PER_SIDE, Position, SAFE_SQUARES, SQUARES, Side, Square, Target,
};
pub use sticks::{Roll, Sticks};
