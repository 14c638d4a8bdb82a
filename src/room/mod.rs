//! Rooms: the registry of live rooms ([`Rooms`]), one task per live room
//! ([`task`]), the pure game state machine it owns ([`game`]) and the
//! computer's seat in `ai` rooms ([`bot`]).
//!
//! A room is live while a task holds it in memory. The first use of a room
//! (a join, a connection) loads it from the store's log and spawns its task;
//! a task that has been idle ends and frees its memory. A summary is read from
//! its row ([`summary`]) and a record from the log, without loading the room.
//! Every caller talks to a room only through its task's command channel.
//!
//! The registry holds at most `max_in_memory` rooms: before it loads one more,
//! it lets the least recently used idle rooms go (no connection, no running
//! clock: what `idle_after` would end anyway, sooner). Rooms in use are never
//! let go, so only they can hold the count above the cap, and each of them is
//! bounded elsewhere (connections by the edge's caps, running clocks by the
//! games' time controls). Choosing the room scans the registry, once per room
//! loaded while it is full.

pub mod bot;
pub mod bounds;
pub mod config;
pub mod error;
pub mod game;
pub mod rate;
pub mod ring;
pub mod seats;
mod summary;
pub mod task;
pub mod watchers;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

pub use bot::BotConfig;
pub use config::*;
pub use error::{Refusal, ReplayError, RoomError};
pub use game::{Context, Decision, Game, Room};
pub use rate::{RateLimit, SeatBudget};
pub use seats::{Seats, Sitter};
pub use task::{Attached, Command, ConnId, Frame};
pub use watchers::Watchers;

use crate::ai::Level;
use crate::analysis::{Analysis, analyse};
use crate::engine::Side;
use crate::fairness::{new_seed, seed_hash};
use crate::protocol::{
    Action, ClientSeed, ClientSeeds, Event, EventKind, Joined, Mode, Record, RecordedEvent,
    RoomCreated, RoomSummary, Seat, SideChoice, State, TimeControl, UnixMs, Version, room_url,
};
use crate::secrets::{hash_token, is_room_id, new_room_id, new_token, random_bytes};
use crate::store::{News, RoomLog, RoomRow, Store, StoreError, StoredEvent, Subscription};
use crate::telemetry::{self, GaugeGuard};
use task::RoomTask;

/// The room a player asks for, with what only that kind of room needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NewRoom {
    /// Two players, each with their own token; waits for the second.
    Online,
    /// One screen: one token holds both seats; starts at once.
    Local,
    /// Against the computer at a level; starts at once.
    Ai(Level),
}

/// The longest initial time of a timed game, in seconds (two hours).
pub const MAX_CLOCK_INITIAL: u32 = 2 * 60 * 60;
/// The largest increment, in seconds.
pub const MAX_CLOCK_INCREMENT: u32 = 60;

impl NewRoom {
    /// Checks a time control for this kind of room: `ai` rooms are untimed, and the times
    /// must be in range (`min_initial` is the server's setting).
    fn check_clock(self, clock: Option<TimeControl>, min_initial: u32) -> Result<(), Refusal> {
        let Some(clock) = clock else {
            return Ok(());
        };
        if let NewRoom::Ai(_) = self {
            return Err(Refusal::BadClock(
                "games against the computer are untimed: send \"clock\": null".into(),
            ));
        }
        if !(min_initial..=MAX_CLOCK_INITIAL).contains(&clock.initial) {
            return Err(Refusal::BadClock(format!(
                "clock.initial must be {min_initial} to {MAX_CLOCK_INITIAL} seconds"
            )));
        }
        if clock.increment > MAX_CLOCK_INCREMENT {
            return Err(Refusal::BadClock(format!(
                "clock.increment must be 0 to {MAX_CLOCK_INCREMENT} seconds"
            )));
        }
        Ok(())
    }

    fn mode(self) -> Mode {
        match self {
            NewRoom::Online => Mode::Online,
            NewRoom::Local => Mode::Local,
            NewRoom::Ai(_) => Mode::Ai,
        }
    }
}

/// A way to send commands to one live room.
#[derive(Clone)]
pub struct RoomHandle {
    commands: mpsc::Sender<Command>,
    /// What the registry knows of the room's use, to choose the room to let go.
    usage: Arc<Usage>,
}

