//! The registry of live rooms: finds a room's task (loading the room from the log and spawning
//! the task on first use), sends it commands and retries when it ended under the caller, lets the
//! least recently used idle rooms go when full, and passes news from other instances on.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tracing::Instrument;

use super::{Inner, MAX_RELOADS, RoomHandle, Rooms};
use crate::engine::Side;
use crate::protocol::{Action, Joined, State, Version};
use crate::room::config::RoomConfig;
use crate::room::error::RoomError;
use crate::room::task::{Acting, Attached, ChatAnswer, ChatCommand, Command, ConnId, RoomTask};
use crate::room::watchers::Watchers;
use crate::secrets::is_room_id;
use crate::store::{News, Store, Subscription};
use crate::telemetry::{self, GaugeGuard};

impl RoomHandle {
    /// Sends a command built around a reply channel and waits for the answer.
    /// `None` if the task ended before answering.
    pub(super) async fn call<T>(
        &self,
        command: impl FnOnce(oneshot::Sender<T>) -> Command,
    ) -> Option<T> {
        let (reply, answer) = oneshot::channel();
        self.commands.send(command(reply)).await.ok()?;
        answer.await.ok()
    }

    /// Acts for the connection; `resend` is the key a resend of this action would carry.
    pub async fn act(
        &self,
        conn: ConnId,
        action: Action,
        resend: Option<Box<str>>,
    ) -> Result<Version, RoomError> {
        self.call(|reply| Command::Act {
            conn,
            acting: Box::new(Acting { action, resend }),
            reply,
        })
        .await
        .ok_or(RoomError::Unavailable)?
    }

    /// The state as connection `conn` may see it (its chat is its seat's).
    pub async fn snapshot(&self, conn: ConnId) -> Result<State, RoomError> {
        self.call(|reply| Command::Snapshot { conn, reply })
            .await
            .ok_or(RoomError::Unavailable)
    }

    pub async fn chat(&self, conn: ConnId, chat: ChatCommand) -> Result<ChatAnswer, RoomError> {
        self.call(|reply| Command::Chat {
            conn,
            chat: Box::new(chat),
            reply,
        })
        .await
        .ok_or(RoomError::Unavailable)?
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

    pub(super) fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, RoomHandle>> {
        self.inner.live.lock().unwrap_or_else(|e| e.into_inner())
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
    pub(super) async fn call<T>(
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
    pub(super) async fn handle(&self, id: &str) -> Result<RoomHandle, RoomError> {
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
        // Loaded in a task of its own: a request that stops waiting (its deadline on a slow
        // database, its socket gone) leaves the room loading, and the next finds it live.
        let (rooms, id) = (self.clone(), id.to_string());
        tokio::spawn(async move { rooms.load(&id).await })
            .await
            .map_err(|_| RoomError::Unavailable)?
    }

    /// Reads a room from the store and starts its task.
    async fn load(&self, id: &str) -> Result<RoomHandle, RoomError> {
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

    pub(super) fn live_handle(&self, id: &str) -> Option<RoomHandle> {
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

    /// Ends the task of a room deleted from the store, if this instance holds it.
    pub(super) fn close(&self, id: &str) {
        if let Some(handle) = self.live_handle(id) {
            handle.send_soon(Command::Close);
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
                    News::Seek { .. } | News::Challenge { .. } => {}
                    // The tournament pages' business (`crate::store::TournamentNews`).
                    News::Tournament { .. } => {}
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
    pub(super) fn watchers_changed(&self, changed: &[String]) {
        for room in changed {
            if let Some(handle) = self.live_handle(room) {
                handle.send_soon(Command::WatchersChanged);
            }
        }
    }
}
