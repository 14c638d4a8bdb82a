//! The wire format, and nothing else: the JSON every client and the server
//! exchange, as documented in `docs/PROTOCOL.md`. Room logic lives in
//! [`crate::room`]; this module only names and shapes the messages.
//!
//! WebSocket frames are `{"t": type, "d": data}`. Events are stored in the
//! log as `(t, d)` without their version and get `"v"` added inside `d` when
//! they are framed for the wire ([`Event::frame`]), once per event.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ai::Level;
use crate::engine::Side;

/// The version of a room's last event; events are numbered 1, 2, 3, ...
pub type Version = u64;

/// Unix time in milliseconds.
pub type UnixMs = i64;

/// How the seats of a room are held.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// Two players, each with their own token.
    Online,
    /// One screen: one token holds both seats.
    Local,
    /// One player against the computer, which holds the other seat.
    Ai,
}

impl Mode {
    pub const fn name(self) -> &'static str {
        match self {
            Mode::Online => "online",
            Mode::Local => "local",
            Mode::Ai => "ai",
        }
    }

    pub fn from_name(name: &str) -> Option<Mode> {
        match name {
            "online" => Some(Mode::Online),
            "local" => Some(Mode::Local),
            "ai" => Some(Mode::Ai),
            _ => None,
        }
    }
}

/// What a connection holds in a room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
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

/// The side a room's creator or a joiner asks for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SideChoice {
    Black,
    White,
    #[default]
    Random,
}

// ---------------------------------------------------------------- HTTP

/// `POST /api/rooms`. `mode` stays a string so that an unknown or not yet
/// supported mode gets a clear message instead of a serde error.
#[derive(Debug, Deserialize)]
pub struct CreateRoom {
    pub mode: String,
    #[serde(default)]
    pub side: SideChoice,
    #[serde(default)]
    pub client_seed: String,
    /// The computer's strength in `ai` rooms (default `medium`); a string so
    /// that an unknown level gets a message naming the known ones.
    #[serde(default)]
    pub level: Option<String>,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct RoomCreated {
    pub room: String,
    pub url: String,
    pub seat: Seat,
    pub token: String,
}

/// `POST /api/rooms/{id}/join`.
#[derive(Debug, Deserialize)]
pub struct JoinRoom {
    #[serde(default)]
    pub side: Option<Side>,
    #[serde(default)]
    pub client_seed: String,
}

#[derive(Debug, Serialize, Deserialize)]
pub struct Joined {
    pub seat: Seat,
    pub token: String,
}

/// `GET /api/rooms/{id}`.
#[derive(Debug, Serialize, Deserialize)]
pub struct RoomSummary {
    pub room: String,
    pub mode: Mode,
    /// The computer's level, in `ai` rooms only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    pub status: Status,
    pub players: Players,
    pub spectators: usize,
    pub result: Option<GameResult>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Waiting,
    Playing,
    Finished,
}

/// `GET /api/rooms/{id}/record`: everything needed to verify a game.
#[derive(Debug, Serialize, Deserialize)]
pub struct Record {
    pub room: String,
    pub mode: Mode,
    /// The computer's level, in `ai` rooms only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    pub seed_hash: String,
    /// Hex; only once the game is over.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<String>,
    pub client_seeds: ClientSeeds,
    pub events: Vec<RecordedEvent>,
}

#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RecordedEvent {
    pub v: Version,
    pub at: UnixMs,
    pub t: String,
    pub d: Value,
}

/// Every HTTP error body.
#[derive(Debug, Serialize, Deserialize)]
pub struct HttpError {
    pub error: String,
    pub message: String,
}

// ---------------------------------------------------------------- WebSocket, client to server

/// A game action, judged by the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    Roll,
    Move { from: u8 },
    Resign,
    DrawOffer,
    DrawAccept,
    DrawDecline,
    ClaimVictory,
    Rematch,
}

impl Action {
    /// The action's `t` on the wire.
    pub const fn name(self) -> &'static str {
        match self {
            Action::Roll => "roll",
            Action::Move { .. } => "move",
            Action::Resign => "resign",
            Action::DrawOffer => "draw-offer",
            Action::DrawAccept => "draw-accept",
            Action::DrawDecline => "draw-decline",
            Action::ClaimVictory => "claim-victory",
            Action::Rematch => "rematch",
        }
    }
}

