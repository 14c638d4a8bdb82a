//! Correspondence games' turns (`correspondence_turns`): for each one being played, the side to
//! move and when its days run out. A correspondence room is let go while idle (its clock runs
//! in days, with nobody holding it), so this row is how the server finds the games whose time
//! ran out ([`super::RoomLog::due_turns`]) and loads them to decide the timeout. The room task
//! writes it in the commit of the events that change it ([`TurnOnCommit`]), and again as it
//! loads the room ([`super::RoomLog::set_turn`]), which mends a row a path that makes no turn
//! (a rematch's room started at once, the operator's end) left behind. The statements are the
//! same on both backends (SQLite reads `$1` as PostgreSQL does).
//!
//! The same rows are the "your turn" list ([`super::RoomLog::turns_of`]): joined with
//! `room_players` by the side to move, over the indexes on both (`room_players_black`,
//! `room_players_white`), so the list costs one indexed read and no room in memory. Live games
//! are not in it: their player is at the board, and their turn lasts seconds.

use async_trait::async_trait;

use super::InCommit;
use crate::engine::Side;
use crate::protocol::UnixMs;

/// The side to move of a correspondence game and when its allowance runs out.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Turn {
    pub side: Side,
    pub due_at: UnixMs,
}

pub(super) const UPSERT: &str = "INSERT INTO correspondence_turns (room, side, due_at) \
                                 VALUES ($1, $2, $3) ON CONFLICT (room) DO UPDATE \
                                 SET side = excluded.side, due_at = excluded.due_at";
pub(super) const DELETE: &str = "DELETE FROM correspondence_turns WHERE room = $1";
pub(super) const DUE: &str = "SELECT room FROM correspondence_turns WHERE due_at <= $1 \
                              ORDER BY due_at, room LIMIT $2";

/// Longest "your turn" list: a player has at most this many correspondence games at once.
pub const TURNS_OF_LIMIT: u32 = 100;

/// A correspondence game where `player` is to move: the room, when their days run out, and the
/// opponent's player id (`None`: the seat is not bound to a player).
#[derive(Clone, Debug, PartialEq, Eq, sqlx::FromRow)]
pub struct TurnOf {
    pub room: String,
    pub due_at: UnixMs,
    pub opponent: Option<String>,
}

pub(super) const OF_PLAYER: &str = "SELECT t.room, t.due_at, \
     CASE WHEN t.side = 'black' THEN p.white ELSE p.black END AS opponent \
     FROM correspondence_turns t JOIN room_players p ON p.room = t.room \
     WHERE (t.side = 'black' AND p.black = $1) OR (t.side = 'white' AND p.white = $1) \
     ORDER BY t.due_at, t.room LIMIT $2";

/// Reads the games where `$player` is to move on `$pool`, soonest due first.
macro_rules! turns_of {
    ($pool:expr, $player:expr, $limit:expr) => {
        sqlx::query_as::<_, $crate::store::turns::TurnOf>($crate::store::turns::OF_PLAYER)
            .bind($player)
            .bind(i64::from($limit))
            .fetch_all($pool)
            .await
    };
}
pub(super) use turns_of;

/// Writes a room's turn (`None`: the game is not being played) on `$connection`.
macro_rules! write_turn {
    ($connection:expr, $room:expr, $turn:expr) => {
        match $turn {
            Some(turn) => sqlx::query($crate::store::turns::UPSERT)
                .bind($room)
                .bind(turn.side.name())
                .bind(turn.due_at)
                .execute($connection)
                .await
                .map(|_| ()),
            None => sqlx::query($crate::store::turns::DELETE)
                .bind($room)
                .execute($connection)
                .await
                .map(|_| ()),
        }
    };
}
pub(super) use write_turn;

/// A correspondence game's turn as its events change it, written in their commit.
pub struct TurnOnCommit {
    pub room: String,
    pub turn: Option<Turn>,
}

#[async_trait]
impl InCommit for TurnOnCommit {
    async fn on_sqlite(&self, connection: &mut sqlx::SqliteConnection) -> Result<(), sqlx::Error> {
        write_turn!(connection, self.room.as_str(), self.turn)
    }

    async fn on_postgres(&self, connection: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
        write_turn!(connection, self.room.as_str(), self.turn)
    }
}
