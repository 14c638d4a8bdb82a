//! The fold, decisions and verification on whole tournaments, without I/O.

use super::*;
use crate::protocol::TimeControl;

fn created(format: Format) -> Event {
    Event::Created(Settings {
        name: "Winter cup".into(),
        format,
        clock: TimeControl::fischer(180, 2),
        starts_at: 1_000,
        rated: true,
        creator: "p-creator".into(),
        min_rating: None,
        max_rating: None,
    })
}

/// Applies a decided event to the log and the state.
fn push(log: &mut Vec<Event>, state: &mut Tournament, event: Event) {
    state.apply(&event).unwrap();
    log.push(event);
}

fn rooms() -> impl FnMut() -> String {
    let mut next = 0;
    move || {
        next += 1;
        format!("room{next}")
    }
}

/// Black wins unless the two numbers sum to a multiple of 5 (white wins) or of 7 (a draw).
fn outcome(board: &PairedBoard) -> Outcome {
    match board.black + board.white {
        sum if sum.is_multiple_of(7) => Outcome::Draw,
        sum if sum.is_multiple_of(5) => Outcome::White,
        _ => Outcome::Black,
    }
}

fn registered(log: &mut Vec<Event>, state: &mut Tournament, players: u32) {
    for n in 1..=players {
        let event = state
            .register(
                &format!("p{n}"),
                &format!("Player {n}"),
                1500 + 10 * n as i32,
            )
            .unwrap();
        push(log, state, event);
    }
}

/// A Swiss of 9 over 5 rounds; player 4 withdraws after round 2.
fn swiss_of_nine() -> Vec<Event> {
    let (mut log, mut state) = (Vec::new(), Tournament::default());
    push(&mut log, &mut state, created(Format::Swiss { rounds: 5 }));
    registered(&mut log, &mut state, 9);
    let start = state.start().unwrap();
    push(&mut log, &mut state, start);
    let mut room = rooms();
    for round in 1..=5 {
        if round == 3 {
            let withdrawn = state.withdraw("p4").unwrap();
            push(&mut log, &mut state, withdrawn);
        }
        let paired = state.pair_swiss(&mut room).unwrap();
        let Event::Paired { boards, .. } = paired.clone() else {
            unreachable!()
        };
        push(&mut log, &mut state, paired);
        for board in &boards {
            let result = Event::Result {
                room: board.room.clone(),
                outcome: outcome(board),
            };
            push(&mut log, &mut state, result);
        }
    }
    assert_eq!(state.pair_swiss(&mut room), Err(Refusal::NothingToPair));
    push(&mut log, &mut state, Event::Finished);
    log
}

#[test]
fn a_swiss_of_nine_with_a_bye_and_a_withdrawal_verifies() {
    let log = swiss_of_nine();
    let state = verify::verify(&log).unwrap();
    assert_eq!(state.status, Status::Finished);
    let byes: Vec<u32> = log
        .iter()
        .filter_map(|e| match e {
            Event::Paired { bye, .. } => *bye,
            _ => None,
        })
        .collect();
    // 9 players for rounds 1–2 (a bye each), 8 after the withdrawal (none).
    assert_eq!(byes.len(), 2);
    assert_ne!(byes[0], byes[1]);
    let withdrawn = state.player(4).unwrap();
    assert!(withdrawn.withdrawn);
    assert!(withdrawn.games.len() + usize::from(withdrawn.had_bye) == 2);
    let standings = state.standings();
    let points: u32 = standings.iter().map(|s| s.score).sum();
    // Every game gives 2 half-points, every bye 2: 4 + 4 + 4 + 4 + 4 games… counted from the log.
    let games = log
        .iter()
        .filter(|e| matches!(e, Event::Result { .. }))
        .count() as u32;
    assert_eq!(points, 2 * games + 2 * byes.len() as u32);
    for pair in standings.windows(2) {
        let key = |s: &Standing| (s.score, s.buchholz, s.sonneborn_berger);
        assert!(key(&pair[0]) >= key(&pair[1]), "{pair:?}");
    }
}

#[test]
fn a_tampered_result_is_caught_at_the_first_pairing_it_changes() {
    let mut log = swiss_of_nine();
    let first = log
        .iter()
        .position(|e| matches!(e, Event::Result { .. }))
        .unwrap();
    let Event::Result { room, outcome } = log[first].clone() else {
        unreachable!()
    };
    let flipped = if outcome == Outcome::White {
        Outcome::Black
    } else {
        Outcome::White
    };
    log[first] = Event::Result {
        room,
        outcome: flipped,
    };
    let difference = verify::verify(&log).unwrap_err();
    assert!(
        matches!(difference, verify::Difference::Pairing { v, .. } if v as usize > first + 1),
        "{difference}"
    );
}

