//! The tournament routes (issue 45, docs/PROTOCOL.md "Tournaments"): identified players create
//! tournaments within the bounds below, anyone lists and reads them, and a player joins, pauses
//! (Arena), comes back and withdraws. Each change is a decision of the tournament's fold
//! appended to its log (`tournament::stored`); the director (`tournament::director`) does the
//! rest. A player's next game's seat token is in the answer of `GET /api/tournaments/{id}` to
//! that player alone (by their cookie), as `POST /api/rooms` hands its creator theirs.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use unicode_normalization::UnicodeNormalization;

use super::AppState;
use super::error::{AppError, body};
use super::identity::Identity;
use super::refusals::{MAX_UPCOMING_PER_CREATOR, TournamentRefusal};
use crate::players::shown;
use crate::players::store::{PlayerError, PlayerRow};
use crate::protocol::{TimeControl, UnixMs, room_url};
use crate::room::now_ms;
use crate::store::{StoredEvent, TournamentRow};
use crate::tournament::director::MAX_DIRECTED;
use crate::tournament::stored::{self, TournamentError};
use crate::tournament::{Event, Format, Settings, Tournament};

/// A tournament's name, in characters.
pub const NAME_CHARS: std::ops::RangeInclusive<usize> = 3..=30;
/// An Arena's duration, in minutes.
pub const ARENA_MINUTES: std::ops::RangeInclusive<u32> = 10..=120;
/// A Swiss's rounds.
pub const SWISS_ROUNDS: std::ops::RangeInclusive<u32> = 3..=11;
/// How far ahead a tournament may be scheduled: 7 days.
pub const MAX_AHEAD_MS: UnixMs = 7 * 24 * 3_600_000;
/// How far in the past a start may be asked (a clock a little behind): it then starts at once.
pub const START_SLACK_MS: UnixMs = 60_000;
/// Tournaments listed in each of the list's parts.
const LISTED: u32 = 50;

/// `POST /api/tournaments`'s body.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NewTournament {
    name: String,
    /// `"arena"` (with `minutes`) or `"swiss"` (with `rounds`).
    format: String,
    #[serde(default)]
    minutes: Option<u32>,
    #[serde(default)]
    rounds: Option<u32>,
    clock: TimeControl,
    starts_at: UnixMs,
    #[serde(default)]
    rated: bool,
    #[serde(default)]
    min_rating: Option<i32>,
    #[serde(default)]
    max_rating: Option<i32>,
}

fn player(identity: Identity) -> Result<PlayerRow, AppError> {
    identity
        .0
        .ok_or(AppError::Player(PlayerError::UnknownPlayer))
}

/// `POST /api/tournaments`: 201 with the tournament as `GET` shows it.
pub async fn create(
    State(state): State<AppState>,
    identity: Identity,
    request: Result<Json<NewTournament>, JsonRejection>,
) -> Result<(StatusCode, Json<Value>), AppError> {
    let creator = player(identity)?;
    let request = body(request)?;
    let now = now_ms();
    let settings = settings(&state, request, &creator, now)?;
    let store = state.rooms.store();
    let open = store
        .tournaments
        .tournaments(None, false, MAX_DIRECTED)
        .await;
    let open = open.map_err(TournamentError::from)?;
    if open.len() >= MAX_DIRECTED as usize {
        return Err(TournamentRefusal::TooManyOpen.into());
    }
    let upcoming_of_creator = open
        .iter()
        .filter(|row| summary_of(row)["status"] == "upcoming")
        .filter(|row| summary_of(row)["settings"]["creator"] == creator.id.as_str())
        .count();
    if upcoming_of_creator >= MAX_UPCOMING_PER_CREATOR {
        return Err(TournamentRefusal::TooManyUpcoming.into());
    }
    let id = crate::secrets::new_room_id();
    let created = Event::Created(settings.clone());
    let mut tournament = Tournament::default();
    tournament
        .apply(&created)
        .map_err(|e| TournamentError::Corrupt(e.to_string()))?;
    let (kind, data) = created.to_stored();
    let row = TournamentRow {
        id: id.clone(),
        starts_at: settings.starts_at,
        summary: tournament.summary().to_string(),
    };
    let first = StoredEvent {
        v: 1,
        at: now,
        kind,
        data,
    };
    store
        .tournaments
        .create_tournament(&row, &[first])
        .await
        .map_err(TournamentError::from)?;
    tracing::info!(tournament = %id, "tournament created");
    Ok((
        StatusCode::CREATED,
        Json(shown(&id, &tournament, None, None)),
    ))
}

