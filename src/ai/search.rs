//! Expectiminimax over the throws, with a transposition table and iterative
//! deepening under a node budget.
//!
//! Depth counts throws. A chance node (a position about to throw) averages
//! its five throw values by their probabilities; after each throw the side
//! to move picks its best move (a max node). A move made with 1, 4 or 5 is
//! followed by the same side's chance node, any other by the opponent's, and
//! a throw with no legal move passes to the opponent's chance node. Values
//! are always for the side to move at that node, so a child is negated only
//! when the side to move changes.
//!
//! The budget counts nodes, never wall-clock time, so the same inputs give
//! the same move on any machine and under any load: an iteration predicted
//! to exceed the budget (from the growth of the previous ones) is skipped,
//! one that does exceed it is abandoned, and the last completed depth decides.

use crate::engine::{Move, MoveList, Position, Roll};

use super::Evaluation;
use super::tablebase::Tablebase;

/// The value of a won position. Far above any evaluation so a sure win is
/// always preferred to a good position.
pub const WIN: f64 = 10_000.0;

/// How far and how long one decision may search.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Limits {
    /// Deepest iteration, in throws (1 = the move now, then evaluate).
    pub max_depth: u8,
    /// Nodes (positions visited) after which a deeper iteration is abandoned.
    /// Depth 1 always completes, whatever the budget.
    pub node_budget: u64,
}

/// What the search decided and how much work it took.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchResult {
    pub best: Move,
    /// The chosen move's value for the side to move, from the deepest
    /// completed iteration.
    pub score: f64,
    /// Deepest iteration that completed.
    pub depth: u8,
    /// Nodes visited, including any abandoned iteration.
    pub nodes: u64,
}

/// Searches a non-empty move list. `tie_break` orders moves of exactly equal
/// value (higher wins), so a seed can choose between them.
pub fn search(
    position: &Position,
    moves: &MoveList,
    limits: Limits,
    evaluation: &Evaluation,
    tie_break: impl Fn(&Move) -> u64,
) -> SearchResult {
    let mut tree = Tree::new(evaluation, limits, None);
    let mut scored: Vec<(Move, f64)> = moves.iter().map(|mv| (*mv, 0.0)).collect();
    let mut completed = 0;
    // Nodes of the last two completed iterations, to predict the next one.
    let (mut previous, mut last) = (0u64, 0u64);
    for depth in 1..=limits.max_depth.max(1) {
        if depth > 1 {
            // Each throw multiplies the tree by a similar factor; an iteration
            // predicted not to fit would only be abandoned, so skip it.
            let growth = (last / previous.max(1)).max(2);
            if tree.nodes.saturating_add(last.saturating_mul(growth)) > limits.node_budget {
                break;
            }
            tree.budget = limits.node_budget;
        }
        let before = tree.nodes;
        let Some(scores) = tree.score_moves(position, &scored, depth) else {
            break;
        };
        (previous, last) = (last, tree.nodes - before);
        for (entry, score) in scored.iter_mut().zip(scores) {
            entry.1 = score;
        }
        completed = depth;
        // Best first: the next iteration then visits the likely best move
        // while the table is fresh, and ties fall to the seeded order.
        scored.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| tie_break(&b.0).cmp(&tie_break(&a.0)))
        });
    }
    let (best, score) = scored[0];
    SearchResult {
        best,
        score,
        depth: completed,
        nodes: tree.nodes,
    }
}

/// For judging a throw already played: the value of `position` before the
/// throw, searched `depth` throws deep, and each legal move's value for the
/// mover one throw less deep (so the value before is the average over the
/// throws of the best move's value). No budget: the caller keeps `depth` small.
pub fn judge(
    position: &Position,
    roll: Roll,
    depth: u8,
    evaluation: &Evaluation,
    exact: Option<&Tablebase>,
) -> (f64, Vec<(Move, f64)>) {
    let limits = Limits {
        max_depth: depth,
        node_budget: 1 << 14,
    };
    let mut tree = Tree::new(evaluation, limits, exact);
    let unbounded = "a search without a budget always completes";
    let before = tree.chance(position, depth).expect(unbounded);
    let moves = position
        .legal_moves(roll)
        .iter()
        .map(|mv| {
            (
                *mv,
                tree.move_value(position, mv, depth - 1).expect(unbounded),
            )
        })
        .collect();
    (before, moves)
}

