//! A room's chat on the wire (issue 33): the preset messages everyone may send, free text as the
//! server accepts it, the two channels, and the lines a state shows. Free text is cleaned here,
//! once, where a client frame is read: NFC, control and bidi-override characters removed, at
//! most [`MAX_TEXT_CHARS`], and nothing that looks like a seat token or a URL carrying one.

use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;

use super::{UnixMs, Version};

/// The preset messages, by id; each page shows them in its reader's language.
pub const PRESETS: [&str; 9] = [
    "hello",
    "good-luck",
    "have-fun",
    "you-too",
    "good-game",
    "well-played",
    "thank-you",
    "have-to-go",
    "bye",
];

/// The longest free text, in characters (Unicode scalar values after NFC and cleaning).
pub const MAX_TEXT_CHARS: usize = 140;

/// The longest reason a report may give, in characters.
pub const MAX_REASON_CHARS: usize = 200;

/// Who reads a message: the players' channel (everyone in the room), or the spectators' (the
/// spectators, and a player only once they turn it on or the game is over).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Channel {
    Players,
    Spectators,
}

/// What a message says: a preset's id, or free text (already cleaned).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Say {
    Preset(&'static str),
    Text(String),
}

/// A player's chat choices for this game, as the log last set them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatSettings {
    /// Free text with the opponent: shown only once both sides turned it on.
    pub free_text: bool,
    /// Whether this player reads the spectators' channel during the game.
    pub spectators: bool,
}

/// One message as a state shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatLine {
    pub v: Version,
    pub at: UnixMs,
    /// `black`, `white`, or a spectator's player id (public; logs from before spectators needed
    /// an identity may hold `guest-…` handles).
    pub by: String,
    pub channel: Channel,
    /// An identified spectator's name as it was when they spoke.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
}

/// The chat part of a room's state, as one connection may see it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChatState {
    /// The last messages this connection may read, oldest first (hidden ones left out).
    pub lines: Vec<ChatLine>,
    /// Both players' choices (black's, white's).
    pub black: ChatSettings,
    pub white: ChatSettings,
    /// Who this connection's seat muted (a player's own; empty for spectators).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub muted: Vec<String>,
}

/// A chat request from a client.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChatRequest {
    Say(Say),
    /// Changes the sender's choices: a field left out keeps its value.
    Settings {
        free_text: Option<bool>,
        spectators: Option<bool>,
    },
    /// Mutes `who` (the other side, or a spectator's player id) for the rest of the game.
    Mute {
        who: String,
    },
    /// Reports the room's last messages to the operators.
    Report {
        reason: String,
    },
}

/// Why a message was refused where it was read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub enum TextProblem {
    #[error("no such preset message (see docs/PROTOCOL.md, Chat)")]
    UnknownPreset,
    #[error("a message needs a preset or some text, not both")]
    Shape,
    #[error("the message is empty")]
    Empty,
    #[error("a message holds at most {MAX_TEXT_CHARS} characters")]
    TooLong,
    #[error("this looks like a seat token or a link with one: never share those")]
    Token,
}

/// The preset with this id.
pub fn preset(id: &str) -> Result<&'static str, TextProblem> {
    PRESETS
        .iter()
        .find(|known| **known == id)
        .copied()
        .ok_or(TextProblem::UnknownPreset)
}

/// A message from its `preset` or its `text` (exactly one).
pub fn say(preset_id: Option<&str>, text: Option<&str>) -> Result<Say, TextProblem> {
    match (preset_id, text) {
        (Some(id), None) => preset(id).map(Say::Preset),
        (None, Some(text)) => clean(text).map(Say::Text),
        _ => Err(TextProblem::Shape),
    }
}

/// Free text as the server keeps it: NFC, without control, format-override or isolate
/// characters, trimmed; refused when empty, too long or holding a secret.
pub fn clean(raw: &str) -> Result<String, TextProblem> {
    let text: String = raw.nfc().filter(|&c| !removed(c)).collect();
    let text = text.trim();
    if text.is_empty() {
        return Err(TextProblem::Empty);
    }
    if text.chars().count() > MAX_TEXT_CHARS {
        return Err(TextProblem::TooLong);
    }
    if looks_secret(text) {
        return Err(TextProblem::Token);
    }
    Ok(text.to_string())
}

/// A report's reason, cleaned as text is, shortened rather than refused.
pub fn reason(raw: &str) -> String {
    let text: String = raw.nfc().filter(|&c| !removed(c)).collect();
    text.trim().chars().take(MAX_REASON_CHARS).collect()
}

/// Control characters (line breaks included: a message is one line) and the bidi embeddings,
/// overrides, isolates and marks that make text read other than it is stored.
fn removed(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Seat tokens and player secrets are 64 hex digits; room ids 32. A run of 40 or more hex
/// digits, or anything naming a token, is refused: a room's link alone (32) is fine.
fn looks_secret(text: &str) -> bool {
    let lower = text.to_lowercase();
    let names_token = ["token=", "token:", "token\"", "senet_player"]
        .iter()
        .any(|marker| lower.contains(marker));
    let longest_hex = text
        .split(|c: char| !c.is_ascii_hexdigit())
        .map(str::len)
        .max()
        .unwrap_or(0);
    names_token || longest_hex >= 40
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presets_are_known_by_id_only() {
        assert_eq!(say(Some("good-game"), None), Ok(Say::Preset("good-game")));
        assert_eq!(say(Some("gg"), None), Err(TextProblem::UnknownPreset));
        assert_eq!(say(Some("hello"), Some("hi")), Err(TextProblem::Shape));
        assert_eq!(say(None, None), Err(TextProblem::Shape));
    }

    #[test]
    fn text_is_normalized_and_cleaned() {
        assert_eq!(clean("  Jose\u{301}\n "), Ok("Jos\u{e9}".to_string()));
        assert_eq!(clean("a\u{202E}b\u{2066}c\u{0007}"), Ok("abc".to_string()));
        assert_eq!(clean("\u{202E} \t"), Err(TextProblem::Empty));
        assert!(clean(&"ж".repeat(140)).is_ok());
        assert_eq!(clean(&"ж".repeat(141)), Err(TextProblem::TooLong));
        assert_eq!(clean("<b>hi</b>"), Ok("<b>hi</b>".to_string()));
    }

    #[test]
    fn secrets_are_refused_but_room_links_pass() {
        let token = "9c1e".repeat(16);
        assert_eq!(clean(&token), Err(TextProblem::Token));
        assert_eq!(
            clean(&format!("join me: /r/{}#{token}", "a".repeat(32))),
            Err(TextProblem::Token)
        );
        assert_eq!(clean("my token=abc"), Err(TextProblem::Token));
        assert!(clean(&format!("watch /r/{}", "ab12".repeat(8))).is_ok());
    }
}
