use super::*;
use crate::ai::tablebase::k2_for_tests;
use crate::engine::Square;

#[test]
fn mining_is_deterministic_whatever_the_threads() {
    let table = &k2_for_tests().1;
    let games = mine::self_play(2, 7);
    assert_eq!(games, mine::self_play(2, 7), "self-play is seeded");
    let once = mine::mine(&games, Some(table), 1);
    let again = mine::mine(&games, Some(table), 2);
    assert_eq!(to_lines(&once.puzzles), to_lines(&again.puzzles));
    assert!(once.candidates > 0);
    for puzzle in &once.puzzles {
        assert!(puzzle.margin() >= MARGIN - 1e-4, "{puzzle:?}");
        assert_eq!(mine::check(puzzle, Some(table)), Ok(()));
    }
}

/// The shipped set's SHA-256, as docs/AI.md records it with the command that mined it.
const SHIPPED_SHA256: &str = "d869037f8b5b862a518895610d51dc5032eee5c49b99c2da9f0bbabb31a692f4";

#[test]
fn the_shipped_set_is_the_documented_one_and_well_formed() {
    assert_eq!(checksum(shipped_text()), SHIPPED_SHA256);
    let set = shipped();
    // The aim: at least 2,000, a quarter of them exact.
    assert!(set.len() >= 2_000, "{} puzzles", set.len());
    let exact = set.iter().filter(|p| p.exact).count();
    assert!(exact * 4 >= set.len(), "{exact} exact of {}", set.len());
    let mut ids = std::collections::HashSet::new();
    for puzzle in set {
        let position = puzzle.parsed();
        assert!(ids.insert(&puzzle.id), "{} twice", puzzle.id);
        assert_eq!(puzzle.id, id_of(&position, puzzle.roll()));
        let moves = position.legal_moves(puzzle.roll());
        let squares: Vec<Square> = moves.iter().map(|mv| mv.from).collect();
        let listed: Vec<Square> = puzzle.moves.iter().map(|(from, _)| *from).collect();
        assert_eq!(
            listed, squares,
            "{}: every legal move, by square",
            puzzle.id
        );
        assert!(puzzle.margin() >= MARGIN - 1e-4, "{puzzle:?}");
        let best = moves.find(puzzle.best).expect("the answer is legal");
        assert!(
            !position.after(best).is_over(),
            "{}: no one-move win",
            puzzle.id
        );
        assert_eq!(puzzle.theme, theme::classify(&position, best, &moves));
        assert_eq!(puzzle.difficulty, Difficulty::of(&puzzle.hits));
    }
}

/// Every shipped exact puzzle the K = 2 table covers is checked against it here; the searched
/// ones by both searches, one in [`SEARCHED_STRIDE`] (an unoptimised build searches slowly).
/// `senet puzzles verify` with the K = 3 table checks every one (docs/AI.md).
#[test]
fn shipped_answers_are_the_best_moves_by_the_table_or_both_searches() {
    let table = &k2_for_tests().1;
    let set = shipped();
    let in_k2: Vec<&Puzzle> = set
        .iter()
        .filter(|p| p.exact && table.covers(&p.parsed()))
        .collect();
    assert!(!in_k2.is_empty());
    for puzzle in in_k2 {
        assert_eq!(mine::check(puzzle, Some(table)), Ok(()));
    }
    let searched: Vec<&Puzzle> = set.iter().filter(|p| !p.exact).collect();
    for puzzle in searched.iter().step_by(SEARCHED_STRIDE) {
        assert_eq!(mine::check(puzzle, None), Ok(()));
    }
}

const SEARCHED_STRIDE: usize = 100;

#[test]
fn a_changed_answer_or_chance_is_caught() {
    let table = &k2_for_tests().1;
    let puzzle = shipped()
        .iter()
        .find(|p| p.exact && table.covers(&p.parsed()))
        .unwrap();
    let mut wrong = puzzle.clone();
    wrong.best = puzzle
        .moves
        .iter()
        .find(|(s, _)| *s != puzzle.best)
        .unwrap()
        .0;
    assert!(matches!(
        mine::check(&wrong, Some(table)),
        Err(mine::CheckError::Answer { .. })
    ));
    let mut off = puzzle.clone();
    off.moves[0].1 += 0.01;
    assert_eq!(
        mine::check(&off, Some(table)),
        Err(mine::CheckError::Chances(puzzle.id.clone()))
    );
    assert_eq!(
        mine::check(puzzle, None),
        Err(mine::CheckError::NotCovered(puzzle.id.clone()))
    );
}
