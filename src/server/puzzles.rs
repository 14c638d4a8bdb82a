//! The puzzle routes (issue 49): `GET /api/puzzles/daily`, `GET /api/puzzles/next?theme=&after=`,
//! `GET /api/puzzles/{id}` hand out a puzzle without its answer, with a ticket;
//! `POST /api/puzzles/{id}/answer` judges an answer that brings the ticket back.
//!
//! The ticket is an HMAC over the puzzle, the asking player (if any) and the time, keyed by the
//! database's puzzle key (the same on every instance): the server holds nothing per question,
//! so a stranger fetching puzzles makes it hold nothing, and an answer without a ticket from
//! this server for this puzzle and this player is refused (`puzzle_not_asked`). A ticket is
//! good for a day. Answers share the join quota per address (`--join-per-minute`).

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, Query, State};
use hmac::{Hmac, KeyInit, Mac};
use sha2::Sha256;

use super::AppState;
use super::error::{AppError, body};
use super::identity::Identity;
use super::refusals::PuzzleRefusal;
use crate::engine::{Position, Roll, Target};
use crate::players::puzzles::{PuzzleStore, start_of};
use crate::protocol::puzzles::{
    MoveChance, PuzzleAnswer, PuzzleQuestion, PuzzleRatingChange, PuzzleVerdict,
};
use crate::protocol::{LegalMove, OffMarker, To, UnixMs};
use crate::puzzles::{self, Puzzle, Theme};
use crate::room::now_ms;

/// How long a ticket is good for: a day.
const TICKET_MS: UnixMs = 24 * 3_600_000;
const DAY_MS: UnixMs = 24 * 3_600_000;

/// The puzzle store and the key tickets are signed with.
pub struct Puzzles {
    pub store: PuzzleStore,
    key: Vec<u8>,
}

impl Puzzles {
    pub async fn open(url: &str) -> Result<Puzzles, crate::players::store::PlayerError> {
        let store = PuzzleStore::open(url).await?;
        let key = store.key().await?;
        Ok(Puzzles { store, key })
    }

    fn mac(&self, puzzle: &str, player: Option<&str>, issued: UnixMs) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key");
        mac.update(format!("{puzzle}|{}|{issued}", player.unwrap_or("")).as_bytes());
        mac
    }

    pub(super) fn ticket(&self, puzzle: &str, player: Option<&str>, now: UnixMs) -> String {
        let tag = self.mac(puzzle, player, now).finalize().into_bytes();
        format!("{now}.{}", hex::encode(tag))
    }

    /// Whether `ticket` was made by [`Puzzles::ticket`] for this puzzle and player within a day.
    pub(super) fn honours(
        &self,
        ticket: &str,
        puzzle: &str,
        player: Option<&str>,
        now: UnixMs,
    ) -> bool {
        let Some((issued, tag)) = ticket.split_once('.') else {
            return false;
        };
        let (Ok(issued), Ok(tag)) = (issued.parse::<UnixMs>(), hex::decode(tag)) else {
            return false;
        };
        (0..=TICKET_MS).contains(&(now - issued))
            && self.mac(puzzle, player, issued).verify_slice(&tag).is_ok()
    }
}

#[derive(serde::Deserialize)]
pub struct Next {
    theme: Option<String>,
    after: Option<String>,
}

fn find(id: &str) -> Result<&'static Puzzle, AppError> {
    puzzles::shipped()
        .iter()
        .find(|p| p.id == id)
        .ok_or_else(|| PuzzleRefusal::NotFound(id.to_owned()).into())
}

/// `GET /api/puzzles/daily`: the same puzzle for everyone on a UTC day.
pub async fn daily(
    State(state): State<AppState>,
    identity: Identity,
) -> Result<Json<PuzzleQuestion>, AppError> {
    let set = puzzles::shipped();
    let day = (now_ms() / DAY_MS) as usize;
    // A stride prime to any set size below it, so consecutive days jump around the set.
    let puzzle = set
        .get(day.wrapping_mul(7_919) % set.len().max(1))
        .ok_or_else(|| PuzzleRefusal::NotFound("daily".into()))?;
    question(&state, &identity, puzzle).await
}

