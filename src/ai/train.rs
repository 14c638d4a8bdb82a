//! Training the [`Net`] by temporal-difference learning over self-play, as
//! TD-Gammon did: the network plays both sides greedily (each throw, the move
//! whose resulting position it rates best for the mover), and after every
//! throw its estimate for the position before is pulled toward its estimate
//! for the position after; the last throw is pulled toward the result.
//!
//! TD(λ) keeps an eligibility trace of past gradients so a surprise late in
//! the game also corrects the estimates that led there. The trace and the
//! error are both kept as *black's* win probability, so nothing flips when an
//! extra throw keeps the same side to move and everything flips (by sign)
//! when the side changes. Deterministic: one ChaCha8 stream from the seed
//! gives the starting weights and every throw, and one thread does the work.

use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::net::{Activations, HIDDEN, INPUTS, Net, features};
use crate::engine::{Position, Side, Sticks};

/// Trace decay: how far back an error reaches (TD-Gammon's value).
const LAMBDA: f32 = 0.7;
/// Learning rate at the start and at the end; it falls linearly between, so
/// the last games fine-tune the probabilities instead of jumping around.
const ALPHA: (f32, f32) = (0.1, 0.01);
/// Starting weights are uniform in ±this.
const INITIAL_SPREAD: f32 = 0.1;

/// Trains a network from random weights over `games` self-play games.
/// `progress` is called after each game with its number (from 1).
pub fn train(games: usize, seed: u64, mut progress: impl FnMut(usize)) -> Net {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut net = Net::from_values(|| (rng.random::<f32>() * 2.0 - 1.0) * INITIAL_SPREAD);
    let mut trace = Net::from_values(|| 0.0);
    for game in 0..games {
        let progress_done = game as f32 / games.max(1) as f32;
        let alpha = ALPHA.0 + (ALPHA.1 - ALPHA.0) * progress_done;
        play_and_learn(&mut net, &mut trace, alpha, &mut rng);
        progress(game + 1);
    }
    net
}

/// One self-play game, learning after every throw.
fn play_and_learn(net: &mut Net, trace: &mut Net, alpha: f32, rng: &mut ChaCha8Rng) {
    trace.scale(0.0);
    let mut position = Position::start();
    loop {
        let features = features(&position);
        let activations = net.forward(&features);
        let sign = if position.turn() == Side::Black {
            1.0
        } else {
            -1.0
        };
        let black_before = if sign > 0.0 {
            activations.output
        } else {
            1.0 - activations.output
        };
        let roll = Sticks::from_bits(rng.random()).roll();
        let next = greedy_after(net, &position, roll);
        let black_after = match next.winner() {
            Some(winner) => f32::from(u8::from(winner == Side::Black)),
            None => black_probability(net, &next),
        };
        trace.scale(LAMBDA);
        trace.add_gradient(net, &features, &activations, sign);
        net.add_scaled(trace, alpha * (black_after - black_before));
        if next.is_over() {
            return;
        }
        position = next;
    }
}

/// The position after the move the network rates best for the mover, or
/// after the pass when the throw cannot be used.
pub(super) fn greedy_after(net: &Net, position: &Position, roll: crate::engine::Roll) -> Position {
    let mover = position.turn();
    let value = |after: &Position| match after.winner() {
        Some(winner) => f32::from(u8::from(winner == mover)),
        None if after.turn() == mover => net.evaluate(after),
        None => 1.0 - net.evaluate(after),
    };
    position
        .legal_moves(roll)
        .iter()
        .map(|mv| position.after(mv))
        .map(|after| (value(&after), after))
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(position.pass(), |(_, after)| after)
}

fn black_probability(net: &Net, position: &Position) -> f32 {
    let p = net.evaluate(position);
    if position.turn() == Side::Black {
        p
    } else {
        1.0 - p
    }
}

impl Net {
    fn scale(&mut self, factor: f32) {
        self.weights.iter_mut().for_each(|v| *v *= factor);
    }

    fn add_scaled(&mut self, other: &Net, factor: f32) {
        for (value, delta) in self.weights.iter_mut().zip(&other.weights) {
            *value += factor * delta;
        }
    }

    /// Adds `sign` times the gradient of `net`'s output with respect to
    /// every weight (back-propagation through the two layers).
    fn add_gradient(
        &mut self,
        net: &Net,
        features: &[(usize, f32)],
        activations: &Activations,
        sign: f32,
    ) {
        let out = activations.output;
        let d_logit = sign * out * (1.0 - out);
        // d/dx of ½ + ½·x/(1+|x|) is ½/(1+|x|)², which is ½(1-|2h-1|)².
        let d_sums: [f32; HIDDEN] = std::array::from_fn(|j| {
            let u = 1.0 - (2.0 * activations.hidden[j] - 1.0).abs();
            d_logit * net.output_weights()[j] * 0.5 * u * u
        });
        let (rows, rest) = self.weights.split_at_mut(INPUTS * HIDDEN);
        let (hidden_bias, rest) = rest.split_at_mut(HIDDEN);
        let (output, output_bias) = rest.split_at_mut(HIDDEN);
        output_bias[0] += d_logit;
        for (weight, h) in output.iter_mut().zip(&activations.hidden) {
            *weight += d_logit * h;
        }
        for (bias, d) in hidden_bias.iter_mut().zip(&d_sums) {
            *bias += d;
        }
        for &(input, value) in features {
            let row = &mut rows[input * HIDDEN..(input + 1) * HIDDEN];
            for (weight, d) in row.iter_mut().zip(&d_sums) {
                *weight += d * value;
            }
        }
    }
}
