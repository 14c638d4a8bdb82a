//! The identity routes (issue 29's contract): `POST /api/me` issues a player, `GET /api/me`
//! says who the cookie names, `PUT /api/me/name` names them, `POST /api/me/transfer` and
//! `POST /api/me/redeem` move them to another device, `DELETE /api/me` deletes them.
//!
//! The player's secret lives only in the `senet_player` cookie (`HttpOnly`, `SameSite=Lax`,
//! `Secure` over https) and, hashed, in the players' store: it is never in a URL, a log line
//! or a body. [`Identity`] is the extractor every handler that cares who asks uses (these
//! routes, and the room and lobby routes that bind seats to players).

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Extension, FromRequestParts, State};
use axum::http::header::{COOKIE, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use cookie::{Cookie, SameSite};

use super::AppState;
use super::edge::ClientAddr;
use super::error::{AppError, body};
use crate::players::identity::{
    TRANSFER_CODE_TTL_MS, new_player_id, new_secret, new_transfer_code, transfer_code_hash,
};
use crate::players::name::Name;
use crate::players::shown;
use crate::players::store::{PlayerError, PlayerRow};
use crate::protocol::players::{Player, Redeem, Rename, TransferCode};
use crate::room::now_ms;
use crate::secrets::hash_token;

/// The cookie that holds a player's secret.
pub const COOKIE_NAME: &str = "senet_player";

/// How long a browser keeps the cookie: a year (each visit does not renew it).
const COOKIE_DAYS: i64 = 365;

/// Who asks: the live player the request's cookie names, if any.
pub struct Identity(pub Option<PlayerRow>);

impl Identity {
    /// The player, or 404 `no_player`.
    pub(super) fn required(self) -> Result<PlayerRow, AppError> {
        self.0.ok_or(AppError::Player(PlayerError::UnknownPlayer))
    }
}

impl FromRequestParts<AppState> for Identity {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let Some(secret) = secret_of(&parts.headers) else {
            return Ok(Identity(None));
        };
        let player = state.players.player_by_secret(&hash_token(&secret)).await?;
        Ok(Identity(player))
    }
}

/// The secret a request's `Cookie` headers carry, if any.
fn secret_of(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(Cookie::split_parse)
        .filter_map(Result::ok)
        .find(|cookie| cookie.name() == COOKIE_NAME)
        .map(|cookie| cookie.value().to_owned())
}

/// `POST /api/me`: a new player with the cookie (201), or the one the cookie names (200).
pub async fn create(
    State(state): State<AppState>,
    Extension(client): Extension<ClientAddr>,
    headers: HeaderMap,
    Identity(known): Identity,
) -> Result<Response, AppError> {
    if let Some(row) = known {
        return Ok(Json(shown::player(&row)).into_response());
    }
    let (id, (secret, hash)) = (new_player_id(), new_secret());
    let creator = client.0.to_string();
    state
        .players
        .create_player(&id, &hash, &creator, now_ms())
        .await?;
    let player = reload(&state, &id).await?;
    let cookie = set_cookie(&state, &headers, &secret);
    Ok((StatusCode::CREATED, cookie, Json(player)).into_response())
}

/// `GET /api/me`.
pub async fn me(identity: Identity) -> Result<Json<Player>, AppError> {
    Ok(Json(shown::player(&identity.required()?)))
}

/// `PUT /api/me/name`.
pub async fn rename(
    State(state): State<AppState>,
    identity: Identity,
    request: Result<Json<Rename>, JsonRejection>,
) -> Result<Json<Player>, AppError> {
    let row = identity.required()?;
    let name = Name::parse(&body(request)?.name).map_err(AppError::Name)?;
    state.players.set_name(&row.id, &name, now_ms()).await?;
    Ok(Json(reload(&state, &row.id).await?))
}

/// `POST /api/me/transfer`: a one-time code for another device (replacing an earlier one).
pub async fn transfer(
    State(state): State<AppState>,
    identity: Identity,
) -> Result<(StatusCode, Json<TransferCode>), AppError> {
    let row = identity.required()?;
    let code = new_transfer_code();
    let hash = transfer_code_hash(&code).expect("a new code is well formed");
    let expires_at = now_ms() + TRANSFER_CODE_TTL_MS;
    state
        .players
        .issue_transfer_code(&row.id, &hash, expires_at)
        .await?;
    Ok((StatusCode::CREATED, Json(TransferCode { code, expires_at })))
}

/// `POST /api/me/redeem`: this browser becomes the code's player (the first device's cookie
/// names nobody any more).
pub async fn redeem(
    State(state): State<AppState>,
    headers: HeaderMap,
    request: Result<Json<Redeem>, JsonRejection>,
) -> Result<Response, AppError> {
    let typed = body(request)?.code;
    let code_hash = transfer_code_hash(&typed).ok_or(AppError::Player(PlayerError::BadCode))?;
    let (secret, hash) = new_secret();
    let id = state
        .players
        .redeem_transfer_code(&code_hash, &hash, now_ms())
        .await?;
    let player = reload(&state, &id).await?;
    let cookie = set_cookie(&state, &headers, &secret);
    Ok((cookie, Json(player)).into_response())
}

/// `DELETE /api/me`: the identity goes (its games stay, shown as a deleted player), and the
/// cookie with it.
pub async fn delete(
    State(state): State<AppState>,
    headers: HeaderMap,
    identity: Identity,
) -> Result<Response, AppError> {
    let row = identity.required()?;
    if !state.players.delete_player(&row.id, now_ms()).await? {
        return Err(AppError::Player(PlayerError::UnknownPlayer));
    }
    // Their devices are told nothing more (the row stays, for the games' sake).
    state.push.store.forget_player(&row.id).await?;
    let cookie = cookie_header(&state, &headers, Cookie::new(COOKIE_NAME, ""), 0);
    Ok((StatusCode::NO_CONTENT, [(SET_COOKIE, cookie)]).into_response())
}

/// A player as the answer shows them, read again after a change.
async fn reload(state: &AppState, id: &str) -> Result<Player, AppError> {
    let row = state.players.player(id).await?;
    let row = row.ok_or(AppError::Player(PlayerError::UnknownPlayer))?;
    Ok(shown::player(&row))
}

/// The cookie that makes this browser the player whose secret it is.
fn set_cookie(
    state: &AppState,
    headers: &HeaderMap,
    secret: &str,
) -> [(HeaderName, HeaderValue); 1] {
    let cookie = Cookie::new(COOKIE_NAME, secret.to_owned());
    [(
        SET_COOKIE,
        cookie_header(state, headers, cookie, COOKIE_DAYS),
    )]
}

/// The `Set-Cookie` value: `Secure` when the page is served over https (`--public-origin`, or
/// a proxy's `X-Forwarded-Proto`); a `max_age_days` of 0 clears it.
pub(super) fn cookie_header(
    state: &AppState,
    headers: &HeaderMap,
    mut cookie: Cookie<'static>,
    max_age_days: i64,
) -> HeaderValue {
    let forwarded_https = headers
        .get("x-forwarded-proto")
        .is_some_and(|proto| proto.as_bytes().eq_ignore_ascii_case(b"https"));
    cookie.set_http_only(true);
    cookie.set_same_site(SameSite::Lax);
    cookie.set_path("/");
    cookie.set_secure(state.secure_cookies || forwarded_https);
    cookie.set_max_age(cookie::time::Duration::days(max_age_days));
    HeaderValue::from_str(&cookie.to_string()).expect("a cookie of hex digits is a valid header")
}
