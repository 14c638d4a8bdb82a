//! A room's chat on the wire (issue 33): the preset messages everyone may send, free text as the
//! server accepts it, the two channels, and the lines a state shows. Free text is cleaned here,
//! once, where a client frame is read: control, line-break and bidi-override characters removed,
//! then NFC (so what is stored is NFC whatever was removed), at most [`MAX_TEXT_CHARS`], not
//! invisible, and nothing that looks like a secret (issue 44): the check reads the text as a
//! reader sees it, without format characters (Unicode category Cf: zero-width spaces, word
//! joiners, soft hyphens), width folded (NFKC: full-width digits are digits) and across
//! separators (spaces, dashes, dots), and refuses a run of [`SECRET_HEX_DIGITS`] hex digits.
use serde::{Deserialize, Serialize};
use unicode_normalization::UnicodeNormalization;
use unicode_properties::{GeneralCategory, UnicodeGeneralCategory};

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

/// Hex digits in a run (over separators, format characters removed) that make text look like a
/// secret: seat tokens and player secrets are 64, a room's id 32; half a token is 32 too, so a
/// room's id is refused with it (the page shares a room by its own button, not in chat).
pub const SECRET_HEX_DIGITS: usize = 32;

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

/// Free text as the server keeps it: without control, line-break, format-override or isolate
/// characters, then NFC, trimmed; refused when nothing visible is left, too long or holding a
/// secret.
pub fn clean(raw: &str) -> Result<String, TextProblem> {
    let text = cleaned(raw);
    let text = text.trim();
    if !text.chars().any(visible) {
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
    cleaned(raw).trim().chars().take(MAX_REASON_CHARS).collect()
}

/// `raw` without the [`removed`] characters, then NFC: removing a character between a letter and
/// its combining mark must not leave the text unnormalized.
fn cleaned(raw: &str) -> String {
    raw.chars().filter(|&c| !removed(c)).nfc().collect()
}

/// Control characters and line and paragraph separators (a message is one line), and the bidi
/// embeddings, overrides, isolates and marks that make text read other than it is stored.
fn removed(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{2028}' | '\u{2029}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}'
        )
}

/// Whether a reader sees `c`: not a space, not a format character (zero-width space and joiners,
/// word joiner, soft hyphen, BOM), not one of the letters and symbols drawn blank (the Hangul
/// fillers, the braille blank).
fn visible(c: char) -> bool {
    !c.is_whitespace()
        && c.general_category() != GeneralCategory::Format
        && !matches!(
            c,
            '\u{115F}' | '\u{1160}' | '\u{3164}' | '\u{FFA0}' | '\u{2800}'
        )
}

/// Anything naming a token, or [`SECRET_HEX_DIGITS`] hex digits in a run, read without format
/// characters, width folded (NFKC) and over separators.
fn looks_secret(text: &str) -> bool {
    let read: String = text
        .nfkc()
        .filter(|c| c.general_category() != GeneralCategory::Format)
        .collect();
    let lower = read.to_lowercase();
    let names_token = ["token=", "token:", "token\"", "senet_player"]
        .iter()
        .any(|marker| lower.contains(marker));
    names_token || longest_hex_run(&read) >= SECRET_HEX_DIGITS
}

/// The most hex digits in a run that only [`separator`]s break up.
fn longest_hex_run(text: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for c in text.chars() {
        if c.is_ascii_hexdigit() {
            run += 1;
            longest = longest.max(run);
        } else if !separator(c) {
            run = 0;
        }
    }
    longest
}

/// What may stand between the groups of a pasted secret: spaces, dashes and connectors, and the
/// punctuation of a link or a list.
fn separator(c: char) -> bool {
    c.is_whitespace()
        || matches!(
            c.general_category(),
            GeneralCategory::DashPunctuation | GeneralCategory::ConnectorPunctuation
        )
        || matches!(
            c,
            '.' | ',' | ':' | ';' | '/' | '#' | '\'' | '"' | '|' | '+' | '='
        )
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
        // Issue 44: NFC after cleaning; line and paragraph separators out; invisible is empty.
        assert_eq!(clean("cafe\u{200F}\u{301}"), Ok("caf\u{e9}".to_string()));
        assert_eq!(clean("a\u{2028}b\u{2029}c"), Ok("abc".to_string()));
        for blank in [
            "\u{200B}",
            "\u{3164}",
            "\u{2800}",
            "\u{200D}",
            "\u{FEFF}",
            "\u{115F}\u{AD}",
        ] {
            assert_eq!(clean(blank), Err(TextProblem::Empty), "{blank:?}");
        }
        // A family emoji keeps its joiners.
        let family = "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}";
        assert_eq!(clean(family), Ok(family.to_string()));
    }

    #[test]
    fn secrets_are_refused_however_they_are_dressed() {
        let token = "9c1e".repeat(16);
        assert_eq!(clean(&token), Err(TextProblem::Token));
        assert_eq!(
            clean(&format!("join me: /r/{}#{token}", "a".repeat(32))),
            Err(TextProblem::Token)
        );
        assert_eq!(clean("my token=abc"), Err(TextProblem::Token));
        let (first, second) = token.split_at(32);
        let wide: String = token
            .chars()
            .map(|c| char::from_u32(c as u32 - 0x21 + 0xFF01).unwrap())
            .collect();
        let dashed: Vec<&str> = (0..8).map(|i| &token[i * 8..i * 8 + 8]).collect();
        for dressed in [
            format!("{first}\u{200B}{second}"),
            format!("{first}\u{2060}{second}"),
            format!("{first}\u{AD}{second}"),
            wide,
            format!("{first} {second}"),
            dashed.join("-"),
            first.to_string(),
            format!("half: {}", &second[..16]) + " " + &second[16..],
        ] {
            assert_eq!(clean(&dressed), Err(TextProblem::Token), "{dressed:?}");
        }
        assert!(clean("deadbeef cafe 2024-12-07 10:15 bad face").is_ok());
        assert!(clean("a bad deed, 12 34 56").is_ok());
    }
}
