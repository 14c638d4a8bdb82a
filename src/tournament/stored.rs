//! A tournament read from the store and written back: the fold of its stored log (loaded, or
//! caught up), a decision appended after it (retried against the fresh log when another writer
//! was first, as a room's commit is), an operator's cancel with its audit row in the same
//! commit, and how a tournament game's room says it ended.

use std::sync::Arc;

use super::{Event, Outcome, Refusal, Tournament};
use crate::engine::Side;
use crate::protocol::{EndReason, Event as RoomEvent, UnixMs, Winner};
use crate::store::{InCommit, Store, StoreError, StoredEvent};

/// How many times a decision is judged again after another writer appended first.
const RETRIES: usize = 5;

/// Why a stored tournament could not be read or written.
#[derive(Debug, thiserror::Error)]
pub enum TournamentError {
    #[error("no tournament {0}")]
    Unknown(String),
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("the stored log does not replay: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A game's room could not be made or its players bound (the director tries again).
    #[error("a game's room: {0}")]
    Room(String),
}

/// The tournament `id` as its stored log makes it.
pub async fn load(store: &Store, id: &str) -> Result<Tournament, TournamentError> {
    if store.tournaments.tournament(id).await?.is_none() {
        return Err(TournamentError::Unknown(id.to_owned()));
    }
    let mut tournament = Tournament::default();
    catch_up(store, id, &mut tournament).await?;
    Ok(tournament)
}

/// Applies the events logged after `tournament`'s version; answers them with their times.
pub async fn catch_up(
    store: &Store,
    id: &str,
    tournament: &mut Tournament,
) -> Result<Vec<(Event, UnixMs)>, TournamentError> {
    let mut applied = Vec::new();
    for stored in store
        .tournaments
        .tournament_events(id, tournament.v)
        .await?
    {
        let event = Event::from_stored(&stored.kind, &stored.data)
            .map_err(|e| TournamentError::Corrupt(format!("event {}: {e}", stored.v)))?;
        tournament
            .apply(&event)
            .map_err(|e| TournamentError::Corrupt(e.to_string()))?;
        applied.push((event, stored.at));
    }
    Ok(applied)
}

/// Judges `decide` against `tournament` (caught up first) and appends what it decides, `work`
/// in the same commit; another writer first makes it catch up and judge again. Answers every
/// event applied to `tournament` (those caught up, then those appended), with their times.
pub async fn decide_and_append(
    store: &Store,
    id: &str,
    tournament: &mut Tournament,
    decide: impl Fn(&Tournament) -> Result<Vec<Event>, Refusal>,
    work: Option<Arc<dyn InCommit>>,
) -> Result<Vec<(Event, UnixMs)>, TournamentError> {
    let mut applied = Vec::new();
    for _ in 0..RETRIES {
        applied.extend(catch_up(store, id, tournament).await?);
        let events = decide(tournament)?;
        if events.is_empty() {
            return Ok(applied);
        }
        let mut next = tournament.clone();
        let at = crate::room::now_ms();
        let mut stored = Vec::with_capacity(events.len());
        for event in &events {
            next.apply(event)
                .map_err(|e| TournamentError::Corrupt(e.to_string()))?;
            let (kind, data) = event.to_stored();
            stored.push(StoredEvent {
                v: next.v,
                at,
                kind,
                data,
            });
        }
        let summary = next.summary().to_string();
        match store
            .tournaments
            .append_tournament_with(id, &stored, &summary, work.clone())
            .await
        {
            Ok(()) => {
                // On PostgreSQL the append's own `NOTIFY` tells every instance, this one too.
                if store.cluster.is_none() {
                    store.tournament_news.changed(id);
                }
                *tournament = next;
                applied.extend(events.into_iter().map(|event| (event, at)));
                return Ok(applied);
            }
            Err(StoreError::VersionConflict(_)) => continue,
            Err(error) => return Err(error.into()),
        }
    }
    Err(StoreError::VersionConflict(tournament.v + 1).into())
}

/// Tells the followers of tournament `id` on every instance that what they show changed
/// without an append (a game's room was made: its seat token can be handed out now).
pub async fn announce(store: &Store, id: &str) -> Result<(), TournamentError> {
    match store.cluster {
        None => store.tournament_news.changed(id),
        Some(_) => store.tournaments.announce(id).await?,
    }
    Ok(())
}

/// Cancels the tournament `id` for `reason`, `audit` written in the same commit; the version
/// of the `cancelled` event.
pub async fn cancel_by_operator(
    store: &Store,
    id: &str,
    reason: &str,
    audit: Arc<dyn InCommit>,
) -> Result<u64, TournamentError> {
    let mut tournament = load(store, id).await?;
    let decide = |t: &Tournament| t.cancel(reason).map(|event| vec![event]);
    decide_and_append(store, id, &mut tournament, decide, Some(audit)).await?;
    Ok(tournament.v)
}

/// How a game's room says it ended: the outcome, and which sides were absent (lost on time or
/// by abandonment without a throw of their own).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RoomEnd {
    pub outcome: Outcome,
    /// Black's, then white's.
    pub absent: [bool; 2],
}

/// How the game in `room` ended, by its log's `game-over` (`None`: not ended). A game ended
/// with no winner (by an operator) counts as a draw.
pub async fn room_end(store: &Store, room: &str) -> Result<Option<RoomEnd>, TournamentError> {
    let mut threw = [false; 2];
    for stored in store.log.events_after(room, 0).await? {
        if !matches!(stored.kind.as_str(), "rolled" | "game-over") {
            continue;
        }
        let event = RoomEvent::from_parts(&stored.kind, &stored.data).map_err(|e| {
            TournamentError::Corrupt(format!("room {room}, event {}: {e}", stored.v))
        })?;
        match event {
            RoomEvent::Rolled { side, .. } => threw[usize::from(side == Side::White)] = true,
            RoomEvent::GameOver { winner, reason, .. } => {
                let outcome = match winner {
                    Winner::Black => Outcome::Black,
                    Winner::White => Outcome::White,
                    Winner::Draw | Winner::None => Outcome::Draw,
                };
                let lost_away = |side: usize, lost: Outcome| {
                    outcome == lost
                        && matches!(reason, EndReason::Timeout | EndReason::Abandon)
                        && !threw[side]
                };
                let absent = [lost_away(0, Outcome::White), lost_away(1, Outcome::Black)];
                return Ok(Some(RoomEnd { outcome, absent }));
            }
            _ => {}
        }
    }
    Ok(None)
}