/// How a live room is used, for the registry's cap.
#[derive(Default)]
struct Usage {
    /// The registry's tick at the room's last use: the smallest is the least recently used.
    last_used: AtomicU64,
    /// Set by the room's task: whether it holds nothing a let-go would lose (see
    /// [`RoomTask::run`]).
    idle: Arc<AtomicBool>,
}

impl RoomHandle {
    /// Sends a command built around a reply channel and waits for the answer.
    /// `None` if the task ended before answering.
    async fn call<T>(&self, command: impl FnOnce(oneshot::Sender<T>) -> Command) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.commands.send(command(reply)).await.ok()?;
        answer.await.ok()
    }

    pub async fn act(&self, conn: ConnId, action: Action) -> Result<Version, RoomError> {
        self.call(|reply| Command::Act {
            conn,
            action: Box::new(action),
            reply,
        })
        .await
        .ok_or(RoomError::Unavailable)?
    }

    pub async fn snapshot(&self) -> Result<State, RoomError> {
        self.call(|reply| Command::Snapshot { reply })
            .await
            .ok_or(RoomError::Unavailable)
    }

    /// Tells the room a connection left. Never waits: usable from `Drop`.
    pub fn detach(&self, conn: ConnId) {
        self.send_soon(Command::Detach { conn });
    }

    /// Tells the room its log moved on (see [`Command::CatchUp`]). Never
    /// waits, so one busy room does not hold up news for the others.
    fn catch_up(&self, up_to: Option<Version>) {
        self.send_soon(Command::CatchUp { up_to });
    }

    /// Queues `command` now, or in a task of its own if the queue is full.
    fn send_soon(&self, command: Command) {
        if let Err(mpsc::error::TrySendError::Full(command)) = self.commands.try_send(command) {
            let commands = self.commands.clone();
            tokio::spawn(async move { commands.send(command).await });
        }
    }
}

/// The registry of live rooms, shared by every request handler.
#[derive(Clone)]
pub struct Rooms {
    inner: Arc<Inner>,
}

struct Inner {
    store: Store,
    config: RoomConfig,
    live: Mutex<HashMap<String, RoomHandle>>,
    /// Spectators here and on the other instances.
    watchers: Watchers,
    /// Counts room uses, for [`Usage::last_used`].
    ticks: AtomicU64,
    /// One lock per room whose analysis is being computed: concurrent first requests wait for
    /// the first one's, then read it from the store (single flight). An entry lives while its
    /// analysis runs.
    analysing: Flights,
    tracker: TaskTracker,
    shutdown: CancellationToken,
}

/// A caller retries a room whose task ended under it this many times.
const MAX_RELOADS: usize = 3;

