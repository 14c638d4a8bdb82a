//! One tokio task per live room: the only owner of the room's [`Game`].
//!
//! Commands arrive on a bounded mpsc and are handled one at a time:
//! decide → append to the store (committed) → apply → broadcast the
//! pre-serialized frames → answer the caller. If the store says another
//! writer took the next version first ([`StoreError::VersionConflict`]),
//! the task reads what it missed from the log, applies and broadcasts it,
//! and judges the action again against the new state. With one instance
//! that never happens; with several on one database (PostgreSQL) it is what
//! keeps a room from forking. The same catch-up runs when another instance
//! tells this one (through [`crate::store::Listener`]) that the log moved on:
//! [`Command::CatchUp`].
//!
//! The task ends when the server shuts down, when the room has had no
//! connection for `idle_after`, or when the registry, holding as many rooms
//! as it may, lets this idle one go ([`Command::LetGo`]); the log keeps
//! everything, and the next use loads the room again. A correspondence game (days a move) does
//! not keep its task: its timeout is found in the store (`Rooms::time_out_due_turns`), and its
//! clock is never resumed nor paused (`room/game/clock.rs`). A live timed game being played keeps its task: the task
//! holds one timer for the side to move's deadline ([`Game::deadline`]), a
//! branch of the same `select!`, and when it fires decides the `timeout`
//! itself, connected players or not. A task that starts on a timed game
//! being played (after a restart) first logs `resumed`, so the downtime is
//! charged to nobody, unless another live instance keeps the game's clock
//! ([`Cluster::keep_clock`](crate::store::Cluster::keep_clock)): then no time was lost, and none is given back.
//! A planned drain (SIGTERM) instead pauses the clock of every room whose player on turn is
//! connected to the draining instance ([`Command::Pause`]); whichever task next has that player
//! connected resumes it, or any task holding the room once the pause has lasted its limit
//! (`task/clock.rs`).
//!
//! In `ai` rooms the task also plays the computer's seat (see [`super::bot`]):
//! after each command, if it is the bot's turn and its person is connected,
//! it starts the bot thinking (`task/bot_turn.rs`); the answer comes back as another
//! branch of the `select!` in `run` and is judged and committed like a
//! person's action, but only if the room is still at the version the bot
//! decided for. The bot counts as always connected, so presence and
//! abandonment never concern its seat.
//!
//! Several instances: another instance's appends reach this task through
//! `RoomTask::catch_up`, on a version conflict or on [`Command::CatchUp`].
//! A person counts as connected if they have a connection here or on another
//! live instance ([`Cluster::held_elsewhere`](crate::store::Cluster::held_elsewhere)); a task whose log says a person
//! is connected elsewhere checks that every `presence_check`, so a player
//! whose instance died is seen to be gone (see docs/ARCHITECTURE.md). Its
//! spectators are those here and those other live instances announced
//! ([`super::watchers`]): the task notes its own count as it changes, and
//! hears [`Command::WatchersChanged`] when the others' change.
//!
//! Here: the commands, the task's state, loading and the loop. Beside it, one file a job:
//! `task/commit.rs` (decide → append → keep → broadcast, and catching up with the log),
//! `task/resends.rs` (an action resent after a reconnection, or after `unavailable`, is answered,
//! not applied again),
//! `task/conns.rs` (seats taken, sockets attached and detached), `task/presence.rs` (who is
//! connected, here and elsewhere, and the spectators), `task/clock.rs`, `task/rematch.rs` and
//! `task/bot_turn.rs`, and `task/chat.rs` (the room's chat).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use super::bounds::PresencePace;
use super::error::RoomError;
use super::game::{Game, Readers};
use super::rate::SeatBudget;
use super::ring;
use super::watchers::Watchers;
use super::{RoomConfig, now_ms, replay};
use crate::engine::Side;
use crate::protocol::{Action, FrameText, Joined, RoomSummary, Seat, State, UnixMs, Version};
use crate::store::{Store, StoredEvent};

mod bot_turn;
mod chat;
mod clock;
mod commit;
mod conns;
mod presence;
mod rematch;
mod resends;

use bot_turn::BotTurn;
pub use chat::{ChatAnswer, ChatCommand};
use clock::instant_of;
use resends::Answered;

