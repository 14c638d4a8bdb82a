//! The load generator's reading of the protocol, on the server's own types
//! ([`crate::protocol`]): which frames answer an action, which are events, and what a scripted
//! player does next.

use serde::Deserialize;
use serde_json::{Value, json};

use crate::engine::Side;
use crate::protocol::{
    Clocks, EndReason, Event, LegalMove, Phase, Reply, Seat, State, TimeControl, Version,
};

/// A frame from the server: an event (with its version) or a reply to this connection.
#[derive(Debug)]
pub struct Incoming {
    frame: ServerFrame,
    /// An event's `d.v`.
    v: Option<Version>,
    /// An event's `d.id`: the event ends this connection's action with that id (`acks: false`).
    id: Option<u64>,
}

/// Replies are boxed: a `welcome` or `state` is much larger than an event.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ServerFrame {
    Event(Event),
    Reply(Box<Reply>),
}

/// Just the version and answered id of an event frame, `{"d":{"v":n,"id":n}}`.
#[derive(Deserialize)]
struct VersionOf {
    d: Option<VersionField>,
}

#[derive(Deserialize)]
struct VersionField {
    v: Option<Version>,
    id: Option<u64>,
}

impl Incoming {
    pub fn parse(text: &str) -> Result<Self, serde_json::Error> {
        let frame: ServerFrame = serde_json::from_str(text)?;
        let (v, id) = match frame {
            ServerFrame::Event(_) => match serde_json::from_str::<VersionOf>(text)?.d {
                Some(field) => (field.v, field.id),
                None => (None, None),
            },
            ServerFrame::Reply(_) => (None, None),
        };
        Ok(Incoming { frame, v, id })
    }

    fn reply(&self) -> Option<&Reply> {
        match &self.frame {
            ServerFrame::Reply(reply) => Some(reply),
            ServerFrame::Event(_) => None,
        }
    }

    /// The action id this frame answers (`ack`, `error`, `state` or `pong` carrying an id, or
    /// the event that ended the action).
    pub fn answers(&self) -> Option<u64> {
        if self.id.is_some() {
            return self.id;
        }
        let id = match self.reply()? {
            Reply::Ack { id, .. }
            | Reply::Error { id, .. }
            | Reply::State { id, .. }
            | Reply::Pong { id } => id.as_ref(),
            _ => None,
        };
        id.and_then(Value::as_u64)
    }

    pub fn is_event(&self) -> bool {
        matches!(self.frame, ServerFrame::Event(_))
    }

    /// The room version an event or a state carries.
    pub fn version(&self) -> Option<Version> {
        self.state().map(|state| state.v).or(self.v)
    }

    /// Whether this is a `welcome` or a `state`: a whole state rather than an event.
    pub fn carries_state(&self) -> bool {
        self.state().is_some()
    }

    /// For an `error` frame, its code.
    pub fn error_code(&self) -> Option<String> {
        match self.reply()? {
            Reply::Error { code, .. } => Some(
                serde_json::to_value(code)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_else(|| format!("{code:?}")),
            ),
            _ => None,
        }
    }

    /// The seat a `welcome` gives, if it is one side.
    pub fn welcome_side(&self) -> Option<Side> {
        match self.reply()? {
            Reply::Welcome {
                seat: Seat::Black, ..
            } => Some(Side::Black),
            Reply::Welcome {
                seat: Seat::White, ..
            } => Some(Side::White),
            _ => None,
        }
    }

    fn state(&self) -> Option<&State> {
        match self.reply()? {
            Reply::Welcome { state, .. } | Reply::State { state, .. } => Some(state),
            _ => None,
        }
    }
}

/// Whose time runs after a frame that told the clocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Running {
    Side(Side),
    /// Nobody's: the game is over.
    Stopped,
    /// The same side's as before (`resumed` gives the clocks back, not the turn).
    Unchanged,
    /// The same side's, standing still until `resumed` (`paused`: a drain).
    Paused,
}

/// A timed game's clocks as `frame` tells them (both sides' remaining milliseconds at the
/// frame, and whose time runs from there); `None` if it tells nothing of them.
pub fn clocks(frame: &Incoming) -> Option<(Clocks, Running)> {
    if let Some(state) = frame.state() {
        let clock = state.clock.as_ref()?;
        let running = clock.running.map_or(Running::Stopped, Running::Side);
        return Some((clock.remaining, running));
    }
    let ServerFrame::Event(event) = &frame.frame else {
        return None;
    };
    match event {
        Event::Moved {
            clocks: Some(clocks),
            next,
            ..
        }
        | Event::Passed {
            clocks: Some(clocks),
            next,
            ..
        } => Some((*clocks, Running::Side(*next))),
        Event::Resumed { clocks } => Some((*clocks, Running::Unchanged)),
        Event::Paused { clocks } => Some((*clocks, Running::Paused)),
        Event::GameOver {
            clocks: Some(clocks),
            ..
        } => Some((*clocks, Running::Stopped)),
        _ => None,
    }
}

