//! Thin REST handlers: parse and check the body, ask [`crate::room::Rooms`], answer JSON.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::de::DeserializeOwned;

use super::AppState;
use super::error::AppError;
use crate::ai::{Level, ParseLevelError};
use crate::protocol::{CreateRoom, JoinRoom, Joined, Mode, Record, RoomCreated, RoomSummary};

/// Longest `client_seed` accepted, in characters.
const MAX_CLIENT_SEED: usize = 64;

/// A JSON body, or a 400 with the parser's complaint in our error format.
fn body<T: DeserializeOwned>(body: Result<Json<T>, JsonRejection>) -> Result<T, AppError> {
    body.map(|Json(value)| value)
        .map_err(|rejection| AppError::BadRequest(rejection.body_text()))
}

/// Client seeds go into the throw formula between `:` separators, so they
/// may not contain `:` (that would make two seed pairs read the same).
fn check_client_seed(seed: &str) -> Result<(), AppError> {
    if seed.chars().count() > MAX_CLIENT_SEED {
        return Err(AppError::BadRequest(format!(
            "client_seed is longer than {MAX_CLIENT_SEED} characters"
        )));
    }
    if seed.chars().any(|c| c == ':' || c.is_control()) {
        return Err(AppError::BadRequest(
            "client_seed may not contain ':' or control characters".into(),
        ));
    }
    Ok(())
}

pub async fn create_room(
    State(state): State<AppState>,
    request: Result<Json<CreateRoom>, JsonRejection>,
) -> Result<(StatusCode, Json<RoomCreated>), AppError> {
    let request = body(request)?;
    check_client_seed(&request.client_seed)?;
    let mode = request.mode.parse::<Mode>().map_err(|_| {
        AppError::BadRequest(format!(
            "unknown mode {:?}: expected \"online\", \"local\" or \"ai\"",
            request.mode
        ))
    })?;
    let level = ai_level(mode, request.level.as_deref())?;
    let created = state
        .rooms
        .create(mode, request.side, request.client_seed, level)
        .await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// The computer's level when none is asked for: a fair game for most people.
pub const DEFAULT_LEVEL: Level = Level::Medium;

/// The level of an `ai` room; other modes have no computer to give one to.
fn ai_level(mode: Mode, level: Option<&str>) -> Result<Level, AppError> {
    match (mode, level) {
        (Mode::Ai, None) => Ok(DEFAULT_LEVEL),
        (Mode::Ai, Some(level)) => level
            .parse()
            .map_err(|e: ParseLevelError| AppError::BadRequest(e.to_string())),
        (_, None) => Ok(DEFAULT_LEVEL),
        (_, Some(_)) => Err(AppError::BadRequest(
            "\"level\" is for rooms against the computer (mode \"ai\") only".into(),
        )),
    }
}

pub async fn join_room(
    State(state): State<AppState>,
    Path(id): Path<String>,
    request: Result<Json<JoinRoom>, JsonRejection>,
) -> Result<Json<Joined>, AppError> {
    let request = body(request)?;
    check_client_seed(&request.client_seed)?;
    let joined = state
        .rooms
        .join(&id, request.side, request.client_seed)
        .await?;
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
        return Err(AppError::NotFound);
    }
    Ok(Json(state.rooms.record(&id).await?))
}

pub async fn healthz() -> &'static str {
    "ok"
}
