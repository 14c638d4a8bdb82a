//! Who holds each seat of a room, in the game's terms: a person (known by their token's hash),
//! the computer (at a level), or, in a record being verified, someone whose token is not part of
//! the record. The store keeps seats as rows ([`SeatRow`]); this is the one place that turns
//! rows into seats and back, so the pure game never sees persistence.

use super::bot::Bot;
use super::error::Refusal;
use crate::ai::Level;
use crate::engine::Side;
use crate::protocol::{Mode, Seat};
use crate::secrets::TokenHash;
use crate::store::{RoomRow, SeatRow};

/// The token hash stored for the computer's seat. SHA-256 of a token is never all zeros in
/// practice, so this matches no token: nobody can act for the computer or take its seat. Its
/// row holds its level's name.
const BOT_TOKEN_HASH: TokenHash = [0; 32];

/// Who holds a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Holder {
    /// A person, who proves it with the token that hashes to this.
    Person(TokenHash),
    /// The computer of an `ai` room.
    Computer(Level),
    /// A seat in a game record: taken, by someone the record does not name.
    Recorded,
}

/// A taken seat: its holder. (Client seeds are not part of a seat: they are logged after the
/// game starts, see [`crate::protocol::Event::ClientSeed`].)
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sitter {
    pub holder: Holder,
}

impl Sitter {
    /// A person with a new seat, known by their token's hash.
    pub fn person(token_hash: TokenHash) -> Sitter {
        Sitter {
            holder: Holder::Person(token_hash),
        }
    }

    /// The computer at `level`.
    pub fn computer(level: Level) -> Sitter {
        Sitter {
            holder: Holder::Computer(level),
        }
    }

    /// Someone who held a seat of a game record.
    pub fn recorded() -> Sitter {
        Sitter {
            holder: Holder::Recorded,
        }
    }

    /// The store's row for this seat; `None` for a seat known only from a record.
    pub fn row(&self) -> Option<SeatRow> {
        let (token_hash, level) = match self.holder {
            Holder::Person(hash) => (hash, ""),
            Holder::Computer(level) => (BOT_TOKEN_HASH, level.name()),
            Holder::Recorded => return None,
        };
        Some(SeatRow {
            token_hash,
            level: level.to_string(),
        })
    }
}

/// Both seats of a room.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Seats {
    black: Option<Sitter>,
    white: Option<Sitter>,
}

impl Seats {
    pub fn new(black: Option<Sitter>, white: Option<Sitter>) -> Seats {
        Seats { black, white }
    }

    /// The seats of a stored room (see [`Seats::from_rows`]).
    pub fn of_room(room: &RoomRow) -> Seats {
        Seats::from_rows(room.mode, room.black.as_ref(), room.white.as_ref())
    }

    /// The seats of a stored room. The computer sits only in `ai` rooms, stored as
    /// `BOT_TOKEN_HASH` with its level's name.
    pub fn from_rows(mode: Mode, black: Option<&SeatRow>, white: Option<&SeatRow>) -> Seats {
        let sitter = |row: Option<&SeatRow>| {
            row.map(|row| {
                let computer = (mode == Mode::Ai && row.token_hash == BOT_TOKEN_HASH)
                    .then(|| row.level.parse().ok())
                    .flatten();
                Sitter {
                    holder: computer.map_or(Holder::Person(row.token_hash), Holder::Computer),
                }
            })
        };
        Seats::new(sitter(black), sitter(white))
    }

    /// The store's row for `side`'s seat; `None` if it is free or not a stored holder.
    pub fn row(&self, side: Side) -> Option<SeatRow> {
        self.get(side)?.row()
    }

    pub fn get(&self, side: Side) -> Option<&Sitter> {
        match side {
            Side::Black => self.black.as_ref(),
            Side::White => self.white.as_ref(),
        }
    }

    pub fn is_taken(&self, side: Side) -> bool {
        self.get(side).is_some()
    }

    pub fn are_full(&self) -> bool {
        Side::BOTH.into_iter().all(|side| self.is_taken(side))
    }

    /// The seat a token holds; spectators hold none.
    pub fn seat_of(&self, token_hash: &TokenHash) -> Seat {
        let holds = |side| {
            self.get(side)
                .is_some_and(|s| s.holder == Holder::Person(*token_hash))
        };
        match (holds(Side::Black), holds(Side::White)) {
            (true, true) => Seat::Both,
            (true, false) => Seat::Black,
            (false, true) => Seat::White,
            (false, false) => Seat::Spectator,
        }
    }

    /// The seat a joiner gets: the one asked for, or any free one.
    pub fn free_seat(&self, wanted: Option<Side>) -> Result<Side, Refusal> {
        match wanted {
            Some(side) if !self.is_taken(side) => Ok(side),
            Some(side) => Err(Refusal::SeatTaken(side)),
            None => Side::BOTH
                .into_iter()
                .find(|side| !self.is_taken(*side))
                .ok_or(Refusal::RoomFull),
        }
    }

    /// The computer, if it holds a seat.
    pub fn bot(&self) -> Option<Bot> {
        Side::BOTH
            .into_iter()
            .find_map(|side| match self.get(side)?.holder {
                Holder::Computer(level) => Some(Bot { side, level }),
                _ => None,
            })
    }

    /// The same holders with colours swapped, as a rematch seats them.
    pub fn swapped(&self) -> Seats {
        Seats::new(self.white.clone(), self.black.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::hash_token;

    #[test]
    fn the_computer_round_trips_through_the_rows() {
        for level in Level::ALL {
            let person = SeatRow {
                token_hash: hash_token("person"),
                // Only the computer's token hash makes a seat the computer's.
                level: "hard".into(),
            };
            let computer = Sitter::computer(level).row().unwrap();
            let seats = Seats::from_rows(Mode::Ai, Some(&person), Some(&computer));
            let bot = Bot {
                side: Side::White,
                level,
            };
            assert_eq!(seats.bot(), Some(bot));
            assert_eq!(seats.seat_of(&hash_token("person")), Seat::Black);
            let stored = seats.row(Side::Black).unwrap();
            assert_eq!(
                (stored.token_hash, stored.level.as_str()),
                (person.token_hash, "")
            );
            assert_eq!(seats.row(Side::White), Some(computer.clone()));
            // Outside `ai` rooms nobody is the computer, whatever their row says.
            let online = Seats::from_rows(Mode::Online, Some(&person), Some(&computer));
            assert_eq!(online.bot(), None);
        }
    }

    #[test]
    fn seats_are_found_by_token_hash() {
        let row = |token: &str| SeatRow {
            token_hash: hash_token(token),
            level: String::new(),
        };
        let seats = Seats::from_rows(Mode::Online, Some(&row("b")), Some(&row("w")));
        assert_eq!(seats.seat_of(&hash_token("b")), Seat::Black);
        assert_eq!(seats.seat_of(&hash_token("w")), Seat::White);
        assert_eq!(seats.seat_of(&hash_token("x")), Seat::Spectator);
        assert_eq!(seats.swapped().seat_of(&hash_token("b")), Seat::White);
        let local = Seats::from_rows(Mode::Local, Some(&row("b")), Some(&row("b")));
        assert_eq!(local.seat_of(&hash_token("b")), Seat::Both);
        assert_eq!(local.free_seat(None), Err(Refusal::RoomFull));
    }
}
