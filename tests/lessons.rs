//! The `/learn` lessons against the engine: what a real server serves at `GET /api/lessons`
//! (the answers the page accepts) is recomputed here by other means (`Position::play` on every
//! piece, comparing positions before and after), every claim a lesson's texts make is checked
//! against the engine, and the lessons together must teach every rule issue 16 names.

mod common;

use std::collections::BTreeSet;

use common::*;
use senet::engine::{
    Effect, HOUSE_OF_HAPPINESS, HOUSE_OF_REBIRTH, IllegalMove, Position, Roll, SQUARES, Square,
    Sticks, Target,
};
use senet::lessons::{Ask, Claim, Spec, Then, specs};
use serde_json::{Value, json};

fn roll(value: u8) -> Roll {
    Roll::new(value).unwrap_or_else(|| panic!("{value} is not a throw"))
}

fn position_of(spec: &Spec) -> Position {
    spec.parse_position()
        .unwrap_or_else(|error| panic!("{error}"))
}

/// The lesson's throw, from its value or from its sticks.
fn throw_of(spec: &Spec) -> Option<Roll> {
    let from_sticks = spec.sticks.map(|faces| Sticks::from_faces(faces).roll());
    spec.throw.map(roll).or(from_sticks)
}

/// The throws a lesson is about: its own, or all five.
fn throws_of(spec: &Spec) -> Vec<Roll> {
    throw_of(spec).map_or(Roll::ALL.to_vec(), |roll| vec![roll])
}

/// Squares that hold a piece of `side` after but not before.
fn arrived(before: &Position, after: &Position, side: senet::engine::Side) -> Vec<Square> {
    after
        .squares(side)
        .filter(|&square| before.piece_at(square) != Some(side))
        .collect()
}

/// The answer worked out again, without `senet::lessons`: every piece tried with `play`, the
/// result read off the position after.
fn recomputed(spec: &Spec) -> Value {
    let position = position_of(spec);
    let me = position.turn();
    let played = |from: Square, roll: Roll| position.play(from, roll).ok();
    let one_throw = || throw_of(spec).expect("the lesson has a throw");
    match spec.ask {
        Ask::Pieces => {
            let movable: Vec<Square> = (1..=SQUARES)
                .filter(|&from| played(from, one_throw()).is_some())
                .collect();
            json!(movable)
        }
        Ask::Path(from) => match played(from, one_throw()) {
            None => json!([]),
            Some((_, mv)) => {
                let (last, exit) = match mv.to {
                    Target::Square(square) => (square, vec![]),
                    Target::Off => (SQUARES, vec![json!("off")]),
                };
                let squares = (from + 1..=last).map(|square| json!(square));
                Value::Array(squares.chain(exit).collect())
            }
        },
        Ask::Lands(from) => match played(from, one_throw()) {
            None => json!([]),
            Some((after, _)) => match arrived(&position, &after, me).as_slice() {
                [] => json!(["off"]),
                squares => json!(squares),
            },
        },
        Ask::Swapped(from) => match played(from, one_throw()) {
            None => json!([]),
            Some((after, _)) => json!(arrived(&position, &after, me.other())),
        },
        Ask::Again(from) => {
            let again = Roll::ALL
                .into_iter()
                .filter(|&roll| played(from, roll).is_some_and(|(after, _)| after.turn() == me));
            json!(again.map(Roll::value).collect::<Vec<_>>())
        }
        Ask::BearsOff => {
            let bears_off = |roll: Roll| {
                position.squares(me).any(|from| {
                    played(from, roll)
                        .is_some_and(|(after, _)| after.borne_off(me) > position.borne_off(me))
                })
            };
            let throws = Roll::ALL.into_iter().filter(|&roll| bears_off(roll));
            json!(throws.map(Roll::value).collect::<Vec<_>>())
        }
    }
}

#[tokio::test]
async fn the_served_answers_are_the_engines() {
    let server = TestServer::start().await;
    let (status, body) = http(server.addr, "GET", "/api/lessons", None).await;
    assert_eq!(status, 200, "{body}");
    let served = body["lessons"].as_array().expect("a list of lessons");
    let specs = specs().unwrap();
    assert_eq!(served.len(), specs.len());
    for (lesson, spec) in served.iter().zip(&specs) {
        assert_eq!(lesson["id"], spec.id.as_str());
        assert_eq!(lesson["position"], spec.position.as_str());
        assert_eq!(lesson["answer"], recomputed(spec), "lesson {}", spec.id);
        let value = lesson["throw"]["value"].as_u64().map(|v| v as u8);
        assert_eq!(value, throw_of(spec).map(Roll::value), "lesson {}", spec.id);
        assert!(lesson.get("claims").is_none(), "claims stay on the server");
    }
    server.stop().await;
}