/// A parsed client frame.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientMessage {
    Hello { token: Option<String> },
    Act(Action),
    Sync,
    Ping,
}

/// A client frame with the `id` to echo in the reply.
#[derive(Clone, Debug, PartialEq)]
pub struct Request {
    pub message: ClientMessage,
    pub id: Option<Value>,
}

/// A frame that could not be understood, with the `id` when it could be read.
#[derive(Clone, Debug, PartialEq)]
pub struct BadRequest {
    pub code: ErrorCode,
    pub message: String,
    pub id: Option<Value>,
}

#[derive(Deserialize)]
struct Envelope {
    t: String,
    #[serde(default)]
    d: Value,
}

#[derive(Deserialize)]
struct HelloData {
    #[serde(default)]
    token: Option<String>,
}

#[derive(Deserialize)]
struct MoveData {
    from: u8,
}

impl Request {
    /// Parses one text frame: bad JSON, an unknown type and bad data each get
    /// their own error code.
    pub fn parse(text: &str) -> Result<Request, BadRequest> {
        let bad = |code, message: String, id| BadRequest { code, message, id };
        let envelope: Envelope = serde_json::from_str(text).map_err(|e| {
            bad(
                ErrorCode::BadJson,
                format!("expected {{\"t\":type,\"d\":data}}: {e}"),
                None,
            )
        })?;
        let d = match envelope.d {
            Value::Null => Value::Object(Default::default()),
            d @ Value::Object(_) => d,
            _ => {
                let message = "\"d\" must be an object".to_string();
                return Err(bad(ErrorCode::BadRequest, message, None));
            }
        };
        let id = d.get("id").cloned();
        if let Some(id) = &id
            && !(id.is_string() || id.is_number())
        {
            let message = "\"id\" must be a number or a string".to_string();
            return Err(bad(ErrorCode::BadRequest, message, None));
        }
        let data_error = |e: serde_json::Error| {
            let message = format!("bad data for {:?}: {e}", envelope.t);
            bad(ErrorCode::BadRequest, message, id.clone())
        };
        let message = match envelope.t.as_str() {
            "hello" => {
                let hello: HelloData = serde_json::from_value(d.clone()).map_err(data_error)?;
                ClientMessage::Hello { token: hello.token }
            }
            "move" => {
                let data: MoveData = serde_json::from_value(d.clone()).map_err(data_error)?;
                ClientMessage::Act(Action::Move { from: data.from })
            }
            "roll" => ClientMessage::Act(Action::Roll),
            "resign" => ClientMessage::Act(Action::Resign),
            "draw-offer" => ClientMessage::Act(Action::DrawOffer),
            "draw-accept" => ClientMessage::Act(Action::DrawAccept),
            "draw-decline" => ClientMessage::Act(Action::DrawDecline),
            "claim-victory" => ClientMessage::Act(Action::ClaimVictory),
            "rematch" => ClientMessage::Act(Action::Rematch),
            "sync" => ClientMessage::Sync,
            "ping" => ClientMessage::Ping,
            other => {
                let message = format!("unknown message type {other:?}");
                return Err(bad(ErrorCode::UnknownType, message, id));
            }
        };
        Ok(Request { message, id })
    }
}

// ---------------------------------------------------------------- WebSocket, server to one connection

/// Messages sent to one connection only.
#[derive(Debug, Serialize, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "kebab-case")]
pub enum Reply {
    Welcome {
        seat: Seat,
        state: State,
    },
    State {
        #[serde(flatten)]
        state: State,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        id: Option<Value>,
    },
    Ack {
        id: Option<Value>,
        v: Version,
    },
    Error {
        code: ErrorCode,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
        id: Option<Value>,
    },
    Pong {
        id: Option<Value>,
    },
    /// After a rematch: where this connection's player sits now.
    Seat {
        room: String,
        url: String,
        seat: Seat,
        token: String,
    },
    /// Not versioned, not persisted.
    Watchers {
        count: usize,
    },
}

