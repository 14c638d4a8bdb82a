//! One test (or a few) per numbered rule of issue 2, each run for both
//! colours. Positions are written in the notation, with `|` after every ten
//! squares so the three rows of the track are easy to count:
//! `"WBWBWBWBWB|..........|.......... b"` is the start. The rows are in track
//! order (11..20 read left to right here, although the board draws that row
//! right to left).
//!
//! Every position-based check runs twice: as written (usually black to move)
//! and with the colours exchanged, because each rule holds for both sides.

use senet::engine::{
    Effect, HOUSE_OF_HAPPINESS, HOUSE_OF_REBIRTH, HOUSE_OF_WATER, IllegalMove, Move,
    PIECES_PER_SIDE, Position, Roll, SAFE_SQUARES, SQUARES, Side, Sticks, Target,
};

/// Parses a position written with optional `|` row separators.
fn pos(text: &str) -> Position {
    let compact = text.replace('|', "");
    compact
        .parse()
        .unwrap_or_else(|e| panic!("bad test position {text:?}: {e}"))
}

/// The same text with black and white exchanged (pieces and side to move).
fn swap_colours(text: &str) -> String {
    text.chars()
        .map(|c| match c {
            'B' => 'W',
            'W' => 'B',
            'b' => 'w',
            'w' => 'b',
            other => other,
        })
        .collect()
}

/// The text as written and with the colours exchanged.
fn both_colours(text: &str) -> [String; 2] {
    [text.to_string(), swap_colours(text)]
}

fn roll(value: u8) -> Roll {
    Roll::new(value).expect("test rolls are 1..=5")
}

/// Asserts that the piece on `from` may use `value`, that the move is listed
/// by `legal_moves`, and that playing it gives `expected` (for both colours).
/// Returns the move as seen by the position as written.
fn assert_moves(text: &str, from: u8, value: u8, expected: &str) -> Move {
    let mut seen = None;
    for (before, after) in both_colours(text).iter().zip(both_colours(expected)) {
        let position = pos(before);
        let (next, mv) = position
            .play(from, roll(value))
            .unwrap_or_else(|e| panic!("{before:?}: {from}+{value} should be legal: {e}"));
        assert_eq!(next, pos(&after), "{before:?}: {from}+{value}");
        assert_eq!(
            position.legal_moves(roll(value)).find(from),
            Some(&mv),
            "{before:?}: legal_moves should list {from}+{value}"
        );
        assert_eq!(position.after(&mv), next, "after() agrees with play()");
        seen.get_or_insert(mv);
    }
    seen.expect("ran at least once")
}

/// Asserts that the piece on `from` cannot use `value`, for `reason`, and that
/// `legal_moves` leaves it out (for both colours).
fn assert_refused(text: &str, from: u8, value: u8, reason: IllegalMove) {
    for before in both_colours(text) {
        let position = pos(&before);
        assert_eq!(
            position.play(from, roll(value)).map(|(_, mv)| mv),
            Err(reason),
            "{before:?}: {from}+{value}"
        );
        assert_eq!(position.check(from, roll(value)), Err(reason));
        assert!(
            position.legal_moves(roll(value)).find(from).is_none(),
            "{before:?}: legal_moves must not list {from}+{value}"
        );
    }
}

/// The `from` squares of every legal move, for both colours (which must agree).
fn movable(text: &str, value: u8) -> Vec<u8> {
    let [as_written, swapped] = both_colours(text).map(|t| {
        pos(&t)
            .legal_moves(roll(value))
            .iter()
            .map(|mv| mv.from)
            .collect::<Vec<_>>()
    });
    assert_eq!(as_written, swapped, "{text:?}: colours must not matter");
    as_written
}

const START: &str = "WBWBWBWBWB|..........|.......... b";

// Rule 1: thirty squares along a snake; adjacency is by track number.

#[test]
fn rule1_track_has_thirty_squares_and_turns_are_adjacent() {
    assert_eq!(SQUARES, 30);
    // 10 -> 11 and 20 -> 21 are ordinary single steps across the row turns.
    assert_moves(
        "B.........|..........|.........W b",
        1,
        1,
        ".B........|..........|.........W b",
    );
    assert_moves(
        ".........B|..........|.........W b",
        10,
        1,
        "..........|B.........|.........W b",
    );
    assert_moves(
        "..........|.........B|.........W b",
        20,
        3,
        "..........|..........|..B......W w",
    );
}

