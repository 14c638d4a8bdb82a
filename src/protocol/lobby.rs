//! The lobby: open games any visitor may take (seeks), quick pairing, and the games in progress
//! started from them. The bodies of `/api/seeks` and `/api/pairing`, and the frames of
//! `/ws/lobby` ([`LobbyFrame`] from the server, [`LobbyRequest`] from a client).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use strum::{EnumDiscriminants, EnumIter, EnumString, IntoStaticStr};

use super::players::{PlayerRef, SeatPlayers};
use super::{BadRequest, ErrorCode, Opened, RoomCreated, SideChoice, TimeControl, UnixMs};

/// `POST /api/seeks`: a room as `POST /api/rooms` makes an online one, listed in the lobby
/// (client seeds come later, on the room's socket, as for every room).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostSeek {
    #[serde(default)]
    pub side: SideChoice,
    /// The time control, or `null` (the default) for an untimed game.
    #[serde(default)]
    pub clock: Option<TimeControl>,
    /// An id the poster's page keeps, so that quick pairing never pairs it with itself; without
    /// one, the client's address stands for it.
    #[serde(default)]
    pub visitor: Option<String>,
    /// A rated game (for a player with a cookie); casual by default.
    #[serde(default)]
    pub rated: bool,
    /// The takers' ratings accepted, `[min, max]` both included; `null` (the default): any.
    /// A range leaves out anonymous takers, who have no rating.
    #[serde(default)]
    pub range: Option<[i64; 2]>,
}

/// `DELETE /api/seeks/{room}`: the creator's seat token proves the seek is theirs (in the body:
/// tokens never go in URLs).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CancelSeek {
    pub token: String,
}

/// `POST /api/pairing`: the oldest open seek with this time control that is not one's own, or a
/// new seek of one's own (side random).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    #[serde(default)]
    pub clock: Option<TimeControl>,
    /// As in [`PostSeek`].
    #[serde(default)]
    pub visitor: Option<String>,
    /// As in [`PostSeek`]: it makes one's own new seek rated; a seek taken keeps its choice.
    #[serde(default)]
    pub rated: bool,
    /// The opponents' ratings accepted, `[min, max]` both included; `null` (the default): any.
    /// It applies to the seeks taken (their poster's rating) and to one's own new seek (its
    /// takers'), and leaves out anonymous opponents, who have no rating.
    #[serde(default)]
    pub range: Option<[i64; 2]>,
}

/// What `POST /api/pairing` answers: a seat, and whether it is in a started game (`paired`) or in
/// one's own new seek, which waits for a taker.
#[derive(Debug, Serialize, Deserialize)]
pub struct Paired {
    #[serde(flatten)]
    pub seat: RoomCreated,
    pub paired: bool,
}

/// An open seek as listed.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seek {
    pub room: String,
    /// What its creator asked for; the taker gets the other side (either, for `random`).
    pub side: SideChoice,
    pub clock: Option<TimeControl>,
    /// When it was posted (unix ms).
    pub at: UnixMs,
    /// Whether its game will be rated.
    #[serde(default)]
    pub rated: bool,
    /// The takers' ratings it accepts, `[min, max]`; `null`: any.
    #[serde(default)]
    pub range: Option<[i64; 2]>,
    /// Who posted it, if a player; `null` for an anonymous visitor.
    #[serde(default)]
    pub player: Option<PlayerRef>,
}

/// A game in progress that started from a seek.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LobbyGame {
    pub room: String,
    pub clock: Option<TimeControl>,
    /// Moves played so far.
    pub moves: u32,
    /// Spectators connected to the instance that answered.
    pub spectators: usize,
    /// When the seek was taken (unix ms).
    pub started_at: UnixMs,
    /// The players in its seats, for those bound to one.
    #[serde(default)]
    pub players: SeatPlayers,
}

/// Why a seek left the list.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter, IntoStaticStr, EnumString,
)]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum SeekGone {
    /// Someone took it: its game started.
    Taken,
    /// Its creator cancelled it.
    Cancelled,
    /// Its creator's page was gone for longer than the server waits (no lobby socket held it).
    Withdrawn,
}

/// A seek that left the list, and why.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeekLeft {
    pub room: String,
    pub why: SeekGone,
}

/// A page of seeks, newest first, and whether older ones exist.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeekPage {
    pub seeks: Vec<Seek>,
    pub more: bool,
}

