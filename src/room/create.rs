//! New rooms: the kinds a player may ask for and their time controls, checked; the creator's
//! seat and token; and the one function that stores every room (a player's or a rematch's),
//! started at once when both seats are taken.

use super::{Rooms, now_ms, stored_event};
use crate::ai::Level;
use crate::engine::Side;
use crate::fairness::new_seed;
use crate::protocol::{
    CORRESPONDENCE_DAYS, ClientSeed, DAY_SECONDS, Mode, RoomCreated, Seat, SideChoice, TimeControl,
    room_url,
};
use crate::room::error::{Refusal, RoomError};
use crate::room::game::{Game, Room};
use crate::room::seats::{Seats, Sitter};
use crate::secrets::{hash_token, new_room_id, new_token, random_bytes};
use crate::store::{RoomLog, RoomRow, StoreError, StoredEvent};

/// The room a player asks for, with what only that kind of room needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewRoom {
    /// Two players, each with their own token; waits for the second.
    Online,
    /// One screen: one token holds both seats; starts at once.
    Local,
    /// Against the computer at a level; starts at once.
    Ai(Level),
}

/// The longest initial time of a timed game, in seconds (two hours).
pub const MAX_CLOCK_INITIAL: u32 = 2 * 60 * 60;

/// The largest increment, in seconds.
pub const MAX_CLOCK_INCREMENT: u32 = 60;

// A stored control whole days long is a correspondence one (`TimeControl::from_columns`).
const _: () = assert!(MAX_CLOCK_INITIAL < DAY_SECONDS);

impl NewRoom {
    /// Checks a time control for this kind of room: `ai` rooms are untimed, and the times
    /// must be in range (`min_initial` is the server's setting).
    fn check_clock(self, clock: Option<TimeControl>, min_initial: u32) -> Result<(), Refusal> {
        let Some(clock) = clock else {
            return Ok(());
        };
        if let NewRoom::Ai(_) = self {
            return Err(Refusal::BadClock(
                "games against the computer are untimed: send \"clock\": null".into(),
            ));
        }
        if let Some(days) = clock.days {
            return self.check_correspondence(days);
        }
        if !(min_initial..=MAX_CLOCK_INITIAL).contains(&clock.initial) {
            return Err(Refusal::BadClock(format!(
                "clock.initial must be {min_initial} to {MAX_CLOCK_INITIAL} seconds"
            )));
        }
        if clock.increment > MAX_CLOCK_INCREMENT {
            return Err(Refusal::BadClock(format!(
                "clock.increment must be 0 to {MAX_CLOCK_INCREMENT} seconds"
            )));
        }
        Ok(())
    }

    /// A correspondence control: online games only, at one of the offered allowances.
    fn check_correspondence(self, days: u8) -> Result<(), Refusal> {
        if self != NewRoom::Online {
            return Err(Refusal::BadClock(
                "correspondence clocks are for online games between two players".into(),
            ));
        }
        if !CORRESPONDENCE_DAYS.contains(&days) {
            return Err(Refusal::BadClock(format!(
                "clock.days must be one of {CORRESPONDENCE_DAYS:?}"
            )));
        }
        Ok(())
    }

    /// The mode of the rooms this makes.
    pub fn mode(self) -> Mode {
        match self {
            NewRoom::Online => Mode::Online,
            NewRoom::Local => Mode::Local,
            NewRoom::Ai(_) => Mode::Ai,
        }
    }
}

impl Rooms {
    /// Creates a room with the creator seated (and the computer, in `ai` rooms), timed by
    /// `clock` or untimed.
    pub async fn create(
        &self,
        kind: NewRoom,
        side: SideChoice,
        clock: Option<TimeControl>,
    ) -> Result<RoomCreated, RoomError> {
        kind.check_clock(clock, self.inner.config.min_clock_initial)?;
        let (token, creator) = new_seat();
        let side = match side {
            SideChoice::Black => Side::Black,
            SideChoice::White => Side::White,
            SideChoice::Random if rand::random::<bool>() => Side::Black,
            SideChoice::Random => Side::White,
        };
        let (seats, seat) = match (kind, side) {
            (NewRoom::Local, _) => (Seats::new(Some(creator.clone()), Some(creator)), Seat::Both),
            (NewRoom::Online, Side::Black) => (Seats::new(Some(creator), None), Seat::Black),
            (NewRoom::Online, Side::White) => (Seats::new(None, Some(creator)), Seat::White),
            (NewRoom::Ai(level), Side::Black) => (
                Seats::new(Some(creator), Some(Sitter::computer(level))),
                Seat::Black,
            ),
            (NewRoom::Ai(level), Side::White) => (
                Seats::new(Some(Sitter::computer(level)), Some(creator)),
                Seat::White,
            ),
        };
        let id = new_room_id();
        create_room(self.store().log.as_ref(), &id, kind.mode(), &seats, clock).await?;
        tracing::info!(room = %id, mode = kind.mode().name(), "room created");
        Ok(RoomCreated {
            url: room_url(&id),
            room: id,
            seat,
            token,
        })
    }
}

