//! The load generator's whole reading of the protocol (docs/PROTOCOL.md): which frames answer an
//! action, which are events, and what a scripted player does next. Kept in one place so that it
//! can follow the server's protocol types.

use serde::Deserialize;
use serde_json::{Value, json};

/// Versioned events, broadcast to every connection of a room.
const EVENTS: &[&str] = &[
    "started",
    "rolled",
    "moved",
    "passed",
    "draw-offered",
    "draw-cancelled",
    "presence",
    "game-over",
    "rematch",
];

/// A frame from the server, `{"t": type, "d": data}`.
#[derive(Debug, Clone, Deserialize)]
pub struct Incoming {
    t: String,
    #[serde(default)]
    d: Value,
}

impl Incoming {
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        serde_json::from_str(text)
    }

    pub fn kind(&self) -> &str {
        &self.t
    }

    /// The action id this frame answers (`ack`, `error`, `state`, `pong`, or an echo).
    pub fn answers(&self) -> Option<u64> {
        self.d.get("id").and_then(Value::as_u64)
    }

    pub fn is_event(&self) -> bool {
        EVENTS.contains(&self.t.as_str())
    }

    /// The room version an event or a state carries.
    pub fn version(&self) -> Option<u64> {
        self.state()
            .unwrap_or(&self.d)
            .get("v")
            .and_then(Value::as_u64)
    }

    /// Whether this is a `welcome` or a `state`: a whole state rather than an event.
    pub fn carries_state(&self) -> bool {
        self.state().is_some()
    }

    /// For an `error` frame, its code.
    pub fn error_code(&self) -> Option<&str> {
        (self.t == "error").then(|| self.d.get("code").and_then(Value::as_str).unwrap_or("?"))
    }

    /// For a `welcome`, the state inside it; for a `state`, itself.
    fn state(&self) -> Option<&Value> {
        match self.t.as_str() {
            "welcome" => self.d.get("state"),
            "state" => Some(&self.d),
            _ => None,
        }
    }

    fn str_field(&self, name: &str) -> Option<&str> {
        self.d.get(name).and_then(Value::as_str)
    }
}

/// What a scripted player does after reading a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    Roll,
    Move {
        from: u64,
    },
    /// The game has ended: time for a new room.
    GameOver,
    Nothing,
}

/// The reaction of the player holding `seat` ("black" or "white") to `frame`: roll when it is
/// its turn to throw, move a random legal piece when it holds a throw.
pub fn react(seat: &str, frame: &Incoming) -> Reaction {
    if let Some(state) = frame.state() {
        return react_to_state(seat, state);
    }
    let mine = |field: &str| frame.str_field(field) == Some(seat);
    match frame.kind() {
        "started" if mine("turn") => Reaction::Roll,
        "rolled" if mine("side") => pick_move(frame.d.get("legal")),
        "moved" | "passed" if mine("next") => Reaction::Roll,
        "game-over" => Reaction::GameOver,
        _ => Reaction::Nothing,
    }
}

fn react_to_state(seat: &str, state: &Value) -> Reaction {
    let field = |name: &str| state.get(name).and_then(Value::as_str);
    if field("phase") == Some("over") {
        return Reaction::GameOver;
    }
    if field("turn") != Some(seat) {
        return Reaction::Nothing;
    }
    match field("phase") {
        Some("roll") => Reaction::Roll,
        Some("move") => pick_move(state.get("legal")),
        _ => Reaction::Nothing,
    }
}

/// A random move from a `legal` list `[{"from":..,"to":..}]`; nothing when it is empty (the
/// server then passes on its own).
fn pick_move(legal: Option<&Value>) -> Reaction {
    let froms: Vec<u64> = legal
        .and_then(Value::as_array)
        .map(|moves| {
            moves
                .iter()
                .filter_map(|m| m.get("from").and_then(Value::as_u64))
                .collect()
        })
        .unwrap_or_default();
    if froms.is_empty() {
        return Reaction::Nothing;
    }
    Reaction::Move {
        from: froms[rand::random_range(0..froms.len())],
    }
}

/// The kinds of action the load generator sends; an action is answered by the first frame that
/// carries its id or by the event it caused.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ActionKind {
    Roll,
    Move,
    /// A frame for the echo endpoint.
    Echo,
}

/// The frame for an action carrying `id`, with its kind.
pub fn action_frame(reaction: Reaction, id: u64) -> Option<(ActionKind, String)> {
    let (kind, frame) = match reaction {
        Reaction::Roll => (ActionKind::Roll, json!({"t": "roll", "d": {"id": id}})),
        Reaction::Move { from } => (
            ActionKind::Move,
            json!({"t": "move", "d": {"from": from, "id": id}}),
        ),
        Reaction::GameOver | Reaction::Nothing => return None,
    };
    Some((kind, frame.to_string()))
}

