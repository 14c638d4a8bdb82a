//! Property tests over random play. Each game is drawn from a seed, so a
//! failure shrinks to a seed that replays it exactly.
//!
//! Besides the invariants (pieces conserved, never two on a square, never on
//! 27, games end), every position met is checked against a deliberately plain
//! second reading of the rules ([`reference_play`]) that works square by
//! square on the notation, so the bitboard engine cannot silently drift from
//! the rules when it is optimised.

use proptest::prelude::*;
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use senet::engine::perft::perft;
use senet::engine::{
    HOUSE_OF_WATER, IllegalMove, PIECES_PER_SIDE, Position, Roll, SQUARES, Side, Sticks,
};

/// Random games from the start take about 100 to 250 throws; one that has
/// not ended after this many is taken to be stuck.
const MAX_PLIES: usize = 5_000;

/// The rules of issue 2 read square by square on the notation: the position
/// after the piece on `from` moves `value`, or `None` if it may not.
fn reference_play(text: &str, from: usize, value: usize) -> Option<String> {
    let mut cells: Vec<char> = text.chars().collect();
    let turn = cells.pop()?;
    cells.pop(); // the space
    let (me, enemy, other_turn) = if turn == 'b' {
        ('B', 'W', 'w')
    } else {
        ('W', 'B', 'b')
    };
    let at = |cells: &[char], square: usize| {
        if (1..=30).contains(&square) {
            cells[square - 1]
        } else {
            '.'
        }
    };
    let game_over = !cells.contains(&'B') || !cells.contains(&'W');
    if game_over || at(&cells, from) != me {
        return None;
    }
    let to = from + value;
    if (from < 26 && to > 26) || to > 31 {
        return None;
    }
    let in_block = |square: usize| {
        at(&cells, square) == enemy
            && (at(&cells, square - 1) == enemy || at(&cells, square + 1) == enemy)
    };
    if (from + 1..=to.min(30)).any(in_block) {
        return None;
    }
    cells[from - 1] = '.';
    if to == 27 {
        let rest = (1..=15).rev().find(|&s| cells[s - 1] == '.')?;
        cells[rest - 1] = me;
    } else if to <= 30 {
        let target = cells[to - 1];
        if target == me || (target == enemy && (to == 15 || to == 26)) {
            return None;
        }
        if target == enemy {
            cells[from - 1] = enemy;
        }
        cells[to - 1] = me;
    }
    let won = !cells.contains(&me);
    let next = if won || matches!(value, 1 | 4 | 5) {
        turn
    } else {
        other_turn
    };
    Some(format!("{} {next}", cells.iter().collect::<String>()))
}

/// Checks every invariant of one position, and every piece and throw
/// against the reference reading of the rules.
fn check_position(position: &Position) {
    let (black, white) = (
        position.bitboard(Side::Black),
        position.bitboard(Side::White),
    );
    assert_eq!(black & white, 0, "two pieces share a square: {position}");
    for side in Side::BOTH {
        let on_board = position.squares(side).count() as u8;
        assert_eq!(on_board + position.borne_off(side), PIECES_PER_SIDE);
        assert!(
            position
                .squares(side)
                .all(|s| (1..=SQUARES).contains(&s) && s != HOUSE_OF_WATER),
            "{position}"
        );
    }
    let text = position.to_string();
    assert_eq!(text.parse::<Position>(), Ok(*position), "round trip");

    for roll in Roll::ALL {
        let listed = position.legal_moves(roll);
        let froms: Vec<u8> = listed.iter().map(|mv| mv.from).collect();
        assert!(froms.windows(2).all(|w| w[0] < w[1]), "ordered by from");
        assert_eq!(position.count_legal_moves(roll), listed.len());
        for from in 0..=SQUARES + 1 {
            let expected = reference_play(&text, usize::from(from), usize::from(roll.value()));
            match (position.play(from, roll), expected) {
                (Ok((next, mv)), Some(expected)) => {
                    assert_eq!(next.to_string(), expected, "{text} {from}+{roll}");
                    assert_eq!(listed.find(from), Some(&mv), "{text} {from}+{roll}");
                    assert_eq!(position.check(from, roll), Ok(mv));
                }
                (Err(reason), None) => {
                    assert!(listed.find(from).is_none(), "{text} {from}+{roll}");
                    assert_eq!(position.check(from, roll), Err(reason));
                    assert_eq!(reason_applies(position, from, reason), Ok(()));
                }
                (got, expected) => panic!(
                    "{text} {from}+{roll}: engine says {:?}, reference says {expected:?}",
                    got.map(|(p, _)| p.to_string())
                ),
            }
        }
    }
}

/// The reason given for a refusal must describe the position: a cheap
/// sanity check that reasons are not mixed up.
fn reason_applies(position: &Position, from: u8, reason: IllegalMove) -> Result<(), String> {
    let own = position.bitboard(position.turn());
    let has_own = (1..=SQUARES).contains(&from) && own & (1 << from) != 0;
    let fits = match reason {
        IllegalMove::GameOver => position.is_over(),
        IllegalMove::NoOwnPiece(square) => square == from && !has_own,
        IllegalMove::OccupiedByOwn(square) => has_own && own & (1 << square) != 0,
        IllegalMove::SafeSquare(square) => has_own && (square == 15 || square == 26),
        IllegalMove::Blocked(square) => has_own && square > from,
        IllegalMove::MustStopOn26 => has_own && from < 26,
        IllegalMove::NotExactToBearOff => has_own && from >= 26,
    };
    fits.then_some(())
        .ok_or_else(|| format!("{position}: {from}: {reason:?}"))
}

