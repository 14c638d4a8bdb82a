//! The rule lessons of the `/learn` page: positions and questions written in
//! `lessons/lessons.json`, each right answer derived here by the engine.
//!
//! Why derived: the seed rule pages' exercises were never checked by an engine, and a
//! hand-written answer would be one more copy of the rules, free to drift from `src/engine`.
//! The file says only what is asked (a position, a throw, a question); [`lessons`] asks the
//! engine for the answer, and the page accepts exactly that.
//!
//! The file also says, per lesson, what the lesson's texts assert (`claims`, in the engine's
//! terms: a move's effect or an [`IllegalMove`](crate::engine::IllegalMove) code). Only
//! `tests/lessons.rs` reads them: it checks each against the engine, so a text that says
//! "blocked" where the engine lets the piece move fails the tests. The texts themselves are in
//! `web/js/learn-strings.js`, keyed `lesson.<id>.title|setup|why`.

use std::sync::LazyLock;

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::engine::{Move, ParsePositionError, Position, Roll, SQUARES, Square, Sticks, Target};
use crate::protocol::{OffMarker, To};

const SOURCE: &str = include_str!("../lessons/lessons.json");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LessonFile {
    lessons: Vec<Spec>,
}

/// One lesson as written in `lessons/lessons.json`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spec {
    /// Stable name: the key of the lesson's texts and of its progress in the browser.
    pub id: String,
    /// Engine notation; the side to move is the learner.
    pub position: String,
    /// The value thrown; the page shows it with the sticks.
    #[serde(default)]
    pub throw: Option<u8>,
    /// Or the sticks as they fell (`true` = marked face up): the learner reads the value.
    #[serde(default)]
    pub sticks: Option<[bool; 4]>,
    pub ask: Ask,
    /// What the lesson's texts assert; checked against the engine by `tests/lessons.rs`.
    pub claims: Vec<Claim>,
}

/// The question, and with it how the learner answers (see [`Kind`]).
#[derive(Clone, Copy, Debug, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ask {
    /// The squares the piece on this square passes and lands on, in order.
    Path(Square),
    /// The square where the piece on this square ends its move (after the water, too).
    Lands(Square),
    /// The square where the enemy piece goes that the piece on this square swaps with.
    Swapped(Square),
    /// Every piece that may use the throw.
    Pieces,
    /// Every throw after which moving the piece on this square earns another throw.
    Again(Square),
    /// Every throw with which some piece can bear off.
    BearsOff,
}

/// A statement a lesson's texts make: "with `throw` (default: the lesson's), the piece on
/// `piece` `is` ...". `is` names a move's effect (`step`, `swap`, `water`, `bear_off`), an
/// [`IllegalMove`](crate::engine::IllegalMove) code (`blocked`, `must_stop_on_26`, ...), or,
/// without a piece, `no_legal_move` or `the_start` (the position is the start, black to move).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Claim {
    #[serde(default)]
    pub piece: Option<Square>,
    #[serde(default)]
    pub throw: Option<u8>,
    pub is: String,
    /// Where the piece ends the move.
    #[serde(default)]
    pub rests_on: Option<Square>,
    /// Who throws next.
    #[serde(default)]
    pub then: Option<Then>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Then {
    ThrowsAgain,
    TurnPasses,
}

/// A lesson as the page gets it (`GET /api/lessons`), with the engine's answer.
#[derive(Clone, Debug, Serialize)]
pub struct Lesson {
    pub id: String,
    pub position: String,
    /// Absent when the question is about every throw.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub throw: Option<Thrown>,
    pub kind: Kind,
    /// The piece the question is about, if one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub piece: Option<Square>,
    /// What the page accepts: squares in order (`path`), one square (`square`), the movable
    /// pieces' squares, ascending (`pieces`), or throw values, ascending (`throws`). Empty means
    /// "no legal move".
    pub answer: Answer,
    /// The position after the piece's move, to show once answered (path and square lessons).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Thrown {
    pub sticks: [bool; 4],
    pub value: u8,
    /// False when the learner is to read the value from the sticks.
    pub shown: bool,
}

/// How the learner answers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Click squares in order.
    Path,
    /// Click one square (or the exit beside 30).
    Square,
    /// Click every piece that may move.
    Pieces,
    /// Pick throw values 1..=5.
    Throws,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Answer {
    Squares(Vec<To>),
    Throws(Vec<u8>),
}

