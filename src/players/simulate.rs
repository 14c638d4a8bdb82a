//! The calibration behind docs/RATINGS.md (`senet ratings simulate`): a population of computer
//! players of known, different strength plays rated games, rated one after another by the same
//! [`rating::rate`] the server uses; the report says how well the final ratings order the true
//! strengths and how well the ratings before each game predicted it.
//!
//! Player `i` scores each legal move with the hand-written evaluation one throw ahead, shifted
//! by seeded noise of up to ±`noise_i` squares (`easy`'s method, `ai::Config::noise`), with
//! `noise_i = 0.25 · 1.3^i`: player 0 nearly always plays the evaluation's best move, the last
//! (noise ≈ 36 at 20 players) nearly at random. Less noise is stronger, so the true order is
//! known without measuring it. Each game pairs two players drawn uniformly (so every strength
//! gap is predicted), colours drawn too, and games are a minute apart (no idle days).
//!
//! The games do not depend on the ratings (pairing is by chance), so they are played first, on
//! every core, and rated after in game order: the same numbers as playing them one by one.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;
use serde_json::{Value, json};

use super::diagnosis;
use super::prediction::{Prediction, deciles};
use super::rating::{Parameters, Score, Standing};
use crate::ai::{self, Config, Evaluation, Limits, Weights};
use crate::engine::{Position, Side, Sticks};
use crate::protocol::UnixMs;

/// What to simulate.
#[derive(Clone, Copy, Debug)]
pub struct Plan {
    pub players: usize,
    pub games: usize,
    pub seed: u64,
    pub threads: usize,
    /// The days the games are spread over.
    pub days: u32,
    /// The rating parameters measured (the server's, [`rating::PARAMETERS`], unless exploring).
    pub parameters: Parameters,
}

/// One game's pairing and result (`black` and `white` index the players).
#[derive(Clone, Copy, Debug)]
struct Played {
    black: usize,
    white: usize,
    black_won: bool,
}

const DAY_MS: UnixMs = 24 * 3_600_000;
const START_MS: UnixMs = 1_800_000_000_000;

/// The noise of player `i` (squares): less is stronger.
pub fn noise(i: usize) -> f64 {
    0.25 * 1.3f64.powi(i32::try_from(i).unwrap_or(i32::MAX))
}

/// Plays and rates the games; the JSON report.
pub fn run(plan: Plan) -> Value {
    let pairings = pairings(plan);
    let played = play_all(&pairings, plan);
    let rating = plan.parameters;
    let mut standings = vec![rating.new_standing(); plan.players];
    let interval = DAY_MS * UnixMs::from(plan.days) / plan.games.max(1) as UnixMs;
    let mut predictions = Vec::with_capacity(played.len());
    let mut counts = vec![0usize; plan.players];
    for (n, game) in played.iter().enumerate() {
        let played_before = counts[game.black].min(counts[game.white]);
        counts[game.black] += 1;
        counts[game.white] += 1;
        let at = START_MS + interval * n as UnixMs;
        let (black, white) = (standings[game.black], standings[game.white]);
        let score = if game.black_won {
            Score::Win
        } else {
            Score::Loss
        };
        // Both players' view: the ratings do not know colours, so neither side is the one
        // predicted (black's advantage is reported apart, as `black_score`).
        let predicted = rating.expected(black, white, at);
        predictions.push(Prediction {
            predicted,
            observed: score.points(),
            played_before,
            player: game.black,
            opponent: game.white,
            rating: rating.at(black, at).rating,
            deviation: rating.at(black, at).deviation,
        });
        predictions.push(Prediction {
            predicted: 1.0 - predicted,
            observed: 1.0 - score.points(),
            played_before,
            player: game.white,
            opponent: game.black,
            rating: rating.at(white, at).rating,
            deviation: rating.at(white, at).deviation,
        });
        let (black_after, white_after) = rating.rate(black, white, score, at);
        standings[game.black] = Standing {
            rating: black_after,
            rated_at: Some(at),
        };
        standings[game.white] = Standing {
            rating: white_after,
            rated_at: Some(at),
        };
    }
    report(plan, &standings, &predictions)
}

fn pairings(plan: Plan) -> Vec<(usize, usize)> {
    let mut rng = ChaCha8Rng::seed_from_u64(plan.seed);
    (0..plan.games)
        .map(|_| {
            let a = rng.random_range(0..plan.players);
            let b = (a + rng.random_range(1..plan.players)) % plan.players;
            (a, b)
        })
        .collect()
}