#[test]
fn rule1_block_across_10_and_11() {
    let text = "......B..W|W.........|.......... b";
    assert_refused(text, 7, 4, IllegalMove::Blocked(10));
    assert_refused(text, 7, 3, IllegalMove::Blocked(10));
    assert_refused(text, 7, 5, IllegalMove::Blocked(10));
    // Without the piece on 11 the one on 10 is single and can be swapped.
    assert_moves(
        "......B..W|..........|.......... b",
        7,
        3,
        "......W..B|..........|.......... w",
    );
}

#[test]
fn rule1_block_across_20_and_21() {
    let text = "..........|.......B.W|W......... b";
    assert_refused(text, 18, 3, IllegalMove::Blocked(20));
    assert_refused(text, 18, 4, IllegalMove::Blocked(20));
    assert_refused(text, 18, 5, IllegalMove::Blocked(20));
    assert_moves(text, 18, 1, "..........|........BW|W......... b");
}

// Rule 2: five pieces a side, interleaved on 1..10, black first.

#[test]
fn rule2_start_position() {
    let start = Position::start();
    assert_eq!(start, pos(START));
    assert_eq!(start.to_string(), START.replace('|', ""));
    assert_eq!(start.turn(), Side::Black);
    assert_eq!(
        start.squares(Side::Black).collect::<Vec<_>>(),
        [2, 4, 6, 8, 10]
    );
    assert_eq!(
        start.squares(Side::White).collect::<Vec<_>>(),
        [1, 3, 5, 7, 9]
    );
    for side in Side::BOTH {
        assert_eq!(start.borne_off(side), 0);
        assert_eq!(start.squares(side).count(), usize::from(PIECES_PER_SIDE));
    }
    assert_eq!(start.winner(), None);
    assert!(!start.is_over());
}

// Rule 3: four sticks; the marked faces up give 1..4, four blanks give 5.

#[test]
fn rule3_sticks_give_one_to_five_with_the_documented_odds() {
    let mut patterns = [0u32; 6];
    for bits in 0..16u8 {
        let sticks = Sticks::from_bits(bits);
        let marked = sticks.faces().iter().filter(|&&up| up).count();
        let value = sticks.roll().value();
        assert_eq!(
            value,
            if marked == 0 { 5 } else { marked as u8 },
            "{bits:04b}"
        );
        patterns[usize::from(value)] += 1;
    }
    assert_eq!(patterns, [0, 4, 6, 4, 1, 1], "there is never a 0");
    let odds: Vec<f64> = Roll::ALL.iter().map(|r| r.probability()).collect();
    assert_eq!(
        odds,
        [4.0 / 16.0, 6.0 / 16.0, 4.0 / 16.0, 1.0 / 16.0, 1.0 / 16.0]
    );
    assert_eq!(Roll::ALL.map(Roll::value), [1, 2, 3, 4, 5]);
    assert!(Roll::new(0).is_none() && Roll::new(6).is_none());
}

#[test]
fn rule3_sticks_keep_their_faces() {
    let faces = [true, false, true, false];
    let sticks = Sticks::from_faces(faces);
    assert_eq!(sticks.faces(), faces);
    assert_eq!(sticks.roll(), roll(2));
    assert_eq!(Sticks::from_faces([false; 4]).roll(), roll(5));
    assert_eq!(Sticks::from_faces([true; 4]).roll(), roll(4));
}

// Rule 4: one piece forward by exactly the throw.

#[test]
fn rule4_every_move_goes_forward_by_exactly_the_throw() {
    for text in both_colours(START) {
        let start = pos(&text);
        for r in Roll::ALL {
            for mv in &start.legal_moves(r) {
                assert_eq!(mv.roll, r);
                assert_eq!(mv.to, Target::Square(mv.from + r.value()), "{text}: {mv:?}");
            }
        }
    }
    // A throw of 2 from the start: only the pieces whose square +2 is free of
    // their own side; black's 10 goes to 12.
    assert_eq!(movable(START, 2), [10]);
    assert_eq!(movable(START, 1), [2, 4, 6, 8, 10]);
}

