//! Mining: every throw of the given games with two or more legal moves is a candidate, once
//! (the first game it occurs in keeps it). A candidate the tablebase covers is judged by its
//! exact values; any other by a search [`DEEP`] throws deep and, if that finds a clear best
//! move, again [`DEEPER`] throws deep: it is kept only if both searches name the same move and
//! both put it [`MARGIN`] above every other. A best move that ends the game is no puzzle (it
//! is the only way to win at once, and anyone sees it), so those are dropped.
//!
//! The kept puzzles are then played by each level ([`Hits`]). Candidates are shared out over
//! threads and put back in their order, and every decision is seeded, so the same games give
//! the same puzzles, byte for byte, with any number of threads.

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{Difficulty, Hits, MARGIN, Puzzle, id_of, theme};
use crate::ai::{self, Level, Odds, Tablebase};
use crate::engine::{Move, Position, Roll, Sticks};

/// The first search, in throws; the analysis's [`ai::ANALYSIS_DEPTH`] plus one.
pub const DEEP: u8 = 3;
/// The confirming search, one throw deeper.
pub const DEEPER: u8 = 4;
/// Seeds `easy` plays each puzzle with (its choice is noisy).
pub const EASY_SEEDS: u64 = 8;

/// A throw to judge: the position it was made in and its value.
pub type Throw = (Position, Roll);

/// What a mining run found, with its counts for the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Mined {
    pub puzzles: Vec<Puzzle>,
    /// Distinct throws with two or more legal moves.
    pub candidates: usize,
    /// Of them, the ones the tablebase covers.
    pub covered: usize,
}

/// The throws of `games` self-play games: the levels `easy` and `medium` in turn on both sides
/// (game g: black is `easy` when g % 4 is 1 or 3, white when g % 4 is 2 or 3), the throws from a
/// ChaCha8 stream seeded by (`seed`, g), the players' own seeds derived apart from it.
pub fn self_play(games: usize, seed: u64) -> Vec<Vec<Throw>> {
    (0..games as u64).map(|game| play(game, seed)).collect()
}

