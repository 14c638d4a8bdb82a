//! The game's decide/apply fold, tested without a room: decisions replay, refusals change
//! nothing, throws follow the seed, offers, claims, hints and client seeds.

use super::*;
use crate::fairness::sticks_for;
use crate::protocol::{Action, CancelReason, ClientSeed, EffectName, Phase, Seat, To};
use crate::room::error::Refusal;
use crate::room::seats::Sitter;
use crate::secrets::hash_token;

mod correspondence;

const ROOM: &str = "0123456789abcdef0123456789abcdef";

fn person(token: &str) -> Option<Sitter> {
    Some(Sitter::person(hash_token(token)))
}

fn started(mode: Mode, seed: Seed, seats: Seats) -> Game {
    let game = Game::new(Room::new(ROOM.into(), mode, seed, None), seats);
    let started = game.decide_start(0);
    assert_eq!(started.events.len(), 1);
    started.game
}

fn client_seed(text: &str) -> Action {
    Action::Seed(ClientSeed::parse(text).unwrap())
}

/// Started, with the client seeds `b-seed` and `w-seed`.
fn started_game(mode: Mode) -> Game {
    let mut game = started(mode, [3; 32], Seats::new(person("b"), person("w")));
    act(&mut game, Seat::Black, client_seed("b-seed")).unwrap();
    act(&mut game, Seat::White, client_seed("w-seed")).unwrap();
    game
}

fn ctx() -> Context {
    Context {
        now: 1_000,
        abandon_after_ms: 60_000,
        idle_turn_after_ms: 300_000,
        connected: [true, true],
    }
}

/// Decides and keeps the next game, as the room task does after persisting.
fn act(game: &mut Game, seat: Seat, action: Action) -> Result<Vec<Event>, Refusal> {
    let decision = game.decide(seat, action, &ctx())?;
    *game = decision.game;
    Ok(decision.events)
}

/// A decision's game is the game its events replay to.
#[test]
fn a_decision_replays_from_its_events() {
    let mut game = started_game(Mode::Local);
    let mut replayed = game.clone();
    for _ in 0..200 {
        if game.is_over() {
            break;
        }
        let action = match game.state(0, 0).legal.first() {
            Some(legal) => Action::Move { from: legal.from },
            None => Action::Roll,
        };
        for event in act(&mut game, Seat::Both, action).unwrap() {
            replayed.apply(replayed.version() + 1, 0, &event).unwrap();
        }
        assert_eq!(replayed.state(0, 0), game.state(0, 0));
    }
}

#[test]
fn a_log_that_does_not_replay_names_the_event() {
    let mut game = started_game(Mode::Local);
    let moved = Event::Moved {
        side: Side::Black,
        from: 10,
        to: To::Square(11),
        effect: EffectName::Step,
        rest: None,
        swapped: None,
        position: String::new(),
        next: Side::White,
        extra: false,
        clocks: None,
    };
    let error = game.apply(2, 0, &moved).unwrap_err();
    assert_eq!((error.v, error.kind), (2, "moved"));
    assert_eq!(game.apply(5, 0, &moved).unwrap_err().v, 5);
}

/// Whole local games through decide/apply: at every move, each square
/// that is not a legal `from` is refused with the engine's own reason and
/// leaves the state as it was. Over a few games every reason shows up.
#[test]
fn every_refused_move_carries_the_engine_reason_and_changes_nothing() {
    let mut reasons = std::collections::BTreeSet::new();
    for game_number in 0..20u8 {
        let seats = Seats::new(person("b"), person("w"));
        let mut game = started(Mode::Local, [game_number; 32], seats);
        while !game.is_over() {
            let events = act(&mut game, Seat::Both, Action::Roll).unwrap();
            let Some(Event::Rolled { legal, value, .. }) =
                events.iter().find(|e| matches!(e, Event::Rolled { .. }))
            else {
                unreachable!()
            };
            if legal.is_empty() {
                continue;
            }
            let before = game.state(0, 0);
            let roll = crate::engine::Roll::new(*value).unwrap();
            let position: Position = before.position.parse().unwrap();
            for from in 0..=31u8 {
                if legal.iter().any(|m| m.from == from) {
                    continue;
                }
                let refused = game
                    .decide(Seat::Both, Action::Move { from }, &ctx())
                    .unwrap_err();
                let expected = position.check(from, roll).unwrap_err();
                assert_eq!(refused, Refusal::Illegal(expected));
                reasons.insert(expected.code());
            }
            assert_eq!(game.state(0, 0), before);
            let chosen = legal[usize::from(game_number) % legal.len()].from;
            act(&mut game, Seat::Both, Action::Move { from: chosen }).unwrap();
        }
    }
    let all = [
        "blocked",
        "must_stop_on_26",
        "no_own_piece",
        "not_exact_to_bear_off",
        "occupied_by_own",
        "safe_square",
    ];
    assert_eq!(reasons.into_iter().collect::<Vec<_>>(), all);
}

