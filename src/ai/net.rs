//! A small neural network that estimates the probability that the side about
//! to throw wins, learned by self-play (see [`super::train`] and docs/AI.md).
//!
//! Inputs, from the point of view of the side about to throw ("us"): one per
//! square 1..=30 with one of our pieces, one per square with one of theirs,
//! the pieces each side has borne off (divided by five), and for each side
//! three tactical terms of the hand-written evaluation ([`TACTICS`]): what a
//! swap on its next throw would cost the other side, how much of the other
//! side's next throw its blocks cut off, and how many of its pieces stand
//! in a block. A single layer learns such conjunctions of squares only
//! slowly; given as inputs, they made the network stronger (docs/AI.md).
//! Colour is not an input: the rules are the same for both sides, so the
//! side to move is always "us" and one output suffices.
//!
//! One hidden layer of [`HIDDEN`] units with a cheap sigmoid,
//! `½ + ½·x/(1+|x|)`, which needs no `exp` (the search evaluates hundreds of
//! thousands of leaves per decision); the output unit is the logistic
//! sigmoid so it reads as a probability. The trained weights are data in the
//! repository (`weights.bin`), produced by `senet train` from a seed.

use std::sync::LazyLock;

use super::eval::{blocking, cut_off_throws, expected_swap_loss};
use crate::engine::{PIECES_PER_SIDE, Position, SQUARES};

/// 30 squares for us, 30 for them, pieces borne off for us and for them.
const BOARD_INPUTS: usize = 2 * SQUARES as usize + 2;
/// Swap threat, cut-off throws and pieces in a block, for us then for them.
pub const TACTICS: usize = 6;
pub const INPUTS: usize = BOARD_INPUTS + TACTICS;
pub const HIDDEN: usize = 64;
/// Ten pieces, two counts and the tactical terms.
const MAX_ACTIVE: usize = 2 * PIECES_PER_SIDE as usize + 2 + TACTICS;

/// Header of the weights file: a name and a version, then the two sizes.
const MAGIC: &[u8; 8] = b"SENETNN1";

/// The network shipped with the program, parsed once on first use.
pub static TRAINED: LazyLock<Net> = LazyLock::new(|| {
    Net::from_bytes(include_bytes!("weights.bin")).expect("src/ai/weights.bin is a valid network")
});

/// The trained network's probability that the side about to throw wins;
/// exactly 1 or 0 for a finished game.
pub fn win_probability(position: &Position) -> f64 {
    match position.winner() {
        Some(winner) => f64::from(u8::from(winner == position.turn())),
        None => f64::from(TRAINED.evaluate(position)),
    }
}

#[derive(Clone, PartialEq)]
pub struct Net {
    /// Every weight in one flat array, so training can update them all with
    /// one vectorised loop: `INPUTS` rows of `HIDDEN` input weights (an
    /// input's row is added to the hidden sums when it is active, so
    /// evaluation touches only the rows of occupied squares), the hidden
    /// biases, the output weights, the output bias.
    pub(super) weights: Vec<f32>,
}

/// The sizes only: thousands of weights would drown any log of a `Config`.
impl std::fmt::Debug for Net {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Net({INPUTS}x{HIDDEN})")
    }
}

const HIDDEN_BIAS: usize = INPUTS * HIDDEN;
const OUTPUT: usize = HIDDEN_BIAS + HIDDEN;
const OUTPUT_BIAS: usize = OUTPUT + HIDDEN;
/// How many weights a network has.
pub(super) const WEIGHTS: usize = OUTPUT_BIAS + 1;

/// The active (non-zero) inputs of a position, on the stack: the search
/// computes them for every leaf, so no allocation.
pub(super) struct Features {
    active: [(usize, f32); MAX_ACTIVE],
    len: usize,
}

impl Features {
    fn push(&mut self, input: usize, value: f32) {
        if value != 0.0 {
            self.active[self.len] = (input, value);
            self.len += 1;
        }
    }
}