/// What the engine says about a claim's subject, in the claim's own words.
#[derive(Debug, PartialEq)]
struct Observed {
    is: String,
    rests_on: Option<Square>,
    then: Option<Then>,
}

fn observe(position: &Position, claim: &Claim, lesson_throw: Option<Roll>) -> Observed {
    let said = |is: &str| Observed {
        is: is.to_owned(),
        rests_on: None,
        then: None,
    };
    if claim.is == "the_start" {
        return said(if *position == Position::start() {
            "the_start"
        } else {
            "another position"
        });
    }
    let roll = match claim.throw.map(roll).or(lesson_throw) {
        Some(roll) => roll,
        None => return said("a claim about a throw, in a lesson without one"),
    };
    let next = |after: &Position| {
        Some(if after.turn() == position.turn() {
            Then::ThrowsAgain
        } else {
            Then::TurnPasses
        })
    };
    let Some(piece) = claim.piece else {
        return if position.legal_moves(roll).is_empty() {
            Observed {
                then: next(&position.pass()),
                ..said("no_legal_move")
            }
        } else {
            said("some piece can move")
        };
    };
    match position.check(piece, roll) {
        Err(illegal) => said(illegal.code()),
        Ok(mv) => Observed {
            is: match mv.effect {
                Effect::Step => "step",
                Effect::Swap => "swap",
                Effect::Water { .. } => "water",
                Effect::BearOff => "bear_off",
            }
            .to_owned(),
            rests_on: mv.rests_on(),
            then: next(&position.after(&mv)),
        },
    }
}

/// Every claim of `spec` the engine contradicts, described.
fn contradicted(spec: &Spec) -> Vec<String> {
    let position = position_of(spec);
    spec.claims
        .iter()
        .filter_map(|claim| {
            let seen = observe(&position, claim, throw_of(spec));
            let holds = seen.is == claim.is
                && claim
                    .rests_on
                    .is_none_or(|square| seen.rests_on == Some(square))
                && claim.then.is_none_or(|then| seen.then == Some(then));
            (!holds).then(|| {
                format!(
                    "lesson {}: the text says {claim:?}, the engine {seen:?}",
                    spec.id
                )
            })
        })
        .collect()
}

#[test]
fn every_claim_of_the_texts_holds_in_the_engine() {
    let wrong: Vec<String> = specs().unwrap().iter().flat_map(contradicted).collect();
    assert!(wrong.is_empty(), "{wrong:#?}");
}

#[test]
fn a_claim_the_engine_contradicts_is_caught() {
    // The seed's worked position with the claim its authors feared: 24 + 3 reaching 27.
    let spec: Spec = serde_json::from_value(json!({
        "id": "wrong",
        "position": "....W......B...........B...... b",
        "throw": 3,
        "ask": "pieces",
        "claims": [
            {"piece": 24, "is": "water"},
            {"piece": 12, "is": "step", "rests_on": 16},
            {"piece": 12, "is": "step", "then": "throws_again"},
            {"is": "no_legal_move"},
            {"is": "the_start"}
        ]
    }))
    .unwrap();
    assert_eq!(contradicted(&spec).len(), 5, "{:#?}", contradicted(&spec));
}

/// The claims explain the answer: a claim for every piece the page accepts (or for "no legal
/// move"), and one for the piece a question is about.
#[test]
fn the_texts_speak_about_every_answer() {
    for spec in specs().unwrap() {
        let claimed = |piece: Option<Square>| spec.claims.iter().any(|claim| claim.piece == piece);
        match spec.ask {
            Ask::Pieces => {
                let answer = recomputed(&spec);
                let pieces = answer.as_array().unwrap();
                if pieces.is_empty() {
                    assert!(
                        claimed(None),
                        "lesson {}: says nothing of the pass",
                        spec.id
                    );
                }
                for piece in pieces {
                    let piece = piece.as_u64().map(|p| p as Square);
                    assert!(
                        claimed(piece),
                        "lesson {}: says nothing of {piece:?}",
                        spec.id
                    );
                }
            }
            Ask::Path(piece) | Ask::Lands(piece) | Ask::Swapped(piece) | Ask::Again(piece) => {
                assert!(
                    claimed(Some(piece)),
                    "lesson {}: says nothing of {piece}",
                    spec.id
                );
            }
            Ask::BearsOff => assert!(!spec.claims.is_empty(), "lesson {}", spec.id),
        }
    }
}

