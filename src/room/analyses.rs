//! The engine's analysis of a finished game: computed once, on the blocking pool with one of the
//! computer's search permits, by the first request (the others wait for it: single flight), and
//! stored; every later request reads it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::Rooms;
use crate::analysis::{Analysis, analyse};
use crate::room::error::RoomError;
use crate::store::StoreError;

impl Rooms {
    /// The engine's analysis of a finished game. The first request computes
    /// it on the blocking pool with one of the computer's search permits (so
    /// analyses and bot moves together never run more searches than the
    /// limit) and stores it; requests that come meanwhile wait for it, and every later request
    /// reads it.
    pub async fn analysis(&self, id: &str) -> Result<Analysis, RoomError> {
        if let Some(stored) = self.stored_analysis(id).await? {
            return Ok(stored);
        }
        let flight = Flight::join(&self.inner.analysing, id);
        let _first = flight.lock.lock().await;
        match self.stored_analysis(id).await? {
            Some(stored) => Ok(stored),
            None => self.compute_analysis(id).await,
        }
    }

    async fn stored_analysis(&self, id: &str) -> Result<Option<Analysis>, RoomError> {
        let Some(stored) = self.inner.store.log.analysis(id).await? else {
            return Ok(None);
        };
        let analysis =
            serde_json::from_str(&stored).map_err(|e| StoreError::Corrupt(e.to_string()))?;
        Ok(Some(analysis))
    }

    async fn compute_analysis(&self, id: &str) -> Result<Analysis, RoomError> {
        let store = &self.inner.store;
        let record = self.record(id).await?;
        if record.seed.is_none() {
            return Err(RoomError::NotFinished);
        }
        let (analysed, took) = self
            .inner
            .config
            .bots
            .search(move || analyse(&record))
            .await
            .map_err(|_| RoomError::Unavailable)?;
        metrics::histogram!(crate::telemetry::ANALYSIS_TIME).record(took.as_secs_f64());
        let analysed = analysed?;
        let json = serde_json::to_string(&analysed).expect("an analysis serializes");
        store.log.save_analysis(id, &json).await?;
        Ok(analysed)
    }
}

/// The analyses being computed, each room's with the lock its requests share.
pub(super) type Flights = Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>;

/// A request's place in the single flight of one room's analysis: the lock it shares with the
/// others asking meanwhile; the last one to leave (done or cancelled) removes the entry.
struct Flight<'a> {
    flights: &'a Flights,
    id: &'a str,
    lock: Arc<tokio::sync::Mutex<()>>,
}

impl<'a> Flight<'a> {
    fn join(flights: &'a Flights, id: &'a str) -> Self {
        let lock = Self::entries(flights)
            .entry(id.to_string())
            .or_default()
            .clone();
        Flight { flights, id, lock }
    }

    fn entries(
        flights: &Flights,
    ) -> std::sync::MutexGuard<'_, HashMap<String, Arc<tokio::sync::Mutex<()>>>> {
        flights.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Flight<'_> {
    fn drop(&mut self) {
        let mut entries = Self::entries(self.flights);
        // Two holders: the map and this request, the last one.
        if Arc::strong_count(&self.lock) == 2 {
            entries.remove(self.id);
        }
    }
}