/// Whether `frame` ends the game by abandonment or on time: with scripted players who always
/// answer at once, a game ended so was lost to the servers.
pub fn ended_badly(frame: &Incoming) -> bool {
    let reason = match (&frame.frame, frame.state()) {
        (ServerFrame::Event(Event::GameOver { reason, .. }), _) => Some(*reason),
        (_, Some(state)) => state.result.as_ref().map(|result| result.reason),
        _ => None,
    };
    matches!(reason, Some(EndReason::Abandon | EndReason::Timeout))
}

/// What a scripted player does after reading a frame.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reaction {
    Roll,
    Move {
        from: u8,
    },
    /// The game has ended: time for a new room.
    GameOver,
    Nothing,
}

/// The reaction of the player holding `seat` to `frame`: roll when it is its turn to throw,
/// move a random legal piece when it holds a throw.
pub fn react(seat: Side, frame: &Incoming) -> Reaction {
    if let Some(state) = frame.state() {
        return react_to_state(seat, state);
    }
    let ServerFrame::Event(event) = &frame.frame else {
        return Reaction::Nothing;
    };
    match event {
        Event::Started { turn, .. } if *turn == seat => Reaction::Roll,
        Event::Rolled { side, legal, .. } if *side == seat => pick_move(legal),
        // A move that bore off the mover's last piece is followed by `game-over`: no throw.
        Event::Moved { side, position, .. } if has_no_pieces(position, *side) => Reaction::Nothing,
        Event::Moved { next, .. } | Event::Passed { next, .. } if *next == seat => Reaction::Roll,
        Event::GameOver { .. } => Reaction::GameOver,
        _ => Reaction::Nothing,
    }
}

/// Whether `side` has no piece left on the board of a position in the engine's notation.
fn has_no_pieces(position: &str, side: Side) -> bool {
    let letter = match side {
        Side::Black => 'B',
        Side::White => 'W',
    };
    let board = position.split(' ').next().unwrap_or(position);
    !board.contains(letter)
}

fn react_to_state(seat: Side, state: &State) -> Reaction {
    match state.phase {
        Phase::Over => Reaction::GameOver,
        _ if state.turn != seat => Reaction::Nothing,
        Phase::Roll => Reaction::Roll,
        Phase::Move => pick_move(&state.legal),
        Phase::Waiting => Reaction::Nothing,
    }
}