/// The settings a creation asks for, checked against every bound.
fn settings(
    state: &AppState,
    request: NewTournament,
    creator: &PlayerRow,
    now: UnixMs,
) -> Result<Settings, TournamentRefusal> {
    let bad = |message: String| Err(TournamentRefusal::BadSettings(message));
    let name = check_name(&request.name)?;
    let format = match (request.format.as_str(), request.minutes, request.rounds) {
        ("arena", Some(minutes), None) if ARENA_MINUTES.contains(&minutes) => {
            Format::Arena { minutes }
        }
        ("swiss", None, Some(rounds)) if SWISS_ROUNDS.contains(&rounds) => Format::Swiss { rounds },
        _ => {
            return bad(format!(
                "format must be \"arena\" with minutes {}–{}, or \"swiss\" with rounds {}–{}",
                ARENA_MINUTES.start(),
                ARENA_MINUTES.end(),
                SWISS_ROUNDS.start(),
                SWISS_ROUNDS.end()
            ));
        }
    };
    if request.clock.days.is_some() {
        return bad("a tournament's games are not correspondence games: no clock.days".into());
    }
    if let Err(error) = state.rooms.check_online_clock(request.clock) {
        return bad(error.to_string());
    }
    if request.starts_at < now - START_SLACK_MS || request.starts_at > now + MAX_AHEAD_MS {
        return bad("starts_at must be from now to 7 days ahead (unix milliseconds)".into());
    }
    if let (Some(min), Some(max)) = (request.min_rating, request.max_rating)
        && min > max
    {
        return bad("min_rating must not be above max_rating".into());
    }
    Ok(Settings {
        name,
        format,
        clock: request.clock,
        starts_at: request.starts_at.max(now),
        rated: request.rated,
        creator: creator.id.clone(),
        min_rating: request.min_rating,
        max_rating: request.max_rating,
    })
}

/// A tournament's name: the display-name rules (NFC; letters and digits of any script, `_`,
/// `-`, single spaces between words) at 3–30 characters. Unlike a player's name no word is
/// reserved: "Senet Open" is a fine tournament.
fn check_name(raw: &str) -> Result<String, TournamentRefusal> {
    let name: String = raw.nfc().collect();
    let length = name.chars().count();
    let words_well_spaced = name.split(' ').all(|word| !word.is_empty());
    let characters = name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '-' | ' '));
    match NAME_CHARS.contains(&length) && words_well_spaced && characters {
        true => Ok(name),
        false => Err(TournamentRefusal::BadSettings(format!(
            "name must be {}–{} characters: letters, digits, '_', '-' and single spaces between words",
            NAME_CHARS.start(),
            NAME_CHARS.end()
        ))),
    }
}

fn summary_of(row: &TournamentRow) -> Value {
    let mut summary: Value = serde_json::from_str(&row.summary).unwrap_or(Value::Null);
    summary["id"] = json!(row.id);
    summary
}

/// `GET /api/tournaments`: the upcoming (soonest first), running, finished and cancelled ones
/// (latest first), at most 50 each.
pub async fn list(State(state): State<AppState>) -> Result<Json<Value>, AppError> {
    let store = state.rooms.store();
    let mut lists = serde_json::Map::new();
    for (status, newest) in [
        ("upcoming", false),
        ("running", false),
        ("finished", true),
        ("cancelled", true),
    ] {
        let rows = store.tournaments.tournaments(Some(status), newest, LISTED);
        let rows = rows.await.map_err(TournamentError::from)?;
        lists.insert(status.into(), rows.iter().map(summary_of).collect());
    }
    Ok(Json(Value::Object(lists)))
}

/// `GET /api/tournaments/{id}`: its rules, standings and games; with a player cookie, that
/// player's place and their game (with its seat token) while they play one.
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(asker): Identity,
) -> Result<Json<Value>, AppError> {
    let tournament = load(&state, &id).await?;
    let asker = asker.map(|p| p.id);
    Ok(Json(
        view(&state, &id, &tournament, asker.as_deref()).await?,
    ))
}

/// `GET /api/rooms/{id}/tournament`: `{"tournament": id}` for a tournament game's room, its
/// link back; `{"tournament": null}` for any other room id, a made-up one included (which
/// tournaments' games exist is public: their pages list them).
pub async fn of_room(
    State(state): State<AppState>,
    Path(room): Path<String>,
) -> Result<Json<Value>, AppError> {
    let tournament = if crate::secrets::is_room_id(&room) {
        let found = state.rooms.store().tournaments.tournament_of(&room);
        found.await.map_err(TournamentError::from)?
    } else {
        None
    };
    Ok(Json(json!({ "tournament": tournament })))
}

/// What `GET` shows of `tournament` to the player `asker` (by public id), if any: theirs is
/// the seat token of the game they play now, once its room is made (the director keeps the
/// tokens first), so that a player who has one finds their room.
pub(super) async fn view(
    state: &AppState,
    id: &str,
    tournament: &Tournament,
    asker: Option<&str>,
) -> Result<Value, AppError> {
    let token = match asker.zip(asker.and_then(|asker| playing(tournament, asker))) {
        Some((asker, room)) => seat_token(state, &room, asker).await?,
        None => None,
    };
    Ok(shown(id, tournament, asker, token))
}

/// The seat token of player `asker` (public id) in the tournament game `room`, once its room
/// is made: none before.
pub(super) async fn seat_token(
    state: &AppState,
    room: &str,
    asker: &str,
) -> Result<Option<String>, AppError> {
    if !state.rooms.exists(room).await? {
        return Ok(None);
    }
    let token = state.rooms.store().tournaments.seat_token(room, asker);
    Ok(token.await.map_err(TournamentError::from)?)
}

