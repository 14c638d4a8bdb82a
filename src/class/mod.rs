//! Classes (issue 50; docs/UI.md "Class"): a teacher — an identified player — opens a class;
//! pupils join it with its code and a first name, without accounts. A pupil is not a player:
//! a row of the class with a hashed secret (the `senet_pupil` cookie), gone with the class. The
//! class's games are ordinary rooms made with both seats taken ([`Rooms::create_seated`]) or
//! against the computer, so no stranger can sit in one; the class lists them with the seat
//! tokens it hands its pupils.
//!
//! Beside the tournaments, on top of the rooms: server → class → room / store / players. The
//! teacher's actions are [`run`]; the quick Swiss round reuses the tournaments' pairing
//! ([`crate::tournament::pairing::swiss::pair_round`]); [`store`] keeps it all on SQLite or
//! PostgreSQL; [`report`] reads off each pupil's games and lessons (and the CSV).
//!
//! Everything is bounded: [`MAX_PUPILS`] a class, [`MAX_OPEN_PER_TEACHER`] a teacher, so a
//! teacher starts at most [`MAX_PUPILS`] games at once; a class is deleted at its retention.

pub mod report;
pub mod run;
pub mod store;
pub mod stumbles;

use crate::players::name::NameError;
use crate::room::RoomError;

pub use store::{ClassRow, ClassStore, GameRow, PupilRow};

/// The most pupils a class holds at once.
pub const MAX_PUPILS: usize = 60;
/// The most open classes one teacher has.
pub const MAX_OPEN_PER_TEACHER: usize = 10;
/// The most games a class starts over its life: its list (read whole by the teacher's page and
/// the report) stays bounded however often the teacher pairs.
pub const MAX_GAMES: usize = 1000;
/// A class's name, in characters.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 1..=40;
/// How long a class and its pupils' names are kept by default: 30 days (the teacher sees the
/// date; `--class-retention` shortens it for a server).
pub const DEFAULT_RETENTION: std::time::Duration = std::time::Duration::from_secs(30 * 86_400);
/// The join code's alphabet: capitals and digits without those read alike (0/O, 1/I/L, 5/S,
/// 2/Z, 8/B, S/5): 25 symbols.
pub const CODE_ALPHABET: &[u8] = b"ACDEFGHJKMNPQRTUVWXY34679";
/// The join code's length: 10 symbols of 25, 9.5 × 10^13 codes. At the join pace of one
/// address (`--class-join-per-minute`, 30) for a whole 30-day class that is 1.3 × 10^6 guesses:
/// one chance in 7 × 10^7 of finding a given class.
pub const CODE_LENGTH: usize = 10;

#[derive(Debug, thiserror::Error)]
pub enum ClassError {
    /// No open class by this id, or not this teacher's (told apart from nobody).
    #[error("no such class")]
    NotFound,
    /// A join code no open class has (never a hint of which part is wrong).
    #[error("no open class has this code: check it with your teacher")]
    CodeUnknown,
    #[error("this class has its {MAX_PUPILS} pupils")]
    Full,
    #[error("a pupil of this class has this name already: add a letter")]
    NameTaken,
    #[error("this class has started its {MAX_GAMES} games: open a new class")]
    GamesSpent,
    #[error("a teacher has at most {MAX_OPEN_PER_TEACHER} open classes: delete one first")]
    TooManyOpen,
    /// A request without a pupil's cookie, or for a pupil removed or whose class is gone.
    #[error("not a pupil of an open class: join with the class's code")]
    NoPupil,
    #[error("{0}")]
    Bad(String),
    #[error(transparent)]
    Name(#[from] NameError),
    #[error(transparent)]
    Room(#[from] RoomError),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// A new join code, grouped by nothing (the page shows it in two halves).
pub fn new_code() -> String {
    let bytes = crate::secrets::random_bytes::<CODE_LENGTH>();
    // 256 is not a multiple of 25: the first 250 values are even, the rest drawn again.
    let mut code = String::with_capacity(CODE_LENGTH);
    let mut extra = bytes.into_iter();
    while code.len() < CODE_LENGTH {
        let byte = extra
            .next()
            .unwrap_or_else(|| crate::secrets::random_bytes::<1>()[0]);
        if usize::from(byte) < 250 {
            code.push(char::from(
                CODE_ALPHABET[usize::from(byte) % CODE_ALPHABET.len()],
            ));
        }
    }
    code
}

/// A code as typed: spaces and dashes dropped, capitals; `None` unless it could be a code.
pub fn normalize_code(typed: &str) -> Option<String> {
    let code: String = typed
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let well_formed = code.len() == CODE_LENGTH && code.bytes().all(|b| CODE_ALPHABET.contains(&b));
    well_formed.then_some(code)
}

/// A class's name: trimmed, 1–40 characters, no control characters.
pub fn check_class_name(raw: &str) -> Result<String, ClassError> {
    use unicode_normalization::UnicodeNormalization;
    let name: String = raw.trim().nfc().collect();
    let fine = NAME_CHARS.contains(&name.chars().count()) && !name.chars().any(char::is_control);
    match fine {
        true => Ok(name),
        false => Err(ClassError::Bad(format!(
            "a class's name has {}–{} characters, none a control character",
            NAME_CHARS.start(),
            NAME_CHARS.end()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_well_formed_and_read_back_as_typed() {
        let code = new_code();
        assert_eq!(normalize_code(&code), Some(code.clone()));
        let typed = format!(" {}-{} ", &code[..5], &code[5..]).to_lowercase();
        assert_eq!(normalize_code(&typed), Some(code.clone()));
        assert_ne!(new_code(), code);
        assert_eq!(normalize_code("AAAA"), None);
        assert_eq!(
            normalize_code("OOOOOOOOOO"),
            None,
            "O is not in the alphabet"
        );
    }

    #[test]
    fn class_names_are_bounded() {
        assert_eq!(check_class_name("  5B maths ").unwrap(), "5B maths");
        assert!(check_class_name("").is_err());
        assert!(check_class_name(&"x".repeat(41)).is_err());
        assert!(check_class_name("a\u{7}b").is_err());
    }
}