impl Rooms {
    pub fn new(
        store: Store,
        config: RoomConfig,
        tracker: TaskTracker,
        shutdown: CancellationToken,
    ) -> Rooms {
        Rooms {
            inner: Arc::new(Inner {
                watchers: Watchers::new(store.instance()),
                store,
                config,
                live: Mutex::new(HashMap::new()),
                ticks: AtomicU64::new(0),
                analysing: Mutex::default(),
                tracker,
                shutdown,
            }),
        }
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    /// Rooms currently held in memory.
    pub fn live_count(&self) -> usize {
        self.live().len()
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, RoomHandle>> {
        self.inner.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Creates a room with the creator seated (and the computer, in `ai` rooms), timed by
    /// `clock` or untimed.
    pub async fn create(
        &self,
        kind: NewRoom,
        side: SideChoice,
        clock: Option<TimeControl>,
    ) -> Result<RoomCreated, RoomError> {
        kind.check_clock(clock, self.inner.config.min_clock_initial)?;
        let (token, creator) = new_seat();
        let side = match side {
            SideChoice::Black => Side::Black,
            SideChoice::White => Side::White,
            SideChoice::Random if rand::random::<bool>() => Side::Black,
            SideChoice::Random => Side::White,
        };
        let (seats, seat) = match (kind, side) {
            (NewRoom::Local, _) => (Seats::new(Some(creator.clone()), Some(creator)), Seat::Both),
            (NewRoom::Online, Side::Black) => (Seats::new(Some(creator), None), Seat::Black),
            (NewRoom::Online, Side::White) => (Seats::new(None, Some(creator)), Seat::White),
            (NewRoom::Ai(level), Side::Black) => (
                Seats::new(Some(creator), Some(Sitter::computer(level))),
                Seat::Black,
            ),
            (NewRoom::Ai(level), Side::White) => (
                Seats::new(Some(Sitter::computer(level)), Some(creator)),
                Seat::White,
            ),
        };
        let id = new_room_id();
        create_room(self.store().log.as_ref(), &id, kind.mode(), &seats, clock).await?;
        tracing::info!(room = %id, mode = kind.mode().name(), "room created");
        Ok(RoomCreated {
            url: room_url(&id),
            room: id,
            seat,
            token,
        })
    }

    pub async fn join(&self, id: &str, side: Option<Side>) -> Result<Joined, RoomError> {
        self.call(id, |reply| Command::Join { side, reply }).await?
    }

    /// Attaches a connection; the handle is how it talks to the room after.
    pub async fn attach(
        &self,
        id: &str,
        token: Option<String>,
    ) -> Result<(RoomHandle, Attached), RoomError> {
        for _ in 0..MAX_RELOADS {
            let handle = self.handle(id).await?;
            let token = token.as_deref().map(Box::from);
            match handle.call(|reply| Command::Attach { token, reply }).await {
                Some(attached) => return Ok((handle, attached?)),
                None => self.forget(id, &handle),
            }
        }
        Err(RoomError::Unavailable)
    }

    /// A live room answers itself (it knows its spectators); any other from its summary row
    /// ([`summary`]), without loading it or reading its log, so that looking at many rooms
    /// holds no memory, and counts the spectators other instances announced.
    pub async fn summary(&self, id: &str) -> Result<RoomSummary, RoomError> {
        if let Some(handle) = self.live_handle(id)
            && let Some(summary) = handle.call(|reply| Command::Summary { reply }).await
        {
            return Ok(summary);
        }
        if !is_room_id(id) {
            return Err(RoomError::NotFound);
        }
        let stored = self.stored_summary(id).await?;
        Ok(summary::read(&stored, self.inner.watchers.elsewhere(id))?)
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
            for id in &ids {
                if self.inner.shutdown.is_cancelled() {
                    return Ok(loaded);
                }
                match self.handle(id).await {
                    Ok(_) => loaded += 1,
                    Err(error) => tracing::warn!(room = %id, %error, "could not load a timed room"),
                }
            }
            match ids.last() {
                Some(last) if ids.len() == PAGE as usize => after.clone_from(last),
                _ => return Ok(loaded),
            }
        }
    }

    /// Sweeps unstarted rooms ([`Rooms::sweep_unstarted`]) in the background until shutdown,
    /// ten times per `unstarted_ttl` (at most every ten minutes).
    pub fn sweep_now_and_then(&self) {
        let rooms = self.clone();
        let ttl = self.inner.config.unstarted_ttl;
        let every = (ttl / 10).clamp(Duration::from_millis(100), Duration::from_secs(600));
        let shutdown = self.inner.shutdown.clone();
        tokio::spawn(async move {
            let mut ticks = tokio::time::interval(every);
            ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = ticks.tick() => {}
                }
                match rooms.sweep_unstarted(ttl).await {
                    Ok(0) => {}
                    Ok(deleted) => tracing::info!(deleted, "unstarted rooms deleted"),
                    Err(error) => tracing::warn!(%error, "could not sweep unstarted rooms"),
                }
            }
        });
    }

    /// Deletes the rooms whose game has not started within `ttl` of their creation, a batch at
    /// a time, and ends the tasks of those in memory. Returns how many were deleted.
    pub async fn sweep_unstarted(&self, ttl: Duration) -> Result<usize, RoomError> {
        const BATCH: u32 = 100;
        let before = now_ms() - ttl.as_millis() as UnixMs;
        let mut total = 0;
        loop {
            let deleted = self.inner.store.log.delete_unstarted(before, BATCH).await?;
            for id in &deleted {
                self.close(id);
            }
            total += deleted.len();
            if deleted.len() < BATCH as usize {
                return Ok(total);
            }
        }
    }