impl Reply {
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("replies always serialize")
    }
}

/// Everything a client needs to draw a room.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct State {
    pub room: String,
    pub mode: Mode,
    /// The computer's level, in `ai` rooms only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<Level>,
    pub position: String,
    pub turn: Side,
    pub phase: Phase,
    pub throw: Option<Throw>,
    pub legal: Vec<LegalMove>,
    pub players: Players,
    pub spectators: usize,
    pub draw_offer: Option<Side>,
    pub result: Option<GameResult>,
    pub seed_hash: String,
    /// Sides that asked for a rematch and are waiting for the other.
    pub rematch_offers: Vec<Side>,
    pub rematch: Option<String>,
    pub v: Version,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Phase {
    Waiting,
    Roll,
    Move,
    Over,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Throw {
    pub sticks: [bool; 4],
    pub value: u8,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Players {
    pub black: PlayerState,
    pub white: PlayerState,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlayerState {
    pub seated: bool,
    pub connected: bool,
    pub claim_at: Option<UnixMs>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    pub winner: Winner,
    pub reason: EndReason,
}

// ---------------------------------------------------------------- Events

/// A move's landing square by count: a square (27 for the water) or `"off"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum To {
    Square(u8),
    Off(OffMarker),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum OffMarker {
    #[serde(rename = "off")]
    Off,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegalMove {
    pub from: u8,
    pub to: To,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum EffectName {
    Step,
    Swap,
    Water,
    Off,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientSeeds {
    pub black: String,
    pub white: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presence {
    pub connected: bool,
    pub claim_at: Option<UnixMs>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    Black,
    White,
    Draw,
}

impl From<Side> for Winner {
    fn from(side: Side) -> Winner {
        match side {
            Side::Black => Winner::Black,
            Side::White => Winner::White,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    BorneOff,
    Resign,
    Agreement,
    Abandon,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CancelReason {
    Declined,
    Withdrawn,
    Lapsed,
}

/// What happened in a room: persisted in order, then sent to every connection.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "t", content = "d", rename_all = "kebab-case")]
pub enum Event {
    Started {
        position: String,
        turn: Side,
        seed_hash: String,
        client_seeds: ClientSeeds,
    },
    Rolled {
        side: Side,
        n: u32,
        sticks: [bool; 4],
        value: u8,
        legal: Vec<LegalMove>,
    },
    Moved {
        side: Side,
        from: u8,
        to: To,
        effect: EffectName,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        rest: Option<u8>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        swapped: Option<u8>,
        position: String,
        next: Side,
        extra: bool,
    },
    Passed {
        side: Side,
        value: u8,
        next: Side,
    },
    DrawOffered {
        side: Side,
    },
    DrawCancelled {
        side: Side,
        why: CancelReason,
    },
    Presence {
        black: Presence,
        white: Presence,
    },
    GameOver {
        winner: Winner,
        reason: EndReason,
        seed: String,
    },
    RematchOffered {
        side: Side,
    },
    Rematch {
        room: String,
    },
}

impl Event {
    /// Splits an event into its type and its data as stored in the log.
    pub fn to_parts(&self) -> (String, String) {
        let (kind, data) = self.split();
        (kind, data.to_string())
    }

    /// The log's type and data together with the wire frame for version
    /// `v`, from one serialization: committing an event needs both.
    pub fn encode(&self, v: Version) -> ((String, String), String) {
        let (kind, data) = self.split();
        let stored = (kind.clone(), data.to_string());
        (stored, Self::frame_of(kind, data, v))
    }

    /// The type and data as JSON values, serialized once.
    fn split(&self) -> (String, Value) {
        let Value::Object(mut object) = serde_json::to_value(self).expect("events serialize")
        else {
            unreachable!("an adjacently tagged enum serializes to an object")
        };
        let kind = match object.remove("t") {
            Some(Value::String(kind)) => kind,
            _ => unreachable!("every event has a type"),
        };
        (kind, object.remove("d").unwrap_or(Value::Null))
    }

    fn frame_of(kind: String, mut data: Value, v: Version) -> String {
        data["v"] = Value::from(v);
        serde_json::json!({"t": kind, "d": data}).to_string()
    }

    /// Rebuilds an event from the log's type and data.
    pub fn from_parts(kind: &str, data: &str) -> Result<Event, serde_json::Error> {
        let data: Value = serde_json::from_str(data)?;
        serde_json::from_value(serde_json::json!({"t": kind, "d": data}))
    }

    /// The wire frame: `{"t":..,"d":{..,"v":v}}`.
    pub fn frame(&self, v: Version) -> String {
        let (kind, data) = self.split();
        Self::frame_of(kind, data, v)
    }
}

// ---------------------------------------------------------------- Errors

/// Stable error codes, shared by WebSocket `error` replies and HTTP bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadJson,
    UnknownType,
    BadRequest,
    NotSeated,
    NotYourTurn,
    MustRoll,
    AlreadyRolled,
    IllegalMove,
    GameOver,
    GameNotStarted,
    NoDrawOffer,
    DrawNotAllowed,
    CannotClaim,
    RematchNotAvailable,
    HelloRequired,
    BadToken,
    TooManyMessages,
    RoomNotFound,
    RoomFull,
    /// A WebSocket handshake from a page of another site (HTTP 403).
    OriginNotAllowed,
    /// The server's or this address's cap on open connections is reached (HTTP 429).
    TooManyConnections,
    Internal,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parses_actions_with_and_without_data() {
        let roll = Request::parse(r#"{"t":"roll"}"#).unwrap();
        assert_eq!(roll.message, ClientMessage::Act(Action::Roll));
        let mv = Request::parse(r#"{"t":"move","d":{"from":10,"id":"a"}}"#).unwrap();
        assert_eq!(mv.message, ClientMessage::Act(Action::Move { from: 10 }));
        assert_eq!(mv.id, Some(json!("a")));
    }

    #[test]
    fn action_names_parse_back_to_the_action() {
        let actions = [
            Action::Roll,
            Action::Move { from: 10 },
            Action::Resign,
            Action::DrawOffer,
            Action::DrawAccept,
            Action::DrawDecline,
            Action::ClaimVictory,
            Action::Rematch,
        ];
        for action in actions {
            let frame = json!({"t": action.name(), "d": {"from": 10}}).to_string();
            assert_eq!(
                Request::parse(&frame).unwrap().message,
                ClientMessage::Act(action)
            );
        }
    }

    #[test]
    fn bad_frames_get_distinct_codes() {
        let code = |text| Request::parse(text).unwrap_err().code;
        assert_eq!(code("{"), ErrorCode::BadJson);
        assert_eq!(code(r#"{"t":"fly","d":{"id":3}}"#), ErrorCode::UnknownType);
        assert_eq!(
            code(r#"{"t":"move","d":{"from":"x"}}"#),
            ErrorCode::BadRequest
        );
        assert_eq!(code(r#"{"t":"move"}"#), ErrorCode::BadRequest);
        let unknown = Request::parse(r#"{"t":"fly","d":{"id":3}}"#).unwrap_err();
        assert_eq!(unknown.id, Some(json!(3)));
    }

    #[test]
    fn events_round_trip_through_the_log_and_get_v_on_the_wire() {
        let event = Event::Moved {
            side: Side::Black,
            from: 26,
            to: To::Off(OffMarker::Off),
            effect: EffectName::Off,
            rest: None,
            swapped: None,
            position: "WBWBWBWBW..................... w".into(),
            next: Side::White,
            extra: false,
        };
        let (kind, data) = event.to_parts();
        assert_eq!(kind, "moved");
        assert_eq!(Event::from_parts(&kind, &data).unwrap(), event);
        let frame: Value = serde_json::from_str(&event.frame(7)).unwrap();
        assert_eq!(frame["t"], "moved");
        assert_eq!(frame["d"]["v"], 7);
        assert_eq!(frame["d"]["to"], "off");
        // What the room task commits and broadcasts is the same text.
        assert_eq!(event.encode(7), ((kind, data), event.frame(7)));
    }
}