#[test]
fn the_bot_steps_in_only_on_its_own_turn_and_sees_only_the_current_throw() {
    let computer = Some(Sitter::computer(Level::Hard));
    let seats = Seats::new(person("b"), computer);
    let waiting = Game::new(
        Room::new(ROOM.into(), Mode::Ai, [3; 32], None),
        seats.clone(),
    );
    assert_eq!(waiting.bot_step(), None, "not started");
    let mut game = started(Mode::Ai, [3; 32], seats);
    assert_eq!(game.bot_step(), None, "black, the person, throws first");
    assert_eq!(game.seats().seat_of(&hash_token("w")), Seat::Spectator);
    while game.position.turn() == Side::Black {
        act(&mut game, Seat::Black, Action::Roll).unwrap();
        if let Stage::Move { .. } = game.stage {
            let from = game.state(0, 0).legal[0].from;
            act(&mut game, Seat::Black, Action::Move { from }).unwrap();
        }
    }
    let (bot, step) = game.bot_step().expect("white's turn");
    assert_eq!(
        (bot.side, bot.level, step),
        (Side::White, Level::Hard, Step::Roll)
    );
    let events = act(&mut game, Seat::White, Action::Roll).unwrap();
    let Event::Rolled { n, value, .. } = events[0] else {
        panic!("{events:?}")
    };
    match game.bot_step() {
        Some((
            _,
            Step::Move {
                position,
                roll,
                throw,
            },
        )) => {
            assert_eq!((position, roll.value(), throw), (game.position, value, n));
        }
        // The throw had no legal move: passed back to the person.
        other => assert_eq!((other, game.position.turn()), (None, Side::Black)),
    }
    assert_eq!(game.state(0, 0).level, Some(Level::Hard));
}

#[test]
fn turn_order_errors_leave_the_state_unchanged() {
    let mut game = started_game(Mode::Online);
    let before = game.state(0, 0);
    let refusal = |r: Result<Decision, Refusal>| r.unwrap_err();
    let c = ctx();
    assert_eq!(
        refusal(game.decide(Seat::White, Action::Roll, &c)),
        Refusal::NotYourTurn(Side::Black)
    );
    let mv = Action::Move { from: 10 };
    assert_eq!(refusal(game.decide(Seat::Black, mv, &c)), Refusal::MustRoll);
    let spectate = game.decide(Seat::Spectator, Action::Roll, &c);
    assert_eq!(refusal(spectate), Refusal::NotSeated);
    assert_eq!(game.state(0, 0), before);
    // Every throw has a move from the start position, so the turn stays black's.
    let events = act(&mut game, Seat::Black, Action::Roll).unwrap();
    let Event::Rolled { value, .. } = events[0] else {
        panic!("{events:?}")
    };
    let twice = game.decide(Seat::Black, Action::Roll, &c);
    assert_eq!(refusal(twice), Refusal::AlreadyRolled(value));
}

#[test]
fn throws_follow_the_seed_formula() {
    let mut game = started_game(Mode::Local);
    let events = act(&mut game, Seat::Both, Action::Roll).unwrap();
    let expected = sticks_for(&[3; 32], game.id(), "b-seed", "w-seed", 0);
    let Event::Rolled { n, sticks, .. } = &events[0] else {
        panic!("{events:?}")
    };
    assert_eq!((*n, *sticks), (0, expected.faces()));
}

#[test]
fn draws_are_refused_in_local_rooms() {
    let game = started_game(Mode::Local);
    let refused = game.decide(Seat::Both, Action::DrawOffer, &ctx());
    assert_eq!(refused.unwrap_err(), Refusal::DrawNotAllowed);
}

#[test]
fn a_hint_comes_after_the_throw_once_and_goes_with_the_move() {
    let mut game = started_game(Mode::Local);
    assert_eq!(
        act(&mut game, Seat::Both, Action::Hint),
        Err(Refusal::MustRoll)
    );
    while game.phase() != Phase::Move {
        act(&mut game, Seat::Both, Action::Roll).unwrap();
    }
    let events = act(&mut game, Seat::Both, Action::Hint).unwrap();
    let [Event::Hinted { from, .. }] = events[..] else {
        panic!("{events:?}")
    };
    assert!(
        game.state(0, 0)
            .legal
            .iter()
            .any(|legal| legal.from == from)
    );
    assert_eq!(game.state(0, 0).hint, Some(from));
    let again = act(&mut game, Seat::Both, Action::Hint);
    assert_eq!(again, Ok(Vec::new()), "asked again: nothing new is logged");
    act(&mut game, Seat::Both, Action::Move { from }).unwrap();
    assert_eq!(game.state(0, 0).hint, None);

    let online = started_game(Mode::Online);
    let refused = online.decide(Seat::Black, Action::Hint, &ctx());
    assert_eq!(refused.unwrap_err(), Refusal::HintNotAllowed);
}

