//! `senet selfplay --black <level> --white <level> --games N [--seed S]`:
//! plays the two levels (or `random`) against each other and prints JSON
//! statistics.
//!
//! The level named by `--black` plays black in even-numbered games and white
//! in odd ones, so neither level profits from black's first throw. Throws
//! come from four fair sticks drawn from a ChaCha8 stream seeded by
//! `(S, game)`; the players get their own seeds, never the throw stream.
//! Games are shared out over threads (both cores by default) and the
//! results put back in game order, so everything but the timings is the
//! same for the same arguments.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::UsageError;
use crate::ai::net::Net;
use crate::ai::{self, Config, Decision, Evaluation, Tablebase, Weights, tablebase};
use crate::engine::{Move, Position, Roll, Side, Sticks};

/// Play the computer against itself and report win rates and timings.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The first level: random, easy, medium, hard, hard-classic or hard-without-table.
    #[arg(long)]
    black: String,
    /// The second level.
    #[arg(long)]
    white: String,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    games: usize,
    /// Seed for the throws (and, derived from it, the players' own seeds).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Evaluation weights for the first level, as `name=value,...`
    /// overriding the tuned ones (for tuning by self-play).
    #[arg(long)]
    black_weights: Option<String>,
    /// Evaluation weights for the second level.
    #[arg(long)]
    white_weights: Option<String>,
    /// A network weights file (from `senet train`) for the first level
    /// instead of the shipped one, to measure it before shipping it.
    #[arg(long)]
    black_net: Option<std::path::PathBuf>,
    /// A network weights file for the second level.
    #[arg(long)]
    white_net: Option<std::path::PathBuf>,
    /// Node budget per decision for the first level instead of its own.
    #[arg(long)]
    black_nodes: Option<u64>,
    /// Node budget per decision for the second level.
    #[arg(long)]
    white_nodes: Option<u64>,
}

/// What the command line may change in a level's [`Config`], for tuning.
struct Overrides<'a> {
    weights: Option<&'a str>,
    net: Option<&'a std::path::Path>,
    nodes: Option<u64>,
}

/// One side of the match.
#[derive(Clone, Debug)]
struct Player {
    name: String,
    /// `None` plays uniformly random legal moves.
    config: Option<Config>,
}

impl Player {
    fn parse(level: &str, overrides: &Overrides) -> Result<Player, UsageError> {
        let mut config = match level {
            "random" => None,
            _ => Some(ai::config_named(level).ok_or_else(|| {
                UsageError(format!(
                    "unknown level {level:?}: expected random, easy, medium, hard, hard-classic or hard-without-table"
                ))
            })?),
        };
        let mut name = level.to_owned();
        if overrides.weights.is_none() && overrides.net.is_none() && overrides.nodes.is_none() {
            return Ok(Player { name, config });
        }
        let config_mut = config
            .as_mut()
            .ok_or_else(|| UsageError("the random player has no settings to change".into()))?;
        if let Some(text) = overrides.weights {
            let Evaluation::Classic(weights) = &mut config_mut.evaluation else {
                return Err(UsageError(format!("{level} has no evaluation weights")));
            };
            *weights = text.parse::<Weights>().map_err(UsageError)?;
            name = format!("{name}[{text}]");
        }
        if let Some(path) = overrides.net {
            let Evaluation::Net(net) = &mut config_mut.evaluation else {
                return Err(UsageError(format!("{level} has no network")));
            };
            let bytes = std::fs::read(path)
                .map_err(|e| UsageError(format!("reading {}: {e}", path.display())))?;
            // One network per process, alive until it exits.
            *net = Box::leak(Box::new(Net::from_bytes(&bytes).map_err(UsageError)?));
            name = format!("{name}[net={}]", path.display());
        }
        if let Some(nodes) = overrides.nodes {
            config_mut.limits.node_budget = nodes;
            name = format!("{name}[nodes={nodes}]");
        }
        Ok(Player { name, config })
    }

    fn choose(&self, position: &Position, roll: Roll, seed: u64) -> Decision {
        match &self.config {
            None => Decision {
                chosen: ai::random_move(position, roll, seed),
                depth: 0,
                nodes: 0,
            },
            Some(config) => ai::decide(position, roll, config, seed),
        }
    }
}

/// What one game produced.
struct GameRecord {
    first_won: bool,
    first_was_black: bool,
    throws: u32,
    turns: u32,
    /// Some position of the game was in the installed tablebase.
    reached_table: bool,
    /// Per player, every decision with two or more legal moves.
    decisions: [Vec<Timed>; 2],
}

