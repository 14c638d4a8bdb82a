//! WebSocket frames from a client: `{"t": type, "d": data}`, parsed into a [`Request`] or a
//! [`BadRequest`] with its own error code.

use serde::Deserialize;
use serde_json::Value;
use strum::EnumIter;

use super::ErrorCode;
use super::chat::{self, ChatRequest, TextProblem};

/// Longest client seed accepted, in characters.
pub const MAX_CLIENT_SEED: usize = 64;

/// A player's client seed, part of every throw of the game (see `crate::fairness`): at most
/// [`MAX_CLIENT_SEED`] printable ASCII characters other than `:`, the formula's separator (one
/// would let two seed pairs read the same). Held inline so that an [`Action`] stays `Copy`.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct ClientSeed {
    len: u8,
    bytes: [u8; MAX_CLIENT_SEED],
}

impl ClientSeed {
    /// Checks a seed sent by a client; the error says what is wrong with it.
    pub fn parse(text: &str) -> Result<ClientSeed, String> {
        if text.len() > MAX_CLIENT_SEED {
            return Err(format!(
                "client_seed is longer than {MAX_CLIENT_SEED} characters"
            ));
        }
        if !text.chars().all(|c| c.is_ascii_graphic() && c != ':') {
            return Err(
                "client_seed may hold only printable ASCII characters other than ':'".into(),
            );
        }
        let mut seed = ClientSeed {
            len: text.len() as u8,
            ..ClientSeed::default()
        };
        seed.bytes[..text.len()].copy_from_slice(text.as_bytes());
        Ok(seed)
    }

    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).expect("checked ASCII")
    }
}

/// The empty seed: what a seat that never sends one plays with.
impl Default for ClientSeed {
    fn default() -> ClientSeed {
        ClientSeed {
            len: 0,
            bytes: [0; MAX_CLIENT_SEED],
        }
    }
}

impl std::fmt::Debug for ClientSeed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", self.as_str())
    }
}

/// A game action, judged by the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, EnumIter)]
pub enum Action {
    /// Sets the sender's client seed for this game; possible from `started` until the first
    /// throw (see docs/PROTOCOL.md, Verifying the throws).
    Seed(ClientSeed),
    Roll,
    Move {
        from: u8,
    },
    Resign,
    DrawOffer,
    DrawAccept,
    DrawDecline,
    ClaimVictory,
    Rematch,
    /// Practice only (`ai` and `local` rooms): the engine's move for the current throw.
    Hint,
}

impl Action {
    /// The action's `t` on the wire.
    pub const fn name(self) -> &'static str {
        match self {
            Action::Seed(_) => "seed",
            Action::Roll => "roll",
            Action::Move { .. } => "move",
            Action::Resign => "resign",
            Action::DrawOffer => "draw-offer",
            Action::DrawAccept => "draw-accept",
            Action::DrawDecline => "draw-decline",
            Action::ClaimVictory => "claim-victory",
            Action::Rematch => "rematch",
            Action::Hint => "hint",
        }
    }
}

/// A parsed client frame.
#[derive(Clone, Debug, PartialEq)]
pub enum ClientMessage {
    /// `acks: false`: a successful action is answered by its last event carrying the action's
    /// `id`, not by a separate `ack` frame (a third fewer frames per action).
    /// `client`: the client's name for itself (see [`ClientName`]): with it, an action resent
    /// with the same `id` is answered as the first one was, not applied twice.
    Hello {
        token: Option<String>,
        acks: bool,
        client: Option<ClientName>,
    },
    Act(Action),
    /// A chat message, choice, mute or report (see [`super::chat`]).
    Chat(ChatRequest),
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
    #[serde(default = "acks_by_default")]
    acks: bool,
    #[serde(default)]
    client: Option<String>,
}

/// The name a client gives itself in `hello`, the same over its reconnections: 1 to 64
/// printable ASCII characters. Random per page (or program) run, so that two clients' ids
/// never meet.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ClientName(String);

impl ClientName {
    pub fn parse(name: String) -> Result<ClientName, String> {
        let printable = name.bytes().all(|b| b.is_ascii_graphic());
        if name.is_empty() || name.len() > 64 || !printable {
            return Err("client must be 1 to 64 printable ASCII characters".into());
        }
        Ok(ClientName(name))
    }