#[derive(Debug, Error)]
pub enum LessonError {
    #[error("lessons/lessons.json: {0}")]
    File(#[from] serde_json::Error),
    #[error("lesson {id}: {source}")]
    Position {
        id: String,
        source: ParsePositionError,
    },
    #[error("lesson {id}: {problem}")]
    Question { id: String, problem: &'static str },
}

/// Every lesson as written, in order.
pub fn specs() -> Result<Vec<Spec>, LessonError> {
    Ok(serde_json::from_str::<LessonFile>(SOURCE)?.lessons)
}

/// Every lesson with its answer, derived once.
pub fn lessons() -> Result<&'static [Lesson], &'static LessonError> {
    static LESSONS: LazyLock<Result<Vec<Lesson>, LessonError>> =
        LazyLock::new(|| specs()?.iter().map(derive).collect());
    LESSONS.as_deref()
}

impl Spec {
    pub fn parse_position(&self) -> Result<Position, LessonError> {
        self.position
            .parse()
            .map_err(|source| LessonError::Position {
                id: self.id.clone(),
                source,
            })
    }

    fn problem(&self, problem: &'static str) -> LessonError {
        LessonError::Question {
            id: self.id.clone(),
            problem,
        }
    }

    /// The throw of the lesson, if it has one: from `sticks`, or `throw` drawn as sticks.
    fn thrown(&self) -> Result<Option<Thrown>, LessonError> {
        let sticks = match (self.throw, self.sticks) {
            (None, None) => return Ok(None),
            (Some(_), Some(_)) => return Err(self.problem("give either throw or sticks")),
            (None, Some(faces)) => Sticks::from_faces(faces),
            (Some(value), None) => {
                let roll = Roll::new(value).ok_or_else(|| self.problem("throw must be 1..=5"))?;
                sticks_showing(roll)
            }
        };
        Ok(Some(Thrown {
            sticks: sticks.faces(),
            value: sticks.roll().value(),
            shown: self.sticks.is_none(),
        }))
    }
}

/// Sticks that show `roll`: that many marked faces, or four blank ones for a 5.
fn sticks_showing(roll: Roll) -> Sticks {
    let marked = roll.value() % 5;
    Sticks::from_bits((1u8 << marked) - 1)
}

/// Asks the engine for the answer to one lesson.
pub fn derive(spec: &Spec) -> Result<Lesson, LessonError> {
    let position = spec.parse_position()?;
    let thrown = spec.thrown()?;
    let piece = match spec.ask {
        Ask::Path(square) | Ask::Lands(square) | Ask::Swapped(square) | Ask::Again(square) => {
            if position.piece_at(square) != Some(position.turn()) {
                return Err(spec.problem("the piece asked about is not the learner's"));
            }
            Some(square)
        }
        Ask::Pieces | Ask::BearsOff => None,
    };
    let about_every_throw = matches!(spec.ask, Ask::Again(_) | Ask::BearsOff);
    let roll = match (thrown, about_every_throw) {
        (Some(thrown), false) => Roll::new(thrown.value),
        (None, true) => None,
        (Some(_), true) => return Err(spec.problem("a question about every throw has no throw")),
        (None, false) => return Err(spec.problem("the question needs a throw")),
    };
    let the_move = |from| roll.and_then(|roll| position.check(from, roll).ok());
    let (kind, answer) = match spec.ask {
        Ask::Path(from) => (Kind::Path, squares(the_move(from).map(|mv| path(&mv)))),
        Ask::Lands(from) => (Kind::Square, squares(the_move(from).map(|mv| [rest(&mv)]))),
        Ask::Swapped(from) => {
            let swapped = match the_move(from) {
                Some(mv) => {
                    Some(swapped_to(&position, &mv).ok_or_else(|| spec.problem("no swap"))?)
                }
                None => None,
            };
            (
                Kind::Square,
                squares(swapped.map(|square| [To::Square(square)])),
            )
        }
        Ask::Pieces => {
            let moves = roll.map(|roll| position.legal_moves(roll));
            let froms = moves.iter().flatten().map(|mv| To::Square(mv.from));
            (Kind::Pieces, Answer::Squares(froms.collect()))
        }
        Ask::Again(from) => (
            Kind::Throws,
            throws(|roll| earns_throw(&position, from, roll)),
        ),
        Ask::BearsOff => (Kind::Throws, throws(|roll| bears_off(&position, roll))),
    };
    let after = match spec.ask {
        Ask::Path(from) | Ask::Lands(from) | Ask::Swapped(from) => {
            the_move(from).map(|mv| position.after(&mv).to_string())
        }
        _ => None,
    };
    Ok(Lesson {
        id: spec.id.clone(),
        position: position.to_string(),
        throw: thrown,
        kind,
        piece,
        answer,
        after,
    })
}

/// The squares of the piece's move, or none when it cannot move.
fn squares(picks: Option<impl IntoIterator<Item = To>>) -> Answer {
    Answer::Squares(picks.into_iter().flatten().collect())
}

fn throws(holds: impl Fn(Roll) -> bool) -> Answer {
    Answer::Throws(
        Roll::ALL
            .into_iter()
            .filter(|&roll| holds(roll))
            .map(Roll::value)
            .collect(),
    )
}

/// Every square the move passes and lands on, by count (27 for the water), then the exit.
fn path(mv: &Move) -> Vec<To> {
    let last = match mv.to {
        Target::Square(square) => square,
        Target::Off => SQUARES,
    };
    let mut squares: Vec<To> = (mv.from + 1..=last).map(To::Square).collect();
    if mv.to == Target::Off {
        squares.push(To::Off(OffMarker::Off));
    }
    squares
}

/// Where the moved piece ends: its square after the water, or off the board.
fn rest(mv: &Move) -> To {
    mv.rests_on().map_or(To::Off(OffMarker::Off), To::Square)
}

/// Where the enemy piece that the move swapped with ends, if the move swapped.
fn swapped_to(position: &Position, mv: &Move) -> Option<Square> {
    let enemy = position.turn().other();
    let after = position.after(mv);
    after
        .squares(enemy)
        .find(|&square| position.piece_at(square) != Some(enemy))
}

/// Whether the piece on `from` can use `roll` and its side then throws again.
fn earns_throw(position: &Position, from: Square, roll: Roll) -> bool {
    position
        .check(from, roll)
        .is_ok_and(|mv| position.after(&mv).turn() == position.turn())
}

/// Whether some piece can bear off with `roll`.
fn bears_off(position: &Position, roll: Roll) -> bool {
    position
        .legal_moves(roll)
        .iter()
        .any(|mv| mv.to == Target::Off)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_lesson_derives() {
        let lessons = lessons().unwrap_or_else(|error| panic!("{error}"));
        assert!(lessons.len() >= 12, "{} lessons", lessons.len());
    }

    #[test]
    fn sticks_showing_a_value_count_that_value() {
        for roll in Roll::ALL {
            assert_eq!(sticks_showing(roll).roll(), roll);
        }
        assert_eq!(sticks_showing(Roll::new(5).unwrap()).bits(), 0);
    }

    fn spec(json: &str) -> Spec {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn questions_that_do_not_fit_their_lesson_are_refused() {
        let cases = [
            // The piece asked about is white's, black is to move.
            r#"{"id":"x","position":"W.B..W........................ b","throw":1,"ask":{"path":1},"claims":[]}"#,
            // No throw for a one-throw question.
            r#"{"id":"x","position":"W.B..W........................ b","ask":"pieces","claims":[]}"#,
            // A throw for a question about every throw.
            r#"{"id":"x","position":"W.B..W........................ b","throw":2,"ask":"bears_off","claims":[]}"#,
            // Both a value and sticks.
            r#"{"id":"x","position":"W.B..W........................ b","throw":2,"sticks":[true,true,false,false],"ask":"pieces","claims":[]}"#,
            // 3 + 1 lands on an empty square: nothing is swapped.
            r#"{"id":"x","position":"W.B..W........................ b","throw":1,"ask":{"swapped":3},"claims":[]}"#,
        ];
        for json in cases {
            assert!(
                matches!(derive(&spec(json)), Err(LessonError::Question { .. })),
                "{json}"
            );
        }
    }

    #[test]
    fn a_piece_that_cannot_move_has_the_empty_answer() {
        // Black on 24 with a 3 must stop on 26 first.
        let lesson = derive(&spec(
            r#"{"id":"x","position":"....W..................B...... b","throw":3,"ask":{"path":24},"claims":[]}"#,
        ))
        .unwrap();
        assert_eq!(lesson.answer, Answer::Squares(vec![]));
        assert_eq!(lesson.after, None);
    }

    #[test]
    fn a_path_to_the_exit_ends_off_the_board() {
        let lesson = derive(&spec(
            r#"{"id":"x","position":"....W......................B.. b","throw":3,"ask":{"path":28},"claims":[]}"#,
        ))
        .unwrap();
        let expected = vec![To::Square(29), To::Square(30), To::Off(OffMarker::Off)];
        assert_eq!(lesson.answer, Answer::Squares(expected));
    }
}
