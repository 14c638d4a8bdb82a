//! Tournaments: Arena and Swiss (issue 45; the rules are docs/TOURNAMENTS.md).
//!
//! Like a room's game, a tournament is a pure fold of its own log ([`event`]): [`Tournament`]
//! applies events (`fold.rs`), judges commands into events (`decide.rs`), and reads off its
//! standings and the pairing's inputs (`standings.rs`); [`pairing`] makes the pairings and
//! [`verify`] recomputes a whole log. None of them does I/O but [`stored`], which reads a
//! tournament from the store and appends to it.

pub mod decide;
pub mod director;
pub mod event;
mod fold;
pub mod pairing;
mod standings;
pub mod stored;
pub mod verify;

#[cfg(test)]
mod tests;

pub use decide::Refusal;
pub use event::{Event, Format, Outcome, PairedBoard, Settings, Waited};
pub use fold::{Entry, FoldError, Game, Played, Status, Tournament};
pub use standings::Standing;
