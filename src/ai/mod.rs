//! The computer opponent: pure functions of (position, current throw, level,
//! seed), no I/O and no async, so the server can run it on a blocking pool
//! and every decision can be replayed.
//!
//! - [`eval`]: the hand-written evaluation and its weights (`easy`,
//!   `medium`, `hard-classic`).
//! - [`net`]: the trained win-probability network (`hard`, the analysis).
//! - [`train`]: how the network was trained, by self-play; [`calibration`]:
//!   how well its probabilities match outcomes.
//! - [`search`]: expectiminimax over the throws with a transposition table
//!   and iterative deepening under a node budget.
//! - [`tablebase`]: exact values of every position with at most three
//!   pieces a side on the board; where it covers a position, `hard`, the
//!   analysis and the hint use it instead of the network (when loaded).
//!
//! The AI never sees the game's throw seed or any future throw: its only
//! inputs are the position, the throw it must play, the level and its own
//! `seed`, which only breaks ties and drives `easy`'s randomness. The same
//! inputs give the same move on any machine, under any load, because every
//! limit is counted in nodes, never in time.
//!
//! How the levels were chosen and measured is in `docs/AI.md`.

pub mod calibration;
pub mod eval;
pub mod net;
pub mod search;
pub mod tablebase;
pub mod train;

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use crate::engine::{Move, MoveList, Position, Roll};

pub use eval::Weights;
pub use search::{Limits, SearchResult};
pub use tablebase::Tablebase;

/// How strong the computer plays. On the wire and the command line it is
/// `"easy"`, `"medium"` or `"hard"`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    /// Looks one throw ahead with a race-only evaluation and random noise.
    Easy,
    /// Full evaluation, two throws deep.
    Medium,
    /// The trained network, as deep as the node budget allows.
    Hard,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Medium, Level::Hard];

    pub const fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Medium => "medium",
            Level::Hard => "hard",
        }
    }

    /// The search settings that define this level.
    pub fn config(self) -> Config {
        match self {
            Level::Easy => Config {
                evaluation: Evaluation::Classic(Weights::LIGHT),
                limits: Limits {
                    max_depth: 1,
                    node_budget: 0,
                },
                noise: 6.0,
                tablebase: false,
            },
            Level::Medium => Config {
                evaluation: Evaluation::Classic(Weights::TUNED),
                limits: Limits {
                    max_depth: 2,
                    // Never reached at depth 2 (at most 5 + 5 * 5 * 5 nodes per
                    // root move); finite so the table stays small.
                    node_budget: 4_096,
                },
                noise: 0.0,
                tablebase: false,
            },
            Level::Hard => Config {
                evaluation: Evaluation::Net(&net::TRAINED),
                limits: Limits {
                    max_depth: 12,
                    node_budget: HARD_NODE_BUDGET,
                },
                noise: 0.0,
                tablebase: true,
            },
        }
    }
}

/// Nodes `hard` may visit per decision. 200,000 lets it finish one more
/// throw of depth than 50,000 did (6 instead of 5), which won more games
/// against `hard-classic`, at a p99 decision time far under 100 ms of CPU
/// (docs/AI.md has both measurements).
pub const HARD_NODE_BUDGET: u64 = 200_000;

/// `hard` as it was before the network: the hand-written evaluation, searched
/// as deep as 200,000 nodes allow. Not offered to players; kept so the
/// network's gain can be measured (`senet selfplay --white hard-classic`).
pub const HARD_CLASSIC: Config = Config {
    evaluation: Evaluation::Classic(Weights::TUNED),
    limits: Limits {
        max_depth: 12,
        node_budget: 200_000,
    },
    noise: 0.0,
    tablebase: false,
};

