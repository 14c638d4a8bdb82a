//! The engine's verdict on a played game: replays a record's throws and
//! moves and, for every throw, asks the engine ([`ai::odds`]) how likely
//! the thrower was to win before it, after the move played and after the
//! best move. A move is labelled by the probability it gave away; passes
//! and forced moves are listed but not judged. Once the game is in the
//! endgame tablebase (when one is loaded), the chances are exact and the
//! throw is marked `exact`. Pure: the command line and the server both call
//! [`analyse`] on a [`Record`].

use serde::{Deserialize, Serialize};

use crate::ai::{self, Tablebase, tablebase};
use crate::engine::{ParsePositionError, Position, Roll, Side, Square};
use crate::protocol::{Event, Record};

/// Probability lost (of 1) from which a move is an inaccuracy, a mistake, a
/// blunder; docs/AI.md says why these values.
pub const INACCURACY: f64 = 0.02;
pub const MISTAKE: f64 = 0.05;
pub const BLUNDER: f64 = 0.10;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Label {
    Best,
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Label {
    const ALL: [Label; 4] = [
        Label::Best,
        Label::Inaccuracy,
        Label::Mistake,
        Label::Blunder,
    ];

    fn of_loss(loss: f64) -> Label {
        if loss >= BLUNDER {
            Label::Blunder
        } else if loss >= MISTAKE {
            Label::Mistake
        } else if loss >= INACCURACY {
            Label::Inaccuracy
        } else {
            Label::Best
        }
    }
}

/// Whether the thrower had a choice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Two or more legal moves: judged.
    Decision,
    /// Exactly one legal move: not judged.
    Forced,
    /// No legal move, the turn passed: not judged.
    Pass,
}

/// One throw of the game and the verdict on it. Probabilities are the
/// thrower's chance of winning, from 0 to 1.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Throw {
    /// The record's version of the `rolled` event, so a client can show the
    /// board at this throw.
    pub v: u64,
    pub side: Side,
    pub value: u8,
    pub kind: Kind,
    /// Square of the piece moved; `None` for a pass.
    pub played: Option<Square>,
    /// The best move's square, only when it is not the one played.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub best: Option<Square>,
    pub before: f64,
    /// `None` for a pass.
    pub after_played: Option<f64>,
    pub after_best: Option<f64>,
    /// Probability given away by the move played; decisions only.
    pub loss: Option<f64>,
    pub label: Option<Label>,
    /// The chances (and so the loss) are the tablebase's exact values, not
    /// the network's estimates: the position was in the table.
    #[serde(default)]
    pub exact: bool,
}

/// One side's decisions summed up.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Throws with two or more legal moves.
    pub decisions: usize,
    /// Mean probability lost per decision.
    pub mean_loss: f64,
    pub best: usize,
    pub inaccuracy: usize,
    pub mistake: usize,
    pub blunder: usize,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Analysis {
    pub throws: Vec<Throw>,
    pub black: Summary,
    pub white: Summary,
}

#[derive(Debug, PartialEq, thiserror::Error)]
pub enum AnalysisError {
    #[error("event v={0}: {1}")]
    Unreadable(u64, String),
    #[error("event v={0}: a move or pass without a throw before it")]
    NoThrow(u64),
    #[error("event v={0}: the move from {1} is not legal")]
    Illegal(u64, Square),
}

/// Analyses every throw in the record that was followed by a move or a pass,
/// with the installed tablebase if there is one.
pub fn analyse(record: &Record) -> Result<Analysis, AnalysisError> {
    analyse_with(record, tablebase::installed())
}

/// [`analyse`] with the tablebase given rather than the installed one.
pub fn analyse_with(record: &Record, table: Option<&Tablebase>) -> Result<Analysis, AnalysisError> {
    let throws = replay(record)?
        .iter()
        .map(|played| {
            let odds = ai::odds_with(&played.position, played.roll, table);
            judge(&played.position, played.roll, &odds, played.from, played.v)
        })
        .collect::<Result<Vec<Throw>, AnalysisError>>()?;
    Ok(Analysis {
        black: summary(&throws, Side::Black),
        white: summary(&throws, Side::White),
        throws,
    })
}

/// One throw of a record and what was done with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Played {
    /// The record's version of the `rolled` event.
    pub v: u64,
    /// The position the throw was made in.
    pub position: Position,
    pub roll: Roll,
    /// The square of the piece moved; `None` for a pass.
    pub from: Option<Square>,
}