/// Identifies one attached connection within its room.
pub type ConnId = u64;

/// A message for every connection of a room, serialized once; the ring holds it behind an `Arc`,
/// shared by every connection that has not read it yet.
#[derive(Debug)]
pub struct Frame {
    /// The event's version; `None` for unversioned notices (`watchers`).
    pub v: Option<Version>,
    pub text: FrameText,
    /// Set on the `rematch` event: each seated connection then tells its
    /// own player, privately, where to sit.
    pub rematch: Option<Arc<str>>,
    /// Which seats are sent it (chat: the spectators' channel); the others get `withheld`.
    pub readers: Readers,
    /// What the seats that may not read it get instead: the event without its words.
    pub withheld: Option<FrameText>,
}

/// What an attached connection gets: its seat, the state to start from,
/// and the stream of everything after it.
pub struct Attached {
    pub conn: ConnId,
    pub seat: Seat,
    pub state: State,
    pub frames: ring::Receiver<Arc<Frame>>,
    /// The message budget shared by all the sockets of this seat; `None` for a spectator.
    pub budget: Option<SeatBudget>,
    /// Cancelled when the room lets this connection go because its seat opened too many.
    pub evicted: CancellationToken,
}

/// One attached connection, as the room sees it.
struct Conn {
    seat: Seat,
    /// Cancelling it tells the connection to close (see [`Attached::evicted`]).
    evicted: CancellationToken,
}

/// An action, and the key its client would resend it under (see `task/resends.rs`): `None` when
/// the client named neither itself nor the action.
pub struct Acting {
    pub action: Action,
    pub resend: Option<Box<str>>,
}

/// Where a room task answers a command that can fail.
pub type Answer<T> = oneshot::Sender<Result<T, RoomError>>;

/// Requests to a room task. Every reply channel dropped unanswered means
/// "the task ended before handling this": the caller reloads and retries.
///
/// Kept small (the action and the token are boxed): every room's queue allocates its first
/// block of 32 commands up front, in use or not (docs/PERFORMANCE.md, memory).
pub enum Command {
    Join {
        side: Option<Side>,
        reply: Answer<Joined>,
    },
    Attach {
        token: Option<Box<str>>,
        reply: Answer<Attached>,
    },
    Detach {
        conn: ConnId,
    },
    Act {
        conn: ConnId,
        acting: Box<Acting>,
        reply: Answer<Version>,
    },
    /// The state as the connection `conn` may see it.
    Snapshot {
        conn: ConnId,
        reply: oneshot::Sender<State>,
    },
    /// A chat request from connection `conn` (`task/chat.rs`).
    Chat {
        conn: ConnId,
        chat: Box<ChatCommand>,
        reply: Answer<ChatAnswer>,
    },
    Summary {
        reply: oneshot::Sender<RoomSummary>,
    },
    /// Another instance appended: the log reaches `up_to` (`None`: it may
    /// have moved on, read it to find out).
    CatchUp {
        up_to: Option<Version>,
    },
    /// The room was deleted from the store: end the task (its connections are closed).
    Close,
    /// The room's spectators on other instances changed: tell everyone the number.
    WatchersChanged,
    /// The registry holds too many rooms: end the task if the room is idle (no connection, no
    /// running clock), answering whether it ended (see [`super::Rooms`]'s cap).
    LetGo {
        reply: oneshot::Sender<bool>,
    },
    /// The operator drains this instance: pause the clock if the player on turn is connected
    /// here, and never resume it again (`task/clock.rs`); answered once done.
    Pause {
        reply: oneshot::Sender<()>,
    },
    /// A teacher holds (or lets go of) the clocks of their class's games (`task/clock.rs`).
    Hold {
        hold: bool,
        reply: oneshot::Sender<()>,
    },
    /// A teacher ends their class's game: `game-over` with no winner and this note.
    End {
        note: &'static str,
        reply: Answer<Version>,
    },
}

