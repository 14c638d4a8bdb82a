use super::*;
use crate::ai::tablebase::k2_for_tests;

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
