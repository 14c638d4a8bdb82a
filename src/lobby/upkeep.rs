//! The lobby's background work: news from other instances (and the list read again after a
//! resync), held seeks renewed and unrenewed ones withdrawn, the games in progress read again,
//! and the batch of changes flushed to every lobby socket.

use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::{FLUSH_EVERY, GAMES, GAMES_EVERY, GAMES_SOON, Lobby, LobbyError, TICK};
use crate::protocol::players::SeatPlayers;
use crate::protocol::{LobbyGame, SeekGone, Status};
use crate::room::{RoomError, now_ms};
use crate::store::{SeekChange, Subscription};

impl Lobby {
    /// Reads every open seek from the store and sends the difference to the list.
    pub(super) async fn reload(&self) -> Result<(), LobbyError> {
        let open = self.store().seeks.open_seeks().await?;
        let rooms: std::collections::HashSet<&str> =
            open.iter().map(|seek| seek.room.as_str()).collect();
        let missing: Vec<String> = {
            let list = self.list();
            let known = list.at.keys();
            known
                .filter(|room| !rooms.contains(room.as_str()))
                .cloned()
                .collect()
        };
        // Why they went was in the notifications missed; "withdrawn" is the least claim.
        for room in missing {
            self.withdrawn(&room, SeekGone::Withdrawn).await;
        }
        for seek in open {
            self.opened(seek, None).await;
        }
        Ok(())
    }

    /// Applies other instances' changes (and, on PostgreSQL, our own coming back).
    pub(super) async fn follow(self, mut news: Subscription) {
        while let Some(news) = news.recv().await {
            let applied = match news {
                crate::store::News::Seek { room, change } => self.heard(&room, change).await,
                crate::store::News::Resync => self.reload().await,
                crate::store::News::Appended { .. }
                | crate::store::News::Spectators { .. }
                | crate::store::News::SpectatorsAsked { .. }
                | crate::store::News::Tournament { .. }
                | crate::store::News::Challenge { .. } => Ok(()),
            };
            if let Err(error) = applied {
                tracing::warn!(%error, "could not bring the lobby up to date");
            }
        }
    }

    async fn heard(&self, room: &str, change: SeekChange) -> Result<(), LobbyError> {
        match change {
            SeekChange::Gone(SeekGone::Taken) => {
                self.gone(room, SeekGone::Taken);
            }
            SeekChange::Gone(why) => self.withdrawn(room, why).await,
            // Read it: the notification says only that it was posted, and it may be gone again.
            SeekChange::Open => {
                if let Some(seek) = self.store().seeks.seek(room).await?
                    && seek.taken_at.is_none()
                {
                    self.opened(seek, None).await;
                }
            }
        }
        Ok(())
    }

    /// Renews held seeks, withdraws unrenewed ones, and reads the games again, until shutdown.
    /// A taken seek brings the next reading forward, to at most one per [`GAMES_SOON`]: under
    /// many takes each reading (one summary per game) serves them all.
    pub(super) async fn keep(self, shutdown: CancellationToken) {
        let mut ticks = tokio::time::interval(TICK);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut last_read = Instant::now();
        let mut games_due = Instant::now();
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = ticks.tick() => {
                    if let Err(error) = self.renew_and_sweep().await {
                        tracing::warn!(%error, "could not renew or sweep seeks");
                    }
                }
                () = self.inner.games_changed.notified() => {
                    games_due = games_due.min(last_read + GAMES_SOON);
                }
                () = tokio::time::sleep_until(games_due) => {
                    if let Err(error) = self.read_games().await {
                        tracing::warn!(%error, "could not read the lobby's games");
                    }
                    last_read = Instant::now();
                    games_due = last_read + GAMES_EVERY;
                }
            }
        }
    }

    async fn renew_and_sweep(&self) -> Result<(), LobbyError> {
        let held: Vec<String> = self.held().keys().cloned().collect();
        let now = now_ms();
        self.store()
            .seeks
            .renew_seeks(&held, now + self.grace_ms())
            .await?;
        // This instance knows every open seek: with none there is nothing to sweep (and an
        // idle SQLite server writes nothing).
        if self.list().open.is_empty() {
            return Ok(());
        }
        for room in self.store().seeks.expire_seeks(now).await? {
            tracing::info!(%room, "seek withdrawn: its creator's page is gone");
            self.withdrawn(&room, SeekGone::Withdrawn).await;
        }
        Ok(())
    }

    /// Reads the games started from seeks, unlists those that ended, and sends the list if it
    /// changed.
    async fn read_games(&self) -> Result<(), LobbyError> {
        let mut games = Vec::new();
        for seek in self.store().seeks.taken_seeks(GAMES).await? {
            let summary = match self.inner.rooms.summary(&seek.room).await {
                Ok(summary) => summary,
                Err(RoomError::NotFound) => continue,
                Err(error) => return Err(error.into()),
            };
            match summary.status {
                Status::Finished => self.store().seeks.unlist_seek(&seek.room).await?,
                // Taken, and the taker's join not through yet.
                Status::Waiting => {}
                Status::Playing => games.push(LobbyGame {
                    players: self.seat_players(&seek.room).await,
                    room: seek.room,
                    clock: seek.clock,
                    moves: summary.moves,
                    spectators: summary.spectators,
                    started_at: seek.taken_at.unwrap_or(seek.created_at),
                }),
            }
        }
        let mut list = self.list();
        if list.games != games {
            list.batch.games(games.clone());
            list.games = games;
        }
        Ok(())
    }

    /// The players bound to a game's seats; none if the store cannot say (logged): the game
    /// is listed anyway.
    async fn seat_players(&self, room: &str) -> SeatPlayers {
        let players = self.inner.players.as_ref();
        let seated = match players.room_players(room).await {
            Ok(Some(seated)) => crate::players::store::seated(players, &seated).await,
            Ok(None) => Ok(SeatPlayers::default()),
            Err(error) => Err(error),
        };
        seated.unwrap_or_else(|error| {
            tracing::warn!(%room, %error, "the players of a game in progress could not be read");
            SeatPlayers::default()
        })
    }

    /// Sends the batch of changes every [`FLUSH_EVERY`], until shutdown.
    pub(super) async fn flush(self, shutdown: CancellationToken) {
        let mut ticks = tokio::time::interval(FLUSH_EVERY);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = ticks.tick() => self.list().flush(),
            }
        }
    }
}