pub struct RoomTask {
    game: Game,
    store: Store,
    config: RoomConfig,
    watchers: Watchers,
    frames: ring::Sender<Arc<Frame>>,
    conns: HashMap<ConnId, Conn>,
    next_conn: ConnId,
    /// One per seat that has attached, so its sockets share one message budget. At most three
    /// (black, white, both): a seat's budget outlives its sockets, so reconnecting buys nothing.
    budgets: HashMap<Seat, SeatBudget>,
    /// Whether another live instance holds a connection of each side (black, white), as last
    /// asked of the store: refreshed when news comes from the log and by the presence check, so
    /// that judging an action waits for no round trip but its own append.
    elsewhere: [bool; 2],
    /// When this task logged its last `presence` events, and when it logs the next if
    /// connections changed since the pace held one back (see `super::bounds`).
    presence_pace: PresencePace,
    presence_due: Option<Instant>,
    /// The last actions sent under a resend key, so that a resend is not applied twice.
    answered: Answered,
    /// The events of the last append of an action that failed: the database may have
    /// committed them all the same, so a resend looks for them in the log (`task/resends.rs`).
    unsure: Option<Vec<StoredEvent>>,
    /// This instance is being drained: its players are about to leave for another, where the
    /// clock a drain paused goes on; here it must not.
    draining: bool,
    /// Until when a teacher holds the clock paused (`Command::Hold`, `task/clock.rs`): nobody's
    /// coming back resumes it meanwhile.
    held: Option<UnixMs>,
    /// The summary row this task last committed, while nobody else has appended since: an
    /// append whose summary is the same (a throw, a presence event) leaves the row alone, which
    /// spares the store a row write in about half the appends (issue 51).
    summary_stored: Option<String>,
}

impl RoomTask {
    /// Loads a room from the store: `None` if it does not exist.
    pub async fn load(
        store: Store,
        config: RoomConfig,
        watchers: Watchers,
        id: &str,
    ) -> Result<Option<RoomTask>, RoomError> {
        let Some(row) = store.log.room(id).await? else {
            return Ok(None);
        };
        // The whole log is folded on the blocking pool (see `super::replay`): nobody listens yet.
        let game = replay(row, store.log.events_after(id, 0).await?).await?;
        let frames = ring::channel(config.broadcast_capacity);
        let mut task = RoomTask {
            game,
            store,
            config,
            watchers,
            frames,
            conns: HashMap::new(),
            next_conn: 1,
            budgets: HashMap::new(),
            elsewhere: [false; 2],
            presence_pace: PresencePace::default(),
            presence_due: None,
            answered: Answered::default(),
            unsure: None,
            draining: false,
            held: None,
            summary_stored: None,
        };
        task.refresh_elsewhere().await;
        // A crash between taking the second seat and logging `started`
        // leaves a full room that never started: start it now.
        if let Err(error) = task.start_if_full().await {
            tracing::warn!(room = id, %error, "could not start a full room");
        }
        // Likewise between logging `rematch` and opening its room.
        if let Err(error) = task.open_rematch_room().await {
            tracing::warn!(room = id, %error, "could not open the rematch room");
        }
        tracing::debug!(room = id, v = task.game.version(), "room loaded");
        Ok(Some(task))
    }

    pub fn id(&self) -> &str {
        self.game.id()
    }