#[test]
fn an_offer_lapses_when_the_other_side_throws() {
    let mut game = started_game(Mode::Online);
    act(&mut game, Seat::White, Action::DrawOffer).unwrap();
    let events = act(&mut game, Seat::Black, Action::Roll).unwrap();
    assert_eq!(
        events[0],
        Event::DrawCancelled {
            side: Side::White,
            why: CancelReason::Lapsed
        }
    );
    assert_eq!(game.state(0, 0).draw_offer, None);
}

#[test]
fn a_side_offers_a_draw_once_until_its_opponent_has_moved() {
    let mut game = started_game(Mode::Online);
    act(&mut game, Seat::White, Action::DrawOffer).unwrap();
    act(&mut game, Seat::White, Action::DrawDecline).unwrap();
    let again = game.decide(Seat::White, Action::DrawOffer, &ctx());
    assert_eq!(again.unwrap_err(), Refusal::DrawOfferSpent);
    assert_eq!(game.state(0, 0).draw_offers_spent, [Side::White]);
    // Black's turn ends: white's begins, and its offer is back.
    while game.position.turn() == Side::Black {
        act(&mut game, Seat::Black, Action::Roll).unwrap();
        if let Some(legal) = game.state(0, 0).legal.first() {
            act(&mut game, Seat::Black, Action::Move { from: legal.from }).unwrap();
        }
    }
    assert_eq!(game.state(0, 0).draw_offers_spent, []);
    act(&mut game, Seat::White, Action::DrawOffer).unwrap();
}

#[test]
fn absence_on_own_turn_starts_a_countdown_that_a_claim_needs() {
    let mut game = started_game(Mode::Online);
    let mut c = ctx();
    c.connected = [false, true];
    let presence = game.decide_presence(&c);
    assert_eq!(presence.events.len(), 1, "black left");
    game = presence.game;
    assert_eq!(game.players().black.claim_at, Some(61_000));
    let early = game.decide(Seat::White, Action::ClaimVictory, &c);
    assert_eq!(early.unwrap_err(), Refusal::ClaimTooEarly(60_000));
    c.now = 61_000;
    let decision = game.decide(Seat::White, Action::ClaimVictory, &c).unwrap();
    assert!(matches!(
        decision.events[0],
        Event::GameOver {
            winner: Winner::White,
            reason: EndReason::Abandon,
            ..
        }
    ));
}

/// Client seeds come after `started` (which logged `seed_hash`) and until the first throw;
/// the last one of each side is the one the throws use.
#[test]
fn client_seeds_are_taken_between_the_start_and_the_first_throw() {
    let seats = Seats::new(person("b"), person("w"));
    let waiting = Game::new(Room::new(ROOM.into(), Mode::Online, [3; 32], None), seats);
    let early = waiting.decide(Seat::Black, client_seed("x"), &ctx());
    assert_eq!(early.unwrap_err(), Refusal::NotStarted);
    let mut game = started_game(Mode::Online);
    let spectator = game.decide(Seat::Spectator, client_seed("x"), &ctx());
    assert_eq!(spectator.unwrap_err(), Refusal::NotSeated);
    act(&mut game, Seat::Black, client_seed("b2")).unwrap();
    assert!(game.state(0, 0).client_seeds_open);
    let events = act(&mut game, Seat::Black, Action::Roll).unwrap();
    let expected = sticks_for(&[3; 32], game.id(), "b2", "w-seed", 0);
    assert!(matches!(&events[0], Event::Rolled { sticks, .. } if *sticks == expected.faces()));
    assert!(!game.state(0, 0).client_seeds_open);
    let late = game.decide(Seat::White, client_seed("late"), &ctx());
    assert_eq!(late.unwrap_err(), Refusal::ClientSeedLocked);
    // A log that says otherwise does not replay.
    let seed = Event::ClientSeed {
        side: Side::White,
        client_seed: "late".into(),
    };
    let v = game.version() + 1;
    assert!(game.clone().apply(v, 0, &seed).is_err());
    let fresh = Game::new(
        Room::new(ROOM.into(), Mode::Online, [3; 32], None),
        Seats::default(),
    );
    assert!(fresh.clone().apply(1, 0, &seed).is_err(), "before started");
}

