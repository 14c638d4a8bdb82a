//! The Web Push routes (issue 46; `players::push` sends): `GET /api/push/key` answers the VAPID
//! public key a page subscribes with, `POST /api/me/push` keeps this device's subscription for
//! the cookie's player (at most 10 devices), `DELETE /api/me/push` forgets it.

use axum::Json;
use axum::extract::State;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use serde::Deserialize;

use super::AppState;
use super::error::{AppError, body};
use super::identity::Identity;
use crate::players::push::PushRefusal;
use crate::players::store::PlayerError;
use crate::room::now_ms;

/// `PushSubscription.toJSON()` as a browser gives it (`expirationTime` and the rest ignored).
#[derive(Deserialize)]
pub struct SubscriptionBody {
    endpoint: String,
    keys: Keys,
}

#[derive(Deserialize)]
struct Keys {
    p256dh: String,
    auth: String,
}

/// `DELETE /api/me/push`'s body: which device.
#[derive(Deserialize)]
pub struct Endpoint {
    endpoint: String,
}

/// `GET /api/push/key`: `{"key": base64url}`, the `applicationServerKey`.
pub async fn key(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "key": state.push.public_key() }))
}

/// `POST /api/me/push`: 201; 400 `bad_subscription`, 429 `too_many_subscriptions`, 404
/// `no_player`.
pub async fn subscribe(
    State(state): State<AppState>,
    Identity(player): Identity,
    request: Result<Json<SubscriptionBody>, JsonRejection>,
) -> Result<StatusCode, AppError> {
    let player = player.ok_or(PlayerError::UnknownPlayer)?;
    let sent = body(request)?;
    let subscription = state
        .push
        .check(&sent.endpoint, &sent.keys.p256dh, &sent.keys.auth)?;
    let kept = state
        .push
        .store
        .subscribe(&player.id, &subscription, now_ms())
        .await?;
    if !kept {
        return Err(PushRefusal::TooMany.into());
    }
    Ok(StatusCode::CREATED)
}

/// `DELETE /api/me/push` `{"endpoint"}`: 204 (also when there was none), 404 `no_player`.
pub async fn unsubscribe(
    State(state): State<AppState>,
    Identity(player): Identity,
    request: Result<Json<Endpoint>, JsonRejection>,
) -> Result<StatusCode, AppError> {
    let player = player.ok_or(PlayerError::UnknownPlayer)?;
    let sent = body(request)?;
    state
        .push
        .store
        .unsubscribe(&player.id, &sent.endpoint)
        .await?;
    Ok(StatusCode::NO_CONTENT)
}