fn play(game: u64, seed: u64) -> Vec<Throw> {
    let level = |easy: bool| if easy { Level::Easy } else { Level::Medium };
    let levels = [level(game % 2 == 1), level(game % 4 >= 2)];
    let mut throws_rng = ChaCha8Rng::seed_from_u64(seed ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    let player_seed = !seed ^ game.wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    let mut position = Position::start();
    let mut throws = Vec::new();
    while !position.is_over() {
        let roll = Sticks::from_bits(throws_rng.random()).roll();
        let config = levels[usize::from(position.turn() == crate::engine::Side::White)].config();
        let chosen = ai::decide_with(&position, roll, &config, player_seed, None).chosen;
        throws.push((position, roll));
        position = chosen.map_or(position.pass(), |mv| position.after(&mv));
    }
    throws
}

/// Judges every distinct throw of `games` (in order) and keeps the puzzles, on `threads` threads.
pub fn mine(games: &[Vec<Throw>], table: Option<&Tablebase>, threads: usize) -> Mined {
    let mut seen = HashSet::new();
    let candidates: Vec<Throw> = games
        .iter()
        .flatten()
        .filter(|(position, roll)| position.count_legal_moves(*roll) >= 2)
        .filter(|throw| seen.insert(*throw))
        .copied()
        .collect();
    let covered = candidates
        .iter()
        .filter(|(position, _)| table.is_some_and(|t| t.covers(position)))
        .count();
    let puzzles = in_parallel(&candidates, threads, |(position, roll)| {
        puzzle(position, *roll, table)
    })
    .into_iter()
    .flatten()
    .collect();
    Mined {
        puzzles,
        candidates: candidates.len(),
        covered,
    }
}

/// The puzzle of one throw, if it is one.
pub fn puzzle(position: &Position, roll: Roll, table: Option<&Tablebase>) -> Option<Puzzle> {
    let odds = judge(position, roll, table)?;
    let (best, _) = odds.best()?;
    let moves = position.legal_moves(roll);
    let hits = hits(position, roll, &best);
    Some(Puzzle {
        id: id_of(position, roll),
        position: position.to_string(),
        throw: roll.value(),
        best: best.from,
        moves: odds
            .moves
            .iter()
            .map(|(mv, p)| (mv.from, rounded(*p)))
            .collect(),
        exact: odds.exact,
        theme: theme::classify(position, &best, &moves),
        difficulty: Difficulty::of(&hits),
        hits,
    })
}

/// The odds that make the throw a puzzle: exact, or searched twice with the same clear best.
/// The searches use the network alone, not the table at their leaves, so a searched puzzle
/// is checked again without any table.
fn judge(position: &Position, roll: Roll, table: Option<&Tablebase>) -> Option<Odds> {
    if position.count_legal_moves(roll) < 2 {
        return None;
    }
    if let Some(table) = table.filter(|t| t.covers(position)) {
        return clear(ai::odds_with(position, roll, Some(table)), position);
    }
    let deep = clear(ai::searched_odds(position, roll, DEEP, None), position)?;
    let deeper = clear(ai::searched_odds(position, roll, DEEPER, None), position)?;
    (deep.best()?.0 == deeper.best()?.0).then_some(deeper)
}

/// `odds` if its best move is [`MARGIN`] above every other and does not end the game.
fn clear(odds: Odds, position: &Position) -> Option<Odds> {
    let (best, chance) = odds.best()?;
    let second = odds
        .moves
        .iter()
        .filter(|(mv, _)| *mv != best)
        .map(|(_, p)| *p)
        .fold(f64::NEG_INFINITY, f64::max);
    let clear = chance - second >= MARGIN && !position.after(&best).is_over();
    clear.then_some(odds)
}

/// How often each level plays `best`: `easy` over [`EASY_SEEDS`] seeds, `medium` and `hard`
/// (without the tablebase) once, as their seeds only break exact ties.
fn hits(position: &Position, roll: Roll, best: &Move) -> Hits {
    let finds = |config: &ai::Config, seed: u64| {
        ai::decide_with(position, roll, config, seed, None).chosen == Some(*best)
    };
    let easy = Level::Easy.config();
    let found = (0..EASY_SEEDS).filter(|&seed| finds(&easy, seed)).count();
    let hard = ai::config_named("hard-without-table").expect("a named configuration");
    Hits {
        easy: found as f64 / EASY_SEEDS as f64,
        medium: f64::from(u8::from(finds(&Level::Medium.config(), 0))),
        hard: f64::from(u8::from(finds(&hard, 0))),
    }
}

/// `work` on every item, shared out over `threads`, the results in the items' order.
pub fn in_parallel<T: Sync, R: Send>(
    items: &[T],
    threads: usize,
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let next = AtomicUsize::new(0);
    let mut done: Vec<(usize, R)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.clamp(1, items.len().max(1)))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(item) = items.get(i) else {
                            return done;
                        };
                        done.push((i, work(item)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a mining worker panicked"))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, result)| result).collect()
}

/// Four decimals, as the analysis rounds.
fn rounded(p: f64) -> f64 {
    (p * 1e4).round() / 1e4
}

/// Why a puzzle does not hold against a fresh judgement.
#[derive(Debug, PartialEq, thiserror::Error)]
pub enum CheckError {
    #[error("puzzle {0}: no longer a puzzle (no clear best move, or the searches disagree)")]
    NotAPuzzle(String),
    #[error("puzzle {0}: exact, but the tablebase does not cover it (load the K = 3 table)")]
    NotCovered(String),
    #[error("puzzle {id}: the answer is {found}, not {stored}")]
    Answer { id: String, stored: u8, found: u8 },
    #[error("puzzle {0}: a move's chance differs from the stored one")]
    Chances(String),
}

/// How far a fresh judgement's chance may be from the stored one: the stored four decimals'
/// rounding, and the last bits of a K = 2 table's values against the K = 3 table's.
const TOLERANCE: f64 = 1e-4;

/// Judges a puzzle again: the tablebase for an exact one, both searches for the others; its
/// answer must be the best move again, with the same chances.
pub fn check(puzzle: &Puzzle, table: Option<&Tablebase>) -> Result<(), CheckError> {
    let position = puzzle.parsed();
    let table = table.filter(|t| puzzle.exact && t.covers(&position));
    if puzzle.exact && table.is_none() {
        return Err(CheckError::NotCovered(puzzle.id.clone()));
    }
    let odds = judge(&position, puzzle.roll(), table)
        .ok_or_else(|| CheckError::NotAPuzzle(puzzle.id.clone()))?;
    let (best, _) = odds.best().expect("a puzzle has moves");
    if best.from != puzzle.best {
        return Err(CheckError::Answer {
            id: puzzle.id.clone(),
            stored: puzzle.best,
            found: best.from,
        });
    }
    let same = odds.exact == puzzle.exact
        && odds.moves.len() == puzzle.moves.len()
        && odds
            .moves
            .iter()
            .zip(&puzzle.moves)
            .all(|((mv, p), (from, q))| mv.from == *from && (p - q).abs() <= TOLERANCE);
    if !same {
        return Err(CheckError::Chances(puzzle.id.clone()));
    }
    Ok(())
}