#[test]
fn rule4_only_the_side_to_move_moves() {
    assert_refused(START, 1, 1, IllegalMove::NoOwnPiece(1));
    assert_refused(START, 11, 1, IllegalMove::NoOwnPiece(11));
    assert_refused(START, 0, 1, IllegalMove::NoOwnPiece(0));
    assert_refused(START, 31, 1, IllegalMove::NoOwnPiece(31));
}

// Rule 5: own pieces never share a square; jumping over them is fine.

#[test]
fn rule5_landing_on_own_piece_is_illegal() {
    let text = "B.B.......|..........|.....W.... b";
    assert_refused(text, 1, 2, IllegalMove::OccupiedByOwn(3));
    assert_moves(text, 1, 3, "..BB......|..........|.....W.... w");
    // Two own pieces side by side are no block for their owner.
    assert_moves(
        "B.BB......|..........|.....W.... b",
        1,
        4,
        "..BBB.....|..........|.....W.... b",
    );
}

// Rule 6: landing on a single enemy swaps the two pieces.

#[test]
fn rule6_landing_on_a_single_enemy_swaps() {
    let mv = assert_moves(
        "...B..W...|..........|.....W.... b",
        4,
        3,
        "...W..B...|..........|.....W.... w",
    );
    assert_eq!(mv.effect, Effect::Swap);
    assert_eq!(mv.to, Target::Square(7));
}

#[test]
fn rule6_a_single_enemy_beside_the_movers_own_piece_is_still_single() {
    // White on 13 has black neighbours on 12 and 14: still a single piece.
    let text = "B.........|.BWB......|.....W.... b";
    let mv = assert_moves(text, 1, 2, "..B.......|.BWB......|.....W.... w");
    assert_eq!(mv.effect, Effect::Step);
    let mv = assert_moves(text, 12, 1, "B.........|.WBB......|.....W.... b");
    assert_eq!(mv.effect, Effect::Swap);
    // And it can be passed over.
    assert_moves(text, 12, 3, "B.........|..WBB.....|.....W.... w");
}

#[test]
fn rule6_swap_next_to_a_safe_square() {
    // White on 14 and 16 sit beside the empty House of Rebirth: both single.
    let text = "..........|..BW.W....|.....W.... b";
    assert_moves(text, 13, 1, "..........|..WB.W....|.....W.... b");
    assert_moves(text, 13, 3, "..........|..WW.B....|.....W.... w");
    // Black's own piece on 15 does not turn 14 and 16 into a block.
    let text = "..........|...WBW....|....BW.... b";
    assert_moves(text, 15, 1, "..........|...WWB....|....BW.... b");
    // White on 25 beside the House of Happiness is single too.
    assert_moves(
        "..........|..........|...BW..... b",
        24,
        1,
        "..........|..........|...WB..... b",
    );
}

// Rule 7: an enemy on 15 or 26 cannot be swapped.

#[test]
fn rule7_safe_squares_cannot_be_landed_on_when_taken_by_the_enemy() {
    assert_eq!(SAFE_SQUARES, [HOUSE_OF_REBIRTH, HOUSE_OF_HAPPINESS]);
    assert_refused(
        "..........|..B.W.....|.....W.... b",
        13,
        2,
        IllegalMove::SafeSquare(15),
    );
    assert_refused(
        "..........|..........|..B..W.... b",
        23,
        3,
        IllegalMove::SafeSquare(26),
    );
}

#[test]
fn rule7_a_single_enemy_on_a_safe_square_can_be_passed() {
    assert_moves(
        "..........|..B.W.....|.....W.... b",
        13,
        3,
        "..........|....WB....|.....W.... w",
    );
}

#[test]
fn rule7_free_safe_squares_are_ordinary_landing_squares() {
    assert_moves(
        "..........|..B.......|.....W.... b",
        13,
        2,
        "..........|....B.....|.....W.... w",
    );
}

// Rule 8: two or more adjacent enemies form a block, not landed on nor passed.

#[test]
fn rule8_a_block_of_two_cannot_be_landed_on_or_passed() {
    let text = "B...WW....|..........|.......... b";
    assert_refused(text, 1, 4, IllegalMove::Blocked(5));
    assert_refused(text, 1, 5, IllegalMove::Blocked(5));
    assert_moves(text, 1, 3, "...BWW....|..........|.......... w");
    let text = "...B.WW...|..........|.......... b";
    assert_refused(text, 4, 3, IllegalMove::Blocked(6));
    assert_refused(text, 4, 4, IllegalMove::Blocked(6));
}