    /// Ends the task of a room that is no longer in the store (its seek was withdrawn before
    /// anyone joined), if this instance holds one: its sockets close, and nobody finds it again.
    pub async fn close_if_deleted(&self, id: &str) -> Result<(), RoomError> {
        if self.live_handle(id).is_some() && self.inner.store.log.room(id).await?.is_none() {
            self.close(id);
        }
        Ok(())
    }

    /// Ends the task of a room deleted from the store, if this instance holds it.
    fn close(&self, id: &str) {
        if let Some(handle) = self.live_handle(id) {
            handle.send_soon(Command::Close);
        }
    }

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

    /// The whole log of a room, with the seed once the game is over.
    pub async fn record(&self, id: &str) -> Result<Record, RoomError> {
        let store = &self.inner.store;
        let row = store.log.room(id).await?.ok_or(RoomError::NotFound)?;
        let events = store.log.events_after(id, 0).await?;
        off_the_workers(move || record_of(row, events)).await?
    }

    /// Passes news from other instances (see [`crate::store::Listener`]) to the
    /// rooms held here until the listener stops, and shares spectator counts with them
    /// ([`watchers`]). Rooms not held here are none of this instance's business: whoever loads
    /// one reads the log.
    pub fn follow(&self, mut news: Subscription) {
        self.share_spectators(self.inner.shutdown.clone());
        let rooms = self.clone();
        tokio::spawn(async move {
            while let Some(news) = news.recv().await {
                match news {
                    News::Appended { room, v } => {
                        if let Some(handle) = rooms.live_handle(&room) {
                            handle.catch_up(Some(v));
                        }
                    }
                    // The lobby's business (crate::lobby).
                    News::Seek { .. } => {}
                    News::Spectators { instance, counts } => {
                        rooms.heard_spectators(instance, counts);
                    }
                    News::SpectatorsAsked { instance } => rooms.asked_for_spectators(instance),
                    News::Resync => {
                        let live: Vec<RoomHandle> = rooms.live().values().cloned().collect();
                        for handle in live {
                            handle.catch_up(None);
                        }
                        rooms.resync_spectators().await;
                    }
                }
            }
        });
    }

    /// Tells the rooms held here among `changed` that their spectators elsewhere changed.
    fn watchers_changed(&self, changed: &[String]) {
        for room in changed {
            if let Some(handle) = self.live_handle(room) {
                handle.send_soon(Command::WatchersChanged);
            }
        }
    }

    /// Whether a room exists (live or in the store), checked before a
    /// WebSocket upgrade so unknown rooms get a plain 404.
    pub async fn exists(&self, id: &str) -> Result<bool, RoomError> {
        if !is_room_id(id) {
            return Ok(false);
        }
        if self.live().contains_key(id) {
            return Ok(true);
        }
        Ok(self.inner.store.log.room(id).await?.is_some())
    }

    /// Sends a command to a room's task, loading the room if needed and
    /// retrying if its task ended before answering.
    async fn call<T>(
        &self,
        id: &str,
        command: impl Fn(oneshot::Sender<T>) -> Command,
    ) -> Result<T, RoomError> {
        for _ in 0..MAX_RELOADS {
            let handle = self.handle(id).await?;
            match handle.call(&command).await {
                Some(answer) => return Ok(answer),
                None => self.forget(id, &handle),
            }
        }
        Err(RoomError::Unavailable)
    }

    /// The live room's handle, loading it from the store on first use.
    async fn handle(&self, id: &str) -> Result<RoomHandle, RoomError> {
        if !is_room_id(id) {
            return Err(RoomError::NotFound);
        }
        if let Some(handle) = self.live_handle(id) {
            self.used(&handle);
            return Ok(handle);
        }
        if self.inner.shutdown.is_cancelled() {
            return Err(RoomError::Unavailable);
        }
        let task = RoomTask::load(
            self.inner.store.clone(),
            self.inner.config.clone(),
            self.inner.watchers.clone(),
            id,
        )
        .await?
        .ok_or(RoomError::NotFound)?;
        self.make_room().await;
        let mut live = self.live();
        // Another caller may have loaded it while we read the log: use theirs.
        if let Some(handle) = live.get(id).filter(|h| !h.commands.is_closed()) {
            return Ok(handle.clone());
        }
        let (commands, receiver) = mpsc::channel(self.inner.config.command_capacity);
        let handle = RoomHandle {
            commands,
            usage: Arc::default(),
        };
        self.used(&handle);
        live.insert(id.to_string(), handle.clone());
        drop(live);
        self.spawn(task, receiver, handle.clone());
        Ok(handle)
    }

