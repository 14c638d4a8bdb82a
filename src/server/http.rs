//! Thin REST handlers: parse and check the body, ask [`crate::room::Rooms`], answer JSON.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;

use super::AppState;
use super::error::{AppError, body};
use super::identity::Identity;
use super::seating;
use crate::ai::ParseLevelError;
use crate::analysis::Analysis;
use crate::protocol::{
    CreateRoom, DEFAULT_LEVEL, JoinRoom, Joined, Mode, Record, RoomCreated, RoomSummary,
};
use crate::room::{NewRoom, RoomError};

/// `POST /api/rooms`; an online room's creator's seat is bound to their player, if any.
pub async fn create_room(
    State(state): State<AppState>,
    Identity(player): Identity,
    request: Result<Json<CreateRoom>, JsonRejection>,
) -> Result<(StatusCode, Json<RoomCreated>), AppError> {
    let request = body(request)?;
    let kind = new_room(&request.mode, request.level.as_deref())?;
    seating::check_creator(kind.mode(), request.rated, player.as_ref())?;
    let created = state
        .rooms
        .create(kind, request.side, request.clock)
        .await?;
    if kind.mode() == Mode::Online {
        let (room, seat) = (&created.room, created.seat);
        seating::seat_creator(&state, room, seat, request.rated, player.as_ref()).await?;
    }
    Ok((StatusCode::CREATED, Json(created)))
}

/// The room a creation asks for: its mode, and the computer's level for `ai` rooms only.
fn new_room(mode: &str, level: Option<&str>) -> Result<NewRoom, AppError> {
    let mode = mode.parse::<Mode>().map_err(|_| {
        AppError::BadRequest(format!(
            "unknown mode {mode:?}: expected \"online\", \"local\" or \"ai\""
        ))
    })?;
    match (mode, level) {
        (Mode::Ai, None) => Ok(NewRoom::Ai(DEFAULT_LEVEL)),
        (Mode::Ai, Some(level)) => level
            .parse()
            .map(NewRoom::Ai)
            .map_err(|e: ParseLevelError| AppError::BadRequest(e.to_string())),
        (_, Some(_)) => Err(AppError::BadRequest(
            "\"level\" is for rooms against the computer (mode \"ai\") only".into(),
        )),
        (Mode::Online, None) => Ok(NewRoom::Online),
        (Mode::Local, None) => Ok(NewRoom::Local),
    }
}

/// `POST /api/rooms/{id}/join`; the seat is bound to the joiner's player, if any.
pub async fn join_room(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(player): Identity,
    request: Result<Json<JoinRoom>, JsonRejection>,
) -> Result<Json<Joined>, AppError> {
    let request = body(request)?;
    seating::check_joiner(&state, &id, player.as_ref()).await?;
    let joined = state.rooms.join(&id, request.side).await?;
    seating::bind(&state, &id, joined.seat, player.as_ref()).await?;
    Ok(Json(joined))
}

pub async fn room_summary(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<RoomSummary>, AppError> {
    Ok(Json(state.rooms.summary(&id).await?))
}

pub async fn room_record(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Record>, AppError> {
    if !crate::secrets::is_room_id(&id) {
        return Err(RoomError::NotFound.into());
    }
    Ok(Json(state.rooms.record(&id).await?))
}

/// A finished game's analysis (404 `not_finished` before its end).
pub async fn room_analysis(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Analysis>, AppError> {
    if !crate::secrets::is_room_id(&id) {
        return Err(RoomError::NotFound.into());
    }
    Ok(Json(state.rooms.analysis(&id).await?))
}

pub async fn healthz() -> &'static str {
    "ok"
}