#[test]
fn rule8_a_block_of_three_is_a_block_too() {
    let text = "B..WWW....|..........|.......... b";
    for value in 3..=5 {
        assert_refused(text, 1, value, IllegalMove::Blocked(4));
    }
    assert_eq!(movable(text, 1), [1]);
}

#[test]
fn rule8_blocks_include_pieces_on_safe_squares() {
    let text = "..........|.B..WW....|.....B.... b";
    assert_refused(text, 12, 4, IllegalMove::Blocked(15));
    assert_refused(text, 12, 5, IllegalMove::Blocked(15));
    let text = "..........|..........|B...WW.... b";
    assert_refused(text, 21, 5, IllegalMove::Blocked(25));
}

#[test]
fn rule8_enemies_one_apart_are_no_block() {
    assert_moves(
        "B..W.W....|..........|.......... b",
        1,
        5,
        "W..W.B....|..........|.......... b",
    );
}

#[test]
fn rule8_block_in_the_path_to_bearing_off() {
    let text = "..........|..........|.......BWW b";
    assert_refused(text, 28, 3, IllegalMove::Blocked(29));
    assert_eq!(movable(text, 3), Vec::<u8>::new());
    // A single enemy on the way off does not stop it.
    assert_moves(
        "B.........|..........|.......B.W b",
        28,
        3,
        "B.........|..........|.........W w",
    );
    // From 26 with a 5 the whole of 27..30 is passed.
    assert_refused(
        "..........|..........|.....B.WW. b",
        26,
        5,
        IllegalMove::Blocked(28),
    );
}

// Rule 9: every piece must stop exactly on 26 before going further.

#[test]
fn rule9_throws_that_pass_26_are_refused() {
    let text = "..........|..........|...B.....W b";
    // The seed's worked example: 24 + 3 is illegal.
    assert_refused(text, 24, 3, IllegalMove::MustStopOn26);
    assert_refused(text, 24, 4, IllegalMove::MustStopOn26);
    assert_refused(text, 24, 5, IllegalMove::MustStopOn26);
    assert_refused(
        "..........|..........|....B....W b",
        25,
        2,
        IllegalMove::MustStopOn26,
    );
    assert_moves(text, 24, 2, "..........|..........|.....B...W w");
    assert_moves(
        "..........|..........|B........W b",
        21,
        5,
        "..........|..........|.....B...W b",
    );
    assert_eq!(HOUSE_OF_HAPPINESS, 26);
}

#[test]
fn rule9_from_26_the_piece_may_go_on() {
    let text = "..........|..........|.....B...W b";
    assert_moves(text, 26, 2, "..........|..........|.......B.W w");
    assert_moves(text, 26, 3, "..........|..........|........BW w");
}

// Rule 10: landing on 27 puts the piece back on 15 or the first free square
// before it.

#[test]
fn rule10_water_returns_the_piece_to_15() {
    let mv = assert_moves(
        "..........|..........|.....B...W b",
        26,
        1,
        "..........|....B.....|.........W b",
    );
    assert_eq!(HOUSE_OF_WATER, 27);
    assert_eq!(mv.to, Target::Square(HOUSE_OF_WATER));
    assert_eq!(
        mv.effect,
        Effect::Water {
            rest: HOUSE_OF_REBIRTH
        }
    );
    assert_eq!(mv.rests_on(), Some(15));
}

#[test]
fn rule10_water_with_15_taken() {
    // By the enemy: nothing is swapped, the piece goes to 14.
    let mv = assert_moves(
        "..........|....W.....|.....B...W b",
        26,
        1,
        "..........|...BW.....|.........W b",
    );
    assert_eq!(mv.effect, Effect::Water { rest: 14 });
    // By the mover's own piece: the same.
    assert_moves(
        "..........|....B.....|.....B...W b",
        26,
        1,
        "..........|...BB.....|.........W b",
    );
}

#[test]
fn rule10_water_with_15_and_14_taken() {
    let mv = assert_moves(
        "..........|...BW.....|.....B...W b",
        26,
        1,
        "..........|..BBW.....|.........W b",
    );
    assert_eq!(mv.effect, Effect::Water { rest: 13 });
    // Further back over a run of pieces of both sides, ignoring blocks.
    assert_moves(
        "..........|WWBBW.....|.....B...W b",
        26,
        1,
        ".........B|WWBBW.....|.........W b",
    );
}