/// The players the command line knows: a [`Level`] by name, `hard-classic`,
/// or `hard-without-table` (`hard` ignoring the tablebase, to measure its gain).
pub fn config_named(name: &str) -> Option<Config> {
    match name {
        "hard-classic" => Some(HARD_CLASSIC),
        "hard-without-table" => Some(Config {
            tablebase: false,
            ..Level::Hard.config()
        }),
        _ => name.parse::<Level>().ok().map(Level::config),
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown level {0:?}: expected easy, medium or hard")]
pub struct ParseLevelError(pub String);

impl FromStr for Level {
    type Err = ParseLevelError;

    fn from_str(text: &str) -> Result<Level, ParseLevelError> {
        Level::ALL
            .into_iter()
            .find(|level| level.name() == text)
            .ok_or_else(|| ParseLevelError(text.to_owned()))
    }
}

/// What the search scores positions with, for the side about to throw.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Evaluation {
    /// The hand-written terms, in squares of race.
    Classic(Weights),
    /// A trained network's win probability `p`, as `(2p - 1) · WIN`: the
    /// search then maximises the probability of winning, and a sure win
    /// (`WIN`) stays above any estimate because `p` never reaches 1. Levels
    /// use the shipped [`net::TRAINED`]; `selfplay --black-net` measures
    /// another weights file before it is shipped.
    Net(&'static net::Net),
}

impl Evaluation {
    /// A game that is not finished, for the side about to throw.
    pub fn value(&self, position: &Position) -> f64 {
        match self {
            Evaluation::Classic(weights) => eval::evaluate(position, weights),
            Evaluation::Net(net) => (2.0 * f64::from(net.evaluate(position)) - 1.0) * search::WIN,
        }
    }
}

/// Everything that defines how a player searches; a [`Level`] is a preset.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Config {
    pub evaluation: Evaluation,
    pub limits: Limits,
    /// Non-zero replaces the search: each move is scored by the evaluation
    /// alone and shifted by a seeded amount in `-noise..noise` squares
    /// before the best is picked (`easy`). Zero: search within `limits`.
    pub noise: f64,
    /// Whether the installed tablebase (if any) decides the positions it
    /// covers. The search does not use it at its leaves: beside the
    /// network's estimates there, its exact values left `hard` at 48.6%
    /// against `hard` without the table over 4,000 games (docs/AI.md).
    pub tablebase: bool,
}

/// A decision with the work behind it, for statistics and logs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Decision {
    /// `None` when the throw has no legal move (the turn passes).
    pub chosen: Option<Move>,
    /// Deepest completed search iteration (0 when there was nothing to choose).
    pub depth: u8,
    /// Positions visited.
    pub nodes: u64,
}

/// The move the computer plays with `roll` in `position`, or `None` when
/// no piece can use the throw. Deterministic in all four inputs.
pub fn choose_move(position: &Position, roll: Roll, level: Level, seed: u64) -> Option<Move> {
    decide(position, roll, &level.config(), seed).chosen
}

/// Like [`choose_move`] for any [`Config`], with search statistics.
pub fn decide(position: &Position, roll: Roll, config: &Config, seed: u64) -> Decision {
    let table = tablebase::installed().filter(|_| config.tablebase);
    decide_with(position, roll, config, seed, table)
}

/// [`decide`] with the tablebase given rather than the installed one.
pub fn decide_with(
    position: &Position,
    roll: Roll,
    config: &Config,
    seed: u64,
    table: Option<&Tablebase>,
) -> Decision {
    let moves = position.legal_moves(roll);
    if moves.len() <= 1 {
        return forced(&moves);
    }
    let seed = decision_seed(position, roll, seed);
    let jitter = |mv: &Move| mix(seed ^ u64::from(mv.from));
    if let Some(table) = table.filter(|t| t.covers(position)) {
        return exact_choice(position, &moves, table, jitter);
    }
    if config.noise == 0.0 {
        let result = search::search(position, &moves, config.limits, &config.evaluation, jitter);
        return Decision {
            chosen: Some(result.best),
            depth: result.depth,
            nodes: result.nodes,
        };
    }
    noisy_one_ply(position, &moves, config, jitter)
}

/// How deep the analysis of a finished game looks: the position before a
/// throw over the next two throws, each move over the throw after it. About
/// 750 network evaluations per throw (docs/AI.md has the timing).
pub const ANALYSIS_DEPTH: u8 = 2;

/// Win probabilities around one throw, for the analysis of a game.
#[derive(Clone, Debug, PartialEq)]
pub struct Odds {
    /// The side about to throw's chance before the throw.
    pub before: f64,
    /// Each legal move with the mover's chance after it, ordered by square.
    pub moves: Vec<(Move, f64)>,
    /// The chances are the tablebase's exact values, not the network's estimates.
    pub exact: bool,
}

