//! The wire format, and nothing else: the JSON every client and the server exchange, as
//! documented in `docs/PROTOCOL.md`. Room logic lives in [`crate::room`]; this module only names
//! and shapes the messages, one file per concern:
//!
//! - [`http`]: request and response bodies of `/api/...`;
//! - [`chat`]: the room's chat: presets, cleaned free text, channels and the lines a state shows;
//! - [`client`]: WebSocket frames from a client, and how they are parsed;
//! - [`reply`]: WebSocket frames to one connection, and the room [`State`] they carry;
//! - [`event`]: what happened in a room, as logged and broadcast;
//! - [`clock`]: time controls, live and correspondence;
//! - [`lobby`]: the lobby's seeks, quick pairing and `/ws/lobby` frames;
//! - [`players`]: players and their ratings as the identity routes, pages and frames show them;
//! - [`player_page`]: the player page's and the leaderboard's bodies;
//! - [`puzzles`]: the puzzle routes' bodies (a question, an answer, its verdict);
//! - [`social`]: challenges by name or link, blocks and follows;
//! - [`error`]: the stable error codes of both transports;
//! - [`limits`]: the frame and read-buffer sizes both ends rely on;
//! - [`vocabulary`]: the names the browser client shares, written out as `web/js/protocol.js`.
//!
//! Everything is re-exported here, so `crate::protocol::Event` and the like are the names to use.

pub mod chat;
pub mod client;
pub mod clock;
pub mod error;
pub mod event;
pub mod http;
pub mod limits;
pub mod lobby;
pub mod player_page;
pub mod players;
pub mod puzzles;
pub mod reply;
pub mod social;
pub mod vocabulary;

pub use client::*;
pub use clock::*;
pub use error::*;
pub use event::*;
pub use http::*;
pub use limits::*;
pub use lobby::*;
pub use reply::*;

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumString, IntoStaticStr};

use crate::engine::Side;

/// The version of a room's last event; events are numbered 1, 2, 3, ...
pub type Version = u64;

/// Unix time in milliseconds.
pub type UnixMs = i64;

/// How the seats of a room are held. Its names are serde's and strum's (`name`, `from_str`)
/// alike, checked by a test.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter, IntoStaticStr, EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Mode {
    /// Two players, each with their own token.
    Online,
    /// One screen: one token holds both seats.
    Local,
    /// One player against the computer, which holds the other seat.
    Ai,
}

impl Mode {
    /// The wire name, for the store's `mode` column, logs and metric labels.
    pub fn name(self) -> &'static str {
        self.into()
    }
}

/// A server frame's JSON text, serialized once and sent to every connection of a room: cloning
/// it is a reference count. Made only from a `String`, so it is always UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameText(bytes::Bytes);

impl From<String> for FrameText {
    fn from(text: String) -> FrameText {
        FrameText(bytes::Bytes::from(text))
    }
}

impl FrameText {
    pub fn into_bytes(self) -> bytes::Bytes {
        self.0
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0).expect("a FrameText is made from a String")
    }
}

/// A room page's address: what a creator shares and a rematch moves to.
pub fn room_url(room: &str) -> String {
    format!("/r/{room}")
}

/// What a connection holds in a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum Seat {
    Black,
    White,
    /// Both seats, one token (`local` rooms).
    Both,
    Spectator,
}

impl Seat {
    pub fn side(side: Side) -> Seat {
        match side {
            Side::Black => Seat::Black,
            Side::White => Seat::White,
        }
    }

    /// Whether this seat may act for `side`.
    pub fn holds(self, side: Side) -> bool {
        matches!(
            (self, side),
            (Seat::Both, _) | (Seat::Black, Side::Black) | (Seat::White, Side::White)
        )
    }

    /// The seat after a rematch, where colours swap.
    pub fn swapped(self) -> Seat {
        match self {
            Seat::Black => Seat::White,
            Seat::White => Seat::Black,
            other => other,
        }
    }
}

/// The side a room's creator or a joiner asks for (also what a listed seek shows).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, IntoStaticStr, EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum SideChoice {
    Black,
    White,
    #[default]
    Random,
}

#[cfg(test)]
mod tests {
    use std::str::FromStr;

    use strum::IntoEnumIterator;

    use super::*;

    #[test]
    fn mode_names_are_the_wire_names() {
        for mode in Mode::iter() {
            assert_eq!(mode.name(), vocabulary::wire_name(&mode));
            assert_eq!(Mode::from_str(mode.name()), Ok(mode));
        }
    }
}
