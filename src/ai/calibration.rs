//! How well the network's probabilities match what happens: self-play games
//! (by the same greedy player as training, from throws of a seed of their
//! own, so none of these positions was learned from) are played out, every
//! position before a throw is scored by [`win_probability`], and the scores
//! are grouped by tenths of prediction and compared with how often the
//! side to throw went on to win. `senet calibration` prints the table and
//! draws the reliability diagram in docs/.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::net::{TRAINED, win_probability};
use super::train::greedy_after;
use crate::engine::{Position, Sticks};

/// Positions whose prediction fell in one tenth, `[lower, lower + 0.1)`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Bin {
    pub lower: f64,
    pub positions: u64,
    /// Mean prediction in the bin.
    pub predicted: f64,
    /// Share of those positions whose side to throw won.
    pub observed: f64,
}

/// Plays `games` games from `seed` and bins every position's prediction.
pub fn calibrate(games: u64, seed: u64) -> [Bin; 10] {
    let mut sums = [(0u64, 0.0f64, 0u64); 10];
    for game in 0..games {
        // A derivation of its own, unlike training's one stream.
        let mut rng =
            ChaCha8Rng::seed_from_u64(seed ^ (game + 1).wrapping_mul(0xd6e8_feb8_6659_fd93));
        let mut position = Position::start();
        let mut seen = Vec::new();
        while !position.is_over() {
            seen.push((win_probability(&position), position.turn()));
            let roll = Sticks::from_bits(rng.random()).roll();
            position = greedy_after(&TRAINED, &position, roll);
        }
        let winner = position.winner();
        for (p, side) in seen {
            let bin = &mut sums[((p * 10.0) as usize).min(9)];
            bin.0 += 1;
            bin.1 += p;
            bin.2 += u64::from(winner == Some(side));
        }
    }
    std::array::from_fn(|i| {
        let (positions, predicted, won) = sums[i];
        let n = positions.max(1) as f64;
        Bin {
            lower: i as f64 / 10.0,
            positions,
            predicted: predicted / n,
            observed: won as f64 / n,
        }
    })
}

/// The reliability diagram: predicted against observed per bin, the
/// diagonal for perfect calibration, the ±3-point band the target allows,
/// and each bin's point sized by its share of positions.
pub fn reliability_svg(bins: &[Bin; 10], caption: &str) -> String {
    const SIZE: f64 = 400.0;
    const MARGIN: f64 = 50.0;
    let x = |p: f64| MARGIN + p * SIZE;
    let y = |p: f64| MARGIN + (1.0 - p) * SIZE;
    let total: u64 = bins.iter().map(|b| b.positions).sum::<u64>().max(1);
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n\
         <rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"{cx}\" y=\"24\" text-anchor=\"middle\" font-size=\"14\">{caption}</text>\n\
         <polygon points=\"{a},{b} {c},{d} {e},{f} {g},{h2}\" fill=\"#dde8f6\"/>\n\
         <line x1=\"{x0}\" y1=\"{y0}\" x2=\"{x1}\" y2=\"{y1}\" stroke=\"#888\" stroke-dasharray=\"4 3\"/>\n\
         <rect x=\"{x0}\" y=\"{y1}\" width=\"{SIZE}\" height=\"{SIZE}\" fill=\"none\" stroke=\"black\"/>\n",
        w = SIZE + 2.0 * MARGIN,
        h = SIZE + 2.0 * MARGIN + 20.0,
        cx = MARGIN + SIZE / 2.0,
        a = x(0.0),
        b = y(0.03),
        c = x(0.97),
        d = y(1.0),
        e = x(1.0),
        f = y(0.97),
        g = x(0.03),
        h2 = y(0.0),
        x0 = x(0.0),
        y0 = y(0.0),
        x1 = x(1.0),
        y1 = y(1.0),
    );
    for tick in 0..=10 {
        let p = f64::from(tick) / 10.0;
        svg += &format!(
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n\
             <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{}</text>\n",
            x(p),
            y(0.0) + 16.0,
            tick * 10,
            x(0.0) - 6.0,
            y(p) + 4.0,
            tick * 10
        );
    }
    svg += &format!(
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">predicted win probability of the side to throw (%)</text>\n\
         <text transform=\"translate(14 {}) rotate(-90)\" text-anchor=\"middle\">observed win rate (%)</text>\n",
        MARGIN + SIZE / 2.0,
        y(0.0) + 36.0,
        MARGIN + SIZE / 2.0
    );
    let points: Vec<String> = bins
        .iter()
        .filter(|b| b.positions > 0)
        .map(|b| format!("{:.1},{:.1}", x(b.predicted), y(b.observed)))
        .collect();
    svg += &format!(
        "<polyline points=\"{}\" fill=\"none\" stroke=\"#1f5fbf\" stroke-width=\"1.5\"/>\n",
        points.join(" ")
    );
    for bin in bins.iter().filter(|b| b.positions > 0) {
        let radius = 3.0 + 12.0 * (bin.positions as f64 / total as f64).sqrt();
        svg += &format!(
            "<circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"{radius:.1}\" fill=\"#1f5fbf\" fill-opacity=\"0.6\">\
             <title>{:.0}–{:.0}%: predicted {:.1}%, observed {:.1}%, {} positions</title></circle>\n",
            x(bin.predicted),
            y(bin.observed),
            bin.lower * 100.0,
            bin.lower * 100.0 + 10.0,
            bin.predicted * 100.0,
            bin.observed * 100.0,
            bin.positions
        );
    }
    svg + "</svg>\n"
}
