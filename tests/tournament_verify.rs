//! `senet tournament verify` on a stored tournament (issue 45): a Swiss of 9 players stored with
//! its games' rooms verifies; a result tampered in the tournament's log, or a room whose
//! game-over says otherwise, is caught and named; `senet admin cancel-tournament` cancels an
//! unfinished one, audited, and refuses a finished one.

mod common;

use std::process::Command;

use common::room;
use senet::protocol::{EndReason, Event as RoomEvent, TimeControl, Winner};
use senet::store::{Store, StoredEvent, TournamentRow};
use senet::tournament::{Event, Format, Outcome, Settings, Tournament};

/// Black wins unless the numbers sum to a multiple of 5 (white wins) or of 7 (a draw).
fn outcome(black: u32, white: u32) -> Outcome {
    match black + white {
        sum if sum.is_multiple_of(7) => Outcome::Draw,
        sum if sum.is_multiple_of(5) => Outcome::White,
        _ => Outcome::Black,
    }
}

fn game_over(outcome: Outcome) -> StoredEvent {
    let winner = match outcome {
        Outcome::Black => Winner::Black,
        Outcome::White => Winner::White,
        Outcome::Draw => Winner::Draw,
    };
    let event = RoomEvent::GameOver {
        winner,
        reason: EndReason::BorneOff,
        seed: "00".repeat(32),
        clocks: None,
        note: None,
    };
    let (kind, data) = event.to_parts();
    StoredEvent {
        v: 1,
        at: 1_700_000_000_000,
        kind,
        data,
    }
}

/// Stores a Swiss of 9 over 4 rounds (player 4 withdraws before round 3), each game a room
/// whose log ends with the game's `game-over`, as the director would.
async fn store_swiss(store: &Store) {
    let mut state = Tournament::default();
    let mut log: Vec<Event> = vec![Event::Created(Settings {
        name: "Spring Swiss".into(),
        format: Format::Swiss { rounds: 4 },
        clock: TimeControl::fischer(300, 3),
        starts_at: 1_700_000_000_000,
        rated: false,
        creator: "p-creator".into(),
        min_rating: None,
        max_rating: None,
    })];
    state.apply(&log[0]).unwrap();
    let mut next_room = 0;
    let mut room_id = || {
        next_room += 1;
        format!("tr{next_room}")
    };
    let decided = |state: &mut Tournament, log: &mut Vec<Event>, event: Event| {
        state.apply(&event).unwrap();
        log.push(event);
    };
    for n in 1..=9 {
        let event = state
            .register(&format!("p{n}"), &format!("Player {n}"), 1400 + 25 * n)
            .unwrap();
        decided(&mut state, &mut log, event);
    }
    let start = state.start().unwrap();
    decided(&mut state, &mut log, start);
    for round in 1..=4 {
        if round == 3 {
            let withdrawn = state.withdraw("p4").unwrap();
            decided(&mut state, &mut log, withdrawn);
        }
        let paired = state.pair_swiss(&mut room_id).unwrap();
        let Event::Paired { boards, .. } = paired.clone() else {
            unreachable!()
        };
        decided(&mut state, &mut log, paired);
        for board in boards {
            let result = outcome(board.black, board.white);
            store
                .log
                .create_room(&room(&board.room), &[game_over(result)], None)
                .await
                .unwrap();
            decided(
                &mut state,
                &mut log,
                Event::Result {
                    room: board.room,
                    outcome: result,
                },
            );
        }
    }
    decided(&mut state, &mut log, Event::Finished);
    let stored: Vec<StoredEvent> = log
        .iter()
        .enumerate()
        .map(|(i, event)| {
            let (kind, data) = event.to_stored();
            StoredEvent {
                v: i as u64 + 1,
                at: 1_700_000_000_000 + i as i64,
                kind,
                data,
            }
        })
        .collect();
    let row = TournamentRow {
        id: "t1".into(),
        starts_at: 1_700_000_000_000,
        summary: "{}".into(),
    };
    store
        .tournaments
        .create_tournament(&row, &stored)
        .await
        .unwrap();
}

fn verify(url: &str) -> (Option<i32>, String) {
    senet(&["tournament", "verify", "--database-url", url, "--id", "t1"])
}

/// Runs `senet` with `args`: its exit status and its output (stdout then stderr).
fn senet(args: &[&str]) -> (Option<i32>, String) {
    let output = Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    (output.status.code(), text)
}

async fn sql(url: &str, statement: &'static str) {
    let pool = sqlx::SqlitePool::connect(url).await.unwrap();
    sqlx::query(statement).execute(&pool).await.unwrap();
    pool.close().await;
}