#[test]
fn rule10_no_piece_ever_rests_on_27() {
    assert!(
        "..........|..........|......B... b"
            .replace('|', "")
            .parse::<Position>()
            .is_err()
    );
}

// Rule 11: bearing off needs the exact count to the square after 30.

#[test]
fn rule11_exact_bear_off_from_26_28_29_30() {
    // Black keeps a piece on 2 so that bearing off does not end the game.
    let cases = [
        (
            "WB........|..........|.....B.... b",
            26,
            5,
            "WB........|..........|.......... b",
        ),
        (
            "WB........|..........|.......B.. b",
            28,
            3,
            "WB........|..........|.......... w",
        ),
        (
            "WB........|..........|........B. b",
            29,
            2,
            "WB........|..........|.......... w",
        ),
        (
            "WB........|..........|.........B b",
            30,
            1,
            "WB........|..........|.......... b",
        ),
    ];
    for (before, from, value, after) in cases {
        let mv = assert_moves(before, from, value, after);
        assert_eq!(mv.to, Target::Off);
        assert_eq!(mv.effect, Effect::BearOff);
        assert_eq!(mv.rests_on(), None);
        assert_eq!(pos(after).borne_off(Side::Black), 4);
    }
}

#[test]
fn rule11_other_throws_cannot_bear_off() {
    let text = "W.........|..........|.......BBB b";
    assert_refused(text, 30, 2, IllegalMove::NotExactToBearOff);
    assert_refused(text, 30, 5, IllegalMove::NotExactToBearOff);
    assert_refused(text, 29, 3, IllegalMove::NotExactToBearOff);
    assert_refused(text, 28, 4, IllegalMove::NotExactToBearOff);
    assert_refused(text, 28, 5, IllegalMove::NotExactToBearOff);
    // A smaller throw is just a step (or nothing, if it lands on its own piece).
    assert_refused(text, 28, 1, IllegalMove::OccupiedByOwn(29));
    assert_moves(
        "W.........|..........|.....B.... b",
        26,
        4,
        "W.........|..........|.........B b",
    );
}

// Rule 12: 1, 4 and 5 throw again; 2 and 3 pass the turn.

#[test]
fn rule12_who_throws_next() {
    let text = "B.........|..........|.........W b";
    for value in 1..=5 {
        let (next, _) = pos(text).play(1, roll(value)).unwrap();
        let again = matches!(value, 1 | 4 | 5);
        assert_eq!(roll(value).grants_extra_throw(), again);
        assert_eq!(
            next.turn(),
            if again { Side::Black } else { Side::White },
            "{value}"
        );
        let (next, _) = pos(&swap_colours(text)).play(1, roll(value)).unwrap();
        assert_eq!(next.turn(), if again { Side::White } else { Side::Black });
    }
}

#[test]
fn rule12_swaps_and_water_change_nothing_about_the_extra_throw() {
    // A swap with a 2 passes the turn, a swap with a 4 does not.
    assert_moves(
        "B.W.......|..........|.......... b",
        1,
        2,
        "W.B.......|..........|.......... w",
    );
    assert_moves(
        "B...W.....|..........|.......... b",
        1,
        4,
        "W...B.....|..........|.......... b",
    );
    // 26 + 1 lands in the water, goes to 15, and the 1 still throws again.
    let mv = assert_moves(
        "W.........|..........|.....B.... b",
        26,
        1,
        "W.........|....B.....|.......... b",
    );
    assert!(matches!(mv.effect, Effect::Water { .. }));
}

// Rule 13: moving is compulsory; with no legal move the turn passes.

#[test]
fn rule13_every_usable_piece_is_offered() {
    // Black may choose any piece that can use the throw.
    assert_eq!(movable("B.B.B.....|..........|.....W.... b", 1), [1, 3, 5]);
    assert_eq!(movable("B.B.B.....|..........|.....W.... b", 2), [5]);
}

#[test]
fn rule13_forced_pass_even_after_one_four_or_five() {
    // Black on 24 and 25 before the House of Happiness, which white holds.
    let text = "..........|..........|...BBW.... b";
    for value in 1..=5 {
        for before in both_colours(text) {
            let position = pos(&before);
            assert!(
                position.legal_moves(roll(value)).is_empty(),
                "{before} {value}"
            );
            let passed = position.pass();
            assert_eq!(passed.turn(), position.turn().other());
            for side in Side::BOTH {
                assert_eq!(passed.bitboard(side), position.bitboard(side));
            }
        }
    }
}

