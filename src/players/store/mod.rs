//! Where players live: identities, names, transfer codes, who sits in which room, and every
//! rated game with its rating changes. A store of its own beside the rooms' `Store` (a separate
//! concern, with its own trait and errors), on the same database: [`sqlite`] and [`postgres`]
//! share every statement (both accept `$1` parameters) through one [`impl_player_store`].
//!
//! A rated game is one transaction: the one that appends its `game-over` to the room's log
//! ([`RateOnCommit`], run by the rooms' store), or one of its own ([`PlayerStore::rate_game`]).
//! It locks both players' rows
//! (PostgreSQL `FOR UPDATE` in id order, SQLite `BEGIN IMMEDIATE`), counts the pair's recent
//! rated games, computes both new ratings from the locked values, numbers the game and writes
//! it. So two games of one player finishing at once on two instances are rated one after the
//! other, and the numbering is the order in which each player's ratings changed: the order
//! `senet ratings verify` replays.

pub mod postgres;
mod rerate;
mod sql;
pub mod sqlite;

use std::sync::{Arc, Mutex};

use async_trait::async_trait;

use super::name::Name;

use crate::engine::Side;
use crate::protocol::players::{PlayerRef, SeatPlayers};
use crate::protocol::{RatingChanges, UnixMs, Winner};
use crate::secrets::TokenHash;
use crate::store::InCommit;

pub use super::model::{
    Change, FinishedGame, HistoryRow, PlayerError, PlayerRow, Rated, RatedGameRow, RecentGameRow,
    RoomPlayers,
};

/// Players and ratings, object safe like the rooms' `Store`.
#[async_trait]
pub trait PlayerStore: Send + Sync + 'static {
    /// A new unnamed player with a newcomer's rating.
    async fn create_player(
        &self,
        id: &str,
        secret_hash: &TokenHash,
        creator: &str,
        now: UnixMs,
    ) -> Result<(), PlayerError>;

    /// The live player whose secret hashes to `secret_hash` (a deleted one has none).
    async fn player_by_secret(
        &self,
        secret_hash: &TokenHash,
    ) -> Result<Option<PlayerRow>, PlayerError>;

    /// A player by public id, deleted or not.
    async fn player(&self, id: &str) -> Result<Option<PlayerRow>, PlayerError>;

    /// A live player by a name's key ([`super::name::key_of`]).
    async fn player_named(&self, key: &str) -> Result<Option<PlayerRow>, PlayerError>;

    /// Names a live player: [`PlayerError::NameTaken`] if another has that key,
    /// [`PlayerError::RenameTooSoon`] within a week of the last naming; nothing changes then.
    async fn set_name(&self, id: &str, name: &Name, now: UnixMs) -> Result<(), PlayerError>;

    /// Stores a live player's transfer code (replacing an earlier one) until `expires_at`.
    async fn issue_transfer_code(
        &self,
        id: &str,
        code_hash: &TokenHash,
        expires_at: UnixMs,
    ) -> Result<(), PlayerError>;

    /// Uses a transfer code once: the player's secret becomes `new_secret_hash` (the first
    /// device's cookie no longer names anyone) and their id is returned.
    async fn redeem_transfer_code(
        &self,
        code_hash: &TokenHash,
        new_secret_hash: &TokenHash,
        now: UnixMs,
    ) -> Result<String, PlayerError>;

    /// Deletes an identity: secret, name and code go, the row stays for the games; `false` if
    /// it was unknown or deleted already.
    async fn delete_player(&self, id: &str, now: UnixMs) -> Result<bool, PlayerError>;

    /// Records a new room's rated/casual choice, before anyone sits.
    async fn open_room(&self, room: &str, rated: bool) -> Result<(), PlayerError>;

    /// Binds a room's seat to a player; `false` if it is bound already (to anyone).
    async fn bind_seat(&self, room: &str, side: Side, player: &str) -> Result<bool, PlayerError>;

    /// Who sits in a room by identity; `None` for a room without a record.
    async fn room_players(&self, room: &str) -> Result<Option<RoomPlayers>, PlayerError>;

    /// Rates a finished game (see the module doc).
    async fn rate_game(&self, game: &FinishedGame) -> Result<Rated, PlayerError>;

    /// The changes a room's rated game made, black's first; `None` if it was not rated.
    async fn room_changes(&self, room: &str) -> Result<Option<[Change; 2]>, PlayerError>;

    /// A player's rating changes, newest first, at most `limit`.
    async fn history(&self, id: &str, limit: u32) -> Result<Vec<HistoryRow>, PlayerError>;

    /// The finished games a player sat in, newest first, at most `limit`.
    async fn recent_games(&self, id: &str, limit: u32) -> Result<Vec<RecentGameRow>, PlayerError>;

    /// The best live, non-provisional players rated since `since`, at most `limit`.
    async fn leaderboard(&self, since: UnixMs, limit: u32) -> Result<Vec<PlayerRow>, PlayerError>;

    /// Rated games numbered above `after`, in order, at most `limit`.
    async fn rated_games(&self, after: i64, limit: u32) -> Result<Vec<RatedGameRow>, PlayerError>;

    /// The changes of the rated game `seq`: `(player, change)`.
    async fn changes(&self, seq: i64) -> Result<Vec<(String, Change)>, PlayerError>;

    /// Players with an id above `after`, in id order, at most `limit` (for verify).
    async fn players_after(&self, after: &str, limit: u32) -> Result<Vec<PlayerRow>, PlayerError>;
}

