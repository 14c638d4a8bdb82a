//! The class routes (issue 50, docs/PROTOCOL.md "Classes"). A teacher — the player the
//! `senet_player` cookie names — opens, reads, runs and deletes their classes; anyone else asking
//! for one is told there is no such class. A pupil joins with the class's code and a first name
//! and gets the `senet_pupil` cookie (`HttpOnly`, kept until the class's deletion); with it they
//! read their class, their game's seat token and the lesson the teacher started.
//!
//! The join is paced per address by a quota of its own (`--class-join-burst`, a route layer in
//! `server/mod.rs`), right code or wrong; the teacher's actions by the room-creation quota.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{FromRequestParts, Path, State};
use axum::http::header::{CONTENT_TYPE, COOKIE, HOST, SET_COOKIE};
use axum::http::request::Parts;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use cookie::Cookie;
use serde::Deserialize;
use serde_json::{Value, json};

use super::AppState;
use super::error::{AppError, body};
use super::identity::{Identity, cookie_header};
use crate::ai::Level;
use crate::class::report::{self, per_pupil};
use crate::class::run::{self, Pairing};
use crate::class::stumbles::check_rule;
use crate::class::{ClassError, ClassRow, PupilRow, check_class_name, new_code, normalize_code};
use crate::players::name::{Name, key_of};
use crate::players::store::PlayerError;
use crate::protocol::{TimeControl, room_url};
use crate::room::now_ms;
use crate::secrets::{hash_token, new_room_id, new_token};

/// The cookie that holds a pupil's secret.
pub const PUPIL_COOKIE: &str = "senet_pupil";

