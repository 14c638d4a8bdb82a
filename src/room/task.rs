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
//! everything, and the next use loads the room again. A timed game being played keeps its task: the task
//! holds one timer for the side to move's deadline ([`Game::deadline`]), a
//! branch of the same `select!`, and when it fires decides the `timeout`
//! itself, connected players or not. A task that starts on a timed game
//! being played (after a restart) first logs `resumed`, so the downtime is
//! charged to nobody, unless another live instance keeps the game's clock
//! ([`Cluster::keep_clock`](crate::store::Cluster::keep_clock)): then no time was lost, and none is given back.
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

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::{mpsc, oneshot};
use tokio::time::{Instant, MissedTickBehavior};
use tokio_util::sync::CancellationToken;

use super::bot::Bot;
use super::bounds::{PresencePace, check_log_room};
use super::error::{Refusal, RoomError};
use super::game::{Context, Decision, Game, index};
use super::rate::SeatBudget;
use super::ring;
use super::seats::Seats;
use super::watchers::Watchers;
use super::{RoomConfig, create_room, decode, new_seat, now_ms, replay};
use crate::engine::Side;
use crate::protocol::{
    Action, Event, FrameText, Joined, Reply, RoomSummary, Seat, State, UnixMs, Version,
};
use crate::secrets::hash_token;
use crate::store::{Store, StoreError, StoredEvent};
use crate::telemetry;

mod bot_turn;

use bot_turn::BotTurn;

