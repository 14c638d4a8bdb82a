//! What the teacher learns (issue 50 item 3): each class game as it stands (from its room's
//! summary, live or stored), and per pupil the games played and their results and the lessons
//! done and the rules they stumble on ("needs practice", [`super::stumbles`]), as JSON for the
//! class page and as CSV to download. Only the class's teacher reads it.

use std::fmt::Write as _;

use serde::Serialize;

use super::stumbles::lesson_for;
use super::{ClassError, ClassStore, GameRow, PupilRow};
use crate::protocol::{Status, Winner};
use crate::room::Rooms;
use crate::tournament::pairing::Colour;

/// A class game as it stands now.
#[derive(Clone, Debug)]
pub struct Played {
    pub row: GameRow,
    /// Started and not over.
    pub in_play: bool,
    pub winner: Option<Winner>,
    pub moves: u32,
}

impl Played {
    pub fn won_by(&self, colour: Colour) -> bool {
        matches!(
            (self.winner, colour),
            (Some(Winner::Black), Colour::Black) | (Some(Winner::White), Colour::White)
        )
    }

    /// The colour `pupil` plays in this game, if they play it.
    fn colour_of(&self, pupil: &str) -> Option<Colour> {
        if self.row.black.as_deref() == Some(pupil) {
            Some(Colour::Black)
        } else if self.row.white.as_deref() == Some(pupil) {
            Some(Colour::White)
        } else {
            None
        }
    }
}

/// The class's games, each with its room's state now.
pub async fn played(
    store: &ClassStore,
    rooms: &Rooms,
    class: &str,
) -> Result<Vec<Played>, ClassError> {
    let mut played = Vec::new();
    for row in store.games(class).await? {
        let summary = rooms.summary(&row.room).await?;
        played.push(Played {
            in_play: summary.status == Status::Playing,
            winner: summary.result.map(|result| result.winner),
            moves: summary.moves,
            row,
        });
    }
    Ok(played)
}

/// One pupil's line of the report.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PupilReport {
    pub id: String,
    pub name: String,
    pub played: usize,
    pub won: usize,
    pub lost: usize,
    /// Ended by the teacher, or still being played.
    pub unfinished: usize,
    pub lessons: Vec<String>,
    /// The rules the engine refused this pupil's touches by, most often first.
    pub needs_practice: Vec<Stumble>,
}

/// A rule a pupil stumbled on, how often, and the lesson that teaches it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Stumble {
    pub rule: String,
    pub count: i64,
    pub lesson: Option<&'static str>,
}

/// Every pupil's line, in the order they joined.
pub fn per_pupil(
    pupils: &[PupilRow],
    played: &[Played],
    lessons: &[(String, String)],
    stumbles: &[(String, String, i64)],
) -> Vec<PupilReport> {
    pupils
        .iter()
        .map(|pupil| {
            let mine: Vec<(Colour, &Played)> = played
                .iter()
                .filter_map(|game| Some((game.colour_of(&pupil.id)?, game)))
                .collect();
            let won = mine.iter().filter(|(c, game)| game.won_by(*c)).count();
            let lost = mine
                .iter()
                .filter(|(c, game)| game.won_by(c.other()))
                .count();
            PupilReport {
                id: pupil.id.clone(),
                name: pupil.name.clone(),
                played: mine.len(),
                won,
                lost,
                unfinished: mine.len() - won - lost,
                lessons: lessons
                    .iter()
                    .filter(|(who, _)| *who == pupil.id)
                    .map(|(_, lesson)| lesson.clone())
                    .collect(),
                needs_practice: stumbles
                    .iter()
                    .filter(|(who, _, _)| *who == pupil.id)
                    .map(|(_, rule, count)| Stumble {
                        rule: rule.clone(),
                        count: *count,
                        lesson: lesson_for(rule),
                    })
                    .collect(),
            }
        })
        .collect()
}

/// The report as CSV (RFC 4180): one line per pupil, lessons joined by spaces, the rules to
/// practise as `rule:count` joined by spaces. A name is
/// quoted, and one that a spreadsheet would read as a formula is prefixed with `'`.
pub fn csv(report: &[PupilReport]) -> String {
    let mut out = String::from("name,played,won,lost,unfinished,lessons,needs_practice\r\n");
    for line in report {
        let mut name = line.name.clone();
        if name.starts_with(['=', '+', '-', '@']) {
            name.insert(0, '\'');
        }
        let practice: Vec<String> = line
            .needs_practice
            .iter()
            .map(|stumble| format!("{}:{}", stumble.rule, stumble.count))
            .collect();
        let _ = write!(
            out,
            "\"{}\",{},{},{},{},\"{}\",\"{}\"\r\n",
            name.replace('"', "\"\""),
            line.played,
            line.won,
            line.lost,
            line.unfinished,
            line.lessons.join(" "),
            practice.join(" ")
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pupil(id: &str, name: &str) -> PupilRow {
        PupilRow {
            id: id.into(),
            class: "c".into(),
            name: name.into(),
            joined_at: 0,
        }
    }

    fn game(black: Option<&str>, white: Option<&str>, winner: Option<Winner>) -> Played {
        Played {
            row: GameRow {
                room: "r".into(),
                black: black.map(Into::into),
                white: white.map(Into::into),
                black_token: None,
                white_token: None,
                started_at: 0,
            },
            in_play: winner.is_none(),
            winner,
            moves: 0,
        }
    }

    #[test]
    fn each_pupil_counts_their_own_games_and_lessons() {
        let pupils = [pupil("a", "Ann"), pupil("b", "=Bob")];
        let played = [
            game(Some("a"), Some("b"), Some(Winner::Black)),
            game(None, Some("b"), Some(Winner::White)),
            game(Some("a"), None, None),
        ];
        let lessons = [("a".to_string(), "first-move".to_string())];
        let stumbles = [("b".to_string(), "blocked".to_string(), 3)];
        let report = per_pupil(&pupils, &played, &lessons, &stumbles);
        assert_eq!((report[0].played, report[0].won, report[0].lost), (2, 1, 0));
        assert_eq!(report[0].unfinished, 1);
        assert_eq!(report[0].lessons, ["first-move"]);
        assert_eq!((report[1].played, report[1].won, report[1].lost), (2, 1, 1));
        assert_eq!(report[1].needs_practice[0].lesson, Some("block-land"));
        let csv = csv(&report);
        assert_eq!(
            csv,
            "name,played,won,lost,unfinished,lessons,needs_practice\r\n\
             \"Ann\",2,1,0,1,\"first-move\",\"\"\r\n\
             \"'=Bob\",2,1,1,0,\"\",\"blocked:3\"\r\n"
        );
    }
}
