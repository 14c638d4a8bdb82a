//! Numbering the positions a table covers: every pair of disjoint piece sets
//! (the side to move's, the other's) with 1..=K pieces each, on the 29
//! squares a piece can rest on (27 never holds one).
//!
//! The side to move is not part of the key: both sides move along the same
//! track by the same rules, so "black to move with sets (A, B)" and "white
//! to move with sets (A, B)" are the same game. That halves the table.
//!
//! A set of k squares is ranked in colexicographic order (Σ C(cᵢ, i+1) over
//! its sorted cells), which does not depend on how many cells there are. The
//! mover's set is ranked among the 29 cells, the other side's among the
//! 29 − a cells the mover leaves free, so no index is wasted on overlapping
//! sets: K = 3 has 12,230,750 positions. Blocks (a, b) follow each other in
//! the order a = 1..=K, b = 1..=K.

use crate::engine::{HOUSE_OF_WATER, SQUARES};

/// Cells a piece can rest on: squares 1..=30 without 27.
pub const CELLS: usize = 29;
/// Largest K this numbering (and the memory of a build) is meant for.
pub const MAX_PIECES: u8 = 3;

/// C(n, k) for n < 30 and k ≤ 3.
const fn binomial(n: usize, k: usize) -> usize {
    let mut result = 1;
    let mut i = 0;
    while i < k {
        if n < k {
            return 0;
        }
        result = result * (n - i) / (i + 1);
        i += 1;
    }
    result
}

/// Board bitboard (bit = square) to cell bitboard (bit = cell).
fn to_cells(board: u32) -> u32 {
    let below_water = board & ((1 << HOUSE_OF_WATER) - 1);
    let above_water = board >> (HOUSE_OF_WATER + 1);
    (below_water >> 1) | (above_water << (HOUSE_OF_WATER - 1))
}

/// Cell bitboard to board bitboard.
fn to_board(cells: u32) -> u32 {
    let below_water = cells & ((1 << (HOUSE_OF_WATER - 1)) - 1);
    let above_water = cells >> (HOUSE_OF_WATER - 1);
    (below_water << 1) | (above_water << (HOUSE_OF_WATER + 1))
}

/// Colex rank of a set given as a bitboard of cells.
fn rank(mut cells: u32) -> usize {
    let mut total = 0;
    let mut i = 1;
    while cells != 0 {
        total += binomial(cells.trailing_zeros() as usize, i);
        cells &= cells - 1;
        i += 1;
    }
    total
}

/// The inverse of [`rank`] for sets of `k` cells.
fn unrank(mut r: usize, k: usize) -> u32 {
    let mut cells = 0;
    for i in (1..=k).rev() {
        let mut c = i - 1;
        while binomial(c + 1, i) <= r {
            c += 1;
        }
        r -= binomial(c, i);
        cells |= 1 << c;
    }
    cells
}

/// Removes the cells in `taken` from the numbering: cell c becomes c minus
/// the taken cells below it.
fn squeeze(cells: u32, taken: u32) -> u32 {
    let mut out = 0;
    let mut rest = cells;
    while rest != 0 {
        let c = rest.trailing_zeros();
        out |= 1 << (c - (taken & ((1 << c) - 1)).count_ones());
        rest &= rest - 1;
    }
    out
}

/// The inverse of [`squeeze`].
fn spread(squeezed: u32, taken: u32) -> u32 {
    let mut out = 0;
    let mut free = !taken & ((1 << CELLS) - 1);
    for c in 0..CELLS as u32 {
        if free == 0 {
            break;
        }
        let lowest = free & free.wrapping_neg();
        if squeezed & (1 << c) != 0 {
            out |= lowest;
        }
        free &= free - 1;
    }
    out
}

/// The numbering of all positions with 1..=K pieces a side.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    pieces: u8,
    /// `start[a][b]`: first index of block (a, b); `start[K+1][1]` = the total.
    start: [[usize; MAX_PIECES as usize + 1]; MAX_PIECES as usize + 2],
}

