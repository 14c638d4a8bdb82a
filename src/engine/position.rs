//! The board and the rules of a single move.
//!
//! A [`Position`] is two bitboards (bit `s` set = a piece on square `s`) and
//! the side to move. It is `Copy` and every operation returns a new value, so
//! search code can branch freely and the server can never half-apply a move.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use super::sticks::Roll;

/// A track square, 1..=30, counted along the snake (never by screen place).
pub type Square = u8;

pub const SQUARES: Square = 30;
pub const PIECES_PER_SIDE: u8 = 5;
/// Safe square, and where a piece that falls into the water is put back.
pub const HOUSE_OF_REBIRTH: Square = 15;
/// Safe square every piece must stop on before going further.
pub const HOUSE_OF_HAPPINESS: Square = 26;
/// Landing here sends the piece back to 15 (or the first free square before).
pub const HOUSE_OF_WATER: Square = 27;
pub const SAFE_SQUARES: [Square; 2] = [HOUSE_OF_REBIRTH, HOUSE_OF_HAPPINESS];

/// Reaching this count means the piece is borne off.
const OFF_THE_BOARD: Square = SQUARES + 1;
const BOARD_MASK: u32 = ((1u32 << (SQUARES + 1)) - 1) & !1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Side {
    Black,
    White,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::Black, Side::White];

    pub const fn other(self) -> Side {
        match self {
            Side::Black => Side::White,
            Side::White => Side::Black,
        }
    }

    pub const fn name(self) -> &'static str {
        match self {
            Side::Black => "black",
            Side::White => "white",
        }
    }
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Where a move lands by count.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// A square on the board. 27 (the water) is reported here even though the
    /// piece ends on 15 or below; see [`Effect::Water`].
    Square(Square),
    /// Borne off: the exact count to the square after 30.
    Off,
}

/// What a legal move does besides stepping forward.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Effect {
    /// Lands on an empty square.
    Step,
    /// Lands on a single enemy piece, which goes to the mover's old square.
    Swap,
    /// Lands on 27 and is put back on `rest` (15, or the first free square before it).
    Water { rest: Square },
    /// Leaves the board.
    BearOff,
}

/// A legal move, with everything a client needs to show it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Move {
    pub from: Square,
    pub to: Target,
    pub roll: Roll,
    pub effect: Effect,
}

impl Move {
    /// The square the piece rests on afterwards, `None` when borne off.
    pub fn rests_on(&self) -> Option<Square> {
        match (self.effect, self.to) {
            (Effect::Water { rest }, _) => Some(rest),
            (_, Target::Square(s)) => Some(s),
            (_, Target::Off) => None,
        }
    }
}

/// Why a move is refused. The `code` is stable and used on the wire.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Error, strum::EnumIter)]
pub enum IllegalMove {
    #[error("the game is over")]
    GameOver,
    #[error("there is no piece of the side to move on square {0}")]
    NoOwnPiece(Square),
    #[error("square {0} is occupied by your own piece")]
    OccupiedByOwn(Square),
    #[error("the enemy piece on {0} stands on a safe square and cannot be swapped")]
    SafeSquare(Square),
    #[error("square {0} is part of an enemy block, which cannot be landed on or passed")]
    Blocked(Square),
    #[error("a piece must stop exactly on 26 (House of Happiness) before going further")]
    MustStopOn26,
    #[error("bearing off needs the exact throw")]
    NotExactToBearOff,
}

impl IllegalMove {
    /// A short machine-readable reason, stable across versions.
    pub const fn code(self) -> &'static str {
        match self {
            IllegalMove::GameOver => "game_over",
            IllegalMove::NoOwnPiece(_) => "no_own_piece",
            IllegalMove::OccupiedByOwn(_) => "occupied_by_own",
            IllegalMove::SafeSquare(_) => "safe_square",
            IllegalMove::Blocked(_) => "blocked",
            IllegalMove::MustStopOn26 => "must_stop_on_26",
            IllegalMove::NotExactToBearOff => "not_exact_to_bear_off",
        }
    }
}