/// `GET /api/puzzles/next?theme=&after=`: the puzzle after `after` (the first without it) in
/// the set's order, of the theme if one is named; after the last comes the first again.
pub async fn next(
    State(state): State<AppState>,
    identity: Identity,
    Query(query): Query<Next>,
) -> Result<Json<PuzzleQuestion>, AppError> {
    let theme = match query.theme.as_deref() {
        None | Some("") => None,
        Some(name) => Some(Theme::named(name).ok_or_else(|| {
            let names: Vec<&str> = Theme::ALL.iter().map(|t| t.name()).collect();
            PuzzleRefusal::UnknownTheme(name.to_owned(), names.join(", "))
        })?),
    };
    let set = puzzles::shipped();
    let from = match query.after.as_deref() {
        Some(after) => set.iter().position(|p| p.id == after).map(|i| i + 1),
        None => Some(0),
    };
    let from =
        from.ok_or_else(|| PuzzleRefusal::NotFound(query.after.clone().unwrap_or_default()))?;
    let of_theme = |p: &&Puzzle| theme.is_none_or(|t| p.theme == t);
    // The first of the theme after `after` in the set's order, else the first of the theme.
    let puzzle = set[from..]
        .iter()
        .find(of_theme)
        .or_else(|| set.iter().find(of_theme))
        .ok_or_else(|| PuzzleRefusal::NotFound(query.after.unwrap_or_default()))?;
    question(&state, &identity, puzzle).await
}

/// `GET /api/puzzles/{id}`.
pub async fn by_id(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
) -> Result<Json<PuzzleQuestion>, AppError> {
    question(&state, &identity, find(&id)?).await
}

async fn question(
    state: &AppState,
    identity: &Identity,
    puzzle: &Puzzle,
) -> Result<Json<PuzzleQuestion>, AppError> {
    let rating = state.puzzles.store.puzzle_rating(&puzzle.id).await?;
    let rating = rating.unwrap_or_else(|| start_of(puzzle.difficulty)).rating;
    Ok(Json(asked(
        state,
        identity,
        &puzzle.id,
        &puzzle.parsed(),
        puzzle.roll(),
        rating,
    )))
}

/// The question for a position and throw, with a ticket for `id` and the asking player.
pub(super) fn asked(
    state: &AppState,
    identity: &Identity,
    id: &str,
    position: &Position,
    roll: Roll,
    rating: f64,
) -> PuzzleQuestion {
    let player = identity.0.as_ref().map(|p| p.id.as_str());
    let choices: Vec<LegalMove> = position
        .legal_moves(roll)
        .iter()
        .map(|mv| LegalMove {
            from: mv.from,
            to: match mv.to {
                Target::Square(square) => To::Square(square),
                Target::Off => To::Off(OffMarker::Off),
            },
        })
        .collect();
    PuzzleQuestion {
        id: id.to_owned(),
        position: position.to_string(),
        throw: roll.value(),
        turn: position.turn(),
        legal: choices.iter().map(|mv| mv.from).collect(),
        choices,
        rating: rating.round(),
        ticket: state.puzzles.ticket(id, player, now_ms()),
    }
}

/// `POST /api/puzzles/{id}/answer`: judged by the stored chances; an identified player's first
/// attempt at the puzzle moves their puzzle rating and the puzzle's.
pub async fn answer(
    State(state): State<AppState>,
    identity: Identity,
    Path(id): Path<String>,
    request: Result<Json<PuzzleAnswer>, JsonRejection>,
) -> Result<Json<PuzzleVerdict>, AppError> {
    let puzzle = find(&id)?;
    let answer = body(request)?;
    let player = identity.0.as_ref().map(|p| p.id.as_str());
    let now = now_ms();
    if !state
        .puzzles
        .honours(&answer.ticket, &puzzle.id, player, now)
    {
        return Err(PuzzleRefusal::NotAsked.into());
    }
    puzzle
        .parsed()
        .check(answer.from, puzzle.roll())
        .map_err(PuzzleRefusal::Illegal)?;
    let solved = answer.from == puzzle.best;
    let rating = match player {
        Some(player) => state
            .puzzles
            .store
            .attempt(player, puzzle, answer.from, solved, now)
            .await?
            .map(|rated| PuzzleRatingChange {
                before: rated.before.rating.round(),
                after: rated.after.rating.round(),
                deviation: rated.after.deviation.round(),
            }),
        None => None,
    };
    Ok(Json(PuzzleVerdict {
        id: puzzle.id.clone(),
        solved,
        best: puzzle.best,
        moves: puzzle
            .moves
            .iter()
            .map(|&(from, chance)| MoveChance { from, chance })
            .collect(),
        exact: puzzle.exact,
        theme: puzzle.theme.name().to_owned(),
        difficulty: puzzle.difficulty.name().to_owned(),
        rating,
    }))
}