/// A move's value for the side that makes it, by the evaluation alone
/// (no throw looked at): the cheap scoring of `easy`.
pub fn one_ply_value(position: &Position, mv: &Move, evaluation: &Evaluation) -> f64 {
    let child = position.after(mv);
    for_mover(position, &child, static_value(&child, evaluation))
}

/// Turns a child's value (for its side to move) into the mover's value.
fn for_mover(position: &Position, child: &Position, value: f64) -> f64 {
    if child.turn() == position.turn() {
        value
    } else {
        -value
    }
}

/// ±[`WIN`] for a finished game, else the evaluation; for the side to move.
fn static_value(position: &Position, evaluation: &Evaluation) -> f64 {
    match position.winner() {
        Some(winner) if winner == position.turn() => WIN,
        Some(_) => -WIN,
        None => evaluation.value(position),
    }
}

/// One decision's search state; dropped afterwards so nothing leaks from one
/// decision into the next (which would break determinism).
struct Tree<'e> {
    evaluation: &'e Evaluation,
    exact: Option<&'e Tablebase>,
    table: Table,
    nodes: u64,
    budget: u64,
}

impl<'e> Tree<'e> {
    fn new(evaluation: &'e Evaluation, limits: Limits, exact: Option<&'e Tablebase>) -> Self {
        Tree {
            evaluation,
            exact,
            table: Table::for_budget(limits.node_budget),
            nodes: 0,
            // Depth 1 always completes, so there is always a move.
            budget: u64::MAX,
        }
    }

    /// Every root move's value at `depth`, or `None` if the budget ran out.
    fn score_moves(
        &mut self,
        position: &Position,
        moves: &[(Move, f64)],
        depth: u8,
    ) -> Option<Vec<f64>> {
        moves
            .iter()
            .map(|(mv, _)| self.move_value(position, mv, depth - 1))
            .collect()
    }

    /// A move's value for the side that makes it, searching `depth` throws below.
    fn move_value(&mut self, position: &Position, mv: &Move, depth: u8) -> Option<f64> {
        let child = position.after(mv);
        let value = self.chance(&child, depth)?;
        Some(for_mover(position, &child, value))
    }

    /// Expected value for the side about to throw.
    fn chance(&mut self, position: &Position, depth: u8) -> Option<f64> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        if let Some(chance) = self.exact.and_then(|t| t.value(position)) {
            return Some((2.0 * chance - 1.0) * WIN);
        }
        if depth == 0 || position.is_over() {
            return Some(static_value(position, self.evaluation));
        }
        if let Some(value) = self.table.probe(position, depth) {
            return Some(value);
        }
        let mut value = 0.0;
        for roll in Roll::ALL {
            value += roll.probability() * self.best_after_throw(position, roll, depth)?;
        }
        self.table.store(position, depth, value);
        Some(value)
    }

    /// The best move's value after `roll`, or the pass's when none is legal.
    fn best_after_throw(&mut self, position: &Position, roll: Roll, depth: u8) -> Option<f64> {
        let moves = position.legal_moves(roll);
        if moves.is_empty() {
            return Some(-self.chance(&position.pass(), depth - 1)?);
        }
        let mut best = f64::NEG_INFINITY;
        for mv in &moves {
            best = best.max(self.move_value(position, mv, depth - 1)?);
        }
        Some(best)
    }
}

/// Transposition table of chance-node values keyed by position and depth:
/// the same position is often reached by different move orders, especially
/// through extra throws. Always-replace on collision keeps it simple; it is
/// rebuilt for every decision, so its contents depend only on the inputs.
struct Table {
    entries: Vec<Entry>,
    mask: usize,
}

#[derive(Clone, Copy, Default)]
struct Entry {
    black: u32,
    white: u32,
    /// Side to move in bit 0, depth above it; 0 marks an empty slot
    /// because depth-0 values (plain evaluations) are never stored.
    turn_and_depth: u16,
    value: f64,
}

impl Table {
    /// Sized to the budget (a power of two, capped) so small searches do not
    /// pay for clearing a large table. Only chance nodes above the leaves
    /// are stored, a fraction of all nodes, hence the quarter.
    fn for_budget(budget: u64) -> Table {
        let slots = (budget / 4).clamp(1 << 10, 1 << 17).next_power_of_two() as usize;
        Table {
            entries: vec![Entry::default(); slots],
            mask: slots - 1,
        }
    }

