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
//! The moves are generated once, into a [`Graph`] laid out in that order
//! (see there for why); [`backup`] generates them again, for the residual.
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
    let graph = Graph::new(index);
    let mut values = vec![0.5; index.len()];
    for sweep in 1..=MAX_SWEEPS {
        let change = graph.sweep(&mut values);
        if change < CONVERGED {
            return Solution {
                values: graph.in_index_order(&values),
                sweeps: sweep,
                last_change: change,
            };
        }
    }
    panic!("value iteration did not converge in {MAX_SWEEPS} sweeps");
}

/// Every position's successors after each throw, found once by the move
/// generator and kept as places in the sweep order: a sweep then only reads
/// them in sequence, and stores values in that order too, so a successor's
/// value (a few squares further on, or the same sets with the other side to
/// move) is usually near in memory. For K = 3 this made a build about ten
/// times faster than generating the moves again in every sweep and looking
/// values up in index order, where most lookups missed the cache (docs/AI.md).
/// Same order and same arithmetic as [`backup`]: the same values, bit for bit.
struct Graph {
    /// Per position (in sweep order) and throw value: how many successors
    /// follow in `edges` (a pass is one).
    counts: Vec<u8>,
    /// The successors, each an [`Edge`].
    edges: Vec<u32>,
    /// Each index's place in the sweep order.
    place: Vec<u32>,
}

/// A successor as the solver reads it: the two high bits say how its value
/// counts for the mover, the others hold its place in the sweep order.
struct Edge;

impl Edge {
    const PLACE: u32 = (1 << 30) - 1;
    /// The mover throws again: the successor's value.
    const SAME: u32 = 0;
    /// The turn passed: 1 − the successor's value.
    const FLIP: u32 = 1 << 30;
    /// The game is over: the mover won.
    const WON: u32 = 2 << 30;
    /// The game is over: the mover lost (no move can do that, kept for completeness).
    const LOST: u32 = 3 << 30;

    fn value(edge: u32, values: &[f64]) -> f64 {
        let value = || values[(edge & Self::PLACE) as usize];
        match edge & !Self::PLACE {
            Self::SAME => value(),
            Self::FLIP => 1.0 - value(),
            Self::WON => 1.0,
            _ => 0.0,
        }
    }
}

impl Graph {
    fn new(index: &Index) -> Graph {
        let order = sweep_order(index);
        let mut place = vec![0; index.len()];
        for (k, &(mover, other)) in order.iter().enumerate() {
            place[index.of(mover, other)] = u32::try_from(k).expect("fewer than 2^30 positions");
        }
        let mut graph = Graph {
            counts: Vec::with_capacity(order.len() * Roll::ALL.len()),
            edges: Vec::new(),
            place,
        };
        for &(mover, other) in &order {
            let position = Position::from_bitboards(mover, other, Side::Black)
                .expect("the index only holds valid positions");
            for roll in Roll::ALL {
                graph.add_throw(index, &position, roll);
            }
        }
        graph
    }

    /// The successors of `position` after `roll`, in the move generator's order.
    fn add_throw(&mut self, index: &Index, position: &Position, roll: Roll) {
        let moves = position.legal_moves(roll);
        if moves.is_empty() {
            self.edges
                .push(self.edge(index, position, &position.pass()));
            self.counts.push(1);
            return;
        }
        for mv in moves.iter() {
            self.edges
                .push(self.edge(index, position, &position.after(mv)));
        }
        self.counts
            .push(u8::try_from(moves.len()).expect("at most K moves"));
    }

    fn edge(&self, index: &Index, position: &Position, child: &Position) -> u32 {
        let same = child.turn() == position.turn();
        let mover = child.bitboard(child.turn());
        let other = child.bitboard(child.turn().other());
        match (mover, other, same) {
            (0, _, true) | (_, 0, false) => Edge::WON,
            (0, _, false) | (_, 0, true) => Edge::LOST,
            _ => {
                let place = self.place[index.of(mover, other)];
                place | if same { Edge::SAME } else { Edge::FLIP }
            }
        }
    }

    /// One Gauss–Seidel sweep over `values` (in sweep order); the largest change.
    fn sweep(&self, values: &mut [f64]) -> f64 {
        let mut change: f64 = 0.0;
        let mut edges = self.edges.iter();
        for (k, counts) in self.counts.chunks_exact(Roll::ALL.len()).enumerate() {
            let mut best = [0.0; Roll::ALL.len()];
            for (best, &count) in best.iter_mut().zip(counts) {
                *best = edges
                    .by_ref()
                    .take(usize::from(count))
                    .map(|&edge| Edge::value(edge, values))
                    .fold(f64::NEG_INFINITY, f64::max);
            }
            let value: f64 = Roll::ALL
                .into_iter()
                .zip(best)
                .map(|(roll, best)| roll.probability() * best)
                .sum();
            change = change.max((value - values[k]).abs());
            values[k] = value;
        }
        change
    }

    fn in_index_order(&self, values: &[f64]) -> Vec<f64> {
        self.place.iter().map(|&k| values[k as usize]).collect()
    }
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