/// A decision and what it cost.
struct Timed {
    /// Wall-clock time, which on a shared machine includes waiting for a core.
    seconds: f64,
    /// CPU time of the deciding thread: the cost on one core.
    cpu_seconds: f64,
    depth: u8,
    nodes: u64,
    /// Where the installed tablebase covers the position: the exact winning chance the chosen
    /// move gave away against the table's best (0 for a best move).
    exact_loss: Option<f64>,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    if args.games == 0 || args.threads == 0 {
        return Err(UsageError(
            "--games and --threads must be at least 1".into(),
        ));
    }
    let players = [
        Player::parse(
            &args.black,
            &Overrides {
                weights: args.black_weights.as_deref(),
                net: args.black_net.as_deref(),
                nodes: args.black_nodes,
            },
        )?,
        Player::parse(
            &args.white,
            &Overrides {
                weights: args.white_weights.as_deref(),
                net: args.white_net.as_deref(),
                nodes: args.white_nodes,
            },
        )?,
    ];
    let records = play_all(&players, args.games, args.seed, args.threads);
    println!(
        "{}",
        serde_json::to_string_pretty(&report(&players, &records, &args)).expect("JSON")
    );
    Ok(())
}

fn play_all(players: &[Player; 2], games: usize, seed: u64, threads: usize) -> Vec<GameRecord> {
    let next = AtomicUsize::new(0);
    let mut records: Vec<(usize, GameRecord)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(games))
            .map(|_| {
                scope.spawn(|| {
                    let mut done = Vec::new();
                    loop {
                        let game = next.fetch_add(1, Ordering::Relaxed);
                        if game >= games {
                            return done;
                        }
                        done.push((game, play_game(players, game as u64, seed)));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().expect("a self-play worker panicked"))
            .collect()
    });
    records.sort_by_key(|(game, _)| *game);
    records.into_iter().map(|(_, record)| record).collect()
}

fn play_game(players: &[Player; 2], game: u64, seed: u64) -> GameRecord {
    let first_was_black = game.is_multiple_of(2);
    let mut throws_rng = ChaCha8Rng::seed_from_u64(seed ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15));
    // The players' seeds come from a different derivation than the throws.
    let player_seed = |index: u64| !seed ^ (game << 8 | index).wrapping_mul(0xc2b2_ae3d_27d4_eb4f);
    let mut decisions = [Vec::new(), Vec::new()];
    let (mut position, mut throws, mut turns) = (Position::start(), 0, 1);
    let mut reached_table = false;
    while !position.is_over() {
        reached_table |= tablebase::installed().is_some_and(|t| t.covers(&position));
        let index = usize::from((position.turn() == Side::Black) != first_was_black);
        let roll = Sticks::from_bits(throws_rng.random()).roll();
        let cpu_started = thread_cpu_seconds();
        let started = Instant::now();
        let decision = players[index].choose(&position, roll, player_seed(index as u64));
        let seconds = started.elapsed().as_secs_f64();
        let cpu_seconds = thread_cpu_seconds() - cpu_started;
        if position.count_legal_moves(roll) >= 2 {
            decisions[index].push(Timed {
                seconds,
                cpu_seconds,
                depth: decision.depth,
                nodes: decision.nodes,
                exact_loss: exact_loss(tablebase::installed(), &position, roll, decision.chosen),
            });
        }
        let next = decision
            .chosen
            .map_or(position.pass(), |mv| position.after(&mv));
        throws += 1;
        turns += u32::from(next.turn() != position.turn());
        position = next;
    }
    let black_won = position.winner() == Some(Side::Black);
    GameRecord {
        first_won: black_won == first_was_black,
        first_was_black,
        throws,
        turns,
        reached_table,
        decisions,
    }
}

/// The exact chance `chosen` gives away against the table's best move, where the table covers
/// `position`.
fn exact_loss(
    table: Option<&Tablebase>,
    position: &Position,
    roll: Roll,
    chosen: Option<Move>,
) -> Option<f64> {
    let table = table.filter(|t| t.covers(position))?;
    let odds = ai::odds_with(position, roll, Some(table));
    let (_, best) = odds.best()?;
    let (_, got) = odds.moves.iter().find(|(mv, _)| Some(*mv) == chosen)?;
    Some(best - got)
}

/// A player's play where the table covers the position. By the table's values (a martingale
/// under best play), each side's expected result moves by exactly what its own moves give
/// away and what the opponent's give it, so the difference of the two sides' chance lost per
/// game is the table's expected gain in the match, measured without the noise of the throws.
fn in_table(decisions: &[&Timed], games: usize) -> Value {
    let losses: Vec<f64> = decisions.iter().filter_map(|d| d.exact_loss).collect();
    json!({
        "decisions": losses.len(),
        "not_best": losses.iter().filter(|&&loss| loss > 1e-12).count(),
        "chance_lost_per_game": losses.iter().fold(0.0, |sum, loss| sum + loss) / games.max(1) as f64,
    })
}

