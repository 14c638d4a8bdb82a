//! Solving a table: value iteration (Gauss–Seidel, in place) over every
//! covered position until no value changes by more than [`CONVERGED`].
//!
//! A position's value is the mover's chance of winning before the throw:
//! Σ over the five throws of P(throw) × the best move's chance afterwards
//! (1 − the opponent's value when the turn passes, the same side's value
//! after a 1, 4 or 5, 1 when the last piece leaves). Retrograde analysis
//! does not fit: swaps and the water make the move graph cyclic. The sweep
//! order makes the iteration fast instead: fewer pieces first (bearing off
//! only ever leads there), then the highest sum of squares first (a step
//! raises it, a swap keeps it, only the water lowers it), so most of a
//! position's successors already hold this sweep's values when it is visited.
//! Single-threaded, in a fixed order, with IEEE arithmetic: the same values,
//! bit for bit, on every run.

use crate::engine::{Move, Position, Roll, Side};

use super::index::{Index, MAX_PIP_SUM, pip_sum};

/// The iteration stops when a whole sweep changed no value by more than this.
pub const CONVERGED: f64 = 1e-9;
/// A bound that a correct solver never meets (K = 3 converges in far fewer).
const MAX_SWEEPS: u32 = 10_000;

/// A solved table in full precision, with how the iteration went.
pub struct Solution {
    pub values: Vec<f64>,
    pub sweeps: u32,
    /// The largest change in the last sweep, below [`CONVERGED`].
    pub last_change: f64,
}

/// Solves every position of `index`. Panics only if the iteration fails to
/// converge within [`MAX_SWEEPS`], which would be a bug in the rules or here.
pub fn solve(index: &Index) -> Solution {
    let order = sweep_order(index);
    let mut values = vec![0.5; index.len()];
    for sweep in 1..=MAX_SWEEPS {
        let mut change: f64 = 0.0;
        for &(mover, other) in &order {
            let i = index.of(mover, other);
            let value = backup(index, &values, mover, other);
            change = change.max((value - values[i]).abs());
            values[i] = value;
        }
        if change < CONVERGED {
            return Solution {
                values,
                sweeps: sweep,
                last_change: change,
            };
        }
    }
    panic!("value iteration did not converge in {MAX_SWEEPS} sweeps");
}

/// The largest change one more sweep would make (without making it): the
/// Bellman residual, which a converged table keeps below [`CONVERGED`].
pub fn residual(index: &Index, values: &[f64]) -> f64 {
    (0..index.len())
        .map(|i| {
            let (mover, other) = index.position(i);
            (backup(index, values, mover, other) - values[i]).abs()
        })
        .fold(0.0, f64::max)
}

/// Every position as (mover, other) bitboards, in the sweep order.
fn sweep_order(index: &Index) -> Vec<(u32, u32)> {
    let key = |(mover, other): (u32, u32)| {
        let pieces = (mover.count_ones() + other.count_ones()) as usize;
        pieces * (MAX_PIP_SUM + 1) + MAX_PIP_SUM - pip_sum(mover, other) as usize
    };
    let mut order: Vec<(u32, u32)> = (0..index.len()).map(|i| index.position(i)).collect();
    // Stable: ties stay in index order, so the order is fixed.
    order.sort_by_key(|&pair| key(pair));
    order
}

/// The value of (mover, other) from the current values of its successors.
fn backup(index: &Index, values: &[f64], mover: u32, other: u32) -> f64 {
    let position = Position::from_bitboards(mover, other, Side::Black)
        .expect("the index only holds valid positions");
    let lookup = |i: usize| values[i];
    Roll::ALL
        .into_iter()
        .map(|roll| roll.probability() * best_after_throw(index, &position, roll, &lookup))
        .sum()
}

/// The mover's chance after its best move with `roll`, or after the pass.
pub fn best_after_throw(
    index: &Index,
    position: &Position,
    roll: Roll,
    lookup: &impl Fn(usize) -> f64,
) -> f64 {
    let moves = position.legal_moves(roll);
    if moves.is_empty() {
        return 1.0 - chance_to_move(index, &position.pass(), lookup);
    }
    moves
        .iter()
        .map(|mv| chance_after(index, position, mv, lookup))
        .fold(f64::NEG_INFINITY, f64::max)
}

/// The mover's chance after `mv`.
pub fn chance_after(
    index: &Index,
    position: &Position,
    mv: &Move,
    lookup: &impl Fn(usize) -> f64,
) -> f64 {
    let child = position.after(mv);
    let value = chance_to_move(index, &child, lookup);
    if child.turn() == position.turn() {
        value
    } else {
        1.0 - value
    }
}

/// The side to move's chance in a covered or finished position.
pub fn chance_to_move(index: &Index, position: &Position, lookup: &impl Fn(usize) -> f64) -> f64 {
    let mover = position.bitboard(position.turn());
    let other = position.bitboard(position.turn().other());
    match (mover, other) {
        (0, _) => 1.0,
        (_, 0) => 0.0,
        _ => lookup(index.of(mover, other)),
    }
}
