//! Correspondence clocks in the fold: days per move, set back to the whole allowance when a
//! turn ends, timed out by the clock a decision is given, never resumed nor paused.

use super::*;

const DAY_MS: i64 = 86_400_000;

/// An online correspondence game of `days` a move, started at 0.
fn correspondence_game(days: u8) -> Game {
    let control = crate::protocol::TimeControl::correspondence(days);
    let room = Room::new(ROOM.into(), Mode::Online, [3; 32], Some(control));
    Game::new(room, Seats::new(person("b"), person("w")))
        .decide_start(0)
        .game
}

fn seat_of(side: Side) -> Seat {
    match side {
        Side::Black => Seat::Black,
        Side::White => Seat::White,
    }
}

/// Plays the side to move's next throw or first legal move at `now`; the events.
fn step_at(game: &mut Game, now: UnixMs) -> Vec<Event> {
    let action = match game.state(0, 0).legal.first() {
        Some(legal) => Action::Move { from: legal.from },
        None => Action::Roll,
    };
    let at = Context { now, ..ctx() };
    let decision = game
        .decide(seat_of(game.position.turn()), action, &at)
        .unwrap();
    *game = decision.game;
    decision.events
}

/// Each turn has the whole allowance, however long the turns before took: the clock is set
/// back to it when a turn ends; within a turn (the extra throws of a 1, 4 or 5) it runs on.
#[test]
fn a_correspondence_clock_is_set_back_to_the_whole_allowance_when_a_turn_ends() {
    let mut game = correspondence_game(3);
    let mut now = 0;
    let (mut extras, mut turns) = (0, 0);
    while turns < 12 && !game.is_over() {
        let mover = game.position.turn();
        let before = game.deadline().unwrap();
        now += DAY_MS / 8;
        let events = step_at(&mut game, now);
        let Some(clocks) = events.iter().find_map(|event| match event {
            Event::Moved { clocks, .. } | Event::Passed { clocks, .. } => *clocks,
            _ => None,
        }) else {
            continue;
        };
        let mover_left = [clocks.black, clocks.white][index(mover)];
        if game.position.turn() == mover {
            // An extra throw: the same turn, the same deadline.
            extras += 1;
            assert_eq!(mover_left, before - now);
            assert_eq!(game.deadline(), Some(before));
        } else {
            turns += 1;
            assert_eq!(mover_left, 3 * DAY_MS, "the allowance is whole again");
            assert_eq!(game.deadline(), Some(now + 3 * DAY_MS));
        }
    }
    assert!(
        turns >= 12 && extras > 0,
        "{turns} turns, {extras} extra throws"
    );
}

/// The timeout is counted in days, by the clock the decision is given.
#[test]
fn a_correspondence_game_times_out_after_its_days() {
    let game = correspondence_game(2);
    let mover = game.position.turn();
    assert_eq!(game.deadline(), Some(2 * DAY_MS));
    assert!(game.decide_timeout(2 * DAY_MS - 1).is_empty());
    let refused = game.decide(
        seat_of(mover),
        Action::Roll,
        &Context {
            now: 2 * DAY_MS,
            ..ctx()
        },
    );
    assert!(matches!(refused, Err(Refusal::OutOfTime(side)) if side == mover));
    let out = game.decide_timeout(2 * DAY_MS);
    let over = out.events.last().unwrap();
    assert!(
        matches!(over, Event::GameOver { winner, reason: EndReason::Timeout, .. } if *winner == mover.other().into()),
        "{over:?}"
    );
    assert_eq!(out.game.deadline(), None);
}

/// A correspondence clock runs in wall-clock days whoever holds the room: loading it gives no
/// time back, a drain does not pause it, and nobody's absence starts a claim countdown.
#[test]
fn a_correspondence_clock_is_never_resumed_or_paused_and_absence_is_no_claim() {
    let game = correspondence_game(1);
    let mover = game.position.turn();
    assert!(game.decide_resume(DAY_MS / 2).is_empty());
    assert!(game.decide_pause(DAY_MS / 2).is_empty());
    let mut away = Context {
        now: 1_000,
        ..ctx()
    };
    away.connected = [false, false];
    let presence = game.decide_presence(&away);
    assert_eq!(presence.game.presence[index(mover)].claim_at, None);
    assert_eq!(presence.game.deadline(), Some(DAY_MS));
}

/// A correspondence control is `days` on the wire, alone or beside the seconds it stands for;
/// a live control is unchanged; the stored columns give each back.
#[test]
fn a_correspondence_control_on_the_wire_and_in_the_columns() {
    use crate::protocol::TimeControl;
    let parse = |text: &str| serde_json::from_str::<TimeControl>(text);
    let three = TimeControl::correspondence(3);
    assert_eq!(parse(r#"{"days": 3}"#).unwrap(), three);
    assert_eq!(
        parse(r#"{"days": 3, "initial": 259200, "increment": 0}"#).unwrap(),
        three
    );
    assert!(parse(r#"{"days": 3, "increment": 5}"#).is_err());
    assert!(parse(r#"{"initial": 60}"#).is_err());
    assert_eq!(
        serde_json::to_value(three).unwrap(),
        serde_json::json!({"initial": 259_200, "increment": 0, "days": 3})
    );
    let live = TimeControl::fischer(300, 3);
    assert_eq!(
        serde_json::to_value(live).unwrap(),
        serde_json::json!({"initial": 300, "increment": 3})
    );
    assert_eq!(TimeControl::from_columns(259_200, 0), three);
    assert_eq!(
        TimeControl::from_columns(7_200, 0),
        TimeControl::fischer(7_200, 0)
    );
    assert_eq!(TimeControl::from_columns(300, 3), live);
}