impl std::ops::Deref for Features {
    type Target = [(usize, f32)];

    fn deref(&self) -> &[(usize, f32)] {
        &self.active[..self.len]
    }
}

/// What a forward pass computed, kept for the gradient.
pub(super) struct Activations {
    pub hidden: [f32; HIDDEN],
    pub output: f32,
}

impl Net {
    /// Each weight from `next`, in the order of the flat array.
    pub(super) fn from_values(next: impl FnMut() -> f32) -> Net {
        Net {
            weights: std::iter::repeat_with(next).take(WEIGHTS).collect(),
        }
    }

    /// Probability that the side about to throw wins (game not finished).
    pub fn evaluate(&self, position: &Position) -> f32 {
        self.forward(&features(position)).output
    }

    /// The weights from input `input` to the hidden units.
    pub(super) fn row(&self, input: usize) -> &[f32] {
        &self.weights[input * HIDDEN..(input + 1) * HIDDEN]
    }

    pub(super) fn output_weights(&self) -> &[f32] {
        &self.weights[OUTPUT..OUTPUT_BIAS]
    }

    pub(super) fn forward(&self, features: &[(usize, f32)]) -> Activations {
        let mut sums: [f32; HIDDEN] = self.weights[HIDDEN_BIAS..OUTPUT]
            .try_into()
            .expect("HIDDEN biases");
        for &(input, value) in features {
            for (sum, weight) in sums.iter_mut().zip(self.row(input)) {
                *sum += weight * value;
            }
        }
        let hidden = sums.map(soft_sigmoid);
        let logit = self.weights[OUTPUT_BIAS]
            + hidden
                .iter()
                .zip(self.output_weights())
                .map(|(h, w)| h * w)
                .sum::<f32>();
        Activations {
            hidden,
            output: 1.0 / (1.0 + (-logit).exp()),
        }
    }

    /// The file format: [`MAGIC`], inputs and hidden units as u32, then
    /// every weight as little-endian f32 in the order of the flat array.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = MAGIC.to_vec();
        bytes.extend((INPUTS as u32).to_le_bytes());
        bytes.extend((HIDDEN as u32).to_le_bytes());
        for value in &self.weights {
            bytes.extend(value.to_le_bytes());
        }
        bytes
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Net, String> {
        let header = MAGIC.len() + 8;
        let expected = header + 4 * WEIGHTS;
        if bytes.len() != expected || &bytes[..MAGIC.len()] != MAGIC {
            return Err(format!(
                "not a {INPUTS}x{HIDDEN} network file ({} bytes, expected {expected})",
                bytes.len()
            ));
        }
        let size = |at: usize| u32::from_le_bytes(bytes[at..at + 4].try_into().expect("4 bytes"));
        if (size(8), size(12)) != (INPUTS as u32, HIDDEN as u32) {
            return Err("the network's sizes do not match this program".into());
        }
        let mut values = bytes[header..]
            .chunks_exact(4)
            .map(|chunk| f32::from_le_bytes(chunk.try_into().expect("4 bytes")));
        Ok(Net::from_values(|| values.next().expect("length checked")))
    }
}

/// The network's inputs for the side about to throw.
pub(super) fn features(position: &Position) -> Features {
    let us = position.turn();
    let them = us.other();
    let squares = SQUARES as usize;
    let mut features = Features {
        active: [(0, 0.0); MAX_ACTIVE],
        len: 0,
    };
    for square in position.squares(us) {
        features.push(usize::from(square) - 1, 1.0);
    }
    for square in position.squares(them) {
        features.push(squares + usize::from(square) - 1, 1.0);
    }
    let off = |side| f32::from(position.borne_off(side)) / f32::from(PIECES_PER_SIDE);
    features.push(2 * squares, off(us));
    features.push(2 * squares + 1, off(them));
    let (ours, theirs) = (position.bitboard(us), position.bitboard(them));
    for (side, (own, enemy)) in [(ours, theirs), (theirs, ours)].into_iter().enumerate() {
        let [threat, cut_off, blocked] = tactics(own, enemy);
        let at = BOARD_INPUTS + 3 * side;
        features.push(at, threat);
        features.push(at + 1, cut_off);
        features.push(at + 2, blocked);
    }
    features
}