    /// The key an action with `id` from this client is remembered by.
    pub fn resend_key(&self, id: &Value) -> Box<str> {
        format!("{}\n{id}", self.0).into()
    }
}

/// Clients written before `acks` existed wait for `ack` frames.
fn acks_by_default() -> bool {
    true
}

#[derive(Deserialize)]
struct SeedData {
    client_seed: String,
}

#[derive(Deserialize)]
struct MoveData {
    from: u8,
}

#[derive(Deserialize)]
struct ChatData {
    #[serde(default)]
    preset: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
struct ChatSettingsData {
    #[serde(default)]
    free_text: Option<bool>,
    #[serde(default)]
    spectators: Option<bool>,
}

#[derive(Deserialize)]
struct MuteData {
    who: String,
}

#[derive(Deserialize)]
struct ReportData {
    #[serde(default)]
    reason: String,
}

/// The chat frames' types, after the actions in `web/js/protocol.js`.
pub const CHAT_MESSAGES: [&str; 4] = ["chat", "chat-settings", "mute", "report"];

/// The code a refused message gets where it is read.
fn text_code(problem: TextProblem) -> ErrorCode {
    match problem {
        TextProblem::UnknownPreset => ErrorCode::UnknownPreset,
        TextProblem::TooLong => ErrorCode::ChatTooLong,
        TextProblem::Token => ErrorCode::ChatHasToken,
        TextProblem::Shape | TextProblem::Empty => ErrorCode::BadRequest,
    }
}

/// A chat frame's request, from its type and data.
fn chat_request(t: &str, d: Value) -> Result<ChatRequest, (ErrorCode, String)> {
    let bad = |e: serde_json::Error| (ErrorCode::BadRequest, format!("bad data for {t:?}: {e}"));
    Ok(match t {
        "chat" => {
            let data: ChatData = serde_json::from_value(d).map_err(bad)?;
            let said = chat::say(data.preset.as_deref(), data.text.as_deref())
                .map_err(|problem| (text_code(problem), problem.to_string()))?;
            ChatRequest::Say(said)
        }
        "chat-settings" => {
            let data: ChatSettingsData = serde_json::from_value(d).map_err(bad)?;
            ChatRequest::Settings {
                free_text: data.free_text,
                spectators: data.spectators,
            }
        }
        "mute" => {
            let data: MuteData = serde_json::from_value(d).map_err(bad)?;
            ChatRequest::Mute { who: data.who }
        }
        _ => {
            let data: ReportData = serde_json::from_value(d).map_err(bad)?;
            ChatRequest::Report {
                reason: chat::reason(&data.reason),
            }
        }
    })
}

impl Request {
    /// Parses one text frame: bad JSON, an unknown type and bad data each get
    /// their own error code.
    pub fn parse(text: &str) -> Result<Request, BadRequest> {
        let Opened { t, d, id } = Opened::parse(text)?;
        let data_error = |e: serde_json::Error| {
            let message = format!("bad data for {t:?}: {e}");
            BadRequest {
                code: ErrorCode::BadRequest,
                message,
                id: id.clone(),
            }
        };
        let message = match t.as_str() {
            "hello" => {
                let hello: HelloData = serde_json::from_value(d.clone()).map_err(data_error)?;
                let client = hello.client.map(ClientName::parse).transpose();
                ClientMessage::Hello {
                    token: hello.token,
                    acks: hello.acks,
                    client: client.map_err(|message| BadRequest {
                        code: ErrorCode::BadRequest,
                        message,
                        id: id.clone(),
                    })?,
                }
            }
            "move" => {
                let data: MoveData = serde_json::from_value(d.clone()).map_err(data_error)?;
                ClientMessage::Act(Action::Move { from: data.from })
            }
            "seed" => {
                let data: SeedData = serde_json::from_value(d.clone()).map_err(data_error)?;
                let seed = ClientSeed::parse(&data.client_seed).map_err(|message| BadRequest {
                    code: ErrorCode::BadRequest,
                    message,
                    id: id.clone(),
                })?;
                ClientMessage::Act(Action::Seed(seed))
            }
            "roll" => ClientMessage::Act(Action::Roll),
            "resign" => ClientMessage::Act(Action::Resign),
            "draw-offer" => ClientMessage::Act(Action::DrawOffer),
            "draw-accept" => ClientMessage::Act(Action::DrawAccept),
            "draw-decline" => ClientMessage::Act(Action::DrawDecline),
            "claim-victory" => ClientMessage::Act(Action::ClaimVictory),
            "rematch" => ClientMessage::Act(Action::Rematch),
            "hint" => ClientMessage::Act(Action::Hint),
            t if CHAT_MESSAGES.contains(&t) => {
                let request = chat_request(t, d).map_err(|(code, message)| BadRequest {
                    code,
                    message,
                    id: id.clone(),
                })?;
                ClientMessage::Chat(request)
            }
            "sync" => ClientMessage::Sync,
            "ping" => ClientMessage::Ping,
            other => return Err(Opened::unknown(other, id)),
        };
        Ok(Request { message, id })
    }
}

/// A client frame's envelope, opened: its type, its data (an object) and the `id` in it. Every
/// WebSocket endpoint (rooms, the lobby) reads its frames this way.
pub struct Opened {
    pub t: String,
    pub d: Value,
    pub id: Option<Value>,
}

impl Opened {
    pub fn parse(text: &str) -> Result<Opened, BadRequest> {
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
        Ok(Opened {
            t: envelope.t,
            d,
            id,
        })
    }

