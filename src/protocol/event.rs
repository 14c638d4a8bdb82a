//! Events: what happened in a room, persisted in order and then sent to every connection.
//! Stored in the log as `(t, d)` without their version; `"v"` is added inside `d` when an event
//! is framed for the wire ([`Event::frame`]), once per event.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use strum::{EnumDiscriminants, EnumIter, IntoStaticStr};

use super::chat::Channel;
use super::{TimeControl, UnixMs, Version};
use crate::engine::Side;

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

/// An own piece the throw cannot move, and why: the engine's [`IllegalMove`] code
/// (`must_stop_on_26`, `blocked`, ...), so a page can say it in words when the piece is touched.
///
/// [`IllegalMove`]: crate::engine::IllegalMove
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RefusedMove {
    pub from: u8,
    pub reason: String,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum EffectName {
    Step,
    Swap,
    Water,
    Off,
}

/// Both sides' client seeds, as the log last set them (empty for a side that set none).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientSeeds {
    pub black: String,
    pub white: String,
}

impl ClientSeeds {
    /// `side`'s seed.
    pub fn of(&self, side: Side) -> &str {
        match side {
            Side::Black => &self.black,
            Side::White => &self.white,
        }
    }

    /// Takes what a logged event sets: one side's `client-seed`, or both from a legacy `started`
    /// (see [`Event::Started`]).
    pub fn set_by(&mut self, event: &Event) {
        match event {
            Event::ClientSeed {
                side: Side::Black,
                client_seed,
            } => self.black.clone_from(client_seed),
            Event::ClientSeed {
                side: Side::White,
                client_seed,
            } => self.white.clone_from(client_seed),
            Event::Started {
                client_seeds: Some(legacy),
                ..
            } => self.clone_from(legacy),
            _ => {}
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Presence {
    pub connected: bool,
    pub claim_at: Option<UnixMs>,
}

/// Both sides' remaining time in milliseconds, at the moment of the event that carries them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clocks {
    pub black: i64,
    pub white: i64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum Winner {
    Black,
    White,
    Draw,
    /// No result: the game was ended by the server's operator ([`EndReason::Operator`]).
    None,
}

impl From<Side> for Winner {
    fn from(side: Side) -> Winner {
        match side {
            Side::Black => Winner::Black,
            Side::White => Winner::White,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "kebab-case")]
pub enum EndReason {
    BorneOff,
    Resign,
    Agreement,
    Abandon,
    /// The side to move ran out of time.
    Timeout,
    /// The server's operator ended the game (`senet admin end`), with no winner; the
    /// `game-over` event carries the operator's words as `note`.
    Operator,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "lowercase")]
pub enum CancelReason {
    Declined,
    Withdrawn,
    Lapsed,
}

/// What happened in a room: persisted in order, then sent to every connection. [`EventKind`]
/// names the variants without their data (its names are serde's, checked by a test).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, EnumDiscriminants)]
#[serde(tag = "t", content = "d", rename_all = "kebab-case")]
#[strum_discriminants(
    name(EventKind),
    derive(EnumIter, IntoStaticStr),
    strum(serialize_all = "kebab-case")
)]
pub enum Event {
    Started {
        position: String,
        turn: Side,
        seed_hash: String,
        /// Only in logs from before client seeds came after `started` (issue 13, item 6): both
        /// players' seeds, which the server had learnt before it logged `seed_hash`. Read when
        /// such a log is replayed, never written.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        client_seeds: Option<ClientSeeds>,
        /// The time control of a timed game.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clock: Option<TimeControl>,
    },
    /// A player's client seed for this game (the computer's, drawn from the OS generator, in
    /// `ai` rooms): only after `started`, which published `seed_hash`, and before the first
    /// throw; the last one of each side goes into every throw.
    ClientSeed {
        side: Side,
        client_seed: String,
    },
    Rolled {
        side: Side,
        n: u32,
        sticks: [bool; 4],
        value: u8,
        legal: Vec<LegalMove>,
        /// The side's other pieces, each with the rule that stops it (none in a log from before
        /// refusals were named).
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        refused: Vec<RefusedMove>,
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
        /// In timed games: both clocks after the move (with the increment if the turn ended).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
    },
    Passed {
        side: Side,
        value: u8,
        next: Side,
        /// In timed games: both clocks after the pass, the increment added.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
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
        /// In timed games: both clocks at the end.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        clocks: Option<Clocks>,
        /// Why the operator ended it (reason `operator` only).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        note: Option<String>,
    },
    RematchOffered {
        side: Side,
    },
    Rematch {
        room: String,
    },
    /// The engine's move for the current throw (`n`, as in `rolled`) was shown to `side`, which
    /// asked for it (practice rooms only): logged so the record says the move was helped.
    Hinted {
        side: Side,
        n: u32,
        from: u8,
    },
    /// A running timed game was loaded again after the server stopped: both clocks as they
    /// were at the last event before, and the side to move's clock runs again from here.
    Resumed {
        clocks: Clocks,
    },
    /// The operator drains the instance serving the side to move of a running timed game: both
    /// clocks stand as they are here until that player is back (then `resumed`, from these
    /// clocks) or [`PAUSE_LIMIT_MS`](super::PAUSE_LIMIT_MS) has passed. Never a client's doing.
    Paused {
        clocks: Clocks,
    },
    /// A chat message (issue 33): a preset's id or free text, by `black`, `white` or a
    /// spectator's handle, on one of the two channels. Read by whom the channel allows.
    Said {
        by: String,
        channel: Channel,
        /// An identified spectator's name when they spoke.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        name: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        preset: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        text: Option<String>,
        /// Sent instead of the message to those who may not read its channel (and in the record
        /// while they may not): who and where, without the words. Never logged.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        withheld: bool,
    },
    /// A player's chat choices for the rest of this game.
    ChatSet {
        side: Side,
        free_text: bool,
        spectators: bool,
    },
    /// `side` muted `who` (the other side, or a spectator's handle) for the rest of the game.
    Muted {
        side: Side,
        who: String,
    },
    /// An operator hid the message logged as event `message` (`senet admin hide`). Logs from
    /// before named it `v`, which the frame's own `v` shadowed.
    ChatHidden {
        #[serde(alias = "v")]
        message: Version,
    },
}

impl Event {
    /// Splits an event into its type and its data as stored in the log.
    pub fn to_parts(&self) -> (String, String) {
        let (kind, data) = self.split();
        (kind.to_string(), data)
    }

