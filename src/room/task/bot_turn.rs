//! The room task's side of the computer's seat: when to start the bot
//! thinking, and how its answer is committed. Kept apart from the task's
//! command handling so that each reads on its own.

use std::sync::Arc;

use tokio::task::JoinHandle;

use super::RoomTask;
use crate::protocol::{Action, Seat, Version};
use crate::room::bot;
use crate::room::error::RoomError;

impl RoomTask {
    /// Starts the bot thinking if it is its turn at this version and its
    /// person is here; stops a search the room has moved past.
    pub(super) fn schedule_bot(&self, turn: &mut BotTurn) {
        let Some((bot, step)) = self.game.bot_step() else {
            turn.stop();
            return;
        };
        if !self.person_connected(bot.side.other()) {
            turn.stop();
            return;
        }
        let v = self.game.version();
        if turn.v == Some(v) {
            return; // Thinking already, or gave up on this very state.
        }
        turn.stop();
        let config = self.config.bots.clone();
        let room: Arc<str> = Arc::from(self.game.id());
        *turn = BotTurn {
            v: Some(v),
            thinking: Some(tokio::spawn(bot::think(config, room, bot, step))),
        };
    }

    /// Commits the bot's action, if the room is still at version `v`, the
    /// state it was chosen for.
    pub(super) async fn bot_acts(&mut self, (v, action): (Version, Action)) {
        let Some(bot) = self.game.bot() else {
            return;
        };
        let seat = Seat::side(bot.side);
        let result = self
            .commit_with_retry(|game, ctx| {
                if game.version() != v {
                    return Err(RoomError::Stale(game.version()));
                }
                Ok(game.decide(seat, action, ctx)?)
            })
            .await;
        match result {
            Ok(_) => {}
            // Another writer (another instance) was first: the bot thinks again.
            Err(RoomError::Stale(now)) => {
                tracing::debug!(v, now, "the room moved on while the AI was thinking");
            }
            Err(error) => tracing::warn!(v, ?action, %error, "the AI's action was refused"),
        }
    }
}

/// The bot's search for one version of the room, if any.
#[derive(Default)]
pub(super) struct BotTurn {
    /// The version the bot is thinking about (or thought about and failed).
    v: Option<Version>,
    thinking: Option<JoinHandle<Option<Action>>>,
}

impl BotTurn {
    /// The bot's action once it is ready, with the version it is for;
    /// pending while the bot does not think or when its search failed.
    pub(super) async fn answer(&mut self) -> (Version, Action) {
        let (Some(v), Some(thinking)) = (self.v, self.thinking.as_mut()) else {
            return std::future::pending().await;
        };
        let action = thinking.await.unwrap_or_else(|error| {
            tracing::error!(%error, "the AI task failed");
            None
        });
        // Keep `v`: a failed search is not retried until the room moves on.
        self.thinking = None;
        match action {
            Some(action) => (v, action),
            None => std::future::pending().await,
        }
    }

    fn stop(&mut self) {
        if let Some(thinking) = self.thinking.take() {
            thinking.abort();
        }
        self.v = None;
    }
}

impl Drop for BotTurn {
    fn drop(&mut self) {
        self.stop();
    }
}
