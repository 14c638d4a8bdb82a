//! The text form of a position: 30 characters for squares 1..=30, each `B`,
//! `W` or `.`, a space, and the side to move (`b` or `w`). Pieces not on the
//! board are borne off. The start is `WBWBWBWBWB.................... b`.

use std::fmt;
use std::str::FromStr;

use thiserror::Error;

use super::position::{HOUSE_OF_WATER, PIECES_PER_SIDE, Position, SQUARES, Side, Square};

#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum ParsePositionError {
    #[error("a position is 30 squares, a space and the side to move (32 characters), got {0}")]
    WrongLength(usize),
    #[error("square {square} is {found:?}; each square must be 'B', 'W' or '.'")]
    BadSquare { square: Square, found: char },
    #[error("expected a space after the 30 squares, got {0:?}")]
    MissingSpace(char),
    #[error("the side to move must be 'b' or 'w', got {0:?}")]
    BadSide(char),
    #[error("{side} has {count} pieces on the board; at most 5 are allowed")]
    TooManyPieces { side: Side, count: u32 },
    #[error("no piece can stand on 27 (House of Water)")]
    PieceInWater,
}

impl FromStr for Position {
    type Err = ParsePositionError;

    fn from_str(text: &str) -> Result<Position, ParsePositionError> {
        let chars: Vec<char> = text.chars().collect();
        if chars.len() != usize::from(SQUARES) + 2 {
            return Err(ParsePositionError::WrongLength(chars.len()));
        }
        let (mut black, mut white) = (0u32, 0u32);
        for (square, &found) in (1..=SQUARES).zip(&chars) {
            match found {
                'B' => black |= 1 << square,
                'W' => white |= 1 << square,
                '.' => {}
                _ => return Err(ParsePositionError::BadSquare { square, found }),
            }
        }
        let separator = chars[usize::from(SQUARES)];
        if separator != ' ' {
            return Err(ParsePositionError::MissingSpace(separator));
        }
        let turn = match chars[usize::from(SQUARES) + 1] {
            'b' => Side::Black,
            'w' => Side::White,
            other => return Err(ParsePositionError::BadSide(other)),
        };
        for (side, bits) in [(Side::Black, black), (Side::White, white)] {
            if bits.count_ones() > u32::from(PIECES_PER_SIDE) {
                return Err(ParsePositionError::TooManyPieces {
                    side,
                    count: bits.count_ones(),
                });
            }
        }
        if (black | white) & (1 << HOUSE_OF_WATER) != 0 {
            return Err(ParsePositionError::PieceInWater);
        }
        Ok(Position::from_bitboards(black, white, turn).expect("checked above"))
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let squares: String = (1..=SQUARES)
            .map(|square| match self.piece_at(square) {
                Some(Side::Black) => 'B',
                Some(Side::White) => 'W',
                None => '.',
            })
            .collect();
        let turn = match self.turn() {
            Side::Black => 'b',
            Side::White => 'w',
        };
        write!(f, "{squares} {turn}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const START: &str = "WBWBWBWBWB.................... b";

    #[test]
    fn start_round_trips() {
        let position: Position = START.parse().unwrap();
        assert_eq!(position, Position::start());
        assert_eq!(position.to_string(), START);
    }

    #[test]
    fn rejects_malformed_text_with_a_reason() {
        let cases = [
            ("WBWB b", ParsePositionError::WrongLength(6)),
            (
                "WBWBWBWBWBx................... b",
                ParsePositionError::BadSquare {
                    square: 11,
                    found: 'x',
                },
            ),
            (
                "WBWBWBWBWB....................-b",
                ParsePositionError::MissingSpace('-'),
            ),
            (
                "WBWBWBWBWB.................... x",
                ParsePositionError::BadSide('x'),
            ),
            (
                "WBWBWBWBWBB................... b",
                ParsePositionError::TooManyPieces {
                    side: Side::Black,
                    count: 6,
                },
            ),
            (
                "WBWBWBWB.B................W... w",
                ParsePositionError::PieceInWater,
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(text.parse::<Position>(), Err(expected), "{text:?}");
        }
    }
}