    fn used(&self, handle: &RoomHandle) {
        let tick = self.inner.ticks.fetch_add(1, Ordering::Relaxed);
        handle.usage.last_used.store(tick, Ordering::Relaxed);
    }

    /// Lets the least recently used idle rooms go while the registry is full. A room that
    /// stopped being idle meanwhile stays (it answers so); the tries are bounded, so a
    /// registry full of rooms in use loads the next one above the cap.
    async fn make_room(&self) {
        for _ in 0..MAX_RELOADS {
            let Some((id, handle)) = self.least_recently_used_idle() else {
                return;
            };
            if handle.call(|reply| Command::LetGo { reply }).await != Some(false) {
                // It ended (or had already): its task may not have unlisted it yet.
                self.forget(&id, &handle);
            }
        }
    }

    /// The room to let go when the registry is full: the least recently used idle one.
    fn least_recently_used_idle(&self) -> Option<(String, RoomHandle)> {
        let live = self.live();
        if live.len() < self.inner.config.max_in_memory {
            return None;
        }
        live.iter()
            .filter(|(_, handle)| handle.usage.idle.load(Ordering::Relaxed))
            .min_by_key(|(_, handle)| handle.usage.last_used.load(Ordering::Relaxed))
            .map(|(id, handle)| (id.clone(), handle.clone()))
    }

    fn live_handle(&self, id: &str) -> Option<RoomHandle> {
        self.live()
            .get(id)
            .filter(|h| !h.commands.is_closed())
            .cloned()
    }

    fn spawn(&self, task: RoomTask, receiver: mpsc::Receiver<Command>, handle: RoomHandle) {
        let rooms = self.clone();
        let id = task.id().to_string();
        let span = tracing::info_span!("room", room = %id);
        let shutdown = self.inner.shutdown.clone();
        let idle = handle.usage.idle.clone();
        // Boxed before this block takes it, which would keep a copy of its own.
        let task = Box::new(task);
        self.inner.tracker.spawn(
            async move {
                let _in_memory = GaugeGuard::new(telemetry::ROOMS_IN_MEMORY);
                task.run(receiver, shutdown, idle).await;
                rooms.forget(&id, &handle);
            }
            .instrument(span),
        );
    }

    /// Drops the registry entry if it still belongs to the ended task.
    fn forget(&self, id: &str, handle: &RoomHandle) {
        let mut live = self.live();
        if live
            .get(id)
            .is_some_and(|h| h.commands.same_channel(&handle.commands))
        {
            live.remove(id);
        }
    }
}

/// The analyses being computed, each room's with the lock its requests share.
type Flights = Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>;

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

/// A seat for a new player: its token (handed to the player once) and the
/// sitter to store, which keeps only the token's hash.
fn new_seat() -> (String, Sitter) {
    let token = new_token();
    let sitter = Sitter::person(hash_token(&token));
    (token, sitter)
}

/// The client seeds a log sets: the last `client-seed` of each side (or, in a log from before
/// those, the ones `started` carried).
fn client_seeds(events: &[StoredEvent]) -> Result<ClientSeeds, StoreError> {
    let kinds: [&str; 2] = [EventKind::ClientSeed.into(), EventKind::Started.into()];
    let mut seeds = ClientSeeds::default();
    for stored in events.iter().filter(|e| kinds.contains(&e.kind.as_str())) {
        seeds.set_by(&decode(stored)?);
    }
    Ok(seeds)
}

/// The computer's client seed: 128 bits from the OS generator, drawn after the room's seed.
fn computer_seed() -> ClientSeed {
    ClientSeed::parse(&hex::encode(random_bytes::<16>())).expect("hex is a valid client seed")
}

