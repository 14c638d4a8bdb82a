//! What a puzzle is about, read from its best move against the others. The first rule that
//! applies names it, in this order: bearing off, a swap, the 26 stop, the water, the safe
//! squares, blocking; a best move none of them describes is `race` (the move that keeps the
//! pieces moving). The page explains each theme in words (docs/AI.md, "Puzzles").

use serde::{Deserialize, Serialize};

use crate::engine::{Effect, HOUSE_OF_HAPPINESS, HOUSE_OF_REBIRTH, Move, MoveList, Position, Side};

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Theme {
    /// The best move bears a piece off.
    BearingOff,
    /// The best move swaps an enemy piece back.
    Swap,
    /// The best move stops a piece on 26, which every piece must do before going further.
    #[serde(rename = "stop_26")]
    Stop26,
    /// A move falls into the water (27): the best move avoids it, or (rarely) takes it.
    Water,
    /// The best move puts a piece on a safe square (15), where no enemy can swap it.
    SafeSquares,
    /// The best move makes a pair of adjacent pieces: a pair cannot be swapped and cannot be
    /// passed.
    Blocking,
    /// None of the above: the move that keeps the race going best.
    Race,
}

impl Theme {
    pub const ALL: [Theme; 7] = [
        Theme::BearingOff,
        Theme::Swap,
        Theme::Stop26,
        Theme::Water,
        Theme::SafeSquares,
        Theme::Blocking,
        Theme::Race,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            Theme::BearingOff => "bearing_off",
            Theme::Swap => "swap",
            Theme::Stop26 => "stop_26",
            Theme::Water => "water",
            Theme::SafeSquares => "safe_squares",
            Theme::Blocking => "blocking",
            Theme::Race => "race",
        }
    }

    pub fn named(name: &str) -> Option<Theme> {
        Theme::ALL.into_iter().find(|theme| theme.name() == name)
    }
}

/// The theme of a position whose best move is `best` among `moves`.
pub fn classify(position: &Position, best: &Move, moves: &MoveList) -> Theme {
    let rests = best.rests_on();
    if best.effect == Effect::BearOff {
        Theme::BearingOff
    } else if best.effect == Effect::Swap {
        Theme::Swap
    } else if rests == Some(HOUSE_OF_HAPPINESS) {
        Theme::Stop26
    } else if moves
        .iter()
        .any(|mv| matches!(mv.effect, Effect::Water { .. }))
    {
        Theme::Water
    } else if rests == Some(HOUSE_OF_REBIRTH) {
        Theme::SafeSquares
    } else if pairs(&position.after(best), position.turn()) > pairs(position, position.turn()) {
        Theme::Blocking
    } else {
        Theme::Race
    }
}

/// Pieces of `side` with another of its pieces on a neighbouring square.
fn pairs(position: &Position, side: Side) -> u32 {
    let own = position.bitboard(side);
    (own & ((own << 1) | (own >> 1))).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::Roll;

    /// The theme of black's move from `from` with `throw`, black on `black`, white on 1 and
    /// 29 (29 only with black on 26, to be swapped).
    fn theme_of(black: &[u8], throw: u8, from: u8) -> Theme {
        let squares: String = (1..=30)
            .map(|s| match s {
                1 => 'W',
                29 if black.contains(&26) => 'W',
                s if black.contains(&s) => 'B',
                _ => '.',
            })
            .collect();
        let position: Position = format!("{squares} b").parse().unwrap();
        let roll = Roll::new(throw).unwrap();
        let moves = position.legal_moves(roll);
        classify(&position, moves.find(from).unwrap(), &moves)
    }

    #[test]
    fn each_theme_is_named_by_the_best_move() {
        // 3 from 26 lands on white's 29 and swaps it; 3 from 5 is a plain step.
        assert_eq!(theme_of(&[5, 26], 3, 26), Theme::Swap);
        assert_eq!(theme_of(&[5, 26], 3, 5), Theme::Race);
        // 2 from 29 bears off.
        assert_eq!(theme_of(&[5, 29], 2, 29), Theme::BearingOff);
        // 2 from 24 stops on 26.
        assert_eq!(theme_of(&[5, 24], 2, 24), Theme::Stop26);
        // 1 from 26 would fall into the water; 5 -> 6 avoids it.
        assert_eq!(theme_of(&[5, 26], 1, 5), Theme::Water);
        assert_eq!(theme_of(&[5, 26], 1, 26), Theme::Water);
        // 3 from 12 rests on 15.
        assert_eq!(theme_of(&[12, 21], 3, 12), Theme::SafeSquares);
        // 2 from 5 lands beside 8: a pair.
        assert_eq!(theme_of(&[5, 8], 2, 5), Theme::Blocking);
        for theme in Theme::ALL {
            assert_eq!(Theme::named(theme.name()), Some(theme));
            assert_eq!(
                serde_json::to_string(&theme).unwrap(),
                format!("\"{}\"", theme.name())
            );
        }
    }
}
