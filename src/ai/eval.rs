//! Static evaluation of a position before a throw, from the point of view of
//! the side to move, in units of "squares of race" (one square still to go
//! is worth 1.0). Won and lost positions are scored by the search, not here.
//!
//! The terms, each multiplied by a [`Weights`] field:
//! - race: squares still to go for the enemy minus our own (pieces borne off
//!   count 0), plus a tempo bonus because we throw first;
//! - borne off, pieces resting on 26 and pieces on 28–30 (near the exit);
//! - hitting: the expected squares a swap would cost the victim, summed over
//!   the throws that allow one (separately for our immediate chance and for
//!   the enemy's chance on their next turn);
//! - blocks held, and enemy pieces whose throws are cut off by our blocks.

use std::str::FromStr;

use crate::engine::{HOUSE_OF_HAPPINESS, HOUSE_OF_WATER, Position, Roll, SAFE_SQUARES, Side};

/// How much each term of the evaluation counts. The defaults were chosen by
/// self-play; `docs/AI.md` has the numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Weights {
    /// Bonus for being the side about to throw.
    pub tempo: f64,
    /// Per piece borne off, on top of its race value.
    pub borne_off: f64,
    /// Per piece resting on 26 (safe, and past the must-stop square).
    pub on_26: f64,
    /// Per piece on 28–30, one exact throw from leaving.
    pub near_exit: f64,
    /// Times the expected squares we can swap an enemy back on our throw now.
    pub our_hits: f64,
    /// Times the expected squares the enemy can swap us back on their throw.
    pub their_hits: f64,
    /// Per own piece that is part of a block.
    pub block: f64,
    /// Times the chance that an enemy piece's throw is cut off by our block.
    pub stuck: f64,
}

impl Weights {
    /// The full evaluation used by `medium` and `hard`. Tuning by self-play
    /// set `borne_off` and `block` to zero: the race already counts a piece
    /// borne off, and blocks pay through `stuck` (docs/AI.md).
    pub const TUNED: Weights = Weights {
        tempo: 2.5,
        borne_off: 0.0,
        on_26: 1.0,
        near_exit: 1.0,
        our_hits: 0.6,
        their_hits: 0.4,
        block: 0.0,
        stuck: 2.0,
    };

    /// Race and pieces borne off only: the "light heuristic" of `easy`.
    pub const LIGHT: Weights = Weights {
        tempo: 0.0,
        borne_off: 2.0,
        on_26: 0.0,
        near_exit: 0.0,
        our_hits: 0.0,
        their_hits: 0.0,
        block: 0.0,
        stuck: 0.0,
    };

    const NAMES: [&'static str; 8] = [
        "tempo",
        "borne_off",
        "on_26",
        "near_exit",
        "our_hits",
        "their_hits",
        "block",
        "stuck",
    ];

    fn field_mut(&mut self, name: &str) -> Option<&mut f64> {
        Some(match name {
            "tempo" => &mut self.tempo,
            "borne_off" => &mut self.borne_off,
            "on_26" => &mut self.on_26,
            "near_exit" => &mut self.near_exit,
            "our_hits" => &mut self.our_hits,
            "their_hits" => &mut self.their_hits,
            "block" => &mut self.block,
            "stuck" => &mut self.stuck,
            _ => return None,
        })
    }
}

impl Default for Weights {
    fn default() -> Self {
        Weights::TUNED
    }
}

/// `name=value` pairs separated by commas, each overriding one field of
/// [`Weights::TUNED`] (e.g. `stuck=3,block=0`); used to tune by self-play.
impl FromStr for Weights {
    type Err = String;

    fn from_str(text: &str) -> Result<Weights, String> {
        let mut weights = Weights::TUNED;
        for pair in text.split(',').filter(|p| !p.trim().is_empty()) {
            let (name, value) = pair
                .split_once('=')
                .ok_or_else(|| format!("expected name=value, got {pair:?}"))?;
            let value: f64 = value
                .trim()
                .parse()
                .map_err(|_| format!("weight {name:?}: {value:?} is not a number"))?;
            *weights.field_mut(name.trim()).ok_or_else(|| {
                format!(
                    "unknown weight {name:?}; known: {}",
                    Weights::NAMES.join(", ")
                )
            })? = value;
        }
        Ok(weights)
    }
}

