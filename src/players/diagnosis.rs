//! Why the calibration of `senet ratings simulate` is what it is (docs/RATINGS.md): three
//! questions asked of the same games.
//!
//! - Does a logistic rating fit these players at all? A Bradley–Terry model (the logistic link
//!   Glicko-2's expected score uses) fitted to every game by maximum likelihood, on Glicko's
//!   scale, predicts the games by decile like the ratings do. If even the best fixed logistic
//!   ratings miss, the link is wrong; if they hit, the ratings' noise is to blame.
//! - How far are the ratings from those strengths while the games go on (after each player's
//!   first [`SETTLED_AFTER`] games), beside the deviation Glicko-2 claims and the spread of the
//!   strengths themselves? Rating noise that is a large part of the spread makes every rating
//!   difference an overestimate of the strength difference (regression to the mean).
//! - Is it the warm-up? The ratings' deciles again, leaving out each game in which a player
//!   had fewer than N rated games.

use serde_json::{Value, json};

use super::prediction::{Prediction, deciles};

/// The games a player has had before their rating counts as settled, for the noise figures.
const SETTLED_AFTER: usize = 100;

/// Warm-ups left out, in turn, for the deciles without them.
const WARM_UPS: [usize; 4] = [25, 50, 100, 200];

/// Rounds of Hunter's MM iteration: the fit moves less than 0.01 rating points long before.
const FIT_ROUNDS: usize = 2_000;

/// The three answers as JSON, from every prediction (each game twice, once per player).
pub fn diagnose(players: usize, predictions: &[Prediction]) -> Value {
    let strengths = bradley_terry(players, predictions);
    let fitted: Vec<Prediction> = predictions
        .iter()
        .map(|p| Prediction {
            predicted: logistic(strengths[p.player] - strengths[p.opponent]),
            ..*p
        })
        .collect();
    let (fitted_deciles, fitted_worst) = deciles(&fitted);
    let settled: Vec<&Prediction> = predictions
        .iter()
        .filter(|p| p.played_before >= SETTLED_AFTER)
        .collect();
    let errors: Vec<f64> = settled
        .iter()
        .map(|p| p.rating - strengths[p.player])
        .collect();
    let ratings: Vec<f64> = settled.iter().map(|p| p.rating).collect();
    let deviations: Vec<f64> = settled.iter().map(|p| p.deviation).collect();
    let warm_ups: Vec<Value> = WARM_UPS
        .iter()
        .map(|&warm_up| {
            let kept: Vec<Prediction> = predictions
                .iter()
                .filter(|p| p.played_before >= warm_up)
                .copied()
                .collect();
            json!({
                "left_out_below_games": warm_up,
                "predictions": kept.len(),
                "largest_gap_points": deciles(&kept).1,
            })
        })
        .collect();
    json!({
        "bradley_terry": {
            "strengths": strengths.iter().map(|s| s.round()).collect::<Vec<_>>(),
            "largest_gap_points_in_deciles_with_200_predictions": fitted_worst,
            "deciles": fitted_deciles,
        },
        "after_games": SETTLED_AFTER,
        "rating_error_sd": spread(&errors),
        "mean_deviation": mean(&deviations),
        "strength_sd": spread(&strengths),
        "rating_sd": spread(&ratings),
        "without_warm_up": warm_ups,
    })
}

/// Black's expected score on Glicko's scale, deviations left out: 1 / (1 + 10^(-d/400)).
fn logistic(difference: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-difference / 400.0))
}

/// Bradley–Terry strengths by maximum likelihood (Hunter's MM iteration), centred on 1500:
/// each player's strength γ becomes their points over the sum, across opponents, of games
/// divided by (γ + γ_opponent), until it settles.
fn bradley_terry(players: usize, predictions: &[Prediction]) -> Vec<f64> {
    let mut points = vec![0.0; players];
    let mut games = vec![vec![0.0; players]; players];
    for p in predictions {
        points[p.player] += p.observed;
        games[p.player][p.opponent] += 1.0;
    }
    let mut gamma = vec![1.0f64; players];
    for _ in 0..FIT_ROUNDS {
        let next: Vec<f64> = (0..players)
            .map(|i| {
                let against: f64 = (0..players)
                    .map(|j| games[i][j] / (gamma[i] + gamma[j]))
                    .sum();
                points[i] / against
            })
            .collect();
        let centre = mean(&next.iter().map(|g| g.ln()).collect::<Vec<_>>());
        gamma = next.iter().map(|g| (g.ln() - centre).exp()).collect();
    }
    gamma.iter().map(|g| 1500.0 + 400.0 * g.log10()).collect()
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len() as f64
}

/// The standard deviation.
fn spread(values: &[f64]) -> f64 {
    let centre = mean(values);
    mean(
        &values
            .iter()
            .map(|v| (v - centre).powi(2))
            .collect::<Vec<_>>(),
    )
    .sqrt()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(player: usize, opponent: usize, observed: f64) -> Prediction {
        Prediction {
            predicted: 0.5,
            observed,
            played_before: 0,
            player,
            opponent,
            rating: 1500.0,
            deviation: 100.0,
        }
    }

    #[test]
    fn the_fit_gives_the_strengths_the_results_imply() {
        // Player 0 scores 3 of 4 against player 1, each game seen by both.
        let mut games = Vec::new();
        for won in [1.0, 1.0, 1.0, 0.0] {
            games.push(game(0, 1, won));
            games.push(game(1, 0, 1.0 - won));
        }
        let strengths = bradley_terry(2, &games);
        let p = logistic(strengths[0] - strengths[1]);
        assert!((p - 0.75).abs() < 1e-9, "{p}");
        assert!((strengths[0] + strengths[1] - 3000.0).abs() < 1e-9);
    }
}