#[tokio::test]
async fn a_stored_swiss_verifies_and_a_tampered_result_is_caught() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    let store = senet::store::open(&url).await.unwrap();
    store_swiss(&store).await;
    drop(store);

    let (status, text) = verify(&url);
    assert_eq!(status, Some(0), "{text}");
    assert!(
        text.contains(r#""consistent":true"#) && text.contains("Player 9"),
        "{text}"
    );

    // A room's game-over that disagrees with the tournament's result.
    sql(&url, "UPDATE events SET data = replace(data, '\"winner\":\"black\"', '\"winner\":\"white\"') WHERE room = 'tr2'").await;
    let (status, text) = verify(&url);
    assert_eq!(status, Some(1), "{text}");
    assert!(text.contains("room tr2"), "{text}");

    // The tournament's own result flipped to agree with the room: the next round's pairing no
    // longer recomputes (scores changed), and the first pairing after it is named.
    sql(&url, "UPDATE tournament_events SET data = replace(data, '\"outcome\":\"black\"', '\"outcome\":\"white\"') \
               WHERE tournament = 't1' AND kind = 'result' AND data LIKE '%\"tr2\"%'").await;
    let (status, text) = verify(&url);
    assert_eq!(status, Some(1), "{text}");
    assert!(text.contains("logged pairing"), "{text}");

    let (status, text) = Command::new(env!("CARGO_BIN_EXE_senet"))
        .args([
            "tournament",
            "verify",
            "--database-url",
            &url,
            "--id",
            "nope",
        ])
        .output()
        .map(|o| {
            (
                o.status.code(),
                String::from_utf8_lossy(&o.stderr).into_owned(),
            )
        })
        .unwrap();
    assert_eq!(status, Some(2));
    assert!(text.contains("no tournament nope"), "{text}");
}

#[tokio::test]
async fn an_operator_cancels_an_unfinished_tournament_and_it_is_audited() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("t.db").display());
    let store = senet::store::open(&url).await.unwrap();
    store_swiss(&store).await;
    let created = Event::Created(Settings {
        name: "Upcoming".into(),
        format: Format::Arena { minutes: 30 },
        clock: TimeControl::fischer(60, 1),
        starts_at: 1_800_000_000_000,
        rated: true,
        creator: "p-creator".into(),
        min_rating: None,
        max_rating: None,
    });
    let (kind, data) = created.to_stored();
    let first = StoredEvent {
        v: 1,
        at: 1_700_000_000_000,
        kind,
        data,
    };
    let row = TournamentRow {
        id: "t2".into(),
        starts_at: 1_800_000_000_000,
        summary: "{}".into(),
    };
    store
        .tournaments
        .create_tournament(&row, &[first])
        .await
        .unwrap();
    drop(store);

    let operator = [
        "--reason",
        "venue closed",
        "--as",
        "alice",
        "--database-url",
        &url,
    ];
    let (status, text) = senet(&[&["admin", "cancel-tournament", "t2"][..], &operator].concat());
    assert_eq!(status, Some(0), "{text}");
    assert!(
        text.contains(r#""cancelled":"t2""#) && text.contains(r#""v":2"#),
        "{text}"
    );
    let (status, text) = senet(&["tournament", "verify", "--database-url", &url, "--id", "t2"]);
    assert_eq!(status, Some(0), "{text}");
    let store = senet::store::open(&url).await.unwrap();
    let last = store.tournaments.tournament_events("t2", 1).await.unwrap();
    assert_eq!(last.len(), 1);
    assert_eq!(
        Event::from_stored(&last[0].kind, &last[0].data).unwrap(),
        Event::Cancelled {
            reason: "venue closed".into()
        }
    );
    let summary = store
        .tournaments
        .tournament("t2")
        .await
        .unwrap()
        .unwrap()
        .summary;
    assert!(summary.contains(r#""status":"cancelled""#), "{summary}");
    drop(store);
    let (_, audit) = senet(&["admin", "audit", "--database-url", &url]);
    assert!(
        audit.contains("cancel-tournament") && audit.contains("alice") && audit.contains("t2"),
        "{audit}"
    );

    // A finished tournament, an unknown one and a second cancel are refused, each saying why.
    for (id, why) in [
        ("t1", "not open"),
        ("nope", "no tournament nope"),
        ("t2", "not open"),
    ] {
        let (status, text) = senet(&[&["admin", "cancel-tournament", id][..], &operator].concat());
        assert_eq!(status, Some(2), "{text}");
        assert!(text.contains(why), "{id}: {text}");
    }
}