impl Odds {
    /// The move with the best chance and that chance; ties go to the lowest square, so a move
    /// as good as the best counts as best. `None` when the throw has no legal move.
    pub fn best(&self) -> Option<(Move, f64)> {
        self.moves
            .iter()
            .fold(None, |best: Option<(Move, f64)>, &(mv, p)| match best {
                Some((_, q)) if q >= p => best,
                _ => Some((mv, p)),
            })
    }
}

/// The engine's view of a throw: the installed tablebase's exact values
/// where it covers the position, else [`Odds`] searched [`ANALYSIS_DEPTH`]
/// deep with the network (and the table's values at the leaves it covers).
pub fn odds(position: &Position, roll: Roll) -> Odds {
    odds_with(position, roll, tablebase::installed())
}

/// [`odds`] with the tablebase given rather than the installed one.
pub fn odds_with(position: &Position, roll: Roll, table: Option<&Tablebase>) -> Odds {
    if let Some((table, before)) = table.and_then(|t| Some((t, t.value(position)?))) {
        return Odds {
            before,
            moves: position
                .legal_moves(roll)
                .iter()
                .map(|mv| (*mv, table.after(position, mv)))
                .collect(),
            exact: true,
        };
    }
    searched_odds(position, roll, ANALYSIS_DEPTH, table)
}

/// [`Odds`] searched `depth` throws deep with the network (the table's values at the leaves it
/// covers), never the table's exact values at the root: the analysis searches
/// [`ANALYSIS_DEPTH`] deep, the puzzles' miner deeper and then deeper still to confirm.
pub fn searched_odds(
    position: &Position,
    roll: Roll,
    depth: u8,
    table: Option<&Tablebase>,
) -> Odds {
    let (before, moves) = search::judge(
        position,
        roll,
        depth,
        &Evaluation::Net(&net::TRAINED),
        table,
    );
    let probability = |value: f64| ((value / search::WIN + 1.0) / 2.0).clamp(0.0, 1.0);
    Odds {
        before: probability(before),
        moves: moves
            .into_iter()
            .map(|(mv, value)| (mv, probability(value)))
            .collect(),
        exact: false,
    }
}

/// A uniformly random legal move, for measuring the levels against chance.
pub fn random_move(position: &Position, roll: Roll, seed: u64) -> Option<Move> {
    let moves = position.legal_moves(roll);
    let pick = mix(decision_seed(position, roll, seed)) % (moves.len().max(1) as u64);
    moves.iter().nth(pick as usize).copied()
}

/// The move with the best exact chance; exact ties go to the seeded order.
fn exact_choice(
    position: &Position,
    moves: &MoveList,
    table: &Tablebase,
    jitter: impl Fn(&Move) -> u64,
) -> Decision {
    let chosen = moves
        .iter()
        .map(|mv| (mv, table.after(position, mv)))
        .max_by(|a, b| {
            a.1.total_cmp(&b.1)
                .then_with(|| jitter(a.0).cmp(&jitter(b.0)))
        })
        .map(|(mv, _)| *mv);
    Decision {
        chosen,
        depth: 0,
        nodes: moves.len() as u64,
    }
}

fn forced(moves: &MoveList) -> Decision {
    Decision {
        chosen: moves.iter().next().copied(),
        depth: 0,
        nodes: 0,
    }
}

/// Scores each move by the evaluation alone, adds seeded noise, plays the best.
fn noisy_one_ply(
    position: &Position,
    moves: &MoveList,
    config: &Config,
    jitter: impl Fn(&Move) -> u64,
) -> Decision {
    let noisy_score = |mv: &Move| {
        search::one_ply_value(position, mv, &config.evaluation)
            + config.noise * unit_interval(jitter(mv))
    };
    let chosen = moves
        .iter()
        .map(|mv| (mv, noisy_score(mv)))
        .max_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(mv, _)| *mv);
    Decision {
        chosen,
        depth: 1,
        nodes: moves.len() as u64,
    }
}