/// Stores a new room with its seats and, if both are taken, its `started` event (and in `ai`
/// rooms then the computer's client seed), in one step. Every room is made here: by a player
/// (`POST /api/rooms`) or by a rematch.
async fn create_room(
    log: &dyn RoomLog,
    id: &str,
    mode: Mode,
    seats: &Seats,
    clock: Option<TimeControl>,
) -> Result<(), StoreError> {
    let row = RoomRow {
        id: id.to_string(),
        mode,
        seed: new_seed(),
        created_at: now_ms(),
        black: seats.row(Side::Black),
        white: seats.row(Side::White),
        clock,
    };
    let room = Room::new(row.id.clone(), mode, row.seed, clock);
    let started = Game::new(room, seats.clone()).decide_start(row.created_at);
    let seeded = started
        .game
        .decide_computer_seed(computer_seed(), row.created_at);
    let summary = summary::of(&seeded.game);
    let first_events: Vec<StoredEvent> = started
        .events
        .iter()
        .chain(&seeded.events)
        .zip(1..)
        .map(|(event, v)| stored_event(v, row.created_at, event))
        .collect();
    log.create_room(&row, &first_events, Some(&summary)).await
}

/// A room's record from its row and its whole log (see [`Rooms::record`]).
fn record_of(row: RoomRow, events: Vec<StoredEvent>) -> Result<Record, RoomError> {
    // The seed is revealed exactly when the log holds the game's end.
    let game_over: &str = EventKind::GameOver.into();
    let over = events.iter().any(|e| e.kind == game_over);
    let seats = Seats::of_room(&row);
    Ok(Record {
        level: seats.bot().map(|bot| bot.level),
        room: row.id.clone(),
        mode: row.mode,
        clock: row.clock,
        seed_hash: seed_hash(&row.seed),
        seed: over.then(|| hex::encode(row.seed)),
        client_seeds: client_seeds(&events)?,
        events: events
            .into_iter()
            .map(|e| {
                Ok(RecordedEvent {
                    v: e.v,
                    at: e.at,
                    d: serde_json::from_str(&e.data)
                        .map_err(|err| StoreError::Corrupt(err.to_string()))?,
                    t: e.kind,
                })
            })
            .collect::<Result<_, StoreError>>()?,
    })
}

/// Runs `work` on the blocking pool, answering [`RoomError::ReplayTooSlow`] past
/// [`bounds::REPLAY_TIMEOUT`]: replaying a log (up to `bounds::LOG_BOUND` events) must not hold
/// an async worker, and with it every socket and room that worker serves (issue 28: four
/// clients asking a long room's summary took unrelated games' p99 from 1.3 to 89 ms).
async fn off_the_workers<T: Send + 'static>(
    work: impl FnOnce() -> T + Send + 'static,
) -> Result<T, RoomError> {
    let bound = bounds::REPLAY_TIMEOUT;
    match tokio::time::timeout(bound, tokio::task::spawn_blocking(work)).await {
        Ok(done) => done.map_err(|_| RoomError::Unavailable),
        Err(_) => Err(RoomError::ReplayTooSlow(bound)),
    }
}

/// The game a room's row and its log make, folded on the blocking pool.
async fn replay(row: RoomRow, events: Vec<StoredEvent>) -> Result<Game, RoomError> {
    off_the_workers(move || {
        let mut game = unplayed(&row);
        for stored in &events {
            game.apply(stored.v, stored.at, &decode(stored)?)?;
        }
        Ok(game)
    })
    .await?
}

/// A stored room before any of its events, as the pure game knows it (the game never sees a
/// row): replay its log through [`Game::apply`].
fn unplayed(row: &RoomRow) -> Game {
    let room = Room::new(row.id.clone(), row.mode, row.seed, row.clock);
    Game::new(room, Seats::of_room(row))
}

/// A logged event, read back.
fn decode(stored: &StoredEvent) -> Result<Event, StoreError> {
    Event::from_parts(&stored.kind, &stored.data)
        .map_err(|e| StoreError::Corrupt(format!("event {} ({}): {e}", stored.v, stored.kind)))
}

/// An event as the log keeps it.
fn stored_event(v: Version, at: UnixMs, event: &Event) -> StoredEvent {
    let (kind, data) = event.to_parts();
    StoredEvent { v, at, kind, data }
}

/// The wall clock as unix milliseconds.
pub fn now_ms() -> UnixMs {
    let since_epoch = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    since_epoch.as_millis() as UnixMs
}