    /// The error for a type the endpoint does not know.
    pub fn unknown(t: &str, id: Option<Value>) -> BadRequest {
        BadRequest {
            code: ErrorCode::UnknownType,
            message: format!("unknown message type {t:?}"),
            id,
        }
    }
}

#[cfg(test)]
mod tests {
    use strum::IntoEnumIterator;

    use super::*;
    use serde_json::json;

    #[test]
    fn hello_asks_for_acks_unless_told_not_to() {
        let hello = |text| Request::parse(text).unwrap().message;
        assert_eq!(
            hello(r#"{"t":"hello","d":{"token":"abc"}}"#),
            ClientMessage::Hello {
                token: Some("abc".into()),
                acks: true,
                client: None
            }
        );
        assert_eq!(
            hello(r#"{"t":"hello","d":{"acks":false}}"#),
            ClientMessage::Hello {
                token: None,
                acks: false,
                client: None
            }
        );
        assert_eq!(
            hello(r#"{"t":"hello","d":{"client":"page-7f3a"}}"#),
            ClientMessage::Hello {
                token: None,
                acks: true,
                client: Some(ClientName::parse("page-7f3a".into()).unwrap())
            }
        );
        for name in ["", "a b", &"x".repeat(65)] {
            let text = json!({"t": "hello", "d": {"client": name}}).to_string();
            assert_eq!(
                Request::parse(&text).unwrap_err().code,
                ErrorCode::BadRequest
            );
        }
        let bad = Request::parse(r#"{"t":"hello","d":{"acks":"no"}}"#).unwrap_err();
        assert_eq!(bad.code, ErrorCode::BadRequest);
    }

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
        for action in Action::iter() {
            let frame =
                json!({"t": action.name(), "d": {"from": 0, "client_seed": ""}}).to_string();
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
        let seed = |text: &str| json!({"t": "seed", "d": {"client_seed": text}}).to_string();
        let seed_code = |text: &str| Request::parse(&seed(text)).unwrap_err().code;
        assert_eq!(seed_code("a:b"), ErrorCode::BadRequest);
        assert_eq!(seed_code(&"x".repeat(65)), ErrorCode::BadRequest);
        assert_eq!(seed_code("tab\there"), ErrorCode::BadRequest);
        let ok = Request::parse(&seed(&"x".repeat(64))).unwrap().message;
        let ClientMessage::Act(Action::Seed(parsed)) = ok else {
            panic!("{ok:?}")
        };
        assert_eq!(parsed.as_str(), "x".repeat(64));
        let unknown = Request::parse(r#"{"t":"fly","d":{"id":3}}"#).unwrap_err();
        assert_eq!(unknown.id, Some(json!(3)));
    }
}