/// A random move from a legal list; nothing when it is empty (the server then passes).
fn pick_move(legal: &[LegalMove]) -> Reaction {
    if legal.is_empty() {
        return Reaction::Nothing;
    }
    Reaction::Move {
        from: legal[rand::random_range(0..legal.len())].from,
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
pub fn caused_by(seat: Side, frame: &Incoming) -> Option<ActionKind> {
    match &frame.frame {
        ServerFrame::Event(Event::Rolled { side, .. }) if *side == seat => Some(ActionKind::Roll),
        ServerFrame::Event(Event::Moved { side, .. }) if *side == seat => Some(ActionKind::Move),
        _ => None,
    }
}

/// The first frame of a connection: take the seat the token gives, and have actions answered in
/// their events rather than by `ack` frames, as the web client does.
pub fn hello(token: &str) -> String {
    json!({"t": "hello", "d": {"token": token, "acks": false}}).to_string()
}

/// A frame for the echo endpoint: shaped as the server's `pong`, so that the echo parses as
/// the reply that answers it.
pub fn echo_frame(id: u64) -> String {
    serde_json::to_string(&Reply::Pong {
        id: Some(Value::from(id)),
    })
    .expect("a pong serializes")
}

/// The body of `POST /api/rooms` for an online room with the creator on `side`, timed by `clock`
/// or untimed. The players send no client seed (`seed`): their throws use the empty default,
/// which costs the server the same.
pub fn create_room_body(side: Side, clock: Option<TimeControl>, rated: bool) -> String {
    json!({"mode": "online", "side": side, "clock": clock, "rated": rated}).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame(text: &str) -> Incoming {
        Incoming::parse(text).unwrap()
    }

    const STATE: &str = r#"{"room":"r","mode":"online","position":"WBWBWBWBWB.................... b",
        "turn":"black","phase":"roll","throw":null,"legal":[],
        "players":{"black":{"seated":true,"connected":true,"claim_at":null},
                   "white":{"seated":true,"connected":true,"claim_at":null}},
        "spectators":0,"draw_offer":null,"result":null,"seed_hash":"00",
        "client_seeds":{"black":"","white":""},"client_seeds_open":true,
        "draw_offers_spent":[],"rematch_offers":[],"rematch":null,"v":2}"#;

    #[test]
    fn rolls_on_its_turn_and_moves_with_a_throw() {
        let welcome = frame(&format!(
            r#"{{"t":"welcome","d":{{"seat":"black","state":{STATE}}}}}"#
        ));
        assert_eq!(welcome.welcome_side(), Some(Side::Black));
        assert_eq!(welcome.version(), Some(2));
        assert!(welcome.carries_state());
        assert_eq!(react(Side::Black, &welcome), Reaction::Roll);
        assert_eq!(react(Side::White, &welcome), Reaction::Nothing);

        let rolled = frame(
            r#"{"t":"rolled","d":{"side":"white","n":0,"sticks":[true,true,false,false],
                "value":2,"legal":[{"from":9,"to":11}],"v":3}}"#,
        );
        assert_eq!(react(Side::White, &rolled), Reaction::Move { from: 9 });
        assert_eq!(react(Side::Black, &rolled), Reaction::Nothing);
        assert_eq!(caused_by(Side::White, &rolled), Some(ActionKind::Roll));
        assert_eq!(caused_by(Side::Black, &rolled), None);
        assert!(rolled.is_event());
        assert_eq!(rolled.version(), Some(3));

        let moved = |position: &str| {
            frame(&format!(
                r#"{{"t":"moved","d":{{"side":"white","from":28,"to":"off","effect":"off",
                    "position":"{position}","next":"black","extra":false,"v":4}}}}"#
            ))
        };
        let still_playing = moved("B.........W................... b");
        assert_eq!(react(Side::Black, &still_playing), Reaction::Roll);
        let last_piece_off = moved("B............................. b");
        assert_eq!(react(Side::Black, &last_piece_off), Reaction::Nothing);

        let passed = frame(r#"{"t":"passed","d":{"side":"white","value":3,"next":"black","v":4}}"#);
        assert_eq!(react(Side::Black, &passed), Reaction::Roll);
        let over = frame(
            r#"{"t":"game-over","d":{"winner":"black","reason":"resign","seed":"00","v":5}}"#,
        );
        assert_eq!(react(Side::White, &over), Reaction::GameOver);
        assert!(!ended_badly(&over));
        let timeout = frame(
            r#"{"t":"game-over","d":{"winner":"black","reason":"timeout","seed":"00",
                "clocks":{"black":5,"white":0},"v":5}}"#,
        );
        assert!(ended_badly(&timeout));
        let stopped = Clocks { black: 5, white: 0 };
        assert_eq!(clocks(&timeout), Some((stopped, Running::Stopped)));
        let timed = frame(
            r#"{"t":"passed","d":{"side":"white","value":3,"next":"black",
                "clocks":{"black":7,"white":8},"v":4}}"#,
        );
        let after_pass = Clocks { black: 7, white: 8 };
        assert_eq!(
            clocks(&timed),
            Some((after_pass, Running::Side(Side::Black)))
        );
        assert_eq!(clocks(&passed), None);
        let paused = frame(r#"{"t":"paused","d":{"clocks":{"black":7,"white":8},"v":5}}"#);
        assert_eq!(clocks(&paused), Some((after_pass, Running::Paused)));
    }

    #[test]
    fn finds_answers_and_errors() {
        let ack = frame(r#"{"t":"ack","d":{"id":7,"v":9}}"#);
        assert_eq!(ack.answers(), Some(7));
        assert!(!ack.is_event());
        assert_eq!(ack.error_code(), None);
        let error = frame(r#"{"t":"error","d":{"code":"not_your_turn","message":"wait","id":8}}"#);
        assert_eq!(error.error_code().as_deref(), Some("not_your_turn"));
        assert_eq!(error.answers(), Some(8));
        assert_eq!(frame(&echo_frame(5)).answers(), Some(5));
        let answering = frame(r#"{"d":{"id":6,"side":"black","v":3},"t":"draw-offered"}"#);
        assert!(answering.is_event());
        assert_eq!(answering.answers(), Some(6));
        assert_eq!(answering.version(), Some(3));
        assert!(Incoming::parse(r#"{"t":"nonsense"}"#).is_err());
    }

    #[test]
    fn writes_actions_with_ids() {
        let (kind, roll) = action_frame(Reaction::Roll, 1).unwrap();
        assert_eq!(kind, ActionKind::Roll);
        let roll: Value = serde_json::from_str(&roll).unwrap();
        assert_eq!(roll, json!({"t": "roll", "d": {"id": 1}}));
        let (kind, mv) = action_frame(Reaction::Move { from: 10 }, 2).unwrap();
        assert_eq!(kind, ActionKind::Move);
        let mv: Value = serde_json::from_str(&mv).unwrap();
        assert_eq!(mv["d"], json!({"from": 10, "id": 2}));
        assert_eq!(action_frame(Reaction::Nothing, 3), None);
    }
}