    /// Handles commands until shutdown, until the room has been idle for `idle_after`, or until
    /// the registry lets it go. `idle` tells the registry, after each step, whether the room
    /// holds anything a let-go would lose: a connection (and with it the computer's search) or
    /// a running clock. The task comes boxed: an `async fn`'s future keeps its arguments twice,
    /// for its whole life.
    pub async fn run(
        mut self: Box<Self>,
        mut commands: mpsc::Receiver<Command>,
        shutdown: CancellationToken,
        idle: Arc<AtomicBool>,
    ) {
        let mut idle_since = Some(Instant::now());
        let every = self.config.presence_check;
        let mut presence_check = tokio::time::interval_at(Instant::now() + every, every);
        presence_check.set_missed_tick_behavior(MissedTickBehavior::Delay);
        let mut bot_turn = BotTurn::default();
        // A correspondence clock is kept by nobody (`task/clock.rs`): only a live one is taken up.
        let correspondence = self.game.is_correspondence();
        let live_clock =
            self.game.room().clock.is_some() && !self.game.is_over() && !correspondence;
        if live_clock {
            Box::pin(self.take_up_clock()).await;
        } else if correspondence {
            Box::pin(self.mend_turn()).await;
        }
        loop {
            self.schedule_bot(&mut bot_turn);
            let clock_due = self.clock_due().map(instant_of);
            // A running (or paused) live clock keeps the room in memory: its timeout (or its
            // pause's end) needs no one connected. A correspondence one does not: its timeout,
            // days away, is found in the store by `Rooms::time_out_due_turns`.
            let idle_deadline = idle_since
                .filter(|_| clock_due.is_none() || self.game.is_correspondence())
                .map(|since| since + self.config.idle_after);
            idle.store(idle_deadline.is_some(), Ordering::Relaxed);
            // The handlers are boxed, as the sockets' are (src/server/ws.rs): inline, the state
            // of their deepest await (a store append) would be carried by every room for its
            // whole life; boxed, it exists only while the room works (docs/PERFORMANCE.md).
            tokio::select! {
                biased;
                _ = shutdown.cancelled() => break,
                command = commands.recv() => match command {
                    Some(Command::Close) | None => break,
                    Some(Command::LetGo { reply }) => {
                        let _ = reply.send(idle_deadline.is_some());
                        if idle_deadline.is_some() {
                            break;
                        }
                    }
                    Some(command) => Box::pin(self.handle(command)).await,
                },
                decided = bot_turn.answer() => Box::pin(self.bot_acts(decided)).await,
                _ = sleep_until_some(clock_due) => Box::pin(self.clock_is_due()).await,
                _ = sleep_until_some(idle_deadline) => break,
                _ = sleep_until_some(self.presence_due) => Box::pin(self.record_presence()).await,
                _ = presence_check.tick(), if self.connected_elsewhere_by_the_log() => {
                    Box::pin(self.check_presence()).await
                }
            }
            idle_since = match (self.conns.is_empty(), idle_since) {
                (false, _) => None,
                (true, None) => Some(Instant::now()),
                (true, since) => since,
            };
        }
        // Its sockets go with it, and the log hears of those that left since the last `presence`.
        if self.presence_due.is_some() {
            Box::pin(self.log_presence()).await;
        }
        self.watchers.set_here(self.game.id(), 0);
        if live_clock
            && let Some(cluster) = &self.store.cluster
            && let Err(error) = cluster.let_go_of_clock(self.game.id()).await
        {
            tracing::warn!(%error, "could not let go of the clock");
        }
        tracing::debug!("room task ends");
    }

    async fn handle(&mut self, command: Command) {
        match command {
            Command::Join { side, reply } => {
                let _ = reply.send(self.join(side).await);
            }
            Command::Attach { token, reply } => {
                // A socket that gave up waiting (its request's deadline) holds no seat here.
                if let Err(Ok(gone)) = reply.send(self.attach(token).await) {
                    self.detach(gone.conn).await;
                }
            }
            Command::Detach { conn } => self.detach(conn).await,
            Command::Act {
                conn,
                acting,
                reply,
            } => {
                let _ = reply.send(self.act(conn, *acting).await);
            }
            Command::Snapshot { conn, reply } => {
                let _ = reply.send(self.state_for(conn));
            }
            Command::Chat { conn, chat, reply } => {
                let _ = reply.send(self.chat(conn, *chat).await);
            }
            Command::Summary { reply } => {
                let _ = reply.send(self.summary());
            }
            Command::CatchUp { up_to } => {
                self.heard(up_to).await;
                // Another instance may have paused the clock of a player connected here.
                self.resume_if_back().await;
            }
            Command::WatchersChanged => self.tell_watchers(),
            Command::Pause { reply } => {
                self.draining = true;
                self.pause_on_turn_here().await;
                let _ = reply.send(());
            }
            Command::Hold { hold, reply } => {
                self.hold(hold).await;
                let _ = reply.send(());
            }
            Command::End { note, reply } => {
                let now = crate::room::now_ms();
                let ended = self
                    .commit_with_retry(|game, _| Ok(game.decide_end(note, now)?))
                    .await;
                let _ = reply.send(ended);
            }
            // The loop handles them: they may end the task.
            Command::Close | Command::LetGo { .. } => {}
        }
    }
}

async fn sleep_until_some(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every room's command queue allocates its first block of 32 commands when the room loads,
    /// and an idle room keeps it: a fat variant costs every room in memory 32 times its growth.
    #[test]
    fn a_command_stays_small() {
        assert!(size_of::<Command>() <= 32, "{} bytes", size_of::<Command>());
    }
}
