//! A tournament read from the store and written back: the fold of its stored log, and an
//! operator's cancel appended after it with its audit row in the same commit.

use std::sync::Arc;

use super::{Event, Refusal, Tournament};
use crate::store::{InCommit, Store, StoreError, StoredEvent};

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
}

/// The tournament `id` as its stored log makes it.
pub async fn load(store: &Store, id: &str) -> Result<Tournament, TournamentError> {
    if store.tournaments.tournament(id).await?.is_none() {
        return Err(TournamentError::Unknown(id.to_owned()));
    }
    let mut tournament = Tournament::default();
    for stored in store.tournaments.tournament_events(id, 0).await? {
        let event = Event::from_stored(&stored.kind, &stored.data)
            .map_err(|e| TournamentError::Corrupt(format!("event {}: {e}", stored.v)))?;
        tournament
            .apply(&event)
            .map_err(|e| TournamentError::Corrupt(e.to_string()))?;
    }
    Ok(tournament)
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
    let event = tournament.cancel(reason)?;
    let v = tournament.v + 1;
    let (kind, data) = event.to_stored();
    tournament
        .apply(&event)
        .map_err(|e| TournamentError::Corrupt(e.to_string()))?;
    let stored = StoredEvent {
        v,
        at: crate::room::now_ms(),
        kind,
        data,
    };
    let summary = tournament.summary().to_string();
    store
        .tournaments
        .append_tournament_with(id, &[stored], &summary, Some(audit))
        .await?;
    Ok(v)
}
