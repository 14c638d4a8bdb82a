//! Endpoints for operators: `GET /readyz` (the database answers and is migrated) and
//! `GET /metrics` (Prometheus text; the names are in [`crate::telemetry`]). What the dashboard
//! and alert rules of `deploy/` read comes from here.

use std::time::Duration;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use super::AppState;
use crate::protocol::HttpError;
use crate::store::StoreError;
use crate::telemetry;

/// How long a scrape waits for the readiness check: under Prometheus's default scrape
/// timeout (10 s), so a stuck database shows as not ready rather than as a failed scrape.
const READY_CHECK_TIMEOUT: Duration = Duration::from_secs(2);

/// 200 when the database answers and every migration is applied, else 503: a load balancer
/// sends no players to an instance that could not keep their games. On PostgreSQL, also 503
/// while its calls are failing for want of the database (`store/deadline.rs`).
pub async fn readyz(State(state): State<AppState>) -> Response {
    // A database that stops answering must not hang the probe (its own timeout would read
    // as a failure too, later).
    let checked = tokio::time::timeout(READY_CHECK_TIMEOUT, check_ready(&state)).await;
    match checked.unwrap_or(Err(StoreError::Unavailable)) {
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

/// The database answers and is migrated; the answer is kept in the `senet_ready` gauge.
async fn check_ready(state: &AppState) -> Result<(), StoreError> {
    let checked = state.rooms.store().log.ping().await;
    telemetry::readiness_checked(checked.is_ok());
    checked
}

/// The Prometheus text exposition of every metric. Readiness, memory and its limit are read
/// now, so an alert sees them as of the scrape (a database that stops answering holds the
/// scrape back by at most [`READY_CHECK_TIMEOUT`], and counts as not ready).
pub async fn metrics(State(state): State<AppState>) -> Response {
    if tokio::time::timeout(READY_CHECK_TIMEOUT, check_ready(&state))
        .await
        .is_err()
    {
        telemetry::readiness_checked(false);
    }
    telemetry::sample_process();
    (
        [(CONTENT_TYPE, "text/plain; version=0.0.4")],
        state.metrics.render(),
    )
        .into_response()
}
