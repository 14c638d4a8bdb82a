//! `GET /api/lessons`: the rule lessons of `/learn` with the answers the engine derived
//! ([`crate::lessons`]), revalidated by a hash of the body.

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use sha2::{Digest, Sha256};

use super::{CACHE_REVALIDATE, respond, with_security_headers};

/// The lessons with the answers the engine derived. They change only with a build, so the
/// page revalidates them by a hash of the body.
pub(super) async fn lessons(headers: HeaderMap) -> Response {
    let body = match lessons_body() {
        Ok(body) => body,
        Err(error) => {
            // Only a broken lessons/lessons.json gets here, which the unit tests catch.
            tracing::error!(%error, "the lessons do not derive");
            let body = serde_json::json!({"error": "internal", "message": "internal error"});
            let response = (StatusCode::INTERNAL_SERVER_ERROR, axum::Json(body));
            return with_security_headers(response.into_response());
        }
    };
    let etag = format!("\"{}\"", hex::encode(&Sha256::digest(&body)[..8]));
    respond(
        body.into_bytes(),
        "application/json".to_owned(),
        CACHE_REVALIDATE,
        &etag,
        &headers,
    )
}

/// `{"lessons": [...]}`, each lesson's fields in their declared order.
pub(super) fn lessons_body() -> anyhow::Result<String> {
    #[derive(serde::Serialize)]
    struct Body {
        lessons: &'static [crate::lessons::Lesson],
    }
    let lessons = crate::lessons::lessons().map_err(|error| anyhow::anyhow!("{error}"))?;
    Ok(serde_json::to_string(&Body { lessons })?)
}