fn play_all(pairings: &[(usize, usize)], plan: Plan) -> Vec<Played> {
    let chunk = pairings.len().div_ceil(plan.threads.max(1)).max(1);
    std::thread::scope(|scope| {
        let workers: Vec<_> = pairings
            .chunks(chunk)
            .enumerate()
            .map(|(part, games)| {
                scope.spawn(move || {
                    games
                        .iter()
                        .enumerate()
                        .map(|(i, &(black, white))| {
                            let game = (part * chunk + i) as u64;
                            let black_won = play(
                                black,
                                white,
                                plan.seed ^ game.wrapping_mul(0x9e37_79b9_7f4a_7c15),
                            );
                            Played {
                                black,
                                white,
                                black_won,
                            }
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().expect("a simulation thread panicked"))
            .collect()
    })
}

fn config(player: usize) -> Config {
    Config {
        evaluation: Evaluation::Classic(Weights::TUNED),
        limits: Limits {
            max_depth: 1,
            node_budget: 0,
        },
        noise: noise(player),
        // A player's strength is its noise alone; exact endgames would blur the ladder.
        tablebase: false,
    }
}

/// One game between players `black` and `white`; whether black won.
fn play(black: usize, white: usize, seed: u64) -> bool {
    let mut throws = ChaCha8Rng::seed_from_u64(seed);
    let configs = [config(black), config(white)];
    let mut position = Position::start();
    while !position.is_over() {
        let side = usize::from(position.turn() == Side::White);
        let roll = Sticks::from_bits(throws.random()).roll();
        let chosen = ai::decide(&position, roll, &configs[side], seed ^ side as u64).chosen;
        position = chosen.map_or(position.pass(), |mv| position.after(&mv));
    }
    position.winner() == Some(Side::Black)
}

fn report(plan: Plan, standings: &[Standing], predictions: &[Prediction]) -> Value {
    let ratings: Vec<f64> = standings.iter().map(|s| s.rating.rating).collect();
    // True strength falls with the index: rank the negated index.
    let truth: Vec<f64> = (0..ratings.len()).map(|i| -(i as f64)).collect();
    let (deciles, worst) = deciles(predictions);
    let black = predictions.iter().step_by(2);
    let black_score = black.map(|p| p.observed).sum::<f64>() / (predictions.len() / 2) as f64;
    json!({
        "players": plan.players,
        "black_score": black_score,
        "games": plan.games,
        "seed": plan.seed,
        "days": plan.days,
        "parameters": {
            "name": plan.parameters.name,
            "start_deviation": plan.parameters.start.deviation,
            "start_volatility": plan.parameters.start.volatility,
            "tau": plan.parameters.tau,
            "min_deviation": plan.parameters.min_deviation,
            "idle_period_hours": plan.parameters.idle_period_ms as f64 / 3_600_000.0,
        },
        "spearman": spearman(&ratings, &truth),
        // Each game counts twice in the deciles, once per player.
        "largest_gap_points_in_deciles_with_200_predictions": worst,
        "deciles": deciles,
        "diagnosis": diagnosis::diagnose(plan.players, predictions),
        "final": standings.iter().enumerate().map(|(i, s)| json!({
            "player": i,
            "noise": noise(i),
            "rating": s.rating.rating,
            "deviation": s.rating.deviation,
            "volatility": s.rating.volatility,
        })).collect::<Vec<_>>(),
    })
}

/// Spearman's rank correlation (no ties among ratings in practice; ties get the lower rank).
fn spearman(a: &[f64], b: &[f64]) -> f64 {
    let (ra, rb) = (ranks(a), ranks(b));
    let n = a.len() as f64;
    let d2: f64 = ra.iter().zip(&rb).map(|(x, y)| (x - y).powi(2)).sum();
    1.0 - 6.0 * d2 / (n * (n * n - 1.0))
}

fn ranks(values: &[f64]) -> Vec<f64> {
    let mut order: Vec<usize> = (0..values.len()).collect();
    order.sort_by(|&i, &j| values[i].total_cmp(&values[j]));
    let mut ranks = vec![0.0; values.len()];
    for (rank, &i) in order.iter().enumerate() {
        ranks[i] = rank as f64;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rank_correlation_is_one_for_the_same_order_and_minus_one_reversed() {
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[10.0, 20.0, 30.0]), 1.0);
        assert_eq!(spearman(&[1.0, 2.0, 3.0], &[3.0, 2.0, 1.0]), -1.0);
    }

    #[test]
    fn a_small_population_orders_its_players_by_strength() {
        let plan = Plan {
            players: 6,
            games: 600,
            seed: 3,
            threads: 2,
            days: 40,
            parameters: crate::players::rating::PARAMETERS,
        };
        let result = run(plan);
        assert!(result["spearman"].as_f64().unwrap() > 0.7, "{result}");
        assert_eq!(
            run(plan)["final"],
            result["final"],
            "the same seed gives the same ratings"
        );
    }
}
