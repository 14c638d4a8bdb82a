//! Challenges, follows and blocks (issue 46; docs/PROTOCOL.md "Challenges" and "Follows"):
//! `POST /api/challenges` (a named player, or a link challenge), `GET /api/challenges`,
//! `GET|DELETE /api/challenges/{id}`, `POST /api/challenges/{id}/accept|decline`, and
//! `GET /api/me/follows`, `PUT|DELETE /api/me/follows/{player}`, the same for `blocks`. The
//! work is `crate::lobby::challenges` and the players' social store; each refusal is worded once
//! in `server::error`.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;

use super::AppState;
use super::edge::ClientAddr;
use super::error::{AppError, body};
use super::identity::Identity;
use super::player_pages::Opponents;
use crate::players::identity::is_player_id;
use crate::players::name::key_of;
use crate::players::shown;
use crate::players::store::{PlayerError, PlayerRow};
use crate::protocol::social::{
    Blocks, Challenge, Challenges, DeclineChallenge, Followed, Follows, ListCount, PostChallenge,
    RecentResult,
};
use crate::protocol::{RoomCreated, Winner};
use crate::room::now_ms;

/// A followed player's finished games the list shows.
const RECENT_RESULTS: u32 = 3;

/// `POST /api/challenges`: 201 with the challenge (its `link` for a link challenge).
pub async fn post(
    State(state): State<AppState>,
    Extension(client): Extension<ClientAddr>,
    identity: Identity,
    request: Result<Json<PostChallenge>, JsonRejection>,
) -> Result<(StatusCode, Json<Challenge>), AppError> {
    let challenger = identity.required()?;
    let request = body(request)?;
    let challenged = match &request.name {
        Some(name) => Some(
            state
                .players
                .player_named(&key_of(name))
                .await?
                .ok_or(PlayerError::NotFound)?,
        ),
        None => None,
    };
    let address = client.0.to_string();
    let sent = state
        .challenges
        .send(&challenger, challenged.as_ref(), &address, &request);
    Ok((StatusCode::CREATED, Json(sent.await?)))
}

/// `GET /api/challenges`: the asker's pending challenges, sent and received; none without a
/// player (every player page asks, and a visitor without an identity has none).
pub async fn pending(
    State(state): State<AppState>,
    Identity(player): Identity,
) -> Result<Json<Challenges>, AppError> {
    let Some(player) = player else {
        let none = Challenges {
            sent: Vec::new(),
            received: Vec::new(),
        };
        return Ok(Json(none));
    };
    let (sent, received) = state.challenges.pending(&player.id).await?;
    Ok(Json(Challenges { sent, received }))
}

/// `GET /api/challenges/{id}`: to its two players, and to anyone with a link challenge's id.
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(player): Identity,
) -> Result<Json<Challenge>, AppError> {
    let asker = player.as_ref().map(|row| row.id.as_str());
    Ok(Json(state.challenges.show(&id, asker).await?))
}

/// `POST /api/challenges/{id}/accept`: the game's room and the accepter's seat, as a join.
pub async fn accept(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(player): Identity,
) -> Result<Json<RoomCreated>, AppError> {
    Ok(Json(state.challenges.accept(&id, player.as_ref()).await?))
}