#[test]
fn rule13_no_piece_can_move_because_of_blocks_and_own_pieces() {
    // Every black piece is stopped: own piece, block, must-stop and exact-off.
    let text = "..........|BB.WW.....|...B.....B b";
    assert_eq!(movable(text, 3), Vec::<u8>::new());
    assert_refused(text, 11, 3, IllegalMove::Blocked(14));
    assert_refused(text, 24, 3, IllegalMove::MustStopOn26);
    assert_refused(text, 30, 3, IllegalMove::NotExactToBearOff);
}

// Rule 14: the first side to bear off all five wins.

#[test]
fn rule14_bearing_off_the_last_piece_wins_and_the_winner_stays_to_move() {
    // With a 3, which would normally pass the turn.
    let text = "WW........|..........|.......B.. b";
    let after = "WW........|..........|.......... b";
    assert_moves(text, 28, 3, after);
    for finished in both_colours(after) {
        let position = pos(&finished);
        let mover = position.turn();
        assert_eq!(position.winner(), Some(mover));
        assert!(position.is_over());
        assert_eq!(position.borne_off(mover), PIECES_PER_SIDE);
        assert_eq!(position.borne_off(mover.other()), 3);
        for r in Roll::ALL {
            assert!(position.legal_moves(r).is_empty());
            assert!(position.with_turn(mover.other()).legal_moves(r).is_empty());
        }
        assert_eq!(
            position
                .with_turn(mover.other())
                .play(1, roll(1))
                .map(|(_, m)| m),
            Err(IllegalMove::GameOver)
        );
    }
}

#[test]
fn rule14_no_winner_while_both_sides_have_pieces() {
    let position = pos("W.........|..........|.........B b");
    assert_eq!(position.winner(), None);
    assert_eq!(position.borne_off(Side::Black), 4);
    assert_eq!(position.borne_off(Side::White), 4);
}

// Notation.

#[test]
fn notation_round_trips_and_rejects_bad_text() {
    for text in [
        START,
        "W.........|..........|.........B w",
        "..........|..........|.......... b",
    ] {
        let compact = text.replace('|', "");
        assert_eq!(pos(text).to_string(), compact);
    }
    let bad = [
        "",
        "WBWBWBWBWB.................... ",
        "WBWBWBWBWB.................... bb",
        "WBWBWBWBWB.................... B",
        "WBWBWBWBWB....................  b",
        "WBWBWBWBWB..................... b",
        "WBWBWBWBWBx................... b",
        "wbwbwbwbwb.................... b",
        "WBWBWBWBWBBB.................. b",
        "WWWWWWBBBB.................... w",
    ];
    for text in bad {
        let error = text.parse::<Position>().unwrap_err();
        assert!(!error.to_string().is_empty(), "{text:?}");
    }
}

#[test]
fn illegal_move_codes_are_stable() {
    let codes = [
        (IllegalMove::GameOver, "game_over"),
        (IllegalMove::NoOwnPiece(3), "no_own_piece"),
        (IllegalMove::OccupiedByOwn(3), "occupied_by_own"),
        (IllegalMove::SafeSquare(15), "safe_square"),
        (IllegalMove::Blocked(4), "blocked"),
        (IllegalMove::MustStopOn26, "must_stop_on_26"),
        (IllegalMove::NotExactToBearOff, "not_exact_to_bear_off"),
    ];
    for (reason, code) in codes {
        assert_eq!(reason.code(), code);
        assert!(!reason.to_string().is_empty());
    }
}

#[test]
fn bitboards_round_trip_and_invalid_ones_are_refused() {
    let start = Position::start();
    let (black, white) = (start.bitboard(Side::Black), start.bitboard(Side::White));
    assert_eq!(
        Position::from_bitboards(black, white, Side::Black),
        Some(start)
    );
    let refused = [
        (1 << 2, 1 << 2),   // two pieces on one square
        (1 << 27, 0),       // a piece in the water
        (1 << 0, 0),        // no square 0
        (0, 1 << 31),       // no square 31
        (0b111111 << 1, 0), // six pieces
    ];
    for (black, white) in refused {
        assert_eq!(Position::from_bitboards(black, white, Side::White), None);
    }
}