    fn key(position: &Position, depth: u8) -> (u32, u32, u16) {
        use crate::engine::Side;
        let turn = u16::from(position.turn() == Side::White);
        (
            position.bitboard(Side::Black),
            position.bitboard(Side::White),
            turn | u16::from(depth) << 1,
        )
    }

    fn slot(&self, (black, white, meta): (u32, u32, u16)) -> usize {
        let mut h = u64::from(black) | u64::from(white) << 32;
        h ^= u64::from(meta) << 58;
        // SplitMix64 finaliser: spreads nearby bitboards over the table.
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        (h ^ (h >> 31)) as usize & self.mask
    }

    fn probe(&self, position: &Position, depth: u8) -> Option<f64> {
        let key = Self::key(position, depth);
        let entry = &self.entries[self.slot(key)];
        ((entry.black, entry.white, entry.turn_and_depth) == key).then_some(entry.value)
    }

    fn store(&mut self, position: &Position, depth: u8, value: f64) {
        let key = Self::key(position, depth);
        let slot = self.slot(key);
        self.entries[slot] = Entry {
            black: key.0,
            white: key.1,
            turn_and_depth: key.2,
            value,
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::eval::{Weights, evaluate};

    const CLASSIC: Evaluation = Evaluation::Classic(Weights::TUNED);

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    fn roll(value: u8) -> Roll {
        Roll::new(value).unwrap()
    }

    fn best(position: &Position, value: u8, max_depth: u8) -> SearchResult {
        let limits = Limits {
            max_depth,
            node_budget: 1 << 20,
        };
        let moves = position.legal_moves(roll(value));
        search(position, &moves, limits, &CLASSIC, |mv| u64::from(mv.from))
    }

    #[test]
    fn bearing_off_the_last_piece_is_a_sure_win() {
        let last = pos("...........................B.W b");
        let result = best(&last, 3, 2);
        assert_eq!(result.best.from, 28);
        assert_eq!(result.score, WIN);
    }

    #[test]
    fn swaps_back_an_enemy_about_to_win() {
        // White's last piece on 29 wins with a 2 (6/16). Black throws 3:
        // 26 -> 29 swaps it back to 26, where only a 5 bears it off.
        let position = pos("....B....................B..W. b");
        for depth in 1..=3 {
            assert_eq!(best(&position, 3, depth).best.from, 26, "depth {depth}");
        }
    }

    #[test]
    fn chance_node_weights_the_throws_by_probability() {
        // White's only piece on 30 bears off with a 1 (4/16) and wins; black's
        // only piece is far away. With white to move at depth 1, every other
        // throw is a pass whose evaluation is the same, so the value is
        // 4/16 * WIN + 12/16 * (value of the pass).
        let position = pos("B............................W w");
        let mut tree = Tree::new(
            &CLASSIC,
            Limits {
                max_depth: 1,
                node_budget: u64::MAX,
            },
            None,
        );
        let passed = -evaluate(&position.pass(), &Weights::TUNED);
        let value = tree.chance(&position, 1).unwrap();
        assert!(
            (value - (0.25 * WIN + 0.75 * passed)).abs() < 1e-9,
            "{value}"
        );
    }

    #[test]
    fn abandoned_iterations_fall_back_to_the_last_complete_depth() {
        let start = Position::start();
        let moves = start.legal_moves(roll(2));
        let limits = Limits {
            max_depth: 10,
            node_budget: 5_000,
        };
        let result = search(&start, &moves, limits, &CLASSIC, |_| 0);
        assert!(result.depth >= 2 && result.depth < 10, "{result:?}");
        assert!(result.nodes <= 5_001, "{result:?}");
    }

    #[test]
    fn table_hits_do_not_change_the_value() {
        let position = pos("WBWBW.B.W..B........B......... w");
        let limits = Limits {
            max_depth: 3,
            node_budget: u64::MAX,
        };
        let mut with_table = Tree::new(&CLASSIC, limits, None);
        let cached = with_table.chance(&position, 3).unwrap();
        let mut tiny = Tree::new(&CLASSIC, limits, None);
        tiny.table = Table {
            entries: vec![Entry::default(); 1],
            mask: 0,
        };
        let uncached = tiny.chance(&position, 3).unwrap();
        assert!((cached - uncached).abs() < 1e-9, "{cached} vs {uncached}");
        assert!(with_table.nodes < tiny.nodes, "the table saved no work");
    }
}
