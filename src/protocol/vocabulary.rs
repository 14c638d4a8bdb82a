//! The names the browser client shares with the server, written out as `web/js/protocol.js`.
//!
//! The page switches on event types, translates error codes and illegal-move reasons, and sends
//! action types; a copy of those lists kept by hand drifts (it once translated a code the server
//! never sent). So the lists are read off the Rust types here, and `tests/vocabulary.rs` fails
//! when the file differs from [`javascript`] (`SENET_BLESS=1` rewrites it). Each list is in the
//! declaration order of its type; a key is the wire name in PascalCase, which is the Rust
//! variant's name.

use std::fmt::Write;

use serde::Serialize;
use strum::IntoEnumIterator;

use super::social::{ChallengeMessage, ChallengeStatus, DeclineReason};
use super::{
    Action, CancelReason, DEFAULT_LEVEL, EffectName, EndReason, ErrorCode, EventKind,
    LobbyFrameKind, LobbyRequestKind, Mode, Phase, ReplyKind, Seat, SeekGone, Status, Winner,
};
use crate::ai::Level;
use crate::engine::IllegalMove;

/// The client frames that are not game actions, before and after them in the generated list.
const HELLO: &str = "hello";
const AFTER_ACTIONS: [&str; 2] = ["sync", "ping"];

/// The text of `web/js/protocol.js`.
pub fn javascript() -> String {
    let client_messages = std::iter::once(HELLO.to_string())
        .chain(Action::iter().map(|action| action.name().to_string()))
        .chain(super::CHAT_MESSAGES.map(String::from))
        .chain(AFTER_ACTIONS.map(String::from));
    let tables: [(&str, Vec<String>); 20] = [
        ("ErrorCode", wire_names(ErrorCode::iter())),
        (
            "IllegalReason",
            names(IllegalMove::iter().map(IllegalMove::code)),
        ),
        ("ClientMessage", client_messages.collect()),
        ("Reply", names(ReplyKind::iter().map(<&str>::from))),
        ("Event", names(EventKind::iter().map(<&str>::from))),
        ("Mode", wire_names(Mode::iter())),
        ("Seat", wire_names(Seat::iter())),
        ("Phase", wire_names(Phase::iter())),
        ("Status", wire_names(Status::iter())),
        ("Winner", wire_names(Winner::iter())),
        ("EndReason", wire_names(EndReason::iter())),
        ("CancelReason", wire_names(CancelReason::iter())),
        ("Effect", wire_names(EffectName::iter())),
        ("Level", names(Level::ALL.map(Level::name))),
        (
            "LobbyMessage",
            names(LobbyRequestKind::iter().map(<&str>::from)),
        ),
        (
            "LobbyFrame",
            names(LobbyFrameKind::iter().map(<&str>::from)),
        ),
        ("SeekGone", wire_names(SeekGone::iter())),
        ("ChallengeMessage", wire_names(ChallengeMessage::iter())),
        ("DeclineReason", wire_names(DeclineReason::iter())),
        ("ChallengeStatus", wire_names(ChallengeStatus::iter())),
    ];
    let mut out = String::from(
        "// Generated from the server's Rust types by `SENET_BLESS=1 cargo test --test vocabulary`.\n\
         // Do not edit: tests/vocabulary.rs fails when this file and the server differ.\n",
    );
    for (name, values) in tables {
        let _ = write!(out, "\nexport const {name} = Object.freeze({{\n");
        for value in values {
            let _ = writeln!(out, "  {}: '{value}',", pascal_case(&value));
        }
        out.push_str("});\n");
    }
    let _ = write!(
        out,
        "\nexport const DEFAULT_LEVEL = '{}';\n",
        DEFAULT_LEVEL.name()
    );
    let _ = write!(out, "\nexport const PROTOCOL = {};\n", super::PROTOCOL);
    out
}

/// How serde writes each value (unit variants serialize to their wire name).
pub fn wire_names<T: Serialize>(values: impl IntoIterator<Item = T>) -> Vec<String> {
    values.into_iter().map(|value| wire_name(&value)).collect()
}

/// The wire name of a unit variant, as serde writes it.
pub fn wire_name<T: Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(serde_json::Value::String(name)) => name,
        other => unreachable!("a unit variant serializes to a string, not {other:?}"),
    }
}

fn names<'a>(values: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    values.into_iter().map(String::from).collect()
}

/// `draw-offer`, `bad_json`, `must_stop_on_26` → `DrawOffer`, `BadJson`, `MustStopOn26`.
fn pascal_case(wire: &str) -> String {
    wire.split(['-', '_'])
        .flat_map(|word| {
            let mut chars = word.chars();
            chars
                .next()
                .map(|first| first.to_ascii_uppercase())
                .into_iter()
                .chain(chars)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_the_rust_variant_names() {
        assert_eq!(pascal_case("draw-offer"), "DrawOffer");
        assert_eq!(pascal_case("must_stop_on_26"), "MustStopOn26");
        for code in ErrorCode::iter() {
            assert_eq!(pascal_case(&wire_name(&code)), format!("{code:?}"));
        }
    }
}