/// Everything the engine does in the lessons: each own piece tried with each throw asked about.
#[derive(Default)]
struct Taught {
    swap: bool,
    blocked_landing: bool,
    blocked_passing: bool,
    blocked_before_the_exit: bool,
    safe: BTreeSet<Square>,
    must_stop_from_24_with_3: bool,
    water_rests: BTreeSet<Square>,
    borne_off_from: BTreeSet<Square>,
    again_after: BTreeSet<u8>,
    passes_after: BTreeSet<u8>,
    no_legal_move: bool,
    four_blank_faces: bool,
    the_start: bool,
    paths: Vec<Vec<Value>>,
}

fn taught() -> Taught {
    let mut taught = Taught::default();
    for spec in specs().unwrap() {
        let position = position_of(&spec);
        taught.four_blank_faces |= spec.sticks == Some([false; 4]);
        taught.the_start |= position == Position::start();
        if let Ask::Path(_) = spec.ask {
            taught
                .paths
                .push(recomputed(&spec).as_array().unwrap().clone());
        }
        for roll in throws_of(&spec) {
            taught.no_legal_move |= position.legal_moves(roll).is_empty();
            for from in position.squares(position.turn()) {
                learn_from(&mut taught, &position, from, roll);
            }
        }
    }
    taught
}

fn learn_from(taught: &mut Taught, position: &Position, from: Square, roll: Roll) {
    let to = from + roll.value();
    match position.check(from, roll) {
        Ok(mv) => {
            match mv.effect {
                Effect::Swap => taught.swap = true,
                Effect::Water { rest } => {
                    taught.water_rests.insert(rest);
                }
                Effect::BearOff => {
                    taught.borne_off_from.insert(from);
                }
                Effect::Step => {}
            }
            let again = position.after(&mv).turn() == position.turn();
            let log = if again {
                &mut taught.again_after
            } else {
                &mut taught.passes_after
            };
            log.insert(roll.value());
        }
        Err(IllegalMove::Blocked(square)) => {
            taught.blocked_landing |= square == to;
            taught.blocked_passing |= square < to;
            taught.blocked_before_the_exit |= to > SQUARES;
        }
        Err(IllegalMove::SafeSquare(square)) => {
            taught.safe.insert(square);
        }
        Err(IllegalMove::MustStopOn26) => {
            taught.must_stop_from_24_with_3 |= from == 24 && roll.value() == 3;
        }
        Err(_) => {}
    }
}

#[test]
fn the_lessons_teach_every_rule_of_the_issue() {
    let taught = taught();
    let turns_through = |a: u64, b: u64| {
        taught.paths.iter().any(|path| {
            path.windows(2)
                .any(|pair| pair[0] == json!(a) && pair[1] == json!(b))
        })
    };
    assert!(turns_through(10, 11), "route order 10 -> 11");
    assert!(turns_through(20, 21), "route order 20 -> 21");
    assert!(taught.swap, "a swap");
    assert!(taught.blocked_landing, "a block that cannot be landed on");
    assert!(taught.blocked_passing, "a block that cannot be passed");
    assert!(
        taught.blocked_before_the_exit,
        "a block on the way to bearing off"
    );
    let safe_houses = BTreeSet::from([HOUSE_OF_REBIRTH, HOUSE_OF_HAPPINESS]);
    assert!(
        taught.safe.is_superset(&safe_houses),
        "no swap on 15 and 26"
    );
    assert!(
        taught.must_stop_from_24_with_3,
        "the seed's worked position"
    );
    assert!(
        taught.water_rests.contains(&HOUSE_OF_REBIRTH),
        "the water with 15 free"
    );
    assert!(
        taught
            .water_rests
            .iter()
            .any(|&rest| rest < HOUSE_OF_REBIRTH),
        "the water with 15 taken"
    );
    assert_eq!(
        taught.borne_off_from,
        BTreeSet::from([26, 28, 29, 30]),
        "exact bear-off"
    );
    assert_eq!(
        taught.again_after,
        BTreeSet::from([1, 4, 5]),
        "another throw after 1, 4, 5"
    );
    assert_eq!(
        taught.passes_after,
        BTreeSet::from([2, 3]),
        "the turn passes after 2, 3"
    );
    assert!(taught.no_legal_move, "a pass when nothing can move");
    assert!(taught.four_blank_faces, "four blank faces count 5");
    assert!(taught.the_start, "black throws first");
    assert!(specs().unwrap().len() >= 12);
}