#[test]
fn a_both_seat_sets_both_seeds_and_the_computer_gets_its_own() {
    let mut local = started(Mode::Local, [3; 32], Seats::new(person("p"), person("p")));
    let events = act(&mut local, Seat::Both, client_seed("s")).unwrap();
    let seeds = events
        .iter()
        .filter(|e| matches!(e, Event::ClientSeed { .. }));
    assert_eq!(seeds.count(), 2);
    assert_eq!(local.client_seeds().black, "s");
    assert_eq!(local.client_seeds().white, "s");
    let seats = Seats::new(Some(Sitter::computer(Level::Easy)), person("p"));
    let ai = started(Mode::Ai, [3; 32], seats);
    let seeded = ai.decide_computer_seed(ClientSeed::parse("c0ffee").unwrap(), 0);
    assert_eq!(seeded.game.client_seeds().black, "c0ffee");
    assert_eq!(seeded.game.client_seeds().white, "");
    let none = local.decide_computer_seed(ClientSeed::default(), 0);
    assert!(none.is_empty(), "no computer in a local room");
}

/// An online game with `initial` seconds each and no increment, started at 0.
fn timed_online_game(initial: u32) -> Game {
    let control = crate::protocol::TimeControl::fischer(initial, 0);
    let room = Room::new(ROOM.into(), Mode::Online, [3; 32], Some(control));
    Game::new(room, Seats::new(person("b"), person("w")))
        .decide_start(0)
        .game
}

/// The player on turn whose socket a drain closed (their clock paused) is not counted absent:
/// their opponent gets no claim countdown until the pause ends, and only if they are still away.
#[test]
fn a_drain_s_pause_starts_no_claim_countdown_until_it_ends() {
    use crate::protocol::PAUSE_LIMIT_MS;
    let mut game = timed_online_game(600);
    let mover = game.position.turn();
    game = game.decide_pause(3_000).game;
    let mut away = Context {
        now: 3_100,
        ..ctx()
    };
    away.connected[index(mover)] = false;
    let presence = game.decide_presence(&away);
    assert_eq!(presence.events.len(), 1, "the mover's leaving is logged");
    game = presence.game;
    assert_eq!(
        game.presence[index(mover)].claim_at,
        None,
        "no countdown while paused"
    );

    let ended = 3_000 + PAUSE_LIMIT_MS;
    game = game.decide_clock(ended).game;
    assert_eq!(game.paused_for(), None);
    away.now = ended;
    game = game.decide_presence(&away).game;
    assert_eq!(
        game.presence[index(mover)].claim_at,
        Some(ended + away.abandon_after_ms),
        "the countdown starts once the pause is over"
    );
}

/// A drain's pause stops both clocks where they are; the player on turn is charged nothing
/// until `resumed`, which comes by itself once the pause has lasted its limit.
#[test]
fn a_paused_clock_stands_until_resumed_or_its_limit() {
    use crate::protocol::{Clocks, PAUSE_LIMIT_MS};
    let mut game = timed_online_game(60);
    let mover = game.position.turn();
    let running = Clocks {
        black: if mover == Side::Black { 57_000 } else { 60_000 },
        white: if mover == Side::White { 57_000 } else { 60_000 },
    };
    let paused = game.decide_pause(3_000);
    assert_eq!(paused.events, [Event::Paused { clocks: running }]);
    game = paused.game;
    assert_eq!((game.paused_for(), game.deadline()), (Some(mover), None));
    assert_eq!(game.clock_due(), Some(3_000 + PAUSE_LIMIT_MS));
    assert!(game.decide_pause(4_000).events.is_empty(), "paused once");
    // Before the limit the clock decides nothing; a whole minute paused flags nobody.
    assert!(game.decide_clock(3_000 + PAUSE_LIMIT_MS - 1).is_empty());
    let resumed = game.decide_clock(3_000 + PAUSE_LIMIT_MS);
    assert_eq!(resumed.events, [Event::Resumed { clocks: running }]);
    let mut replayed = game.clone();
    replayed
        .apply(
            game.version() + 1,
            3_000 + PAUSE_LIMIT_MS,
            &resumed.events[0],
        )
        .unwrap();
    game = resumed.game;
    assert_eq!(game.paused_for(), None);
    assert_eq!(game.deadline(), Some(3_000 + PAUSE_LIMIT_MS + 57_000));
    assert_eq!(replayed.deadline(), game.deadline());

    // Turns played while paused (on the draining instance, before its sockets close) start no
    // clock: the pause goes on, for whoever is then on turn.
    let mut game = game.decide_pause(20_000).game;
    for _ in 0..20 {
        let action = match game.state(0, 0).legal.first() {
            Some(legal) => Action::Move { from: legal.from },
            None => Action::Roll,
        };
        let seat = match game.position.turn() {
            Side::Black => Seat::Black,
            Side::White => Seat::White,
        };
        game = game.decide(seat, action, &ctx()).unwrap().game;
        assert_eq!(game.paused_for(), Some(game.position.turn()));
        assert_eq!(game.deadline(), None);
    }
}