/// Squares past 30 a piece needs to leave: a piece on square `s` has
/// `BORNE_OFF_AT - s` to go.
const BORNE_OFF_AT: u32 = 31;
const SQUARES_26_TO_30: u32 = 0b1_1111 << HOUSE_OF_HAPPINESS;
const EXIT_ZONE: u32 = SQUARES_26_TO_30 & !(1 << HOUSE_OF_HAPPINESS) & !(1 << HOUSE_OF_WATER);

/// The position's value for the side to move.
pub fn evaluate(position: &Position, weights: &Weights) -> f64 {
    let us = position.turn();
    let them = us.other();
    let (ours, theirs) = (position.bitboard(us), position.bitboard(them));
    let race = f64::from(squares_to_go(theirs)) - f64::from(squares_to_go(ours));
    let per_side = |own: u32, enemy: u32, side: Side| {
        weights.borne_off * f64::from(position.borne_off(side))
            + weights.on_26 * f64::from(own >> HOUSE_OF_HAPPINESS & 1)
            + weights.near_exit * f64::from((own & EXIT_ZONE).count_ones())
            + weights.block * f64::from(blocking(own).count_ones())
            + weights.stuck * cut_off_throws(enemy, own)
    };
    race + weights.tempo + per_side(ours, theirs, us) - per_side(theirs, ours, them)
        + weights.our_hits * expected_swap_loss(ours, theirs)
        - weights.their_hits * expected_swap_loss(theirs, ours)
}

fn squares_to_go(pieces: u32) -> u32 {
    bits(pieces).map(|square| BORNE_OFF_AT - square).sum()
}

/// Pieces that stand next to another piece of the same side.
pub(super) fn blocking(pieces: u32) -> u32 {
    pieces & ((pieces << 1) | (pieces >> 1))
}

fn bits(mut set: u32) -> impl Iterator<Item = u32> {
    std::iter::from_fn(move || {
        (set != 0).then(|| {
            let square = set.trailing_zeros();
            set &= set - 1;
            square
        })
    })
}

/// Squares `from+1 ..= to`.
fn squares_between(from: u32, to: u32) -> u32 {
    ((1u32 << (to + 1)) - 1) & !((1u32 << (from + 1)) - 1)
}

/// Squares a victim would lose to a swap on the attacker's next throw,
/// weighted by that throw's probability. A swap with roll `r` always costs
/// the victim `r` squares, so each roll counts once however many swaps it allows.
pub(super) fn expected_swap_loss(attacker: u32, victim: u32) -> f64 {
    let safe = SAFE_SQUARES.iter().fold(0u32, |acc, &s| acc | 1 << s);
    let victim_blocks = blocking(victim);
    let exposed = victim & !victim_blocks & !safe;
    Roll::ALL
        .iter()
        .filter(|roll| {
            let r = u32::from(roll.value());
            // Bit t set: an attacker stands r squares before a swappable piece on t.
            let reachable = (attacker << r) & exposed;
            // From below 26 a piece must stop on 26, so it cannot reach 27..26+r.
            let past_happiness = squares_between(
                u32::from(HOUSE_OF_HAPPINESS),
                u32::from(HOUSE_OF_HAPPINESS) + r - 1,
            );
            // Targets with a block square 1..r-1 before them would pass it.
            let behind_a_block = (1..r).fold(0, |acc, k| acc | victim_blocks << k);
            reachable & !past_happiness & !behind_a_block != 0
        })
        .map(|roll| roll.probability() * f64::from(roll.value()))
        .sum()
}

