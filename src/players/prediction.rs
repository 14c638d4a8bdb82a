//! A rating's prediction of one game beside what happened, and the predictions gathered by
//! decile: what `senet ratings simulate` reports and its diagnosis ([`super::diagnosis`])
//! examines, kept apart from both so neither imports the other.

use serde_json::{Value, json};

/// The fewest predictions a decile needs for its gap to count as the largest.
const DECILE_MIN_GAMES: usize = 200;

/// One player's predicted score in one game and what they scored, with what the diagnosis
/// ([`super::diagnosis`]) needs: who played whom, and the player's rating then.
#[derive(Clone, Copy)]
pub(super) struct Prediction {
    pub predicted: f64,
    pub observed: f64,
    /// The fewer rated games either player had before this one.
    pub played_before: usize,
    pub player: usize,
    pub opponent: usize,
    /// The player's rating and deviation as of the game.
    pub rating: f64,
    pub deviation: f64,
}

/// The predictions by decile of prediction, and the largest gap (points) in a decile with
/// [`DECILE_MIN_GAMES`] predictions.
pub(super) fn deciles(predictions: &[Prediction]) -> (Vec<Value>, f64) {
    let deciles: Vec<Value> = (0..10)
        .filter_map(|d| {
            let bucket: Vec<&Prediction> = predictions
                .iter()
                .filter(|p| ((p.predicted * 10.0) as usize).min(9) == d)
                .collect();
            (!bucket.is_empty()).then(|| decile(d, &bucket))
        })
        .collect();
    let worst = deciles
        .iter()
        .filter(|d| d["games"].as_u64().unwrap_or(0) >= DECILE_MIN_GAMES as u64)
        .filter_map(|d| d["gap_points"].as_f64())
        .fold(0.0f64, |worst, gap| worst.max(gap.abs()));
    (deciles, worst)
}

fn decile(d: usize, bucket: &[&Prediction]) -> Value {
    let n = bucket.len() as f64;
    let predicted = bucket.iter().map(|p| p.predicted).sum::<f64>() / n;
    let observed = bucket.iter().map(|p| p.observed).sum::<f64>() / n;
    json!({
        "decile": format!("{}-{}%", d * 10, d * 10 + 10),
        "games": bucket.len(),
        "predicted": predicted,
        "observed": observed,
        "gap_points": 100.0 * (observed - predicted),
    })
}
