//! The AI through its public API and through the real `senet` binary:
//! legality, determinism, the `bestmove` and `selfplay` commands, and a
//! seeded match showing that searching beats random play.

use std::io::Write;
use std::process::{Command, Output, Stdio};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use senet::ai::{Level, choose_move, random_move};
use senet::engine::{Position, Roll, Sticks};
use serde_json::Value;

/// Positions and throws met in random games, a varied sample of the game.
fn sample_positions(games: u64, every: usize) -> Vec<(Position, Roll)> {
    let mut sample = Vec::new();
    for game in 0..games {
        let mut rng = ChaCha8Rng::seed_from_u64(game);
        let mut position = Position::start();
        let mut throw = 0;
        while !position.is_over() {
            let roll = Sticks::from_bits(rng.random()).roll();
            if throw % every == 0 {
                sample.push((position, roll));
            }
            throw += 1;
            position = random_move(&position, roll, rng.random())
                .map_or(position.pass(), |mv| position.after(&mv));
        }
    }
    sample
}

#[test]
fn every_level_plays_only_legal_moves_and_passes_only_when_it_must() {
    for (index, (position, roll)) in sample_positions(12, 3).into_iter().enumerate() {
        let legal = position.legal_moves(roll);
        // Hard is slow in a debug build, so it sees one sample in 60.
        let levels: &[Level] = if index % 60 == 0 {
            &Level::ALL
        } else {
            &[Level::Easy, Level::Medium]
        };
        for &level in levels {
            let chosen = choose_move(&position, roll, level, index as u64);
            match chosen {
                None => assert!(legal.is_empty(), "{level} passed in {position} with {roll}"),
                Some(mv) => assert_eq!(
                    legal.find(mv.from),
                    Some(&mv),
                    "{level} chose an illegal move in {position} with {roll}"
                ),
            }
        }
    }
}

#[test]
fn same_inputs_give_the_same_move_and_easy_depends_on_its_seed() {
    let sample: Vec<_> = sample_positions(4, 5)
        .into_iter()
        .filter(|(position, roll)| position.legal_moves(*roll).len() >= 2)
        .collect();
    assert!(sample.len() >= 20, "too few positions with a choice");
    let mut easy_differs = false;
    for (index, (position, roll)) in sample.iter().enumerate() {
        for level in [Level::Easy, Level::Medium] {
            let first = choose_move(position, *roll, level, 42);
            assert_eq!(first, choose_move(position, *roll, level, 42), "{level}");
        }
        if index % 40 == 0 {
            let hard = choose_move(position, *roll, Level::Hard, 42);
            assert_eq!(hard, choose_move(position, *roll, Level::Hard, 42));
        }
        easy_differs |= (0..8).any(|seed| {
            choose_move(position, *roll, Level::Easy, seed)
                != choose_move(position, *roll, Level::Easy, 42)
        });
    }
    assert!(easy_differs, "easy's randomness never changed a choice");
}

#[test]
fn hard_swaps_back_an_enemy_about_to_win() {
    // White's last piece on 29 wins with a 2. Black throws 3: 26 -> 29
    // swaps it back; 5 -> 8 would leave white a 6/16 chance to win at once.
    let position: Position = "....B....................B..W. b".parse().unwrap();
    let roll = Roll::new(3).unwrap();
    for level in [Level::Medium, Level::Hard] {
        let chosen = choose_move(&position, roll, level, 0).expect("a legal move");
        assert_eq!(chosen.from, 26, "{level}");
    }
}

fn senet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(args)
        .output()
        .expect("run senet")
}

fn stdout_json(output: &Output) -> Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("JSON on stdout")
}

const START: &str = "WBWBWBWBWB.................... b";

#[test]
fn bestmove_prints_a_legal_from_square_or_null() {
    for level in ["easy", "medium", "hard"] {
        let output = senet(&["bestmove", START, "2", "--level", level]);
        let from = stdout_json(&output)["from"].as_u64().expect("a square");
        let legal = START
            .parse::<Position>()
            .unwrap()
            .legal_moves(Roll::new(2).unwrap());
        assert!(legal.find(from as u8).is_some(), "{level}: {from}");
    }
    // Black's only piece on 30 cannot use a 3 (bearing off needs a 1).
    let stuck = "W............................B b";
    let output = senet(&["bestmove", stuck, "3"]);
    assert_eq!(stdout_json(&output), serde_json::json!({"from": null}));
}

#[test]
fn bestmove_rejects_bad_input_with_one_line_and_status_2() {
    let cases: [&[&str]; 4] = [
        &["bestmove", "WBWB b", "2"],
        &["bestmove", START, "6"],
        &["bestmove", START, "2", "--level", "expert"],
        &["bestmove", START, "x"],
    ];
    for args in cases {
        let output = senet(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.trim_end().lines().count(), 1, "{args:?}: {stderr}");
        assert!(stderr.starts_with("senet: "), "{args:?}: {stderr}");
    }
}

#[test]
fn bestmove_stdin_answers_every_line_in_order() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(["bestmove", "--stdin", "--level", "medium"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("run senet");
    let input = format!("{START} 2\nnot a position 3\nW............................B b 3\n");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success());
    let answers: Vec<Value> = String::from_utf8(output.stdout)
        .unwrap()
        .lines()
        .map(|line| serde_json::from_str(line).expect("one JSON value per line"))
        .collect();
    assert_eq!(answers.len(), 3, "{answers:?}");
    assert!(answers[0]["from"].is_u64(), "{answers:?}");
    assert!(
        answers[1]["error"]
            .as_str()
            .unwrap()
            .contains("invalid position")
    );
    assert_eq!(answers[2], serde_json::json!({"from": null}));
}

#[test]
fn medium_beats_random_in_a_seeded_match() {
    let output = senet(&[
        "selfplay", "--black", "medium", "--white", "random", "--games", "200", "--seed", "11",
    ]);
    let report = stdout_json(&output);
    let players = report["players"].as_array().unwrap();
    let wins: Vec<u64> = players
        .iter()
        .map(|p| p["wins"].as_u64().unwrap())
        .collect();
    assert_eq!(wins[0] + wins[1], 200);
    for player in players {
        assert_eq!(player["games_as_black"], 100, "{player}");
    }
    // Random against random wins about half; a lower bound above 60% over
    // 200 games is more than four standard deviations away from that.
    let low = report["first_level_win_rate"]["ci95_wilson"][0]
        .as_f64()
        .unwrap();
    assert!(low > 0.6, "{report}");
}

#[test]
fn selfplay_rejects_unknown_levels() {
    let output = senet(&["selfplay", "--black", "grandmaster", "--white", "random"]);
    assert_eq!(output.status.code(), Some(2));
}
