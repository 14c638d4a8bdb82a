//! The registry's background work: after a restart, the live timed rooms being played are loaded
//! so their clocks run; on a drain, the clocks of this instance's players on turn are paused; now
//! and then, the correspondence games whose days ran out are loaded to time out, and the rooms
//! whose game never started are swept.

use std::time::Duration;

use futures_util::future::join_all;

use super::{Rooms, now_ms};
use crate::protocol::{UnixMs, Version};
use crate::room::error::RoomError;
use crate::room::task::Command;
use crate::store::Sweep;

impl Rooms {
    /// The operator drains this instance (SIGTERM): every room held here pauses the clock of a
    /// player on turn connected here (see `task/clock.rs`), all at once, before the sockets
    /// close. Returns when every room has answered, or after `within`, whichever comes first.
    pub async fn pause_clocks(&self, within: Duration) {
        let handles: Vec<_> = self.live().values().cloned().collect();
        let paused = join_all(
            handles
                .iter()
                .map(|handle| handle.call(|reply| Command::Pause { reply })),
        );
        if tokio::time::timeout(within, paused).await.is_err() {
            tracing::warn!(?within, "not every room paused its clock in time");
        }
    }

    /// A teacher pauses (`hold`) or resumes the clock of the game in room `id` (issue 50).
    pub async fn hold_clock(&self, id: &str, hold: bool) -> Result<(), RoomError> {
        self.call(id, |reply| Command::Hold { hold, reply }).await
    }

    /// A teacher ends the game in room `id`: `game-over` with no winner, `note` its reason.
    pub async fn end_game(&self, id: &str, note: &'static str) -> Result<Version, RoomError> {
        self.call(id, |reply| Command::End { note, reply }).await?
    }

    /// Loads the timed rooms being played ([`Rooms::load_timed_in_play`]) in the background, so
    /// that after a restart their clocks run and a timeout ends a game with nobody connecting.
    pub fn resume_clocks(&self) {
        let rooms = self.clone();
        tokio::spawn(async move {
            match rooms.load_timed_in_play().await {
                Ok(0) => {}
                Ok(loaded) => tracing::info!(loaded, "timed rooms being played loaded"),
                Err(error) => {
                    tracing::error!(%error, "could not list the timed rooms being played")
                }
            }
        });
    }

    /// Loads every timed room whose game is being played, a page of ids at a time (one bounded
    /// query each). Each task logs `resumed` (unless another live instance keeps the clock) and
    /// stays in memory while its clock runs. Returns how many were loaded; a room that fails to
    /// load is logged and skipped.
    pub async fn load_timed_in_play(&self) -> Result<usize, RoomError> {
        const PAGE: u32 = 500;
        let mut after = String::new();
        let mut loaded = 0;
        loop {
            let ids = self.inner.store.log.timed_in_play(&after, PAGE).await?;
            loaded += self.load_each(&ids).await;
            match ids.last() {
                Some(last) if ids.len() == PAGE as usize && !self.inner.shutdown.is_cancelled() => {
                    after.clone_from(last)
                }
                _ => return Ok(loaded),
            }
        }
    }

    /// Loads each room of `ids` (loading is what resumes its clock or logs its timeout), until
    /// shutdown; a room that fails to load is logged and skipped. Returns how many were loaded.
    async fn load_each(&self, ids: &[String]) -> usize {
        let mut loaded = 0;
        for id in ids {
            if self.inner.shutdown.is_cancelled() {
                break;
            }
            match self.handle(id).await {
                Ok(_) => loaded += 1,
                Err(error) => tracing::warn!(room = %id, %error, "could not load a room"),
            }
        }
        loaded
    }

    /// Runs `job` every `period` in the background until shutdown (a late tick is delayed, not
    /// made up for by a burst).
    fn now_and_then<F, Job>(&self, period: Duration, job: F)
    where
        F: Fn(Rooms) -> Job + Send + 'static,
        Job: Future<Output = ()> + Send,
    {
        let rooms = self.clone();
        let shutdown = self.inner.shutdown.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(period);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = ticks.tick() => {}
                }
                job(rooms.clone()).await;
            }
        });
    }

    /// Loads the correspondence games whose time ran out ([`Rooms::time_out_due_turns`]) in
    /// the background until shutdown, every `due_turn_check`.
    pub fn time_out_due_turns_now_and_then(&self) {
        self.now_and_then(self.inner.config.due_turn_check, |rooms| async move {
            match rooms.time_out_due_turns().await {
                Ok(0) => {}
                Ok(loaded) => tracing::info!(loaded, "correspondence games out of time loaded"),
                Err(error) => tracing::warn!(%error, "could not look for correspondence timeouts"),
            }
        });
    }

    /// Loads up to a batch of the correspondence games whose side to move's days ran out: each
    /// task, starting past its deadline, logs the timeout at once (and then idles out). One
    /// batch a call, so a row that is not (yet) due after all never spins the loop: the load
    /// mends it. Returns how many were loaded.
    pub async fn time_out_due_turns(&self) -> Result<usize, RoomError> {
        const BATCH: u32 = 500;
        let due = self.inner.store.log.due_turns(now_ms(), BATCH).await?;
        Ok(self.load_each(&due).await)
    }

    /// Sweeps unstarted rooms ([`Rooms::sweep_unstarted`]) in the background until shutdown,
    /// ten times per `unstarted_ttl` (at most every ten minutes).
    pub fn sweep_now_and_then(&self) {
        let ttl = self.inner.config.unstarted_ttl;
        let every = (ttl / 10).clamp(Duration::from_millis(100), Duration::from_secs(600));
        self.now_and_then(every, move |rooms| async move {
            match rooms.sweep_unstarted(ttl).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "unstarted rooms deleted"),
                Err(error) => tracing::warn!(%error, "could not sweep unstarted rooms"),
            }
        });
    }

    /// Deletes the rooms whose game has not started within `ttl` of their creation, a batch at
    /// a time, and ends the tasks of those in memory. Returns how many were deleted.
    pub async fn sweep_unstarted(&self, ttl: Duration) -> Result<usize, RoomError> {
        self.sweep(Sweep::Unstarted, ttl).await
    }

    /// Deletes the one-screen and computer games with no named player that nobody has touched
    /// for `after` (`--forget-local-games-after`), in the background until shutdown, ten times
    /// per `after` (at most every hour). A kiosk's games go this way.
    pub fn forget_now_and_then(&self) {
        let Some(after) = self.inner.config.forget_local_after else {
            return;
        };
        let every = (after / 10).clamp(Duration::from_millis(100), Duration::from_secs(3600));
        self.now_and_then(every, move |rooms| async move {
            match rooms.sweep(Sweep::Forgotten, after).await {
                Ok(0) => {}
                Ok(deleted) => tracing::info!(deleted, "forgotten one-screen games deleted"),
                Err(error) => tracing::warn!(%error, "could not sweep forgotten games"),
            }
        });
    }

    /// Deletes what `sweep` finds older than `age`, a batch at a time, and ends the tasks of
    /// those in memory. Returns how many were deleted.
    pub async fn sweep(&self, sweep: Sweep, age: Duration) -> Result<usize, RoomError> {
        const BATCH: u32 = 100;
        let before = now_ms() - age.as_millis() as UnixMs;
        let mut total = 0;
        loop {
            let deleted = self
                .inner
                .store
                .log
                .delete_swept(sweep, before, BATCH)
                .await?;
            for id in &deleted {
                self.close(id);
            }
            total += deleted.len();
            if deleted.len() < BATCH as usize {
                return Ok(total);
            }
        }
    }
}