/// Every throw of the record that was followed by a move or a pass, with the position it was
/// made in, each move checked by the rules (the analysis and the puzzles' miner read games so).
pub fn replay(record: &Record) -> Result<Vec<Played>, AnalysisError> {
    let mut position = Position::start();
    let mut pending: Option<(u64, Roll)> = None;
    let mut throws = Vec::new();
    for recorded in &record.events {
        let v = recorded.v;
        let event = Event::from_parts(&recorded.t, &recorded.d.to_string())
            .map_err(|e| AnalysisError::Unreadable(v, e.to_string()))?;
        let from = match event {
            Event::Started {
                position: start, ..
            } => {
                position = start
                    .parse()
                    .map_err(|e: ParsePositionError| AnalysisError::Unreadable(v, e.to_string()))?;
                continue;
            }
            Event::Rolled { value, .. } => {
                let roll = Roll::new(value)
                    .ok_or_else(|| AnalysisError::Unreadable(v, format!("throw {value}")))?;
                pending = Some((v, roll));
                continue;
            }
            Event::Moved { from, .. } => Some(from),
            Event::Passed { .. } => None,
            _ => continue,
        };
        let (rolled_at, roll) = pending.take().ok_or(AnalysisError::NoThrow(v))?;
        throws.push(Played {
            v: rolled_at,
            position,
            roll,
            from,
        });
        position = match from {
            Some(from) => {
                position
                    .play(from, roll)
                    .map_err(|_| AnalysisError::Illegal(v, from))?
                    .0
            }
            None => position.pass(),
        };
    }
    Ok(throws)
}

/// The verdict on one throw from the engine's odds; `played` is `None` for a pass.
fn judge(
    position: &Position,
    roll: Roll,
    odds: &ai::Odds,
    played: Option<Square>,
    v: u64,
) -> Result<Throw, AnalysisError> {
    let kind = match odds.moves.len() {
        0 => Kind::Pass,
        1 => Kind::Forced,
        _ => Kind::Decision,
    };
    let chance_of = |from: Square| {
        odds.moves
            .iter()
            .find(|(mv, _)| mv.from == from)
            .map(|(_, p)| *p)
            .ok_or(AnalysisError::Illegal(v, from))
    };
    let after_played = played.map(chance_of).transpose()?;
    let best = odds.best().map(|(mv, p)| (mv.from, p));
    let loss = match (kind, after_played, best) {
        (Kind::Decision, Some(played), Some((_, best))) => Some((best - played).max(0.0)),
        _ => None,
    };
    let best_differs =
        best.filter(|(from, p)| Some(*from) != played && after_played.is_some_and(|q| *p > q));
    Ok(Throw {
        v,
        side: position.turn(),
        value: roll.value(),
        kind,
        played,
        best: best_differs.map(|(from, _)| from),
        before: rounded(odds.before),
        after_played: after_played.map(rounded),
        after_best: best.map(|(_, p)| rounded(p)),
        loss: loss.map(rounded),
        label: loss.map(Label::of_loss),
        exact: odds.exact,
    })
}

fn summary(throws: &[Throw], side: Side) -> Summary {
    let judged: Vec<&Throw> = throws
        .iter()
        .filter(|t| t.side == side && t.kind == Kind::Decision)
        .collect();
    let count = |label: Label| judged.iter().filter(|t| t.label == Some(label)).count();
    let [best, inaccuracy, mistake, blunder] = Label::ALL.map(count);
    let total_loss: f64 = judged.iter().filter_map(|t| t.loss).sum();
    Summary {
        decisions: judged.len(),
        mean_loss: rounded(total_loss / judged.len().max(1) as f64),
        best,
        inaccuracy,
        mistake,
        blunder,
    }
}

