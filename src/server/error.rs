//! One error type for HTTP handlers, mapped to a status and a JSON body
//! `{"error": code, "message": text}`. Internal failures are logged here and
//! answered with a generic message, never with their details.

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};

use crate::protocol::{ErrorCode, HttpError};
use crate::room::{ActionError, RoomError};

#[derive(Debug)]
pub enum AppError {
    /// The request itself is wrong (400).
    BadRequest(String),
    NotFound,
    /// The room refused (409 for a full room, else 400).
    Refused(ActionError),
    /// Logged, answered 500 or 503 without details.
    Internal(anyhow::Error),
    Unavailable,
}

impl From<RoomError> for AppError {
    fn from(error: RoomError) -> Self {
        match error {
            RoomError::NotFound => AppError::NotFound,
            RoomError::Refused(error) if error.code == ErrorCode::Internal => {
                AppError::Internal(anyhow::anyhow!(error.message))
            }
            RoomError::Refused(error) => AppError::Refused(error),
            RoomError::Store(error) => AppError::Internal(error.into()),
            RoomError::Unavailable => AppError::Unavailable,
        }
    }
}

fn code_name(code: ErrorCode) -> String {
    match serde_json::to_value(code) {
        Ok(serde_json::Value::String(name)) => name,
        _ => "internal".into(),
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let (status, code, message) = match self {
            AppError::BadRequest(message) => {
                (StatusCode::BAD_REQUEST, ErrorCode::BadRequest, message)
            }
            AppError::NotFound => (
                StatusCode::NOT_FOUND,
                ErrorCode::RoomNotFound,
                "no such room".to_string(),
            ),
            AppError::Refused(error) => {
                let status = match error.code {
                    ErrorCode::RoomFull => StatusCode::CONFLICT,
                    _ => StatusCode::BAD_REQUEST,
                };
                (status, error.code, error.message)
            }
            AppError::Internal(error) => {
                tracing::error!(error = %error, "internal error");
                let message = "internal error".to_string();
                (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    ErrorCode::Internal,
                    message,
                )
            }
            AppError::Unavailable => (
                StatusCode::SERVICE_UNAVAILABLE,
                ErrorCode::Internal,
                "the server is restarting: try again".to_string(),
            ),
        };
        let body = HttpError {
            error: code_name(code),
            message,
        };
        (status, Json(body)).into_response()
    }
}