#[test]
fn a_result_for_no_game_and_a_second_result_do_not_replay() {
    let mut log = swiss_of_nine();
    let result = log
        .iter()
        .find(|e| matches!(e, Event::Result { .. }))
        .unwrap()
        .clone();
    let at = log.len() - 1;
    log.insert(at, result);
    let difference = verify::verify(&log).unwrap_err();
    assert!(
        difference.to_string().contains("no game in play"),
        "{difference}"
    );
}

#[test]
fn an_arena_scores_a_streak_double_and_never_pairs_a_paused_player() {
    let (mut log, mut state) = (Vec::new(), Tournament::default());
    push(&mut log, &mut state, created(Format::Arena { minutes: 30 }));
    registered(&mut log, &mut state, 3);
    let start = state.start().unwrap();
    push(&mut log, &mut state, start);
    let paused = state.pause("p3", true).unwrap();
    push(&mut log, &mut state, paused);
    let mut room = rooms();
    // Player 1 wins three games in a row against player 2 (alone together, they meet again).
    for _ in 0..3 {
        let paired = state.pair_arena(|_| 1_000, &mut room).unwrap().unwrap();
        let Event::Paired { boards, .. } = paired.clone() else {
            unreachable!()
        };
        assert_eq!(boards.len(), 1);
        assert!(
            ![boards[0].black, boards[0].white].contains(&3),
            "a paused player is paired"
        );
        let outcome = if boards[0].black == 1 {
            Outcome::Black
        } else {
            Outcome::White
        };
        push(&mut log, &mut state, paired);
        push(
            &mut log,
            &mut state,
            Event::Result {
                room: boards[0].room.clone(),
                outcome,
            },
        );
    }
    let leader = &state.standings()[0];
    assert_eq!(
        (leader.player, leader.score, leader.wins),
        (1, 2 + 2 + 4, 3)
    );
    assert!(leader.on_fire);
    // Back from the pause, player 3 is paired, and not player 1 with player 2 again.
    let resumed = state.pause("p3", false).unwrap();
    push(&mut log, &mut state, resumed);
    let paired = state.pair_arena(|_| 1_000, &mut room).unwrap().unwrap();
    let Event::Paired { boards, .. } = &paired else {
        unreachable!()
    };
    assert!(
        [boards[0].black, boards[0].white].contains(&3),
        "{boards:?}"
    );
    push(&mut log, &mut state, paired);
    assert!(verify::verify(&log).is_ok());
}

#[test]
fn a_tournament_below_two_players_is_cancelled_at_its_start() {
    let mut state = Tournament::default();
    state.apply(&created(Format::Swiss { rounds: 3 })).unwrap();
    let event = state.register("p1", "One", 1500).unwrap();
    state.apply(&event).unwrap();
    assert_eq!(
        state.register("p1", "One", 1500),
        Err(Refusal::AlreadyRegistered)
    );
    assert!(matches!(state.start().unwrap(), Event::Cancelled { .. }));
}

#[test]
fn events_round_trip_through_their_stored_form() {
    for event in swiss_of_nine() {
        let (kind, data) = event.to_stored();
        assert_eq!(
            Event::from_stored(&kind, &data).unwrap(),
            event,
            "{kind} {data}"
        );
    }
}

#[test]
fn the_thousand_and_first_player_is_refused_and_an_arena_ends_on_time() {
    let mut log = Vec::new();
    let mut state = Tournament::default();
    push(&mut log, &mut state, created(Format::Arena { minutes: 10 }));
    for n in 0..pairing::MAX_PLAYERS {
        let event = state.register(&format!("p{n}"), "x", 1500).unwrap();
        push(&mut log, &mut state, event);
    }
    assert_eq!(state.register("late", "x", 1500), Err(Refusal::Full));
    let started = state.start().unwrap();
    push(&mut log, &mut state, started);
    let end = 1_000 + 10 * 60_000;
    assert_eq!(state.ends_at(), Some(end));
    assert_eq!(state.finish(end - 1), Err(Refusal::NotOpen));
    assert_eq!(state.finish(end), Ok(Event::Finished));
}