/// Frames from the server on `/ws/lobby`. [`LobbyFrameKind`] names them (serde's names, checked
/// by a test).
#[derive(Clone, Debug, Serialize, Deserialize, EnumDiscriminants)]
#[serde(tag = "t", content = "d", rename_all = "kebab-case")]
#[strum_discriminants(
    name(LobbyFrameKind),
    derive(EnumIter, IntoStaticStr),
    strum(serialize_all = "kebab-case")
)]
pub enum LobbyFrame {
    /// First, on connecting: the newest open seeks and the games in progress.
    Lobby {
        #[serde(flatten)]
        page: SeekPage,
        games: Vec<LobbyGame>,
    },
    /// The answer to `more`: the next page of older seeks.
    Seeks {
        #[serde(flatten)]
        page: SeekPage,
        id: Option<Value>,
    },
    /// What changed since the last `changes` frame, at most one per interval: seeks posted,
    /// seeks gone (apply `added`, then `gone`), and the games in progress if they changed.
    Changes {
        added: Vec<Seek>,
        gone: Vec<SeekLeft>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        games: Option<Vec<LobbyGame>>,
    },
    /// The answer to `hold`: this socket now keeps the seek listed.
    Held {
        room: String,
        id: Option<Value>,
    },
    /// One of this player's challenges was sent, answered, cancelled or expired (to the
    /// sockets of a page with a player cookie: the challenger's and the challenged player's;
    /// never with a seat token).
    Challenge {
        challenge: Box<super::social::Challenge>,
    },
    Error {
        code: ErrorCode,
        message: String,
        id: Option<Value>,
    },
    Pong {
        id: Option<Value>,
    },
}

impl LobbyFrame {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("lobby frames always serialize")
    }
}

/// What a client may send on `/ws/lobby`.
#[derive(Clone, Debug, PartialEq, Eq, EnumDiscriminants)]
#[strum_discriminants(
    name(LobbyRequestKind),
    derive(EnumIter, IntoStaticStr),
    strum(serialize_all = "kebab-case")
)]
pub enum LobbyMessage {
    /// Keep one's own seek listed while this socket is open (its seat token proves it is one's
    /// own); a seek no socket holds is withdrawn after a few seconds.
    Hold {
        room: String,
        token: String,
    },
    /// The page of seeks older than the seek posted at `at` with id `room`.
    More {
        at: UnixMs,
        room: String,
    },
    Ping,
}

/// A lobby client frame with the `id` to echo.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobbyRequest {
    pub message: LobbyMessage,
    pub id: Option<Value>,
}

#[derive(Deserialize)]
struct HoldData {
    room: String,
    token: String,
}

#[derive(Deserialize)]
struct MoreData {
    at: UnixMs,
    room: String,
}

impl LobbyRequest {
    /// Parses a text frame, with the same envelope and error codes as a room's.
    pub fn parse(text: &str) -> Result<LobbyRequest, BadRequest> {
        let Opened { t, d, id } = Opened::parse(text)?;
        let data_error = |e: serde_json::Error| BadRequest {
            code: ErrorCode::BadRequest,
            message: format!("bad data for {t:?}: {e}"),
            id: id.clone(),
        };
        let message = match t.as_str() {
            "hold" => {
                let HoldData { room, token } = serde_json::from_value(d).map_err(data_error)?;
                LobbyMessage::Hold { room, token }
            }
            "more" => {
                let MoreData { at, room } = serde_json::from_value(d).map_err(data_error)?;
                LobbyMessage::More { at, room }
            }
            "ping" => LobbyMessage::Ping,
            other => return Err(Opened::unknown(other, id)),
        };
        Ok(LobbyRequest { message, id })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use strum::IntoEnumIterator;

    use super::*;

    #[test]
    fn frame_kinds_are_the_wire_names() {
        let gone = LobbyFrame::Changes {
            added: Vec::new(),
            gone: vec![SeekLeft {
                room: "r".into(),
                why: SeekGone::Taken,
            }],
            games: None,
        };
        let text: Value = serde_json::from_str(&gone.to_json()).unwrap();
        assert_eq!(text["t"], <&str>::from(LobbyFrameKind::Changes));
        assert_eq!(
            text["d"],
            json!({"added": [], "gone": [{"room": "r", "why": "taken"}]})
        );
        for kind in LobbyRequestKind::iter() {
            let name: &str = kind.into();
            let frame = json!({"t": name, "d": {"room": "r", "token": "x", "at": 1}});
            let parsed = LobbyRequest::parse(&frame.to_string()).unwrap();
            assert_eq!(LobbyRequestKind::from(&parsed.message), kind);
        }
    }

    #[test]
    fn bad_lobby_frames_get_codes() {
        let code = |text| LobbyRequest::parse(text).unwrap_err().code;
        assert_eq!(code(r#"{"t":"hold"}"#), ErrorCode::BadRequest);
        assert_eq!(code(r#"{"t":"roll"}"#), ErrorCode::UnknownType);
        assert_eq!(code("]"), ErrorCode::BadJson);
    }
}