pub(super) async fn load(state: &AppState, id: &str) -> Result<Tournament, AppError> {
    if !crate::secrets::is_room_id(id) {
        return Err(TournamentError::Unknown(id.to_owned()).into());
    }
    Ok(stored::load(state.rooms.store(), id).await?)
}

/// The room of the game the player with public id `id` plays now, if any.
pub(super) fn playing(tournament: &Tournament, id: &str) -> Option<String> {
    let entry = tournament.players.iter().find(|p| p.id == id)?;
    entry.playing.clone()
}

/// What `GET` shows of a tournament; `asker`'s own line and game, with `token` for its seat.
fn shown(id: &str, t: &Tournament, asker: Option<&str>, token: Option<String>) -> Value {
    let mut answer = shared_view(id, t);
    answer["you"] = your_view(t, asker, token);
    answer
}

/// What every viewer of a tournament is shown alike: its rules, standings and games (all of
/// `GET`'s answer but `you`). The page sockets build it once per change and share it.
pub(super) fn shared_view(id: &str, t: &Tournament) -> Value {
    let name_of = |number: u32| t.player(number).map(|p| p.name.clone());
    let standings: Vec<Value> = t
        .standings()
        .iter()
        .enumerate()
        .map(|(place, s)| {
            let paused = t.player(s.player).is_some_and(|p| p.paused);
            json!({
                "place": place + 1, "player": s.player, "name": s.name, "score": s.score,
                "games": s.games, "wins": s.wins, "buchholz": s.buchholz,
                "sonneborn_berger": s.sonneborn_berger, "withdrawn": s.withdrawn,
                "paused": paused, "on_fire": s.on_fire,
            })
        })
        .collect();
    let games: Vec<Value> = t
        .games
        .iter()
        .map(|(room, game)| {
            json!({
                "room": room, "url": room_url(room), "round": game.round,
                "black": {"player": game.black, "name": name_of(game.black)},
                "white": {"player": game.white, "name": name_of(game.white)},
            })
        })
        .collect();
    let mut answer = t.summary();
    answer["id"] = json!(id);
    answer["ends_at"] = json!(t.ends_at());
    answer["standings"] = json!(standings);
    answer["games"] = json!(games);
    answer
}

/// `asker`'s own part of a tournament's view: their number, score, state and game (with
/// `token` for its seat), or null for a visitor or someone not in it.
pub(super) fn your_view(t: &Tournament, asker: Option<&str>, token: Option<String>) -> Value {
    let Some(index) = asker.and_then(|asker| t.players.iter().position(|p| p.id == asker)) else {
        return Value::Null;
    };
    let number = index as u32 + 1;
    let entry = &t.players[index];
    let game = entry.playing.as_ref().and_then(|room| {
        let game = t.games.get(room)?;
        let seat = if game.black == number {
            "black"
        } else {
            "white"
        };
        Some(json!({"room": room, "url": room_url(room), "seat": seat, "token": token}))
    });
    json!({
        "player": number, "withdrawn": entry.withdrawn, "paused": entry.paused,
        "score": entry.score, "games": entry.games.len(), "game": game,
    })
}

/// What a player asks of a tournament they are (or would be) in.
#[derive(Clone, Copy)]
enum Ask {
    Join,
    Withdraw,
    Pause,
    Resume,
}

async fn ask(
    state: &AppState,
    id: &str,
    identity: Identity,
    what: Ask,
) -> Result<Json<Value>, AppError> {
    let player = player(identity)?;
    let mut tournament = load(state, id).await?;
    let shown_as = shown::player_ref(&player);
    let decide = |t: &Tournament| {
        let event = match what {
            Ask::Join => t.register(&player.id, &shown_as.name, shown_as.rating as i32),
            Ask::Withdraw => t.withdraw(&player.id),
            Ask::Pause => t.pause(&player.id, true),
            Ask::Resume => t.pause(&player.id, false),
        };
        event.map(|event| vec![event])
    };
    stored::decide_and_append(state.rooms.store(), id, &mut tournament, decide, None).await?;
    Ok(Json(shown(id, &tournament, Some(&player.id), None)))
}

/// `POST /api/tournaments/{id}/join`.
pub async fn join(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<Json<Value>, AppError> {
    ask(&state, &id, identity, Ask::Join).await
}

/// `POST /api/tournaments/{id}/withdraw`.
pub async fn withdraw(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<Json<Value>, AppError> {
    ask(&state, &id, identity, Ask::Withdraw).await
}

/// `POST /api/tournaments/{id}/pause` (Arena).
pub async fn pause(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<Json<Value>, AppError> {
    ask(&state, &id, identity, Ask::Pause).await
}

/// `POST /api/tournaments/{id}/resume` (Arena).
pub async fn resume(
    State(state): State<AppState>,
    Path(id): Path<String>,
    identity: Identity,
) -> Result<Json<Value>, AppError> {
    ask(&state, &id, identity, Ask::Resume).await
}