/// Folds the position and throw into the caller's seed, so one seed used
/// for a whole game still gives independent choices at every decision.
fn decision_seed(position: &Position, roll: Roll, seed: u64) -> u64 {
    use crate::engine::Side;
    let board =
        u64::from(position.bitboard(Side::Black)) | u64::from(position.bitboard(Side::White)) << 32;
    let turn = u64::from(position.turn() == Side::White);
    mix(mix(seed ^ board) ^ (u64::from(roll.value()) << 1 | turn))
}

/// SplitMix64: a fixed, portable mixing function (no platform-dependent RNG).
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// Maps 64 random bits to `-1.0..1.0` exactly (53-bit mantissa).
fn unit_interval(bits: u64) -> f64 {
    (bits >> 11) as f64 / (1u64 << 52) as f64 - 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_round_trip_through_text() {
        for level in Level::ALL {
            assert_eq!(level.to_string().parse::<Level>(), Ok(level));
        }
        assert!("random".parse::<Level>().is_err());
        assert!("Hard".parse::<Level>().is_err());
    }

    #[test]
    fn levels_serialize_as_their_names() {
        assert_eq!(serde_json::to_string(&Level::Hard).unwrap(), "\"hard\"");
        assert_eq!(
            serde_json::from_str::<Level>("\"easy\"").unwrap(),
            Level::Easy
        );
        assert!(serde_json::from_str::<Level>("\"random\"").is_err());
    }

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    fn roll(value: u8) -> Roll {
        Roll::new(value).unwrap()
    }

    #[test]
    fn hard_plays_the_tablebase_move_where_the_table_covers_the_position() {
        let table = &tablebase::k2_for_tests().1;
        // White's last piece on 29 wins with a 2; black's 3 from 26 swaps it back.
        let position = pos("....B....................B..W. b");
        let hard = Level::Hard.config();
        let decision = decide_with(&position, roll(3), &hard, 7, Some(table));
        assert_eq!(decision.chosen.map(|mv| mv.from), Some(26));
        assert_eq!(decision.depth, 0, "decided by the table, not searched");
        let best = position
            .legal_moves(roll(3))
            .iter()
            .map(|mv| table.after(&position, mv))
            .fold(f64::NEG_INFINITY, f64::max);
        assert_eq!(table.after(&position, &decision.chosen.unwrap()), best);
        let without = decide_with(&position, roll(3), &hard, 7, None);
        assert!(without.depth > 0, "without the table hard searches");
    }

    #[test]
    fn outside_the_table_hard_searches_as_without_it() {
        let table = &tablebase::k2_for_tests().1;
        // Three black pieces: not covered; bearing off from 30 enters the table.
        let position = pos("W..................B....B....B b");
        assert!(!table.covers(&position));
        let config = Config {
            limits: Limits {
                max_depth: 3,
                node_budget: 20_000,
            },
            ..Level::Hard.config()
        };
        let with = decide_with(&position, roll(1), &config, 7, Some(table));
        assert!(with.depth > 0, "searched, not decided by the table");
        assert_eq!(with, decide_with(&position, roll(1), &config, 7, None));
    }

    #[test]
    fn odds_are_exact_in_the_table_and_use_it_at_the_leaves_outside() {
        let table = &tablebase::k2_for_tests().1;
        let inside = pos("....B....................B..W. b");
        let odds = odds_with(&inside, roll(3), Some(table));
        assert!(odds.exact);
        assert_eq!(Some(odds.before), table.value(&inside));
        // Three black pieces: not covered. Bearing off from 30 leaves two,
        // and that position (black throws again) is.
        let outside = pos("W..................B....B....B b");
        let odds = odds_with(&outside, roll(1), Some(table));
        assert!(!odds.exact);
        let (bear_off, chance) = odds.moves.iter().find(|(mv, _)| mv.from == 30).unwrap();
        let exact = table.after(&outside, bear_off);
        assert!((chance - exact).abs() < 1e-9, "{chance} vs exact {exact}");
        assert!(!odds_with(&outside, roll(1), None).exact);
    }

    #[test]
    fn unit_interval_stays_in_range() {
        assert_eq!(unit_interval(0), -1.0);
        assert!(unit_interval(u64::MAX) < 1.0);
    }
}
