//! Counting the game tree: each ply branches over the five throw values
//! (unweighted), then over that throw's legal moves, or over one pass where
//! there are none. A won position is a leaf.

use super::position::Position;
use super::sticks::Roll;

/// Leaves of the tree `depth` plies below `position`.
pub fn perft(position: &Position, depth: u32) -> u64 {
    if depth == 0 || position.is_over() {
        return 1;
    }
    Roll::ALL
        .iter()
        .map(|&roll| perft_after_roll(position, roll, depth))
        .sum()
}

fn perft_after_roll(position: &Position, roll: Roll, depth: u32) -> u64 {
    if depth == 1 {
        // Bulk count: each move (or the pass) is one leaf one ply down, so
        // the last ply needs only the number of moves, not the moves.
        return position.count_legal_moves(roll).max(1) as u64;
    }
    let moves = position.legal_moves(roll);
    if moves.is_empty() {
        return perft(&position.pass(), depth - 1);
    }
    moves
        .iter()
        .map(|mv| perft(&position.after(mv), depth - 1))
        .sum()
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use strum::IntoEnumIterator;

    use super::*;
    use crate::engine::{IllegalMove, SQUARES, Square};

    /// Walks the tree as [`perft`] does, checking at every node, for every square and throw,
    /// that [`Position::why_illegal`] refuses exactly the moves the generator leaves out, and
    /// that [`Position::refusals`] lists exactly the own pieces it leaves out. Collects the
    /// reasons met.
    fn walk_refusals(position: &Position, depth: u32, met: &mut BTreeSet<&'static str>) {
        for roll in Roll::ALL {
            let moves = position.legal_moves(roll);
            for from in 0..=SQUARES + 1 {
                let why = position.why_illegal(from, roll);
                assert_eq!(
                    why.is_none(),
                    moves.find(from).is_some(),
                    "{position} {from}+{roll}: {why:?}"
                );
                met.extend(why.map(IllegalMove::code));
            }
            let refused: Vec<Square> = position.refusals(roll).map(|(from, _)| from).collect();
            let stuck: Vec<Square> = if position.is_over() {
                Vec::new()
            } else {
                let side = position.turn();
                position
                    .squares(side)
                    .filter(|&s| moves.find(s).is_none())
                    .collect()
            };
            assert_eq!(refused, stuck, "{position} +{roll}");
            if depth == 0 || position.is_over() {
                continue;
            }
            if moves.is_empty() {
                walk_refusals(&position.pass(), depth - 1, met);
            }
            for mv in &moves {
                walk_refusals(&position.after(mv), depth - 1, met);
            }
        }
    }

    #[test]
    fn why_illegal_names_every_refusal_the_move_generator_makes() {
        let mut met = BTreeSet::new();
        // The opening, the race home (26, the water, bearing off) and a finished game.
        let starts = [
            Position::start(),
            "....................BWWBWB.BWB b".parse().unwrap(),
            "..............BWW..B....BW.BW. w".parse().unwrap(),
            ".........................B...B w".parse().unwrap(),
        ];
        for start in &starts {
            walk_refusals(start, 3, &mut met);
        }
        let every: BTreeSet<&str> = IllegalMove::iter().map(IllegalMove::code).collect();
        assert_eq!(met, every, "every kind of refusal is met");
    }

    #[test]
    fn start_position_counts_match_the_published_values() {
        let start = Position::start();
        assert_eq!(perft(&start, 1), 18);
        assert_eq!(perft(&start, 2), 272);
        assert_eq!(perft(&start, 3), 3923);
        assert_eq!(perft(&start, 4), 56961);
    }
}
