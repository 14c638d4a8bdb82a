//! WebSocket frames from a client: `{"t": type, "d": data}`, parsed into a [`Request`] or a
//! [`BadRequest`] with its own error code.

use serde::Deserialize;
use serde_json::Value;
use strum::EnumIter;

use super::ErrorCode;

/// A game action, judged by the room.
#[derive(Clone, Copy, Debug, PartialEq, Eq, EnumIter)]
pub enum Action {
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
            "hint" => ClientMessage::Act(Action::Hint),
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

#[cfg(test)]
mod tests {
    use strum::IntoEnumIterator;

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
        for action in Action::iter() {
            let frame = json!({"t": action.name(), "d": {"from": 0}}).to_string();
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
}