    /// The log's type and data together with the wire frame for version
    /// `v`, from one serialization: committing an event needs both.
    pub fn encode(&self, v: Version) -> ((String, String), String) {
        let (kind, data) = self.split();
        let frame = Self::frame_of(kind, &data, v);
        ((kind.to_string(), data), frame)
    }

    /// The type, and the data as JSON text, from one serialization straight to text (through a
    /// `serde_json::Value` it took 8% of the server's CPU flat out: docs/PERFORMANCE.md).
    fn split(&self) -> (&'static str, String) {
        let kind: &'static str = EventKind::from(self).into();
        let text = serde_json::to_string(self).expect("events serialize");
        // serde writes an adjacently tagged struct variant as `{"t":<kind>,"d":{..}}`, and every
        // event is a struct variant with at least one field.
        let data = text
            .strip_prefix(&format!(r#"{{"t":"{kind}","d":"#))
            .and_then(|rest| rest.strip_suffix('}'))
            .expect("an event serializes as {\"t\":kind,\"d\":data}");
        (kind, data.to_string())
    }

    /// `{"t":kind,"d":{..,"v":v}}` from the type and the data (an object with fields).
    fn frame_of(kind: &str, data: &str, v: Version) -> String {
        let fields = data.strip_suffix('}').expect("event data is an object");
        format!(r#"{{"t":"{kind}","d":{fields},"v":{v}}}}}"#)
    }

    /// Rebuilds an event from the log's type and data.
    pub fn from_parts(kind: &str, data: &str) -> Result<Event, serde_json::Error> {
        let data: Value = serde_json::from_str(data)?;
        serde_json::from_value(serde_json::json!({"t": kind, "d": data}))
    }

    /// The wire frame: `{"t":..,"d":{..,"v":v}}`.
    pub fn frame(&self, v: Version) -> String {
        let (kind, data) = self.split();
        Self::frame_of(kind, &data, v)
    }
}

/// An event frame made by [`Event::frame`] for the connection whose action it ends: the same
/// frame with the action's `id` last in `d` (events have no `id` of their own). Spliced into
/// the text, not serialized again: the frame was serialized once for the whole room. `None` for
/// a frame that is not an event's. (`id` is a number or a string: [`crate::protocol::Opened`]
/// refuses any other.)
pub fn frame_answering(frame: &str, id: &Value) -> Option<String> {
    let head = frame.strip_suffix("}}")?;
    Some(format!(r#"{head},"id":{id}}}}}"#))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    #[test]
    fn a_frame_answering_an_action_is_the_event_with_its_id() {
        let event = Event::Passed {
            side: Side::White,
            value: 3,
            next: Side::Black,
            clocks: None,
        };
        let frame = event.frame(7);
        for id in [serde_json::json!(12), serde_json::json!("a\"b")] {
            let answering = frame_answering(&frame, &id).expect("an event frame");
            let mut expected: Value = serde_json::from_str(&frame).unwrap();
            expected["d"]["id"] = id;
            assert_eq!(serde_json::from_str::<Value>(&answering).unwrap(), expected);
        }
        assert_eq!(
            frame_answering(r#"{"t":"watchers"}"#, &serde_json::json!(1)),
            None
        );
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
            clocks: None,
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

    /// One event of each kind: the match is exhaustive, so a new kind must be added here.
    fn example(kind: EventKind) -> Event {
        let presence = Presence {
            connected: true,
            claim_at: None,
        };
        let side = Side::Black;
        match kind {
            EventKind::Started => Event::Started {
                position: String::new(),
                turn: side,
                seed_hash: String::new(),
                client_seeds: None,
                clock: None,
            },
            EventKind::ClientSeed => Event::ClientSeed {
                side,
                client_seed: String::new(),
            },
            EventKind::Rolled => Event::Rolled {
                side,
                n: 0,
                sticks: [true; 4],
                value: 4,
                legal: Vec::new(),
                refused: Vec::new(),
            },
            EventKind::Moved => Event::Moved {
                side,
                from: 1,
                to: To::Square(2),
                effect: EffectName::Step,
                rest: None,
                swapped: None,
                position: String::new(),
                next: side,
                extra: false,
                clocks: None,
            },
            EventKind::Passed => Event::Passed {
                side,
                value: 1,
                next: side,
                clocks: None,
            },
            EventKind::DrawOffered => Event::DrawOffered { side },
            EventKind::DrawCancelled => Event::DrawCancelled {
                side,
                why: CancelReason::Declined,
            },
            EventKind::Presence => Event::Presence {
                black: presence,
                white: presence,
            },
            EventKind::GameOver => Event::GameOver {
                winner: Winner::Draw,
                reason: EndReason::Agreement,
                seed: String::new(),
                clocks: None,
                note: None,
            },
            EventKind::RematchOffered => Event::RematchOffered { side },
            EventKind::Rematch => Event::Rematch {
                room: String::new(),
            },
            EventKind::Resumed => Event::Resumed {
                clocks: Clocks { black: 1, white: 2 },
            },
            EventKind::Paused => Event::Paused {
                clocks: Clocks { black: 3, white: 4 },
            },
            EventKind::Hinted => Event::Hinted {
                side,
                n: 3,
                from: 9,
            },
            EventKind::Said => Event::Said {
                by: "white".into(),
                channel: Channel::Players,
                name: None,
                preset: Some("hello".into()),
                text: None,
                withheld: false,
            },
            EventKind::ChatSet => Event::ChatSet {
                side,
                free_text: true,
                spectators: false,
            },
            EventKind::Muted => Event::Muted {
                side,
                who: "white".into(),
            },
            EventKind::ChatHidden => Event::ChatHidden { message: 4 },
        }
    }

    #[test]
    fn a_hidden_message_s_version_is_not_the_frame_s() {
        let frame: Value =
            serde_json::from_str(&Event::ChatHidden { message: 17 }.frame(18)).unwrap();
        assert_eq!(
            (&frame["d"]["message"], &frame["d"]["v"]),
            (&17.into(), &18.into())
        );
        let logged_before = Event::from_parts("chat-hidden", r#"{"v":17}"#).unwrap();
        assert_eq!(logged_before, Event::ChatHidden { message: 17 });
    }

    #[test]
    fn event_kinds_are_the_wire_names() {
        use strum::IntoEnumIterator;
        for kind in EventKind::iter() {
            let event = example(kind);
            assert_eq!(EventKind::from(&event), kind);
            assert_eq!(event.to_parts().0, <&str>::from(kind));
        }
    }

    /// The text made without a `serde_json::Value` says what serde's own value says.
    #[test]
    fn every_kind_stores_its_data_and_frames_it_with_v() {
        use strum::IntoEnumIterator;
        for kind in EventKind::iter() {
            let event = example(kind);
            let mut whole = serde_json::to_value(&event).unwrap();
            let (stored, frame) = event.encode(9);
            assert_eq!(stored.0, whole["t"]);
            assert_eq!(
                serde_json::from_str::<Value>(&stored.1).unwrap(),
                whole["d"]
            );
            whole["d"]["v"] = Value::from(9);
            assert_eq!(serde_json::from_str::<Value>(&frame).unwrap(), whole);
        }
    }
}