fn report(players: &[Player; 2], records: &[GameRecord], args: &Args) -> Value {
    let games = records.len();
    let first_wins = records.iter().filter(|r| r.first_won).count();
    let (low, high) = wilson_interval(first_wins, games);
    let per_player: Vec<Value> = (0..2)
        .map(|index| {
            let won = |r: &&GameRecord| r.first_won == (index == 0);
            let as_black = |r: &&GameRecord| r.first_was_black == (index == 0);
            let decisions: Vec<&Timed> = records.iter().flat_map(|r| &r.decisions[index]).collect();
            let mut seconds: Vec<f64> = decisions.iter().map(|d| d.seconds).collect();
            let mut cpu_seconds: Vec<f64> = decisions.iter().map(|d| d.cpu_seconds).collect();
            let count = decisions.len().max(1) as f64;
            let mean_depth = decisions.iter().map(|d| f64::from(d.depth)).sum::<f64>() / count;
            let mean_nodes = decisions.iter().map(|d| d.nodes as f64).sum::<f64>() / count;
            json!({
                "level": players[index].name,
                "wins": records.iter().filter(won).count(),
                "games_as_black": records.iter().filter(as_black).count(),
                "wins_as_black": records.iter().filter(won).filter(as_black).count(),
                "decisions": decisions.len(),
                "decision_ms": timing_summary(&mut seconds),
                "decision_cpu_ms": timing_summary(&mut cpu_seconds),
                "mean_search_depth": mean_depth,
                "mean_nodes": mean_nodes.round(),
                "in_table": tablebase::installed().map(|_| in_table(&decisions, games)),
            })
        })
        .collect();
    let mean = |f: fn(&GameRecord) -> u32| {
        records.iter().map(|r| f64::from(f(r))).sum::<f64>() / games as f64
    };
    json!({
        "games": games,
        "seed": args.seed,
        "threads": args.threads,
        "players": per_player,
        "first_level_win_rate": {
            "level": players[0].name,
            "rate": first_wins as f64 / games as f64,
            "ci95_wilson": [low, high],
        },
        "games_reaching_the_table": tablebase::installed()
            .map(|_| records.iter().filter(|r| r.reached_table).count()),
        "mean_game_length": {
            "throws": mean(|r| r.throws),
            "turns": mean(|r| r.turns),
        },
        "notes": "throws: every throw of either side, including ones that pass; \
                  turns: runs of throws by one side; decision_ms (wall clock) and \
                  decision_cpu_ms (CPU time of the deciding thread): only decisions \
                  with at least two legal moves; in_table (with a tablebase): those of \
                  them in positions the table covers, not_best the moves below the table's \
                  best, chance_lost_per_game the exact winning chance they gave away (a \
                  fraction) per game",
    })
}

/// CPU time used by the calling thread, in seconds.
fn thread_cpu_seconds() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime only writes into the timespec it is given.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    assert_eq!(status, 0, "the thread CPU clock is unavailable");
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

/// Mean, 99th percentile and maximum in milliseconds (sorts `seconds`).
fn timing_summary(seconds: &mut [f64]) -> Value {
    if seconds.is_empty() {
        return json!(null);
    }
    seconds.sort_by(f64::total_cmp);
    let ms = |s: f64| (s * 1e6).round() / 1e3;
    let p99_index = (seconds.len() * 99).div_ceil(100) - 1;
    json!({
        "mean": ms(seconds.iter().sum::<f64>() / seconds.len() as f64),
        "p99": ms(seconds[p99_index]),
        "max": ms(seconds[seconds.len() - 1]),
    })
}

/// The 95% Wilson score interval for `wins` out of `games`.
fn wilson_interval(wins: usize, games: usize) -> (f64, f64) {
    const Z: f64 = 1.959_963_984_540_054;
    let n = games as f64;
    let p = wins as f64 / n;
    let z2 = Z * Z;
    let centre = (p + z2 / (2.0 * n)) / (1.0 + z2 / n);
    let half = Z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / (1.0 + z2 / n);
    (centre - half, centre + half)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_matches_a_known_value() {
        // 60 of 100: the standard Wilson interval is 0.5020..0.6905.
        let (low, high) = wilson_interval(60, 100);
        assert!((low - 0.5020).abs() < 1e-4, "{low}");
        assert!((high - 0.6905).abs() < 1e-4, "{high}");
    }

    #[test]
    fn exact_loss_is_what_a_move_gives_away_against_the_tables_best_and_only_in_the_table() {
        let table = &tablebase::k2_for_tests().1;
        // White's last piece on 29 wins with a 2; black's 3 from 26 swaps it back.
        let position: Position = "....B....................B..W. b".parse().unwrap();
        let roll = Roll::new(3).unwrap();
        let moves = position.legal_moves(roll);
        let chance = |mv: &Move| table.after(&position, mv);
        let swap = moves.iter().find(|mv| mv.from == 26).unwrap();
        let other = moves.iter().find(|mv| mv.from == 5).unwrap();
        assert_eq!(
            exact_loss(Some(table), &position, roll, Some(*swap)),
            Some(0.0)
        );
        let loss = exact_loss(Some(table), &position, roll, Some(*other)).unwrap();
        assert!(loss > 0.05, "leaving white its winning 2 costs: {loss}");
        assert_eq!(loss, chance(swap) - chance(other));
        assert_eq!(exact_loss(None, &position, roll, Some(*swap)), None);
        let uncovered: Position = "W..................B....B....B b".parse().unwrap();
        let first = uncovered
            .legal_moves(Roll::new(1).unwrap())
            .iter()
            .next()
            .copied();
        assert_eq!(
            exact_loss(Some(table), &uncovered, Roll::new(1).unwrap(), first),
            None
        );
    }
}