/// A seat for a new player: its token (handed to the player once) and the
/// sitter to store, which keeps only the token's hash.
pub(super) fn new_seat() -> (String, Sitter) {
    let token = new_token();
    let sitter = Sitter::person(hash_token(&token));
    (token, sitter)
}

/// The computer's client seed: 128 bits from the OS generator, drawn after the room's seed.
fn computer_seed() -> ClientSeed {
    ClientSeed::parse(&hex::encode(random_bytes::<16>())).expect("hex is a valid client seed")
}

/// Stores a new room with its seats and, if both are taken, its `started` event (and in `ai`
/// rooms then the computer's client seed), in one step. Every room is made here: by a player
/// (`POST /api/rooms`) or by a rematch (whose room is made in the append of its `rematch`
/// event, from the same [`new_room_rows`]).
pub(super) async fn create_room(
    log: &dyn RoomLog,
    id: &str,
    mode: Mode,
    seats: &Seats,
    clock: Option<TimeControl>,
) -> Result<(), StoreError> {
    let (row, first_events, summary) = new_room_rows(id, mode, seats, clock);
    log.create_room(&row, &first_events, Some(&summary)).await
}

/// What the store keeps of a new room: its row, its first events and its summary after them.
pub(super) fn new_room_rows(
    id: &str,
    mode: Mode,
    seats: &Seats,
    clock: Option<TimeControl>,
) -> (RoomRow, Vec<StoredEvent>, String) {
    let row = RoomRow {
        id: id.to_string(),
        mode,
        seed: new_seed(),
        created_at: now_ms(),
        black: seats.row(Side::Black),
        white: seats.row(Side::White),
        clock,
    };
    let room = Room::new(row.id.clone(), mode, row.seed, clock);
    let started = Game::new(room, seats.clone()).decide_start(row.created_at);
    let seeded = started
        .game
        .decide_computer_seed(computer_seed(), row.created_at);
    let summary = super::summary::of(&seeded.game);
    let first_events: Vec<StoredEvent> = started
        .events
        .iter()
        .chain(&seeded.events)
        .zip(1..)
        .map(|(event, v)| stored_event(v, row.created_at, event))
        .collect();
    (row, first_events, summary)
}

/// The hook tournaments and classes use (issue 45, docs/TOURNAMENTS.md "The director"; issue
/// 50, docs/UI.md "Class"): an online room
/// whose two seats are taken at once by the holders of `tokens` (black's, white's), so its game
/// and its clock (if timed) start as it is stored, made by [`create_room`] like every other room.
impl Rooms {
    /// Checks an online game's time control as `POST /api/rooms` does.
    pub fn check_online_clock(&self, clock: TimeControl) -> Result<(), RoomError> {
        let min = self.inner.config.min_clock_initial;
        Ok(NewRoom::Online.check_clock(Some(clock), min)?)
    }

    /// Makes the room `id` for two seated players and loads it, so that its clock runs (and
    /// ends the game of a player who never comes) with nobody connected. A room that exists
    /// already (made before a restart) is only loaded.
    pub async fn create_seated(
        &self,
        id: &str,
        clock: Option<TimeControl>,
        tokens: [&str; 2],
    ) -> Result<(), RoomError> {
        let seats = Seats::new(
            Some(Sitter::person(hash_token(tokens[0]))),
            Some(Sitter::person(hash_token(tokens[1]))),
        );
        match create_room(self.store().log.as_ref(), id, Mode::Online, &seats, clock).await {
            Ok(()) | Err(StoreError::RoomExists) => {}
            Err(error) => return Err(error.into()),
        }
        self.handle(id).await?;
        Ok(())
    }
}