/// The kind of action by `seat` that `frame` is the event of: its `rolled` answers its `roll`,
/// its `moved` its `move`.
pub fn caused_by(seat: &str, frame: &Incoming) -> Option<ActionKind> {
    if frame.str_field("side") != Some(seat) {
        return None;
    }
    match frame.kind() {
        "rolled" => Some(ActionKind::Roll),
        "moved" => Some(ActionKind::Move),
        _ => None,
    }
}

/// The first frame of a connection: take the seat the token gives.
pub fn hello(token: &str) -> String {
    json!({"t": "hello", "d": {"token": token}}).to_string()
}

/// A frame the echo endpoint sends back unchanged; its id makes the echo an answer.
pub fn echo_frame(id: u64) -> String {
    json!({"t": "ping", "d": {"id": id}}).to_string()
}

/// The body of `POST /api/rooms` for an online room with the creator on `side`.
pub fn create_room_body(side: &str, client_seed: &str) -> String {
    json!({"mode": "online", "side": side, "client_seed": client_seed}).to_string()
}

/// The body of `POST /api/rooms/{id}/join`.
pub fn join_body(client_seed: &str) -> String {
    json!({"client_seed": client_seed}).to_string()
}

/// A seat granted over HTTP: the room, the seat's colour and its secret token.
#[derive(Debug, Deserialize)]
pub struct Seat {
    #[serde(default)]
    pub room: Option<String>,
    pub seat: String,
    pub token: String,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> Incoming {
        Incoming::parse(text).unwrap()
    }

    #[test]
    fn rolls_on_its_turn_and_moves_with_a_throw() {
        let welcome = frame(
            r#"{"t":"welcome","d":{"seat":"black","state":{"turn":"black","phase":"roll","legal":[]}}}"#,
        );
        assert_eq!(react("black", &welcome), Reaction::Roll);
        assert_eq!(react("white", &welcome), Reaction::Nothing);

        let rolled = frame(
            r#"{"t":"rolled","d":{"v":3,"side":"white","value":2,"legal":[{"from":9,"to":11}]}}"#,
        );
        assert_eq!(react("white", &rolled), Reaction::Move { from: 9 });
        assert_eq!(caused_by("white", &rolled), Some(ActionKind::Roll));
        assert_eq!(caused_by("black", &rolled), None);
        assert_eq!(react("black", &rolled), Reaction::Nothing);
        assert!(rolled.is_event());
        assert_eq!(rolled.version(), Some(3));

        let no_move = frame(r#"{"t":"rolled","d":{"v":3,"side":"white","legal":[]}}"#);
        assert_eq!(react("white", &no_move), Reaction::Nothing);

        let moved = frame(r#"{"t":"moved","d":{"v":4,"side":"white","next":"white"}}"#);
        assert_eq!(react("white", &moved), Reaction::Roll);
        let passed = frame(r#"{"t":"passed","d":{"v":4,"side":"white","next":"black"}}"#);
        assert_eq!(react("black", &passed), Reaction::Roll);
        assert_eq!(
            react("black", &frame(r#"{"t":"game-over","d":{}}"#)),
            Reaction::GameOver
        );
    }

    #[test]
    fn finds_answers_and_errors() {
        let ack = frame(r#"{"t":"ack","d":{"id":7,"v":9}}"#);
        assert_eq!(ack.answers(), Some(7));
        assert!(!ack.is_event());
        let error = frame(r#"{"t":"error","d":{"code":"not_your_turn","id":8}}"#);
        assert_eq!(error.error_code(), Some("not_your_turn"));
        assert_eq!(error.answers(), Some(8));
        assert_eq!(ack.error_code(), None);
    }

    #[test]
    fn writes_actions_with_ids() {
        let (kind, roll) = action_frame(Reaction::Roll, 1).unwrap();
        assert_eq!(kind, ActionKind::Roll);
        let roll: Value = serde_json::from_str(&roll).unwrap();
        assert_eq!(roll, json!({"t": "roll", "d": {"id": 1}}));
        let (kind, mv) = action_frame(Reaction::Move { from: 10 }, 2).unwrap();
        assert_eq!(kind, ActionKind::Move);
        let mv = frame(&mv);
        assert_eq!(mv.answers(), Some(2));
        assert_eq!(action_frame(Reaction::Nothing, 3), None);
    }
}