/// `POST /api/challenges/{id}/decline` with `{"reason": …}` from the list (a link challenge's
/// also without a player, as its accept).
pub async fn decline(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(player): Identity,
    request: Result<Json<DeclineChallenge>, JsonRejection>,
) -> Result<StatusCode, AppError> {
    let request = body(request)?;
    let asker = player.as_ref().map(|row| row.id.as_str());
    let declined = state.challenges.decline(&id, asker, request.reason);
    declined.await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/challenges/{id}`: the challenger cancels.
pub async fn cancel(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<StatusCode, AppError> {
    let player = identity.required()?;
    state.challenges.cancel(&id, &player.id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// The other player of a follow or block: a live player other than the asker.
async fn other(state: &AppState, asker: &PlayerRow, id: &str) -> Result<PlayerRow, AppError> {
    if id == asker.id {
        return Err(AppError::BadRequest(
            "that is you: follow and block other players".into(),
        ));
    }
    let row = match is_player_id(id) {
        true => state.players.player(id).await?,
        false => None,
    };
    match row {
        Some(row) if row.deleted_at.is_none() => Ok(row),
        _ => Err(PlayerError::NotFound.into()),
    }
}

/// `GET /api/me/follows`: each followed player, online now, playing now, recent results.
pub async fn follows(
    State(state): State<AppState>,
    identity: Identity,
) -> Result<Json<Follows>, AppError> {
    let player = identity.required()?;
    let social = state.challenges.social();
    let mut follows = Vec::new();
    let mut opponents = Opponents::default();
    for id in social.follows(&player.id).await? {
        let Some(row) = state.players.player(&id).await? else {
            continue;
        };
        follows.push(Followed {
            player: shown::player_ref(&row),
            online: state.challenges.online_here(&id),
            playing: social.playing(&id).await?,
            recent: recent_results(&state, &id, &mut opponents).await?,
        });
    }
    let max = social.bounds().follows;
    Ok(Json(Follows { follows, max }))
}

/// `id`'s last finished games as the follows list shows them: the result, the opponent's name.
async fn recent_results(
    state: &AppState,
    id: &str,
    opponents: &mut Opponents,
) -> Result<Vec<RecentResult>, AppError> {
    let mut results = Vec::new();
    for game in state.players.recent_games(id, RECENT_RESULTS).await? {
        let (mine, theirs) = match game.black.as_deref() == Some(id) {
            true => (Winner::Black, game.white),
            false => (Winner::White, game.black),
        };
        let result = match game.winner {
            Winner::None => "draw",
            winner if winner == mine => "win",
            _ => "loss",
        };
        let opponent = match theirs {
            Some(other) => Some(opponents.get(state.players.as_ref(), &other).await?.name),
            None => None,
        };
        results.push(RecentResult {
            room: game.room,
            result: result.into(),
            opponent,
        });
    }
    Ok(results)
}

/// `PUT /api/me/follows/{player}`.
pub async fn follow(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<Json<ListCount>, AppError> {
    let player = identity.required()?;
    let followed = other(&state, &player, &id).await?;
    let social = state.challenges.social();
    social.follow(&player.id, &followed.id, now_ms()).await?;
    let count = social.follows(&player.id).await?.len();
    let max = social.bounds().follows;
    Ok(Json(ListCount { count, max }))
}

/// `DELETE /api/me/follows/{player}`: 204, also when not followed.
pub async fn unfollow(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<StatusCode, AppError> {
    let player = identity.required()?;
    state.challenges.social().unfollow(&player.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// `GET /api/me/blocks`.
pub async fn blocks(
    State(state): State<AppState>,
    identity: Identity,
) -> Result<Json<Blocks>, AppError> {
    let player = identity.required()?;
    let social = state.challenges.social();
    let mut blocks = Vec::new();
    for id in social.blocks(&player.id).await? {
        if let Some(row) = state.players.player(&id).await? {
            blocks.push(shown::player_ref(&row));
        }
    }
    let max = social.bounds().blocks;
    Ok(Json(Blocks { blocks, max }))
}

/// `PUT /api/me/blocks/{player}`: no challenges, chat or pairing between the two from now on.
pub async fn block(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<Json<ListCount>, AppError> {
    let player = identity.required()?;
    let blocked = other(&state, &player, &id).await?;
    let social = state.challenges.social();
    social.block(&player.id, &blocked.id, now_ms()).await?;
    let count = social.blocks(&player.id).await?.len();
    let max = social.bounds().blocks;
    Ok(Json(ListCount { count, max }))
}

/// `DELETE /api/me/blocks/{player}`: 204, also when not blocked.
pub async fn unblock(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<StatusCode, AppError> {
    let player = identity.required()?;
    state.challenges.social().unblock(&player.id, &id).await?;
    Ok(StatusCode::NO_CONTENT)
}