/// How many times a new class draws its code again when the one drawn is taken.
const CODE_TRIES: usize = 3;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewClass {
    name: String,
    /// `none` (the default) or `presets`.
    #[serde(default)]
    chat: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JoinClass {
    code: String,
    name: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PairClass {
    how: Pairing,
    /// Untimed without it.
    #[serde(default)]
    clock: Option<TimeControl>,
    /// The computer's level for an odd pupil out (medium by default).
    #[serde(default)]
    level: Option<Level>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VsComputer {
    level: Level,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StartLesson {
    /// A lesson of `/learn` by id, or null to stop.
    lesson: Option<String>,
}

/// The pupil the request's `senet_pupil` cookie names, in a class still open.
pub struct Pupil(pub PupilRow);

impl FromRequestParts<AppState> for Pupil {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Self, AppError> {
        let secret = parts
            .headers
            .get_all(COOKIE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(Cookie::split_parse)
            .filter_map(Result::ok)
            .find(|cookie| cookie.name() == PUPIL_COOKIE)
            .map(|cookie| cookie.value().to_owned())
            .ok_or(ClassError::NoPupil)?;
        let hash = hex::encode(hash_token(&secret));
        let pupil = state.classes.pupil_by_secret(&hash, now_ms()).await?;
        Ok(Pupil(pupil.ok_or(ClassError::NoPupil)?))
    }
}

/// The teacher's class `id`, or 404 for anyone else.
async fn teachers(state: &AppState, identity: Identity, id: &str) -> Result<ClassRow, AppError> {
    let teacher = identity
        .0
        .ok_or(AppError::Player(PlayerError::UnknownPlayer))?;
    match state.classes.class(id, now_ms()).await? {
        Some(class) if class.teacher == teacher.id => Ok(class),
        _ => Err(ClassError::NotFound.into()),
    }
}

fn shown(class: &ClassRow) -> Value {
    json!({
        "id": class.id, "name": class.name, "code": class.code, "chat": class.chat,
        "lesson": class.lesson, "created_at": class.created_at, "expires_at": class.expires_at,
    })
}

/// `POST /api/classes`: 201 with the class.
pub async fn create(
    State(state): State<AppState>,
    identity: Identity,
    request: Result<Json<NewClass>, JsonRejection>,
) -> Result<(StatusCode, Json<Value>), AppError> {
    let teacher = identity
        .0
        .ok_or(AppError::Player(PlayerError::UnknownPlayer))?;
    let request = body(request)?;
    let name = check_class_name(&request.name)?;
    let chat = match request.chat.as_deref() {
        None | Some("none") => "none",
        Some("presets") => "presets",
        Some(_) => return Err(ClassError::Bad("chat is \"none\" or \"presets\"".into()).into()),
    };
    let now = now_ms();
    let retention = i64::try_from(state.class_retention.as_millis()).unwrap_or(i64::MAX);
    for _ in 0..CODE_TRIES {
        let class = ClassRow {
            id: new_room_id(),
            teacher: teacher.id.clone(),
            name: name.clone(),
            code: new_code(),
            chat: chat.into(),
            lesson: None,
            created_at: now,
            expires_at: now.saturating_add(retention),
        };
        match state.classes.create(&class).await {
            Ok(()) => {
                tracing::info!(class = %class.id, "class opened");
                return Ok((StatusCode::CREATED, Json(shown(&class))));
            }
            // The code drawn is another open class's (one in 10^13): draw again.
            Err(ClassError::Database(error)) if is_unique_violation(&error) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(ClassError::Bad("could not draw a free code: try again".into()).into())
}

fn is_unique_violation(error: &sqlx::Error) -> bool {
    matches!(error, sqlx::Error::Database(db) if db.is_unique_violation())
}

/// `GET /api/classes`: the teacher's open classes, each with its number of pupils.
pub async fn list(
    State(state): State<AppState>,
    identity: Identity,
) -> Result<Json<Value>, AppError> {
    let teacher = identity
        .0
        .ok_or(AppError::Player(PlayerError::UnknownPlayer))?;
    let classes = state.classes.of_teacher(&teacher.id, now_ms()).await?;
    // How many pupils each has: one read a class, ten at most (MAX_OPEN_PER_TEACHER).
    let mut listed = Vec::with_capacity(classes.len());
    for class in &classes {
        let mut line = shown(class);
        line["pupils"] = json!(state.classes.pupils(&class.id).await?.len());
        listed.push(line);
    }
    Ok(Json(json!({"classes": listed})))
}

/// `GET /api/classes/{id}`: the class, its pupils' report and its games now.
pub async fn show(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let pupils = state.classes.pupils(&class.id).await?;
    let played = report::played(&state.classes, &state.rooms, &class.id).await?;
    let lessons = state.classes.lessons_done(&class.id).await?;
    let stumbles = state.classes.stumbles(&class.id).await?;
    let name = |pupil: &Option<String>| {
        pupil.as_ref().map(|id| {
            pupils
                .iter()
                .find(|p| &p.id == id)
                .map_or(Value::Null, |p| json!(p.name))
        })
    };
    let games: Vec<Value> = played
        .iter()
        .map(|game| {
            json!({
                "room": game.row.room, "url": room_url(&game.row.room),
                // A pupil's name; null for the computer, and for a pupil since removed.
                "black": name(&game.row.black).unwrap_or(json!("computer")),
                "white": name(&game.row.white).unwrap_or(json!("computer")),
                "in_play": game.in_play, "winner": game.winner, "moves": game.moves,
                "started_at": game.row.started_at,
            })
        })
        .collect();
    let mut shown = shown(&class);
    shown["pupils"] = json!(per_pupil(&pupils, &played, &lessons, &stumbles));
    shown["games"] = json!(games);
    Ok(Json(shown))
}

/// `GET /api/classes/{id}/report.csv`.
pub async fn csv(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let pupils = state.classes.pupils(&class.id).await?;
    let played = report::played(&state.classes, &state.rooms, &class.id).await?;
    let lessons = state.classes.lessons_done(&class.id).await?;
    let stumbles = state.classes.stumbles(&class.id).await?;
    let csv = report::csv(&per_pupil(&pupils, &played, &lessons, &stumbles));
    let disposition = "attachment; filename=\"class.csv\"";
    Ok((
        [
            (CONTENT_TYPE, "text/csv; charset=utf-8"),
            (axum::http::header::CONTENT_DISPOSITION, disposition),
        ],
        csv,
    )
        .into_response())
}

/// `GET /api/classes/{id}/qr.svg`: the join page's address with the code, as a QR code.
pub async fn qr(
    State(state): State<AppState>,
    identity: Identity,
    headers: HeaderMap,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let host = headers
        .get(HOST)
        .and_then(|host| host.to_str().ok())
        .filter(|host| {
            host.chars()
                .all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
        })
        .ok_or_else(|| AppError::BadRequest("the request names no host".into()))?;
    let forwarded_https = headers
        .get("x-forwarded-proto")
        .is_some_and(|proto| proto.as_bytes().eq_ignore_ascii_case(b"https"));
    let scheme = if state.secure_cookies || forwarded_https {
        "https"
    } else {
        "http"
    };
    // The code in the fragment: never sent to a server, so never in a log.
    let url = format!("{scheme}://{host}/class#{}", class.code);
    let code = qrcode::QrCode::new(url.as_bytes())
        .map_err(|error| AppError::BadRequest(error.to_string()))?;
    let svg = code
        .render::<qrcode::render::svg::Color>()
        .min_dimensions(256, 256)
        .quiet_zone(true)
        .build();
    Ok(([(CONTENT_TYPE, "image/svg+xml")], svg).into_response())
}

/// `DELETE /api/classes/{id}`: the class, its pupils' names and its list of games, at once.
pub async fn delete(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
) -> Result<StatusCode, AppError> {
    let class = teachers(&state, identity, &id).await?;
    state.classes.delete(&class.id).await?;
    tracing::info!(class = %class.id, "class deleted by its teacher");
    Ok(StatusCode::NO_CONTENT)
}

/// `DELETE /api/classes/{id}/pupils/{pupil}`: the pupil is out (their cookie names nobody).
pub async fn remove_pupil(
    State(state): State<AppState>,
    identity: Identity,
    Path((id, pupil)): Path<(String, String)>,
) -> Result<StatusCode, AppError> {
    let class = teachers(&state, identity, &id).await?;
    match state.classes.remove_pupil(&class.id, &pupil).await? {
        true => Ok(StatusCode::NO_CONTENT),
        false => Err(ClassError::NoPupil.into()),
    }
}

/// `POST /api/classes/{id}/pair`.
pub async fn pair(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
    request: Result<Json<PairClass>, JsonRejection>,
) -> Result<Json<run::Started>, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let request = body(request)?;
    if let Some(clock) = request.clock {
        if clock.days.is_some() {
            return Err(ClassError::Bad("a class's games have no clock.days".into()).into());
        }
        state.rooms.check_online_clock(clock)?;
    }
    let level = request.level.unwrap_or(Level::Medium);
    let started = run::pair(
        &state.classes,
        &state.rooms,
        &class,
        request.how,
        request.clock,
        level,
    )
    .await?;
    Ok(Json(started))
}

/// `POST /api/classes/{id}/computer`: every free pupil plays the computer.
pub async fn computer(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
    request: Result<Json<VsComputer>, JsonRejection>,
) -> Result<Json<run::Started>, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let level = body(request)?.level;
    let started = run::vs_computer(&state.classes, &state.rooms, &class, level).await?;
    Ok(Json(started))
}

/// `POST /api/classes/{id}/lesson`: the lesson every pupil's page opens (null: none).
pub async fn lesson(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
    request: Result<Json<StartLesson>, JsonRejection>,
) -> Result<StatusCode, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let lesson = body(request)?.lesson;
    if let Some(lesson) = &lesson {
        check_lesson(lesson)?;
    }
    state
        .classes
        .set_lesson(&class.id, lesson.as_deref())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

fn check_lesson(id: &str) -> Result<(), ClassError> {
    let lessons = crate::lessons::lessons().map_err(|e| ClassError::Bad(e.to_string()))?;
    match lessons.iter().any(|lesson| lesson.id == id) {
        true => Ok(()),
        false => Err(ClassError::Bad(format!("no lesson has the id {id:?}"))),
    }
}

/// `POST /api/classes/{id}/pause`, `/resume`: every class game's clock.
pub async fn pause(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    hold(state, identity, id, true).await
}

pub async fn resume(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    hold(state, identity, id, false).await
}

async fn hold(
    state: AppState,
    identity: Identity,
    id: String,
    on: bool,
) -> Result<Json<Value>, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let games = run::hold_all(&state.classes, &state.rooms, &class, on).await?;
    Ok(Json(json!({"games": games})))
}

/// `POST /api/classes/{id}/end`: every class game being played ends, without a winner.
pub async fn end(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
) -> Result<Json<Value>, AppError> {
    let class = teachers(&state, identity, &id).await?;
    let games = run::end_all(&state.classes, &state.rooms, &class).await?;
    Ok(Json(json!({"games": games})))
}

/// `POST /api/classes/join`: 201 with the pupil and the class, and the pupil's cookie.
pub async fn join(
    State(state): State<AppState>,
    headers: HeaderMap,
    request: Result<Json<JoinClass>, JsonRejection>,
) -> Result<Response, AppError> {
    let request = body(request)?;
    let now = now_ms();
    let code = normalize_code(&request.code).ok_or(ClassError::CodeUnknown)?;
    let class = state
        .classes
        .by_code(&code, now)
        .await?
        .ok_or(ClassError::CodeUnknown)?;
    let name = Name::parse(&request.name).map_err(ClassError::Name)?;
    let secret = new_token();
    let pupil = PupilRow {
        id: new_room_id(),
        class: class.id.clone(),
        name: name.display,
        joined_at: now,
    };
    state
        .classes
        .add_pupil(
            &pupil,
            &key_of(&pupil.name),
            &hex::encode(hash_token(&secret)),
        )
        .await?;
    let days = ((class.expires_at - now) / 86_400_000 + 1).max(1);
    let cookie = cookie_header(&state, &headers, Cookie::new(PUPIL_COOKIE, secret), days);
    let answer = json!({
        "pupil": {"id": pupil.id, "name": pupil.name},
        "class": {"name": class.name, "expires_at": class.expires_at},
    });
    Ok((StatusCode::CREATED, [(SET_COOKIE, cookie)], Json(answer)).into_response())
}

/// `GET /api/class/me`: the pupil, their class, their game (with its seat token) and lesson.
pub async fn me(
    State(state): State<AppState>,
    Pupil(pupil): Pupil,
) -> Result<Json<Value>, AppError> {
    let class = state
        .classes
        .class(&pupil.class, now_ms())
        .await?
        .ok_or(ClassError::NoPupil)?;
    let games = state.classes.games(&class.id).await?;
    let mine = games.iter().rev().find_map(|game| {
        if game.black.as_deref() == Some(&pupil.id) {
            Some((game, "black", game.black_token.as_deref()))
        } else if game.white.as_deref() == Some(&pupil.id) {
            Some((game, "white", game.white_token.as_deref()))
        } else {
            None
        }
    });
    let game = mine.map(|(game, seat, token)| {
        json!({"room": game.room, "url": room_url(&game.room), "seat": seat, "token": token})
    });
    Ok(Json(json!({
        "pupil": {"id": pupil.id, "name": pupil.name},
        "class": {"name": class.name, "chat": class.chat, "lesson": class.lesson,
                  "expires_at": class.expires_at},
        "game": game,
    })))
}

/// `POST /api/class/me/lessons/{lesson}`: the pupil finished a lesson.
pub async fn lesson_done(
    State(state): State<AppState>,
    Pupil(pupil): Pupil,
    Path(lesson): Path<String>,
) -> Result<StatusCode, AppError> {
    check_lesson(&lesson)?;
    state
        .classes
        .lesson_done(&pupil.id, &lesson, now_ms())
        .await?;
    Ok(StatusCode::NO_CONTENT)
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Stumbled {
    /// The engine's code of the refusal ([`crate::class::stumbles::RULES`]).
    rule: String,
}

/// `POST /api/class/me/stumbles`: the pupil touched a piece this rule refused.
pub async fn stumbled(
    State(state): State<AppState>,
    Pupil(pupil): Pupil,
    request: Result<Json<Stumbled>, JsonRejection>,
) -> Result<StatusCode, AppError> {
    let rule = check_rule(&body(request)?.rule)?;
    state.classes.stumbled(&pupil.id, rule).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Deletes the classes past their retention now and then (a class's reads already hide it).
pub fn sweep_now_and_then(
    classes: std::sync::Arc<crate::class::ClassStore>,
    retention: std::time::Duration,
    shutdown: tokio_util::sync::CancellationToken,
) {
    let every = (retention / 4).clamp(
        std::time::Duration::from_millis(200),
        std::time::Duration::from_secs(60),
    );
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = ticks.tick() => {}
            }
            match classes.delete_expired(now_ms()).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "classes past their retention deleted"),
                Err(error) => tracing::warn!(%error, "could not delete expired classes"),
            }
        }
    });
}
