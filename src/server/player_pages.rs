//! The read-only player routes (issue 29's contract): a player's page by id or by name, and
//! the leaderboard. Reads only: identities are made and changed by `/api/me` (the identity
//! routes); ratings by the rooms, in the `game-over` transaction. `GET /api/me/turns` is here
//! too: the asking player's "your turn" list, read from the correspondence games' turns.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};

use super::AppState;
use super::error::AppError;
use super::identity::Identity;
use crate::players::identity::is_player_id;
use crate::players::name::key_of;
use crate::players::rating::Score;
use crate::players::shown;
use crate::players::store::{PlayerError, PlayerRow, PlayerStore};
use crate::protocol::UnixMs;
use crate::protocol::player_page::{HistoryEntry, PlayerPage, RecentGame, Top, TurnGame, YourTurn};
use crate::protocol::players::PlayerRef;
use crate::room::error::RoomError;
use crate::store::TURNS_OF_LIMIT;

/// The rating changes a page lists.
const HISTORY_LIMIT: u32 = 200;
/// The finished games a page lists.
const RECENT_LIMIT: u32 = 20;
/// The leaderboard's length.
const TOP_LIMIT: u32 = 100;
/// The leaderboard counts players with a rated game this recent: 30 days.
const TOP_ACTIVE_MS: UnixMs = 30 * 24 * 3_600_000;

#[derive(serde::Deserialize)]
pub struct ByName {
    name: String,
}

/// `GET /api/players/{id}`: deleted players too (their games stay, under "deleted player").
pub async fn by_id(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<PlayerPage>, AppError> {
    if !is_player_id(&id) {
        return Err(PlayerError::NotFound.into());
    }
    let row = state.players.player(&id).await?;
    page(&*state.players, row).await
}

/// `GET /api/players?name=`: the live player with this name, ignoring case (NFC).
pub async fn by_name(
    State(state): State<AppState>,
    Query(query): Query<ByName>,
) -> Result<Json<PlayerPage>, AppError> {
    let row = state.players.player_named(&key_of(&query.name)).await?;
    page(&*state.players, row).await
}

/// `GET /api/top`.
pub async fn top(State(state): State<AppState>) -> Result<Json<Top>, AppError> {
    let since = crate::room::now_ms() - TOP_ACTIVE_MS;
    let rows = state.players.leaderboard(since, TOP_LIMIT).await?;
    Ok(Json(Top {
        players: rows.iter().map(shown::player).collect(),
    }))
}

/// `GET /api/me/turns`: the correspondence games where the cookie's player is to move, soonest
/// due first (at most [`TURNS_OF_LIMIT`], a player's most games at once). A browser without an
/// identity has no games: an empty list (not 404), as every home page asks.
pub async fn turns(
    State(state): State<AppState>,
    identity: Identity,
) -> Result<Json<YourTurn>, AppError> {
    let Identity(Some(row)) = identity else {
        let games = Vec::new();
        return Ok(Json(YourTurn {
            player: None,
            games,
        }));
    };
    let mut others = Opponents::default();
    let mut games = Vec::new();
    let log = &state.rooms.store().log;
    let rows = log
        .turns_of(&row.id, TURNS_OF_LIMIT)
        .await
        .map_err(RoomError::from)?;
    for turn in rows {
        let opponent = match &turn.opponent {
            Some(id) => Some(others.get(&*state.players, id).await?),
            None => None,
        };
        games.push(TurnGame {
            room: turn.room,
            due_at: turn.due_at,
            opponent,
        });
    }
    Ok(Json(YourTurn {
        player: Some(row.id),
        games,
    }))
}

async fn page(
    players: &dyn PlayerStore,
    row: Option<PlayerRow>,
) -> Result<Json<PlayerPage>, AppError> {
    let row = row.ok_or(PlayerError::NotFound)?;
    let mut others = Opponents::default();
    let mut history = Vec::new();
    for change in players.history(&row.id, HISTORY_LIMIT).await? {
        let black = change.black == row.id;
        let opponent = if black { &change.white } else { &change.black };
        history.push(HistoryEntry {
            opponent: others.get(players, opponent).await?,
            room: change.room,
            at: change.at,
            score: if black {
                change.score
            } else {
                1.0 - change.score
            },
            before: shown::change(&change.change.before),
            after: shown::change(&change.change.after),
        });
    }
    let mut recent = Vec::new();
    for game in players.recent_games(&row.id, RECENT_LIMIT).await? {
        let black = game.black.as_deref() == Some(row.id.as_str());
        let opponent = if black { &game.white } else { &game.black };
        let opponent = match opponent {
            Some(id) => Some(others.get(players, id).await?),
            None => None,
        };
        let black_points = game
            .rated_score
            .or_else(|| Score::of(game.winner).map(Score::points));
        recent.push(RecentGame {
            room: game.room,
            at: game.at,
            opponent,
            score: black_points.map(|points| if black { points } else { 1.0 - points }),
            rated: game.rated_score.is_some(),
        });
    }
    Ok(Json(PlayerPage {
        player: shown::player(&row),
        history,
        recent,
    }))
}

/// The opponents of one page, each read once.
#[derive(Default)]
pub(super) struct Opponents(HashMap<String, PlayerRef>);

impl Opponents {
    pub(super) async fn get(
        &mut self,
        players: &dyn PlayerStore,
        id: &str,
    ) -> Result<PlayerRef, PlayerError> {
        if let Some(found) = self.0.get(id) {
            return Ok(found.clone());
        }
        let row = players
            .player(id)
            .await?
            .ok_or_else(|| PlayerError::Corrupt(format!("a game names the unknown player {id}")))?;
        let shown = shown::player_ref(&row);
        self.0.insert(id.to_owned(), shown.clone());
        Ok(shown)
    }
}
