//! Puzzles from one's own games (issue 49 item 4): `GET /api/puzzles/game/{room}/{v}` hands out
//! the position of a finished game's throw `v` (the version of its `rolled` event) as a puzzle,
//! and `POST /api/puzzles/game/{room}/{v}/answer` judges an answer to it, like the shipped set's.
//!
//! Only a throw the game's analysis labels a mistake or a blunder is a puzzle: the analysis
//! (computed once per game, on the search pool, and stored: [`crate::room::Rooms::analysis`])
//! is the check, so a stranger can make the server compute no more than the analysis route
//! already does. The verdict's chances are [`ai::odds`], the analysis' own judge (the table's
//! exact values where it covers the position, well under a millisecond otherwise). The game
//! is public once finished, and nothing secret is read: the throw seed stays in the record.
//! A position from a game is not rated (it has no puzzle rating), so the verdict's `rating` is
//! always `null`. Both routes are paced like the set's answers.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};

use super::AppState;
use super::error::{AppError, body};
use super::identity::Identity;
use super::puzzles::asked;
use super::refusals::PuzzleRefusal;
use crate::ai;
use crate::analysis::{Kind, Label, replay};
use crate::engine::{Position, Roll};
use crate::players::puzzles::start_of;
use crate::protocol::puzzles::{MoveChance, PuzzleAnswer, PuzzleQuestion, PuzzleVerdict};
use crate::puzzles::{Difficulty, theme};
use crate::room::{RoomError, now_ms};

/// A mistake of a finished game: where it was made, with which throw, and how bad it was.
struct Mistake {
    id: String,
    position: Position,
    roll: Roll,
    label: Label,
}

/// The throw `v` of the finished game `room`, if its analysis calls the move played there a
/// mistake or a blunder.
async fn mistake(state: &AppState, room: &str, v: u64) -> Result<Mistake, AppError> {
    if !crate::secrets::is_room_id(room) {
        return Err(RoomError::NotFound.into());
    }
    let id = format!("{room}/{v}");
    let analysis = state.rooms.analysis(room).await?;
    let label = analysis
        .throws
        .iter()
        .find(|throw| throw.v == v && throw.kind == Kind::Decision)
        .and_then(|throw| throw.label)
        .filter(|label| matches!(label, Label::Mistake | Label::Blunder))
        .ok_or_else(|| PuzzleRefusal::NotAMistake(id.clone()))?;
    let record = state.rooms.record(room).await?;
    let played = replay(&record)
        .map_err(RoomError::from)?
        .into_iter()
        .find(|played| played.v == v)
        .ok_or_else(|| PuzzleRefusal::NotAMistake(id.clone()))?;
    Ok(Mistake {
        id,
        position: played.position,
        roll: played.roll,
        label,
    })
}

/// `GET /api/puzzles/game/{room}/{v}`.
pub async fn question(
    State(state): State<AppState>,
    identity: Identity,
    Path((room, v)): Path<(String, u64)>,
) -> Result<Json<PuzzleQuestion>, AppError> {
    let found = mistake(&state, &room, v).await?;
    // Not rated: the rating shown is the start of a medium puzzle's.
    let rating = start_of(Difficulty::Medium).rating;
    Ok(Json(asked(
        &state,
        &identity,
        &found.id,
        &found.position,
        found.roll,
        rating,
    )))
}

/// `POST /api/puzzles/game/{room}/{v}/answer`: judged by the analysis' odds, never rated.
pub async fn answer(
    State(state): State<AppState>,
    identity: Identity,
    Path((room, v)): Path<(String, u64)>,
    request: Result<Json<PuzzleAnswer>, JsonRejection>,
) -> Result<Json<PuzzleVerdict>, AppError> {
    let found = mistake(&state, &room, v).await?;
    let answer = body(request)?;
    let player = identity.0.as_ref().map(|p| p.id.as_str());
    if !state
        .puzzles
        .honours(&answer.ticket, &found.id, player, now_ms())
    {
        return Err(PuzzleRefusal::NotAsked.into());
    }
    found
        .position
        .check(answer.from, found.roll)
        .map_err(PuzzleRefusal::Illegal)?;
    let odds = ai::odds(&found.position, found.roll);
    let (best, _) = odds
        .best()
        .ok_or_else(|| PuzzleRefusal::NotAMistake(found.id.clone()))?;
    let moves = found.position.legal_moves(found.roll);
    Ok(Json(PuzzleVerdict {
        id: found.id.clone(),
        solved: answer.from == best.from,
        best: best.from,
        moves: odds
            .moves
            .iter()
            .map(|(mv, chance)| MoveChance {
                from: mv.from,
                chance: (chance * 1e4).round() / 1e4,
            })
            .collect(),
        exact: odds.exact,
        theme: theme::classify(&found.position, &best, &moves)
            .name()
            .to_owned(),
        difficulty: match found.label {
            Label::Blunder => "blunder",
            _ => "mistake",
        }
        .to_owned(),
        rating: None,
    }))
}