/// Four decimals: a hundredth of a percentage point is all the network's
/// estimate is good for, and it keeps the JSON short.
fn rounded(p: f64) -> f64 {
    (p * 1e4).round() / 1e4
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::{ClientSeeds, EffectName, Mode, RecordedEvent, To};

    /// A record from `start` through `throws` (value, square moved or `None`
    /// for a pass). Only what the analysis reads is filled in faithfully.
    fn record(start: &str, throws: &[(u8, Option<Square>)]) -> Record {
        let mut position: Position = start.parse().unwrap();
        let mut events = vec![Event::Started {
            position: start.into(),
            turn: position.turn(),
            seed_hash: String::new(),
            client_seeds: None,
            clock: None,
        }];
        for &(value, from) in throws {
            let side = position.turn();
            let roll = Roll::new(value).unwrap();
            events.push(Event::Rolled {
                side,
                n: 0,
                sticks: [false; 4],
                value,
                legal: Vec::new(),
                refused: Vec::new(),
            });
            position = match from {
                Some(from) => position.play(from, roll).unwrap().0,
                None => position.pass(),
            };
            events.push(match from {
                Some(from) => Event::Moved {
                    side,
                    from,
                    to: To::Square(from + value),
                    effect: EffectName::Step,
                    rest: None,
                    swapped: None,
                    position: position.to_string(),
                    next: position.turn(),
                    extra: roll.grants_extra_throw(),
                    clocks: None,
                },
                None => Event::Passed {
                    side,
                    value,
                    next: position.turn(),
                    clocks: None,
                },
            });
        }
        let events = events
            .iter()
            .zip(1..)
            .map(|(event, v)| {
                let (t, d) = event.to_parts();
                RecordedEvent {
                    v,
                    at: 0,
                    t,
                    d: serde_json::from_str(&d).unwrap(),
                }
            })
            .collect();
        Record {
            room: "test".into(),
            mode: Mode::Local,
            level: None,
            clock: None,
            seed_hash: String::new(),
            seed: None,
            client_seeds: ClientSeeds::default(),
            events,
        }
    }

    #[test]
    fn letting_the_enemy_bear_off_from_29_when_a_swap_existed_is_a_blunder() {
        // White's last piece on 29 wins with a 2 (6/16). Black throws 3:
        // 26 -> 29 swaps it back to 26; black plays 5 -> 8 instead, and
        // white's 2 then bears off: a forced move, listed but not judged.
        let start = "....B....................B..W. b";
        let analysis = analyse(&record(start, &[(3, Some(5)), (2, Some(29))])).unwrap();
        let [blunder, forced] = &analysis.throws[..] else {
            panic!("{analysis:?}")
        };
        assert_eq!(blunder.kind, Kind::Decision);
        assert_eq!(blunder.played, Some(5));
        assert_eq!(blunder.best, Some(26), "{blunder:?}");
        assert_eq!(blunder.label, Some(Label::Blunder), "{blunder:?}");
        assert!(blunder.loss.unwrap() >= BLUNDER, "{blunder:?}");
        assert_eq!((forced.side, forced.kind), (Side::White, Kind::Forced));
        assert_eq!((forced.label, forced.loss, forced.best), (None, None, None));
        assert_eq!(
            forced.after_played,
            Some(1.0),
            "bearing off the last piece wins"
        );
        assert_eq!((analysis.black.decisions, analysis.black.blunder), (1, 1));
        assert_eq!(analysis.white.decisions, 0);
    }

    #[test]
    fn in_the_tablebase_the_verdict_is_exact() {
        let table = &crate::ai::tablebase::k2_for_tests().1;
        let start = "....B....................B..W. b";
        let game = record(start, &[(3, Some(5)), (2, Some(29))]);
        let analysis = analyse_with(&game, Some(table)).unwrap();
        let blunder = &analysis.throws[0];
        assert!(analysis.throws.iter().all(|t| t.exact), "{analysis:?}");
        let position: Position = start.parse().unwrap();
        let exact = |from| {
            table.after(
                &position,
                &position.check(from, Roll::new(3).unwrap()).unwrap(),
            )
        };
        let loss = exact(26) - exact(5);
        assert_eq!(blunder.loss, Some(rounded(loss)));
        // The network calls this a blunder; exactly it gives away 5 to 10 points.
        assert_eq!(blunder.label, Some(Label::of_loss(loss)));
        assert_eq!(blunder.label, Some(Label::Mistake), "{loss}");
        assert_eq!(blunder.before, rounded(table.value(&position).unwrap()));
        let estimated = analyse_with(&game, None).unwrap();
        assert!(estimated.throws.iter().all(|t| !t.exact));
    }

    #[test]
    fn a_pass_is_listed_but_not_judged() {
        // Black's only piece on 30 cannot use a 3.
        let analysis = analyse(&record("W............................B b", &[(3, None)])).unwrap();
        let pass = &analysis.throws[0];
        assert_eq!(
            (pass.kind, pass.played, pass.label),
            (Kind::Pass, None, None)
        );
        assert!(pass.after_played.is_none());
    }
}