/// Rates a room's game in the transaction that appends its `game-over`: the rooms' store runs
/// it ([`InCommit`]) when the room task appends the game's end; afterwards [`Self::rated`]
/// says what changed, for the room's `rated` frame. A game the rule does not rate (or a log
/// it cannot read, logged) commits unrated; only a database error rolls the append back.
pub struct RateOnCommit {
    room: String,
    outcome: Mutex<Option<Rated>>,
}

impl RateOnCommit {
    pub fn new(room: &str) -> Arc<RateOnCommit> {
        Arc::new(RateOnCommit {
            room: room.to_owned(),
            outcome: Mutex::new(None),
        })
    }

    /// Both players' changes as shown, once committed, if the game was rated now.
    pub fn rated(&self) -> Option<RatingChanges> {
        match &*self.outcome.lock().unwrap_or_else(|e| e.into_inner()) {
            Some(Rated::Changed(changes)) => Some(super::shown::changes(changes)),
            _ => None,
        }
    }

    /// Keeps what the rating did; passes a database error on, to roll the append back.
    fn keep(&self, outcome: Result<Option<Rated>, PlayerError>) -> Result<(), sqlx::Error> {
        let kept = match outcome {
            Ok(rated) => rated,
            Err(PlayerError::Database(error)) => return Err(error),
            Err(error) => {
                tracing::error!(room = %self.room, %error, "a finished game could not be rated");
                None
            }
        };
        *self.outcome.lock().unwrap_or_else(|e| e.into_inner()) = kept;
        Ok(())
    }
}

#[async_trait]
impl InCommit for RateOnCommit {
    async fn on_sqlite(&self, connection: &mut sqlx::SqliteConnection) -> Result<(), sqlx::Error> {
        self.keep(sqlite::rate_room(connection, &self.room).await)
    }

    async fn on_postgres(&self, connection: &mut sqlx::PgConnection) -> Result<(), sqlx::Error> {
        self.keep(postgres::rate_room(connection, &self.room).await)
    }
}

/// Opens the player store a database URL names (migrating it, like the rooms' store).
pub async fn open(url: &str) -> Result<Arc<dyn PlayerStore>, PlayerError> {
    if url.starts_with("sqlite:") {
        Ok(Arc::new(sqlite::SqlitePlayers::open(url).await?))
    } else {
        Ok(Arc::new(postgres::PgPlayers::open(url).await?))
    }
}

/// The two sides' columns of a room's seats.
fn seat_column(side: Side) -> &'static str {
    match side {
        Side::Black => sql::BIND_BLACK,
        Side::White => sql::BIND_WHITE,
    }
}

/// Who won, from a stored `game-over` event's data.
fn winner_of(game_over: &str) -> Result<Winner, PlayerError> {
    #[derive(serde::Deserialize)]
    struct GameOver {
        winner: Winner,
    }
    serde_json::from_str::<GameOver>(game_over)
        .map(|over| over.winner)
        .map_err(|error| PlayerError::Corrupt(format!("a game-over event: {error}")))
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    error
        .as_database_error()
        .is_some_and(|e| e.is_unique_violation())
}

/// The players bound to a room's seats, as shown beside its board or in the lobby.
pub async fn seated(
    players: &dyn PlayerStore,
    room: &RoomPlayers,
) -> Result<SeatPlayers, PlayerError> {
    let shown = async |bound: &Option<String>| -> Result<Option<PlayerRef>, PlayerError> {
        let Some(id) = bound else {
            return Ok(None);
        };
        Ok(players
            .player(id)
            .await?
            .as_ref()
            .map(super::shown::player_ref))
    };
    Ok(SeatPlayers {
        black: shown(&room.black).await?,
        white: shown(&room.white).await?,
    })
}
