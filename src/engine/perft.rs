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
    use super::*;

    #[test]
    fn start_position_counts_match_the_published_values() {
        let start = Position::start();
        assert_eq!(perft(&start, 1), 18);
        assert_eq!(perft(&start, 2), 272);
        assert_eq!(perft(&start, 3), 3923);
        assert_eq!(perft(&start, 4), 56961);
    }
}