/// For each enemy piece, the chance that its next throw would have to land
/// on or pass one of our blocks (and so cannot be used by that piece).
pub(super) fn cut_off_throws(enemy: u32, own: u32) -> f64 {
    let blocks = blocking(own);
    if blocks == 0 {
        return 0.0;
    }
    bits(enemy)
        .map(|from| {
            let ahead = blocks & !((1u32 << (from + 1)) - 1);
            if ahead == 0 {
                return 0.0;
            }
            let distance = ahead.trailing_zeros() - from;
            Roll::ALL
                .iter()
                .filter(|roll| u32::from(roll.value()) >= distance)
                .map(|roll| roll.probability())
                .sum()
        })
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos(text: &str) -> Position {
        text.parse().unwrap()
    }

    #[test]
    fn start_race_favours_black_by_five_squares() {
        // Black stands on 2..10 and white on 1..9: black is 5 squares ahead.
        let start = Position::start();
        assert_eq!(evaluate(&start, &Weights::LIGHT), 5.0);
        assert_eq!(evaluate(&start.pass(), &Weights::LIGHT), -5.0);
    }

    #[test]
    fn an_enemy_piece_nearer_home_is_worse_for_us() {
        let behind = pos("B............................W w");
        let ahead = pos("..........B..................W w");
        assert!(evaluate(&ahead, &Weights::TUNED) < evaluate(&behind, &Weights::TUNED));
    }

    #[test]
    fn swap_threat_counts_the_probability_of_each_hitting_throw() {
        // An attacker on 10 and singles on 12 (hit by a 2) and 14 (by a 4).
        let loss = expected_swap_loss(1 << 10, (1 << 12) | (1 << 14));
        assert_eq!(loss, 6.0 / 16.0 * 2.0 + 1.0 / 16.0 * 4.0);
        // A victim in a block or on a safe square cannot be swapped.
        assert_eq!(expected_swap_loss(1 << 10, (1 << 12) | (1 << 13)), 0.0);
        assert_eq!(expected_swap_loss(1 << 13, 1 << 15), 0.0);
        // 24 + 4 = 28 must stop on 26 first.
        assert_eq!(expected_swap_loss(1 << 24, 1 << 28), 0.0);
    }

    #[test]
    fn swap_threat_agrees_with_the_engine_on_played_positions() {
        let mut position = Position::start();
        let mut state = 7u64;
        for _ in 0..5_000 {
            if position.is_over() {
                position = Position::start();
            }
            let mover = position.turn();
            let expected: f64 = Roll::ALL
                .iter()
                .filter(|&&roll| {
                    let moves = position.legal_moves(roll);
                    moves
                        .iter()
                        .any(|mv| mv.effect == crate::engine::Effect::Swap)
                })
                .map(|roll| roll.probability() * f64::from(roll.value()))
                .sum();
            let ours = position.bitboard(mover);
            let theirs = position.bitboard(mover.other());
            assert_eq!(expected_swap_loss(ours, theirs), expected, "{position}");
            // Play on with a pseudo-random throw and move.
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1);
            let roll = Roll::ALL[(state >> 33) as usize % 5];
            let moves = position.legal_moves(roll);
            position = match moves
                .iter()
                .nth((state >> 40) as usize % moves.len().max(1))
            {
                Some(mv) => position.after(mv),
                None => position.pass(),
            };
        }
    }

    #[test]
    fn a_block_cuts_off_the_throws_that_reach_or_pass_it() {
        // White block on 5-6, black piece on 3: throws 2..=5 are cut off.
        let cut = cut_off_throws(1 << 3, (1 << 5) | (1 << 6));
        assert_eq!(cut, 1.0 - 4.0 / 16.0);
        assert_eq!(cut_off_throws(1 << 7, (1 << 5) | (1 << 6)), 0.0);
    }

    #[test]
    fn weights_parse_overrides_and_rejects_unknown_names() {
        let w: Weights = "stuck=3, block=0".parse().unwrap();
        assert_eq!(
            (w.stuck, w.block, w.tempo),
            (3.0, 0.0, Weights::TUNED.tempo)
        );
        assert!("nonsense=1".parse::<Weights>().is_err());
        assert!("stuck".parse::<Weights>().is_err());
        assert!("stuck=x".parse::<Weights>().is_err());
    }
}
