//! The `senet` binary as a user runs it: real process, real stdout/stderr,
//! real exit status.

use std::process::{Command, Output};

const START: &str = "WBWBWBWBWB.................... b";

fn senet(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(args)
        .output()
        .expect("the senet binary runs")
}

/// Runs a command that must succeed and returns its stdout.
fn stdout_of(args: &[&str]) -> String {
    let output = senet(args);
    assert!(
        output.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(output.stderr.is_empty(), "{args:?} wrote to stderr");
    String::from_utf8(output.stdout).expect("utf-8 output")
}

#[test]
fn legal_prints_moves_in_the_documented_format() {
    assert_eq!(
        stdout_of(&["legal", START, "2"]),
        "[{\"from\":10,\"to\":12,\"after\":\"WBWBWBWBW..B.................. w\"}]\n"
    );
}

#[test]
fn legal_orders_moves_by_from_and_keeps_the_turn_after_a_one() {
    let out = stdout_of(&["legal", START, "1"]);
    let moves: Vec<serde_json::Value> = serde_json::from_str(&out).unwrap();
    let froms: Vec<u64> = moves.iter().map(|m| m["from"].as_u64().unwrap()).collect();
    assert_eq!(froms, [2, 4, 6, 8, 10]);
    assert_eq!(moves[0]["to"], 3);
    assert_eq!(moves[0]["after"], "WWBBWBWBWB.................... b");
}

#[test]
fn legal_reports_water_as_27_and_bearing_off_as_off() {
    let water = "W........................B.... b";
    assert_eq!(
        stdout_of(&["legal", water, "1"]),
        "[{\"from\":26,\"to\":27,\"after\":\"W.............B............... b\"}]\n"
    );
    let bear_off = "W...........................BB b";
    assert_eq!(
        stdout_of(&["legal", bear_off, "1"]),
        "[{\"from\":30,\"to\":\"off\",\"after\":\"W...........................B. b\"}]\n"
    );
}

#[test]
fn legal_prints_an_empty_list_when_the_throw_passes() {
    assert_eq!(
        stdout_of(&["legal", "W..........................BB. b", "4"]),
        "[]\n"
    );
}

#[test]
fn perft_matches_the_published_counts() {
    for (depth, leaves) in [(0, 1), (1, 18), (2, 272), (3, 3923), (4, 56961)] {
        assert_eq!(
            stdout_of(&["perft", START, &depth.to_string()]),
            format!("{leaves}\n"),
            "depth {depth}"
        );
    }
    // A won position is a leaf at any depth.
    assert_eq!(
        stdout_of(&["perft", "W............................. w", "3"]),
        "1\n"
    );
}

#[test]
fn bad_input_gives_one_line_on_stderr_and_status_2() {
    let cases: &[&[&str]] = &[
        &["legal", "WBWB b", "1"],
        &["legal", "WBWBWBWBWBx................... b", "1"],
        &["legal", "WBWBWBWBWB.................... x", "1"],
        &["legal", "WBWBWBWBWBBB.................. b", "1"],
        &["legal", "W.........................W... b", "1"],
        &["legal", START, "0"],
        &["legal", START, "6"],
        &["legal", START, "two"],
        &["legal", START],
        &["perft", START, "-1"],
        &["perft", START, "deep"],
        &["perft", "nonsense", "2"],
        &["no-such-command"],
        &[],
    ];
    for args in cases {
        let output = senet(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        assert!(output.stdout.is_empty(), "{args:?} printed to stdout");
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "{args:?}: {stderr:?}");
        assert!(stderr.starts_with("senet: "), "{args:?}: {stderr:?}");
    }
}

#[test]
fn bad_position_message_says_what_is_wrong() {
    let output = senet(&["legal", "WBWBWBWBWBB................... b", "1"]);
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("black has 6 pieces"), "{stderr}");
}
