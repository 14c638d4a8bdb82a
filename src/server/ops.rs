//! Endpoints for operators: `GET /readyz` (the database answers and is migrated) and
//! `GET /metrics` (Prometheus text; the names are in [`crate::telemetry`]).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::AppState;
use crate::protocol::HttpError;

/// 200 when the database answers and every migration is applied, else 503: a load balancer
/// sends no players to an instance that could not keep their games.
pub async fn readyz(State(state): State<AppState>) -> Response {
    match state.rooms.store().log.ping().await {
        Ok(()) => Json(json!({"status": "ready"})).into_response(),
        Err(error) => {
            tracing::warn!(%error, "not ready");
            let body = HttpError {
                error: "not_ready".into(),
                message: "the database is not reachable or not migrated".into(),
            };
            (StatusCode::SERVICE_UNAVAILABLE, Json(body)).into_response()
        }
    }
}

/// The Prometheus text exposition of every metric.
pub async fn metrics(State(state): State<AppState>) -> Response {
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
        .into_response()
}