/// Plays one random game from `start`, checking every position on the way.
/// Returns the number of throws it took.
fn random_game(start: Position, seed: u64) -> usize {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut position = start;
    for plies in 0..MAX_PLIES {
        check_position(&position);
        if position.is_over() {
            return plies;
        }
        let roll = Sticks::from_bits(rng.random()).roll();
        let moves = position.legal_moves(roll);
        position = match moves.len() {
            0 => position.pass(),
            n => {
                let mv = moves.iter().nth(rng.random_range(0..n)).unwrap();
                let (next, played) = position.play(mv.from, roll).expect("listed moves play");
                assert_eq!(&played, mv);
                next
            }
        };
    }
    panic!("random game from {start} (seed {seed}) did not end in {MAX_PLIES} throws")
}

/// perft computed from [`reference_play`] alone, without the engine's
/// move generation or its bulk counting of the last ply.
fn reference_perft(text: &str, depth: u32) -> u64 {
    let (board, side) = text.split_at(31);
    if depth == 0 || !board.contains('B') || !board.contains('W') {
        return 1;
    }
    (1..=5)
        .map(|value| {
            let children: Vec<String> = (1..=30)
                .filter_map(|from| reference_play(text, from, value))
                .collect();
            if children.is_empty() {
                let passed = format!("{board}{}", if side == "b" { "w" } else { "b" });
                reference_perft(&passed, depth - 1)
            } else {
                children.iter().map(|c| reference_perft(c, depth - 1)).sum()
            }
        })
        .sum()
}

/// Every `every`-th position of seeded random play, restarting finished games.
fn sample_positions(seed: u64, count: usize, every: usize) -> Vec<Position> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut position = Position::start();
    let mut sampled = Vec::with_capacity(count);
    for ply in 0..count * every {
        if ply % every == 0 {
            sampled.push(position);
        }
        let roll = Sticks::from_bits(rng.random()).roll();
        let moves = position.legal_moves(roll);
        position = match moves.iter().nth(rng.random_range(0..moves.len().max(1))) {
            Some(mv) => position.after(mv),
            None => position.pass(),
        };
        if position.is_over() {
            position = Position::start();
        }
    }
    sampled
}

#[test]
fn perft_agrees_with_the_reference_reading_of_the_rules() {
    let start = Position::start();
    assert_eq!(reference_perft(&start.to_string(), 4), 56961);
    // Positions from random play, with blocks, houses and bearing off.
    for position in sample_positions(7, 25, 17) {
        let text = position.to_string();
        assert_eq!(perft(&position, 3), reference_perft(&text, 3), "{text}");
    }
}

/// A position with up to five pieces a side anywhere but 27.
fn any_position() -> impl Strategy<Value = Position> {
    let squares: Vec<u8> = (1..=SQUARES).filter(|&s| s != HOUSE_OF_WATER).collect();
    (
        Just(squares).prop_shuffle(),
        0..=PIECES_PER_SIDE as usize,
        0..=PIECES_PER_SIDE as usize,
        any::<bool>(),
    )
        .prop_map(|(shuffled, blacks, whites, black_to_move)| {
            let bits = |squares: &[u8]| squares.iter().fold(0u32, |acc, &s| acc | 1 << s);
            let black = bits(&shuffled[..blacks]);
            let white = bits(&shuffled[blacks..blacks + whites]);
            let turn = if black_to_move {
                Side::Black
            } else {
                Side::White
            };
            Position::from_bitboards(black, white, turn).expect("valid by construction")
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn random_games_from_the_start_keep_every_rule_and_end(seed in any::<u64>()) {
        let plies = random_game(Position::start(), seed);
        prop_assert!(plies > 0);
    }

    #[test]
    fn random_games_from_any_position_keep_every_rule_and_end(
        start in any_position(),
        seed in any::<u64>(),
    ) {
        random_game(start, seed);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn notation_round_trips(position in any_position()) {
        let text = position.to_string();
        prop_assert_eq!(text.len(), 32);
        prop_assert_eq!(text.parse::<Position>(), Ok(position));
    }

    #[test]
    fn text_parses_exactly_when_it_is_a_valid_position(text in "[BW.]{30} [bw]") {
        let count = |c| text.chars().filter(|&x| x == c).count();
        let valid = count('B') <= 5
            && count('W') <= 5
            && text.as_bytes()[usize::from(HOUSE_OF_WATER) - 1] == b'.';
        match text.parse::<Position>() {
            Ok(position) => {
                prop_assert!(valid, "{text:?} should be refused");
                prop_assert_eq!(position.to_string(), text);
            }
            Err(error) => {
                prop_assert!(!valid, "{text:?} refused: {error}");
                prop_assert!(!error.to_string().is_empty());
            }
        }
    }

    #[test]
    fn arbitrary_text_never_panics(text in "\\PC{0,40}") {
        if let Ok(position) = text.parse::<Position>() {
            prop_assert_eq!(position.to_string(), text);
        }
    }
}