/// One side's tactical terms, each scaled to about 0..1: the squares its
/// swap would cost the enemy on its next throw (expected), the enemy's
/// throws cut off by its blocks (summed over enemy pieces), its pieces in
/// a block.
fn tactics(own: u32, enemy: u32) -> [f32; 3] {
    [
        expected_swap_loss(own, enemy) as f32 / 2.0,
        cut_off_throws(enemy, own) as f32 / 2.0,
        blocking(own).count_ones() as f32 / f32::from(PIECES_PER_SIDE),
    ]
}

/// `½ + ½·x/(1+|x|)`: sigmoid-shaped in (0, 1) without `exp`.
pub(super) fn soft_sigmoid(x: f32) -> f32 {
    0.5 + 0.5 * x / (1.0 + x.abs())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_weights_load_and_round_trip() {
        let net = &*TRAINED;
        assert_eq!(Net::from_bytes(&net.to_bytes()).as_ref(), Ok(net));
        assert!(Net::from_bytes(b"SENETNN1").is_err());
    }

    #[test]
    fn probabilities_stay_in_range_and_finished_games_are_certain() {
        let start = Position::start();
        let p = win_probability(&start);
        assert!(p > 0.0 && p < 1.0, "{p}");
        let last: Position = "W............................B b".parse().unwrap();
        let (won, _) = last.play(30, crate::engine::Roll::new(1).unwrap()).unwrap();
        assert_eq!(win_probability(&won), 1.0);
        assert_eq!(win_probability(&won.pass()), 0.0);
    }

    #[test]
    fn features_hold_the_pieces_and_each_sides_tactics() {
        // Black to throw: pieces on 10 and 13, a white single on 12 (a swap
        // with a 2, 6/16) and a white block on 16-17, which cuts off the
        // throws of 3 or more (6/16) of the black piece on 13.
        let position: Position = ".........B.WB..WW............. b".parse().unwrap();
        let active = features(&position);
        let value = |input: usize| {
            active
                .iter()
                .find(|&&(i, _)| i == input)
                .map_or(0.0, |&(_, v)| v)
        };
        assert_eq!((value(9), value(12)), (1.0, 1.0), "black on 10 and 13");
        assert_eq!(
            (value(30 + 11), value(30 + 15)),
            (1.0, 1.0),
            "white on 12, 16"
        );
        let ours = BOARD_INPUTS;
        let theirs = BOARD_INPUTS + 3;
        assert_eq!(value(ours), 6.0 / 16.0 * 2.0 / 2.0, "our swap threat");
        assert_eq!(value(ours + 2), 0.0, "no black block");
        assert_eq!(
            value(theirs + 1),
            6.0 / 16.0 / 2.0,
            "white's block cuts off"
        );
        assert_eq!(value(theirs + 2), 2.0 / 5.0, "two white pieces in a block");
        // The same position seen by white swaps the two sides' tactics.
        let flipped = features(&position.with_turn(crate::engine::Side::White));
        let flipped_value = |input: usize| {
            flipped
                .iter()
                .find(|&&(i, _)| i == input)
                .map_or(0.0, |&(_, v)| v)
        };
        for k in 0..3 {
            assert_eq!(flipped_value(ours + k), value(theirs + k), "term {k}");
            assert_eq!(flipped_value(theirs + k), value(ours + k), "term {k}");
        }
    }

    #[test]
    fn a_side_about_to_bear_off_its_last_piece_is_favoured() {
        // Black's last piece on 30 leaves with a 1; white has all five far back.
        let near: Position = "WWWWW........................B b".parse().unwrap();
        assert!(win_probability(&near) > 0.5);
        assert!(win_probability(&near.with_turn(crate::engine::Side::White)) < 0.5);
    }
}