/// How many times an action is re-judged after losing a version race
/// before the caller is told to try again.
const MAX_CONFLICT_RETRIES: usize = 5;

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
        action: Box<Action>,
        reply: Answer<Version>,
    },
    Snapshot {
        reply: oneshot::Sender<State>,
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
        let timed = self.game.room().clock.is_some() && !self.game.is_over();
        if timed {
            Box::pin(self.take_up_clock()).await;
        }
        loop {
            self.schedule_bot(&mut bot_turn);
            let flag_deadline = self.game.deadline().map(instant_of);
            // A running clock keeps the room in memory: its timeout needs no one connected.
            let idle_deadline = idle_since
                .filter(|_| flag_deadline.is_none())
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
                _ = sleep_until_some(flag_deadline) => {
                    Box::pin(self.commit_now(Game::decide_timeout)).await
                }
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
        if timed
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
                let _ = reply.send(self.attach(token).await);
            }
            Command::Detach { conn } => self.detach(conn).await,
            Command::Act {
                conn,
                action,
                reply,
            } => {
                let _ = reply.send(self.act(conn, *action).await);
            }
            Command::Snapshot { reply } => {
                let _ = reply.send(self.game.state(self.spectators(), now_ms()));
            }
            Command::Summary { reply } => {
                let _ = reply.send(self.summary());
            }
            Command::CatchUp { up_to } => self.heard(up_to).await,
            Command::WatchersChanged => self.tell_watchers(),
            // The loop handles them: they may end the task.
            Command::Close | Command::LetGo { .. } => {}
        }
    }

    /// Passes on what another instance appended, in version order, and
    /// re-asserts the presence of the players connected here if that news
    /// said otherwise (the other instance judged before it could see them).
    async fn heard(&mut self, up_to: Option<Version>) {
        // Our own appends come back as news too: nothing to read.
        if up_to.is_some_and(|v| v <= self.game.version()) {
            return;
        }
        if let Err(error) = self.catch_up_with_presence().await {
            tracing::error!(%error, "could not read news from the log");
            return;
        }
        for side in Side::BOTH {
            if self.person_connected(side) && !self.game.is_connected(side) {
                // Perhaps our hold was lost with its session: take it again.
                self.share_presence(Seat::side(side)).await;
                self.record_presence().await;
            }
        }
    }

    /// The periodic check of a player the log says is connected elsewhere: still there?
    async fn check_presence(&mut self) {
        self.refresh_elsewhere().await;
        self.record_presence().await;
    }

    /// Whether the log says a person is connected though not here: to
    /// another instance, or to one that died. (The bot is always here.)
    fn connected_elsewhere_by_the_log(&self) -> bool {
        let bot = self.game.bot().map(|bot: Bot| bot.side);
        Side::BOTH.into_iter().any(|side| {
            bot != Some(side) && self.game.is_connected(side) && !self.person_connected(side)
        })
    }

    /// Whether a person holding `side` has a connection here.
    fn person_connected(&self, side: Side) -> bool {
        self.conns.values().any(|conn| conn.seat.holds(side))
    }

    /// What a decision needs from outside the game: the clock and who is
    /// connected: here, to another live instance, or the bot (always here).
    fn context(&self) -> Context {
        let bot = self.game.bot().map(|bot: Bot| bot.side);
        let connected = |side: Side| {
            bot == Some(side) || self.person_connected(side) || self.elsewhere[index(side)]
        };
        Context {
            now: now_ms(),
            abandon_after_ms: self.config.abandon_after.as_millis() as i64,
            idle_turn_after_ms: self.config.idle_turn_after.as_millis() as i64,
            connected: [connected(Side::Black), connected(Side::White)],
        }
    }

    /// Asks the store which sides another live instance holds connections of.
    async fn refresh_elsewhere(&mut self) {
        // One instance: nobody is connected elsewhere.
        let Some(cluster) = self.store.cluster.clone() else {
            return;
        };
        for side in Side::BOTH {
            let held = match cluster.held_elsewhere(self.game.id(), side).await {
                Ok(held) => held,
                Err(error) => {
                    // Keep what the log says rather than guess either way.
                    tracing::warn!(%error, "could not ask where players are connected");
                    self.game.is_connected(side)
                }
            };
            self.elsewhere[index(side)] = held;
        }
    }

    /// Tells the store which sides of `seat` have a connection here now, so
    /// that other instances count them ([`Cluster::hold_presence`](crate::store::Cluster::hold_presence)).
    async fn share_presence(&self, seat: Seat) {
        // One instance: there is nobody to tell.
        let Some(cluster) = &self.store.cluster else {
            return;
        };
        for side in Side::BOTH.into_iter().filter(|side| seat.holds(*side)) {
            let held = self.person_connected(side);
            if let Err(error) = cluster.hold_presence(self.game.id(), side, held).await {
                tracing::warn!(%error, "could not share presence with other instances");
            }
        }
    }

    /// The room's spectators, here and on the other live instances.
    fn spectators(&self) -> usize {
        self.spectators_here() + self.watchers.elsewhere(self.game.id())
    }

    fn spectators_here(&self) -> usize {
        self.conns
            .values()
            .filter(|conn| conn.seat == Seat::Spectator)
            .count()
    }

    /// Tells every connection how many spectators the room has.
    fn tell_watchers(&self) {
        let count = self.spectators();
        self.send(Frame {
            v: None,
            text: Reply::Watchers { count }.to_json().into(),
            rematch: None,
        });
    }

    fn summary(&self) -> RoomSummary {
        self.game.summary(self.spectators())
    }

    async fn join(&mut self, side: Option<Side>) -> Result<Joined, RoomError> {
        let (token, sitter) = new_seat();
        let row = sitter.row().expect("a person's seat is stored");
        let side = loop {
            let side = self.game.seats().free_seat(side)?;
            if self.store.log.take_seat(self.game.id(), side, &row).await? {
                break side;
            }
            // Taken meanwhile through another instance: learn who sits where.
            self.reload_seats().await?;
        };
        self.reload_seats().await?;
        self.start_if_full().await?;
        Ok(Joined {
            seat: Seat::side(side),
            token,
        })
    }

    /// Logs `started` once both seats are taken.
    async fn start_if_full(&mut self) -> Result<Version, RoomError> {
        self.commit_with_retry(|game, ctx| Ok(game.decide_start_present(ctx)))
            .await
    }

    async fn reload_seats(&mut self) -> Result<(), RoomError> {
        let row = self
            .store
            .log
            .room(self.game.id())
            .await?
            .ok_or(RoomError::NotFound)?;
        let seats = Seats::of_room(&row);
        self.game.set_seats(seats);
        Ok(())
    }

    async fn attach(&mut self, token: Option<Box<str>>) -> Result<Attached, RoomError> {
        let seat = match token {
            None => Seat::Spectator,
            Some(token) => self.seat_of_token(&token).await?,
        };
        let frames = self.frames.subscribe();
        let conn = self.next_conn;
        self.next_conn += 1;
        let budget = (seat != Seat::Spectator).then(|| self.make_room_for(seat));
        let evicted = CancellationToken::new();
        self.conns.insert(
            conn,
            Conn {
                seat,
                evicted: evicted.clone(),
            },
        );
        self.share_presence(seat).await;
        self.connections_changed(seat).await;
        Ok(Attached {
            conn,
            seat,
            state: self.game.state(self.spectators(), now_ms()),
            frames,
            budget,
            evicted,
        })
    }

    /// Before a new socket of `seat` is added: lets the seat's oldest sockets go while it holds
    /// as many as it may, and returns the seat's message budget.
    fn make_room_for(&mut self, seat: Seat) -> SeatBudget {
        loop {
            let held = self.conns.iter().filter(|(_, conn)| conn.seat == seat);
            if held.clone().count() < self.config.max_sockets_per_seat {
                break;
            }
            // Connection ids only grow: the smallest is the oldest.
            let oldest = *held.map(|(id, _)| id).min().expect("counted at least one");
            if let Some(conn) = self.conns.remove(&oldest) {
                conn.evicted.cancel();
            }
        }
        let limit = self.config.seat_messages_per_second;
        self.budgets
            .entry(seat)
            .or_insert_with(|| SeatBudget::new(limit))
            .clone()
    }

    /// The seat a token holds. An unknown token may belong to a seat taken
    /// through another instance since the room was loaded here, so the log
    /// and the seats are re-read once before refusing.
    async fn seat_of_token(&mut self, token: &str) -> Result<Seat, RoomError> {
        let hash = hash_token(token);
        if self.game.seats().seat_of(&hash) == Seat::Spectator {
            self.catch_up().await?;
            self.reload_seats().await?;
        }
        match self.game.seats().seat_of(&hash) {
            Seat::Spectator => Err(RoomError::BadToken),
            seat => Ok(seat),
        }
    }

    async fn detach(&mut self, conn: ConnId) {
        if let Some(Conn { seat, .. }) = self.conns.remove(&conn) {
            self.share_presence(seat).await;
            self.connections_changed(seat).await;
        }
    }

    /// Logs a `presence` event if a player came or went, and tells everyone
    /// the number of spectators if that changed.
    async fn connections_changed(&mut self, seat: Seat) {
        if seat == Seat::Spectator {
            self.watchers
                .set_here(self.game.id(), self.spectators_here());
            self.tell_watchers();
            return;
        }
        self.record_presence().await;
    }

    /// Logs a `presence` event if the log's differs from who is connected, now or, if the room
    /// logged as many as it may lately, once its pace allows.
    async fn record_presence(&mut self) {
        match self.presence_pace.next_at(Instant::now()) {
            Some(next) => self.presence_due = Some(next),
            None => self.log_presence().await,
        }
    }

    /// Logs a `presence` event now if the log's differs from who is connected.
    async fn log_presence(&mut self) {
        self.presence_due = None;
        let before = self.game.version();
        let result = self
            .commit_with_retry(|game, ctx| Ok(game.decide_presence(ctx)))
            .await;
        match result {
            // Only these count: the presence that rides along with a player's action (a new
            // `claim_at` each turn) is bounded by the game itself.
            Ok(v) if v > before => self.presence_pace.logged(Instant::now()),
            Ok(_) => {}
            Err(error) => tracing::warn!(%error, "presence not recorded"),
        }
    }

    /// Takes up a timed game's clock as the task starts. If another live instance keeps it, its
    /// time has run all along: nothing is given back. Otherwise nobody kept it since the last
    /// logged event (the server was down, or the instance that kept it died): `resumed`.
    async fn take_up_clock(&mut self) {
        let kept = match &self.store.cluster {
            Some(cluster) => cluster.keep_clock(self.game.id()).await,
            // One instance: nobody else keeps a clock.
            None => Ok(false),
        };
        let kept_elsewhere = match kept {
            Ok(kept) => kept,
            Err(error) => {
                // As a single server would: better time given back than a downtime charged.
                tracing::warn!(%error, "could not ask whether another instance keeps the clock");
                false
            }
        };
        if kept_elsewhere {
            tracing::info!("another instance keeps the clock: not resumed");
        } else {
            self.commit_now(Game::decide_resume).await;
        }
    }

    /// Commits what the game decides at this moment by itself (a timeout, a resumed clock).
    async fn commit_now(&mut self, decide: fn(&Game, UnixMs) -> Decision) {
        let now = now_ms();
        if let Err(error) = self
            .commit_with_retry(|game, _| Ok(decide(game, now)))
            .await
        {
            tracing::error!(%error, "the clock's event was not recorded");
        }
    }

    async fn act(&mut self, conn: ConnId, action: Action) -> Result<Version, RoomError> {
        let seat = self.conns.get(&conn).ok_or(RoomError::NotAttached)?.seat;
        // An action that comes after the deadline, before the timer was seen, meets the
        // timeout first (the commands' branch of the loop goes first).
        self.commit_now(Game::decide_timeout).await;
        let v = match self.judge(seat, action).await {
            Err(RoomError::Refused(Refusal::RematchOpen(room))) => {
                // Perhaps it was logged and never opened (a crash between the two): open it now.
                self.open_rematch_room().await?;
                return Err(Refusal::RematchOpen(room).into());
            }
            Err(RoomError::Refused(refusal)) if refusal.depends_on_the_game() => {
                // Perhaps another instance moved the game on and its news has not come yet:
                // judge against the log, so that an action sent after an event committed
                // anywhere is judged after that event.
                let before = self.game.version();
                self.catch_up_with_presence().await?;
                if self.game.version() == before {
                    return Err(refusal.into());
                }
                self.judge(seat, action).await?
            }
            judged => judged?,
        };
        // Only the rematch action opens a room; other actions need not look.
        if action == Action::Rematch {
            self.open_rematch_room().await?;
        }
        Ok(v)
    }

    /// Judges a seat's action against the game as this task knows it, and commits it.
    async fn judge(&mut self, seat: Seat, action: Action) -> Result<Version, RoomError> {
        self.commit_with_retry(|game, ctx| Ok(game.decide(seat, action, ctx)?))
            .await
    }

    /// Opens the room a committed `rematch` event sends the players to, if the log has one: colours
    /// swapped, same tokens, already started. Its id comes from this room's, so an instance that
    /// finds it already opened (by another that decided the same rematch, or before a crash) has
    /// nothing to do; the room's task tries on load, and on every `rematch` asked again.
    async fn open_rematch_room(&self) -> Result<(), RoomError> {
        let Some(id) = self.game.rematch_room() else {
            return Ok(());
        };
        if self.store.log.room(id).await?.is_some() {
            return Ok(());
        }
        tracing::info!(rematch = id, "opening the rematch room");
        let seats = self.game.seats().swapped();
        let (mode, clock) = (self.game.mode(), self.game.room().clock);
        match create_room(self.store.log.as_ref(), id, mode, &seats, clock).await {
            Ok(()) | Err(StoreError::RoomExists) => Ok(()),
            Err(error) => Err(error.into()),
        }
    }

    /// Decides with `decide` against the current state and commits the
    /// decision; on a version conflict, catches up and decides again, with
    /// the context as it is then (the news may have changed who is connected).
    /// Returns the version of the last event (the current one if none).
    async fn commit_with_retry(
        &mut self,
        decide: impl Fn(&Game, &Context) -> Result<Decision, RoomError>,
    ) -> Result<Version, RoomError> {
        for _ in 0..MAX_CONFLICT_RETRIES {
            let decision = decide(&self.game, &self.context())?;
            check_log_room(self.game.version(), &decision)?;
            match self.commit(decision).await {
                Ok(v) => return Ok(v),
                Err(StoreError::VersionConflict(v)) => {
                    tracing::info!(v, "lost the race for a version; re-judging");
                    self.catch_up_with_presence().await?;
                }
                Err(other) => return Err(other.into()),
            }
        }
        Err(RoomError::Busy)
    }

    /// Persists a decision's events, then keeps its game and broadcasts them.
    async fn commit(&mut self, decision: Decision) -> Result<Version, StoreError> {
        if decision.is_empty() {
            return Ok(self.game.version());
        }
        let at = decision.at;
        let first = self.game.version() + 1;
        // Serialized once here: the same text is stored and, after the
        // commit, broadcast.
        let (stored, frames): (Vec<StoredEvent>, Vec<String>) = decision
            .events
            .iter()
            .zip(first..)
            .map(|(event, v)| {
                let ((kind, data), frame) = event.encode(v);
                (StoredEvent { v, at, kind, data }, frame)
            })
            .unzip();
        let appending = Instant::now();
        let summary = super::summary::of(&decision.game);
        let appended = (self.store.log)
            .append(self.game.id(), &stored, Some(&summary))
            .await;
        match &appended {
            Err(StoreError::VersionConflict(_)) | Ok(()) => {}
            Err(error) => telemetry::store_failed(error.kind()),
        }
        appended?;
        telemetry::events_committed(self.game.mode(), &decision.events, appending.elapsed());
        self.game = decision.game;
        for ((event, v), frame) in decision.events.iter().zip(first..).zip(frames) {
            self.send_event(v, event, frame);
        }
        Ok(self.game.version())
    }

    /// Reads and applies what other writers appended after our version.
    async fn catch_up(&mut self) -> Result<(), RoomError> {
        let missed = self
            .store
            .log
            .events_after(self.game.id(), self.game.version())
            .await?;
        let mut started = false;
        for stored in missed {
            let event = decode(&stored)?;
            started |= matches!(event, Event::Started { .. });
            self.game.apply(stored.v, stored.at, &event)?;
            self.send_event(stored.v, &event, event.frame(stored.v));
        }
        // Another writer started the game, so someone took a seat there:
        // learn who sits where before judging anyone's action.
        if started {
            self.reload_seats().await?;
        }
        Ok(())
    }

    /// [`RoomTask::catch_up`], and if the log's presence changed meanwhile (another instance
    /// gained or lost a player), asks again which sides are held elsewhere.
    async fn catch_up_with_presence(&mut self) -> Result<(), RoomError> {
        let logged = |game: &Game| Side::BOTH.map(|side| game.is_connected(side));
        let before = logged(&self.game);
        self.catch_up().await?;
        if logged(&self.game) != before {
            self.refresh_elsewhere().await;
        }
        Ok(())
    }

    /// Tells every connection about an event the game already holds.
    fn send_event(&mut self, v: Version, event: &Event, frame: String) {
        match event {
            Event::Started { .. } => tracing::info!(v, "game started"),
            Event::GameOver { winner, reason, .. } => {
                tracing::info!(v, ?winner, ?reason, "game over");
            }
            _ => {}
        }
        let rematch = match event {
            Event::Rematch { room } => Some(Arc::from(room.as_str())),
            _ => None,
        };
        self.send(Frame {
            v: Some(v),
            text: frame.into(),
            rematch,
        });
    }

    fn send(&self, frame: Frame) {
        self.frames.send(Arc::new(frame));
    }
}

/// The instant the wall clock reads `at`.
fn instant_of(at: UnixMs) -> Instant {
    let wait = u64::try_from(at - now_ms()).unwrap_or(0);
    Instant::now() + std::time::Duration::from_millis(wait)
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