impl Index {
    /// `pieces` must be 1..=[`MAX_PIECES`].
    pub fn new(pieces: u8) -> Index {
        assert!((1..=MAX_PIECES).contains(&pieces), "K = {pieces}");
        let k = usize::from(pieces);
        let mut start = [[0; MAX_PIECES as usize + 1]; MAX_PIECES as usize + 2];
        let mut next = 0;
        for (a, row) in start.iter_mut().enumerate().take(k + 1).skip(1) {
            for (b, first) in row.iter_mut().enumerate().take(k + 1).skip(1) {
                *first = next;
                next += binomial(CELLS, a) * binomial(CELLS - a, b);
            }
        }
        start[k + 1][1] = next;
        Index { pieces, start }
    }

    pub fn pieces(&self) -> u8 {
        self.pieces
    }

    /// How many positions (for one side to move) the table holds.
    pub fn len(&self) -> usize {
        self.start[usize::from(self.pieces) + 1][1]
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Whether both sets have 1..=K pieces (the game is not over and the table covers it).
    pub fn covers(&self, mover: u32, other: u32) -> bool {
        let limit = u32::from(self.pieces);
        (1..=limit).contains(&mover.count_ones()) && (1..=limit).contains(&other.count_ones())
    }

    /// The index of board bitboards (mover, other); they must be covered and disjoint.
    pub fn of(&self, mover: u32, other: u32) -> usize {
        let (a, b) = (mover.count_ones() as usize, other.count_ones() as usize);
        let (mover, other) = (to_cells(mover), to_cells(other));
        self.start[a][b] + rank(mover) * binomial(CELLS - a, b) + rank(squeeze(other, mover))
    }

    /// The board bitboards (mover, other) of an index below [`Index::len`].
    pub fn position(&self, index: usize) -> (u32, u32) {
        let k = usize::from(self.pieces);
        let (a, b) = (1..=k)
            .flat_map(|a| (1..=k).map(move |b| (a, b)))
            .rfind(|&(a, b)| self.start[a][b] <= index)
            .expect("index 0 is in block (1, 1)");
        let offset = index - self.start[a][b];
        let per_mover = binomial(CELLS - a, b);
        let mover = unrank(offset / per_mover, a);
        let other = spread(unrank(offset % per_mover, b), mover);
        (to_board(mover), to_board(other))
    }
}

/// The sum of the squares of every piece, which no move lowers except a fall
/// into the water: the solver visits higher sums first.
pub fn pip_sum(mover: u32, other: u32) -> u32 {
    let sum = |mut bits: u32| {
        let mut total = 0;
        while bits != 0 {
            total += bits.trailing_zeros();
            bits &= bits - 1;
        }
        total
    };
    sum(mover) + sum(other)
}

/// Largest [`pip_sum`] of a position: three pieces a side on 30 down to 25.
pub const MAX_PIP_SUM: usize = 6 * SQUARES as usize;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn k3_has_the_documented_size() {
        assert_eq!(Index::new(3).len(), 12_230_750);
        assert_eq!(Index::new(2).len(), 165_242);
    }

    #[test]
    fn every_index_round_trips_through_its_position() {
        let index = Index::new(2);
        for i in 0..index.len() {
            let (mover, other) = index.position(i);
            assert_eq!(mover & other, 0, "{i}");
            assert_eq!((mover | other) & (1 << HOUSE_OF_WATER | 1), 0, "{i}");
            assert!(index.covers(mover, other), "{i}");
            assert_eq!(index.of(mover, other), i, "{i}");
        }
    }

    #[test]
    fn cells_skip_the_water() {
        assert_eq!(to_cells(1 << 26 | 1 << 28), 1 << 25 | 1 << 26);
        assert_eq!(to_board(to_cells(0b1110 | 1 << 30)), 0b1110 | 1 << 30);
    }
}
