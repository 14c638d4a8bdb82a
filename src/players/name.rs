//! Display names: what a player may call themselves, and the key that makes two names the same.
//!
//! A name is NFC-normalized first (so "é" typed as one code point or as "e" + accent is one
//! name), then judged: 1–20 characters, each a letter or digit of any script, `_`, `-` or a
//! space, no space at either end nor two in a row (they would look like one). Uniqueness
//! ignores case: the key is the NFC form of the lowercased name, so "Anna" and "ANNA" collide.
//! Words that would impersonate the server or a side are refused, as is the prefix of the
//! generated names unnamed players get.

use unicode_normalization::UnicodeNormalization;

use crate::protocol::UnixMs;

/// The longest name, in characters (Unicode scalar values after NFC).
pub const MAX_NAME_CHARS: usize = 20;

/// How long after choosing a name a player may choose another: a week.
pub const RENAME_INTERVAL_MS: UnixMs = 7 * 24 * 3_600_000;

/// What the generated names of unnamed players start with; nobody may choose it.
pub const GENERATED_PREFIX: &str = "anon-";

/// Names (compared by key) nobody may take: the server's, a side's, the computer's.
const RESERVED: &[&str] = &[
    "admin",
    "administrator",
    "moderator",
    "computer",
    "black",
    "white",
    "senet",
    "server",
    "system",
    "deleted",
    "anonymous",
];

/// A name that passed [`Name::parse`]: as shown, and its key for uniqueness.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Name {
    pub display: String,
    pub key: String,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum NameError {
    #[error("a name needs 1 to {MAX_NAME_CHARS} characters")]
    Length,
    #[error("a name may hold letters, digits, '_', '-' and single spaces between words")]
    Characters,
    #[error("this name is reserved")]
    Reserved,
}

impl Name {
    /// Normalizes and judges a name as typed.
    pub fn parse(raw: &str) -> Result<Name, NameError> {
        let display: String = raw.nfc().collect();
        let chars = display.chars().count();
        if chars == 0 || chars > MAX_NAME_CHARS {
            return Err(NameError::Length);
        }
        if !display.chars().all(allowed) || bad_spaces(&display) {
            return Err(NameError::Characters);
        }
        let key = key_of(&display);
        if RESERVED.contains(&key.as_str()) || key.starts_with(GENERATED_PREFIX) {
            return Err(NameError::Reserved);
        }
        Ok(Name { display, key })
    }
}

/// The uniqueness key of a name (also of a name looked up in `/p/{name}`).
pub fn key_of(name: &str) -> String {
    name.nfc()
        .collect::<String>()
        .to_lowercase()
        .nfc()
        .collect()
}

/// The name an unnamed player is shown under, from their public id.
pub fn generated_name(player_id: &str) -> String {
    format!("{GENERATED_PREFIX}{}", &player_id[..player_id.len().min(6)])
}

/// Whether a player who last chose a name at `named_at` may choose another at `now`.
pub fn may_rename(named_at: Option<UnixMs>, now: UnixMs) -> bool {
    named_at.is_none_or(|at| now - at >= RENAME_INTERVAL_MS)
}

fn allowed(c: char) -> bool {
    c.is_alphanumeric() || matches!(c, '_' | '-' | ' ')
}

fn bad_spaces(name: &str) -> bool {
    name.starts_with(' ') || name.ends_with(' ') || name.contains("  ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_in_any_script_are_normalized_and_keyed_without_case() {
        let composed = Name::parse("Jos\u{e9}").unwrap();
        let decomposed = Name::parse("Jose\u{301}").unwrap();
        assert_eq!(composed, decomposed);
        assert_eq!(composed.display.chars().count(), 4);
        assert_eq!(
            Name::parse("ANNA").unwrap().key,
            Name::parse("anna").unwrap().key
        );
        assert_eq!(Name::parse("Вера").unwrap().key, "вера");
        assert!(Name::parse("塞尼特 玩家_1").is_ok());
        assert!(Name::parse("a").is_ok());
        assert!(Name::parse(&"x".repeat(MAX_NAME_CHARS)).is_ok());
    }

    #[test]
    fn bad_names_are_refused_with_the_reason() {
        assert_eq!(Name::parse(""), Err(NameError::Length));
        assert_eq!(Name::parse(&"y".repeat(21)), Err(NameError::Length));
        for bad in [
            "a.b",
            "x<script>",
            " lead",
            "trail ",
            "two  spaces",
            "tab\there",
            "e\u{301}\u{200b}",
        ] {
            assert_eq!(Name::parse(bad), Err(NameError::Characters), "{bad:?}");
        }
        for reserved in ["admin", "Computer", "BLACK", "white", "anon-1234", "Anon-x"] {
            assert_eq!(
                Name::parse(reserved),
                Err(NameError::Reserved),
                "{reserved:?}"
            );
        }
    }

    #[test]
    fn renaming_waits_a_week() {
        assert!(may_rename(None, 0));
        assert!(!may_rename(Some(1_000), 1_000 + RENAME_INTERVAL_MS - 1));
        assert!(may_rename(Some(1_000), 1_000 + RENAME_INTERVAL_MS));
        assert_eq!(generated_name("0123456789abcdef"), "anon-012345");
    }
}
