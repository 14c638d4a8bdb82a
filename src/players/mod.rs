//! Players who come back: an identity without passwords ([`identity`]), a display name
//! ([`name`]), and a Glicko-2 rating ([`rating`]) that anyone can recompute from the event log
//! (`senet ratings verify`). [`store`] keeps them, in a store of its own beside the rooms'
//! (`migrations/*/0029_players.sql`), on SQLite and PostgreSQL; [`shown`] puts them on the wire.

mod diagnosis;
pub mod identity;
pub mod model;
pub mod name;
pub(crate) mod pool;
mod prediction;
pub mod push;
pub mod puzzles;
pub mod rating;
pub mod replay;
pub mod shown;
pub mod simulate;
pub mod social;
pub mod store;