/// At most one legal move per piece, so five slots always suffice; kept on
/// the stack because move generation is the inner loop of perft and the AI.
#[derive(Clone, Copy, Debug, Default)]
pub struct MoveList {
    moves: [Option<Move>; PIECES_PER_SIDE as usize],
    len: usize,
}

impl MoveList {
    fn push(&mut self, mv: Move) {
        self.moves[self.len] = Some(mv);
        self.len += 1;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &Move> + '_ {
        self.moves[..self.len].iter().flatten()
    }

    pub fn find(&self, from: Square) -> Option<&Move> {
        self.iter().find(|m| m.from == from)
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::iter::Flatten<std::slice::Iter<'a, Option<Move>>>;

    fn into_iter(self) -> Self::IntoIter {
        self.moves[..self.len].iter().flatten()
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    black: u32,
    white: u32,
    turn: Side,
}

const fn bit(square: Square) -> u32 {
    1u32 << square
}

/// Squares `from+1 ..= min(to, 30)`: everything a move passes or lands on.
const fn path_mask(from: Square, to: Square) -> u32 {
    let last = if to > SQUARES { SQUARES } else { to };
    let up_to_last = (1u32 << (last + 1)) - 1;
    let up_to_from = (1u32 << (from + 1)) - 1;
    up_to_last & !up_to_from
}

/// 15 if free, else the first free square before it.
fn rebirth_square(occupied: u32) -> Square {
    let free_up_to_rebirth = !occupied & path_mask(0, HOUSE_OF_REBIRTH);
    // Nine other pieces cannot fill fifteen squares, so one is always free.
    (31 - free_up_to_rebirth.leading_zeros()) as Square
}

/// Squares `lo..=hi` as a bitboard.
const fn squares_between(lo: Square, hi: Square) -> u32 {
    if lo > hi { 0 } else { path_mask(lo - 1, hi) }
}

/// For each throw value (index 0 unused), the squares whose pieces would
/// pass 26 without stopping on it (rule 9): 27-v ..= 25.
const PAST_HAPPINESS: [u32; 6] = {
    let mut masks = [0; 6];
    let mut value = 1;
    while value <= 5 {
        masks[value] = squares_between(
            HOUSE_OF_HAPPINESS + 1 - value as Square,
            HOUSE_OF_HAPPINESS - 1,
        );
        value += 1;
    }
    masks
};

/// For each throw value, the squares from which it overshoots the exact
/// count off the board (rule 11): 32-v ..= 30.
const PAST_THE_END: [u32; 6] = {
    let mut masks = [0; 6];
    let mut value = 1;
    while value <= 5 {
        masks[value] = squares_between(OFF_THE_BOARD + 1 - value as Square, SQUARES);
        value += 1;
    }
    masks
};

const SAFE_MASK: u32 = bit(HOUSE_OF_REBIRTH) | bit(HOUSE_OF_HAPPINESS);

/// For one throw, the own pieces each rule stops, as bitboards of `from`
/// squares. Computing all pieces at once (shifting the board by the throw)
/// is what makes move generation cheap; [`Stops::reason`] turns the same
/// masks into the reason for one piece, so the rules are written only here.
struct Stops {
    /// Rule 9: would pass 26 without stopping.
    past_happiness: u32,
    /// Rule 11: would overshoot the exact count off the board.
    past_the_end: u32,
    /// Rule 5: own piece on the landing square.
    own_ahead: u32,
    /// Rule 8: an enemy block on a square passed or landed on.
    blocked: u32,
    /// Rule 7: an enemy on a safe landing square.
    safe_enemy_ahead: u32,
    /// Squares of enemy pieces that are part of a block, for the reason.
    block_squares: u32,
}

impl Stops {
    fn new(own: u32, enemy: u32, roll: Roll) -> Stops {
        let value = roll.value();
        // Adjacent by track number, so 10–11 and 20–21 form blocks too.
        let block_squares = enemy & ((enemy << 1) | (enemy >> 1));
        let mut blocked = 0;
        for step in 1..=value {
            blocked |= block_squares >> step;
        }
        Stops {
            past_happiness: PAST_HAPPINESS[usize::from(value)],
            past_the_end: PAST_THE_END[usize::from(value)],
            own_ahead: own >> value,
            blocked,
            safe_enemy_ahead: (enemy & SAFE_MASK) >> value,
            block_squares,
        }
    }

    fn any(&self) -> u32 {
        self.past_happiness
            | self.past_the_end
            | self.own_ahead
            | self.blocked
            | self.safe_enemy_ahead
    }

    /// Why the piece on `from` cannot move, if it cannot.
    fn reason(&self, from: Square, roll: Roll) -> Option<IllegalMove> {
        let stopped = |mask: u32| mask & bit(from) != 0;
        let to = from + roll.value();
        if stopped(self.past_happiness) {
            Some(IllegalMove::MustStopOn26)
        } else if stopped(self.past_the_end) {
            Some(IllegalMove::NotExactToBearOff)
        } else if stopped(self.own_ahead) {
            Some(IllegalMove::OccupiedByOwn(to))
        } else if stopped(self.blocked) {
            let first = (self.block_squares & path_mask(from, to)).trailing_zeros();
            Some(IllegalMove::Blocked(first as Square))
        } else if stopped(self.safe_enemy_ahead) {
            Some(IllegalMove::SafeSquare(to))
        } else {
            None
        }
    }
}

impl Default for Position {
    fn default() -> Self {
        Position::start()
    }
}

impl Position {
    /// Black on 2, 4, 6, 8, 10; white on 1, 3, 5, 7, 9; black throws first.
    pub const fn start() -> Position {
        Position {
            black: bit(2) | bit(4) | bit(6) | bit(8) | bit(10),
            white: bit(1) | bit(3) | bit(5) | bit(7) | bit(9),
            turn: Side::Black,
        }
    }

    /// Builds a position from piece bitboards; `None` if they overlap, use
    /// bits outside 1..=30, put a piece on 27 or hold more than five a side.
    pub fn from_bitboards(black: u32, white: u32, turn: Side) -> Option<Position> {
        let valid = |b: u32| b & !BOARD_MASK == 0 && b.count_ones() <= u32::from(PIECES_PER_SIDE);
        let ok = valid(black)
            && valid(white)
            && black & white == 0
            && (black | white) & bit(HOUSE_OF_WATER) == 0;
        ok.then_some(Position { black, white, turn })
    }

    pub const fn turn(&self) -> Side {
        self.turn
    }

    /// The same pieces with the other side to move.
    pub const fn with_turn(self, turn: Side) -> Position {
        Position { turn, ..self }
    }

    /// Bitboard of a side's pieces: bit `s` set for a piece on square `s`.
    pub const fn bitboard(&self, side: Side) -> u32 {
        match side {
            Side::Black => self.black,
            Side::White => self.white,
        }
    }

    /// The squares a side's pieces stand on, ascending.
    pub fn squares(&self, side: Side) -> impl Iterator<Item = Square> + use<> {
        let mut bits = self.bitboard(side);
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let square = bits.trailing_zeros() as Square;
                bits &= bits - 1;
                square
            })
        })
    }

    pub fn piece_at(&self, square: Square) -> Option<Side> {
        Side::BOTH
            .into_iter()
            .find(|&side| self.bitboard(side) & bit(square) != 0)
    }

    pub const fn borne_off(&self, side: Side) -> u8 {
        PIECES_PER_SIDE - self.bitboard(side).count_ones() as u8
    }

    /// The side that has borne off all five pieces, if any.
    pub fn winner(&self) -> Option<Side> {
        Side::BOTH
            .into_iter()
            .find(|&side| self.bitboard(side) == 0)
    }

    pub fn is_over(&self) -> bool {
        self.black == 0 || self.white == 0
    }

    /// Checks one piece against the throw without building the new position.
    pub fn check(&self, from: Square, roll: Roll) -> Result<Move, IllegalMove> {
        if self.is_over() {
            return Err(IllegalMove::GameOver);
        }
        let (own, enemy) = self.own_and_enemy();
        if !(1..=SQUARES).contains(&from) || own & bit(from) == 0 {
            return Err(IllegalMove::NoOwnPiece(from));
        }
        let stops = Stops::new(own, enemy, roll);
        match stops.reason(from, roll) {
            Some(reason) => Err(reason),
            None => Ok(self.unchecked_move(from, roll)),
        }
    }

    /// Why the piece on `from` may not use this throw (the rule that stops it, as the move
    /// generator applies it), or `None` exactly when the move is legal. A page says it in words
    /// when a player touches a piece that cannot move.
    pub fn why_illegal(&self, from: Square, roll: Roll) -> Option<IllegalMove> {
        self.check(from, roll).err()
    }

    /// The pieces of the side to move that cannot use this throw, ascending, each with the
    /// rule that stops it; none once the game is over.
    pub fn refusals(&self, roll: Roll) -> impl Iterator<Item = (Square, IllegalMove)> + use<> {
        let position = *self;
        self.squares(self.turn)
            .filter_map(move |from| Some((from, position.why_illegal(from, roll)?)))
    }

    /// Every legal move for this throw, ordered by `from`. Empty means the
    /// throw cannot be used and the turn passes.
    pub fn legal_moves(&self, roll: Roll) -> MoveList {
        let mut list = MoveList::default();
        let mut movable = self.movable(roll);
        while movable != 0 {
            let from = movable.trailing_zeros() as Square;
            movable &= movable - 1;
            list.push(self.unchecked_move(from, roll));
        }
        list
    }

    /// How many legal moves this throw has; cheaper than building the list.
    pub fn count_legal_moves(&self, roll: Roll) -> usize {
        self.movable(roll).count_ones() as usize
    }

    /// Bitboard of the pieces of the side to move that can use this throw.
    fn movable(&self, roll: Roll) -> u32 {
        if self.is_over() {
            return 0;
        }
        let (own, enemy) = self.own_and_enemy();
        own & !Stops::new(own, enemy, roll).any()
    }

    fn own_and_enemy(&self) -> (u32, u32) {
        (self.bitboard(self.turn), self.bitboard(self.turn.other()))
    }

    /// The move of the piece on `from`, which must be legal: only says
    /// what the landing does.
    fn unchecked_move(&self, from: Square, roll: Roll) -> Move {
        let (own, enemy) = self.own_and_enemy();
        let to = from + roll.value();
        let (target, effect) = if to == OFF_THE_BOARD {
            (Target::Off, Effect::BearOff)
        } else if to == HOUSE_OF_WATER {
            let rest = rebirth_square(own & !bit(from) | enemy);
            (Target::Square(to), Effect::Water { rest })
        } else if enemy & bit(to) != 0 {
            (Target::Square(to), Effect::Swap)
        } else {
            (Target::Square(to), Effect::Step)
        };
        Move {
            from,
            to: target,
            roll,
            effect,
        }
    }

    /// Plays the piece on `from` with `roll`, or says why it cannot move.
    pub fn play(&self, from: Square, roll: Roll) -> Result<(Position, Move), IllegalMove> {
        let mv = self.check(from, roll)?;
        Ok((self.after(&mv), mv))
    }

    /// The position after a move that [`Position::check`] or
    /// [`Position::legal_moves`] returned for this position.
    pub fn after(&self, mv: &Move) -> Position {
        let mover = self.turn;
        let mut own = self.bitboard(mover) & !bit(mv.from);
        let mut enemy = self.bitboard(mover.other());
        match (mv.effect, mv.to) {
            (Effect::Water { rest }, _) => own |= bit(rest),
            (Effect::Swap, Target::Square(to)) => {
                own |= bit(to);
                enemy = (enemy & !bit(to)) | bit(mv.from);
            }
            (_, Target::Square(to)) => own |= bit(to),
            (_, Target::Off) => {}
        }
        let turn = if own == 0 || mv.roll.grants_extra_throw() {
            mover
        } else {
            mover.other()
        };
        let (black, white) = match mover {
            Side::Black => (own, enemy),
            Side::White => (enemy, own),
        };
        Position { black, white, turn }
    }

    /// The position after a throw that no piece can use: the other side moves.
    pub const fn pass(&self) -> Position {
        self.with_turn(self.turn.other())
    }
}
