//! The computer's seat in `ai` rooms: who it is, how it is stored, and how
//! it thinks without holding up the room task or the async runtime.
//!
//! The bot is not a client: its room task asks [`think`] for the next action
//! when it is the bot's turn, and the answer goes through the same
//! `decide` → append → broadcast path as a person's action. The bot sees
//! only the position and the current throw (the server throws for it, with
//! the same formula as for everyone); its own seed comes from the room id and
//! the throw number, never from the game's seed.
//!
//! How its seat is stored is [`super::seats`]'s business.

use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};
use tokio::sync::Semaphore;
use tokio::time::Instant;

use crate::ai::{Level, choose_move};
use crate::engine::{Position, Roll, Side};
use crate::protocol::Action;

/// The computer of an `ai` room: its colour and its strength.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bot {
    pub side: Side,
    pub level: Level,
}

/// What the computer must do on its turn, with all it may know for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    Roll,
    Move {
        position: Position,
        roll: Roll,
        /// The number of the throw being played, for the bot's own seed.
        throw: u32,
    },
}

/// How bots behave on this server; shared by every room.
#[derive(Clone, Debug)]
pub struct BotConfig {
    /// The least time between the bot's turn coming and its action, so that a
    /// person can follow. Searching happens during this pause, not after it.
    pub delay: Duration,
    /// Searches running at once, over all rooms; the rest wait their turn
    /// without blocking anything.
    pub searches: Arc<Semaphore>,
}

impl BotConfig {
    pub fn new(delay: Duration, max_concurrent: usize) -> BotConfig {
        BotConfig {
            delay,
            searches: Arc::new(Semaphore::new(max_concurrent.max(1))),
        }
    }
}

impl BotConfig {
    /// Runs `search` on tokio's blocking pool with one of the [`BotConfig::searches`] permits,
    /// so bot moves and analyses together never run more searches than the limit; answers
    /// what it returned and how long it took.
    pub async fn search<T: Send + 'static>(
        &self,
        search: impl FnOnce() -> T + Send + 'static,
    ) -> Result<(T, Duration), tokio::task::JoinError> {
        let permit = self
            .searches
            .clone()
            .acquire_owned()
            .await
            .expect("the search semaphore is never closed");
        tokio::task::spawn_blocking(move || {
            let _permit = permit;
            let started = Instant::now();
            let found = search();
            (found, started.elapsed())
        })
        .await
    }
}

/// One search per CPU: more would only slow each one down.
pub fn default_max_concurrent() -> u16 {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    u16::try_from(cpus).unwrap_or(u16::MAX)
}

/// The bot's next action after the configured pause; `None` if the search
/// failed (it is logged). A search runs through [`BotConfig::search`].
pub async fn think(config: BotConfig, room: Arc<str>, bot: Bot, step: Step) -> Option<Action> {
    let pause = tokio::time::sleep(config.delay);
    let choice = async {
        match step {
            Step::Roll => Some(Action::Roll),
            Step::Move {
                position,
                roll,
                throw,
            } => search(&config, &room, bot.level, position, roll, throw).await,
        }
    };
    let ((), action) = tokio::join!(pause, choice);
    action
}

async fn search(
    config: &BotConfig,
    room: &str,
    level: Level,
    position: Position,
    roll: Roll,
    throw: u32,
) -> Option<Action> {
    let seed = bot_seed(room, throw);
    let searched = config
        .search(move || choose_move(&position, roll, level, seed))
        .await;
    match searched {
        Ok((Some(chosen), took)) => {
            metrics::histogram!(crate::telemetry::AI_DECISION_TIME).record(took.as_secs_f64());
            tracing::debug!(
                %level,
                throw,
                from = chosen.from,
                ms = took.as_secs_f64() * 1e3,
                "AI decision"
            );
            Some(Action::Move { from: chosen.from })
        }
        Ok((None, _)) => {
            // The room passes a throw with no legal move by itself.
            tracing::error!(throw, "the AI was asked to move with no legal move");
            None
        }
        Err(error) => {
            tracing::error!(%error, "the AI search failed");
            None
        }
    }
}

/// The bot's own seed for one throw: from the room id and the throw number
/// only, so games replay exactly and the game's seed stays out of it.
pub fn bot_seed(room: &str, throw: u32) -> u64 {
    let digest = Sha256::new()
        .chain_update(b"senet-ai:")
        .chain_update(room.as_bytes())
        .chain_update(throw.to_be_bytes())
        .finalize();
    let mut first = [0; 8];
    first.copy_from_slice(&digest[..8]);
    u64::from_be_bytes(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bot_seeds_differ_by_room_and_throw() {
        let room = "0123456789abcdef0123456789abcdef";
        assert_eq!(bot_seed(room, 3), bot_seed(room, 3));
        assert_ne!(bot_seed(room, 3), bot_seed(room, 4));
        assert_ne!(
            bot_seed(room, 3),
            bot_seed("fedcba9876543210fedcba9876543210", 3)
        );
    }
}
