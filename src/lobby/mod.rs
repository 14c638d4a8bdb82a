//! The lobby: open games any visitor may take (seeks), quick pairing, and the games started
//! from them, as a live list for `/ws/lobby` sockets. It sits beside the rooms and uses them:
//! a seek *is* a room made as `POST /api/rooms` makes an online one, plus a row in the store's
//! `seeks` table that lists it; taking a seek is joining its room.
//!
//! Who wins a seek: the store's `take_seek` marks the row taken in one statement, so of several
//! takers at once (on any instance) exactly one gets it and the others hear `seek_taken`;
//! cancelling and withdrawing delete the row only while it is open, so they race the same way,
//! and take the seek's room with them (unless someone joined it by id and started the game): a
//! late joiner finds no room, and a task holding it here ends (`Rooms::close_if_deleted`), or it
//! would still seat a socket.
//! Quick pairing asks the store for the oldest compatible open seek under a lock that serializes
//! pairings; whoever finds none posts a seek and asks again, so two visitors who ask at once end
//! up in one game instead of both waiting (see `store::seeks`).
//!
//! The live list: every instance keeps all open seeks in memory (their number is capped). A
//! change made here is applied at once, and the post, take or cancel that made it is answered
//! without waiting for anyone to hear of it: the change is noted in a [`batch::Batch`], and
//! every [`FLUSH_EVERY`] the batch goes to all lobby sockets as one frame serialized once (a
//! seek posted and taken within one interval is never sent). On PostgreSQL every change also
//! comes back (and reaches the other instances) as a notification on the store's channel, which
//! is applied only if it changes the list, so each change is sent once. After the listener may
//! have missed some (`Resync`), the list is read again and the difference sent.
//!
//! A seek lives while its creator's page does: the page's lobby socket `hold`s it, and each
//! instance renews the seeks its sockets hold every [`TICK`]; one not renewed for `grace` (the
//! page closed, or never held it) is withdrawn by whichever instance sweeps first. The games in
//! progress are the taken seeks whose game has not ended, read again every [`GAMES_EVERY`] (within
//! [`GAMES_SOON`] when a seek is taken) and sent as a whole, with the next batch, when they
//! changed.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::{Notify, broadcast};
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::players::shown;
use crate::players::store::PlayerStore;
use crate::protocol::players::SeatPlayers;
use crate::protocol::{
    FrameText, LobbyFrame, LobbyGame, Paired, RoomCreated, Seat, Seek, SeekGone, SeekPage,
    SideChoice, Status, TimeControl, UnixMs, room_url,
};
use crate::room::{NewRoom, RoomError, Rooms, Seats, now_ms};
use crate::secrets::hash_token;
use crate::store::{Pairing, SeekCaps, SeekChange, SeekRow, Store, StoreError, Subscription};

mod batch;
use batch::{Batch, Flushed};

/// How often the lobby's changes are sent: a page hears of a seek within this (plus the
/// network), and each socket gets at most this many frames a second. Measured in
/// docs/PERFORMANCE.md ("The lobby under load").
pub const FLUSH_EVERY: Duration = Duration::from_millis(250);
/// How often held seeks are renewed and unrenewed ones withdrawn.
pub const TICK: Duration = Duration::from_secs(1);
/// How often the games in progress are read again.
pub const GAMES_EVERY: Duration = Duration::from_secs(3);
/// How soon after the last reading a taken seek has them read again.
pub const GAMES_SOON: Duration = Duration::from_millis(500);
/// Open seeks in all, over every instance: each instance keeps them all in memory.
pub const MAX_OPEN_SEEKS: u32 = 10_000;
/// Seeks in one page of the list.
pub const PAGE: usize = 50;
/// Games in progress listed (the most recently started).
pub const GAMES: u32 = 50;
/// Frames a lobby socket may fall behind (4 s of flushes) before it gets the whole list again:
/// a slow socket costs one fresh list, not a queue of every change it missed.
const FRAME_BUFFER: usize = 16;
/// Longest visitor id accepted, in characters.
const MAX_VISITOR: usize = 64;

/// Open seeks one client address may hold at once by default.
pub const DEFAULT_MAX_SEEKS_PER_ADDRESS: u32 = 3;
/// How long a seek stays listed by default after its creator's lobby page is gone.
pub const DEFAULT_SEEK_GRACE: Duration = Duration::from_secs(5);

/// How the lobby behaves; fixed at start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LobbyConfig {
    /// Open seeks one client address may hold (0: no cap).
    pub max_seeks_per_address: u32,
    /// How long a seek stays listed without its creator's lobby socket.
    pub grace: Duration,
}

impl Default for LobbyConfig {
    fn default() -> Self {
        LobbyConfig {
            max_seeks_per_address: DEFAULT_MAX_SEEKS_PER_ADDRESS,
            grace: DEFAULT_SEEK_GRACE,
        }
    }
}

/// What the lobby refuses or fails with; worded for the wire in `server::error`.
#[derive(Debug, thiserror::Error)]
pub enum LobbyError {
    /// The seek is not open any more (taken, cancelled, withdrawn) or never was.
    #[error("this seek is no longer open")]
    SeekTaken,
    /// The address's cap, or the lobby's, is reached.
    #[error("too many open seeks")]
    TooManySeeks,
    /// The visitor (a browser) already has an open seek: a second one would be a game its
    /// poster never sees, since the page follows one seek at a time.
    #[error("this browser already has an open seek")]
    SeekOpen,
    /// The token is not the seat token of the seek's creator.
    #[error("this token does not hold a seat of the seek's room")]
    NotYours,
    #[error("visitor must be 1 to {MAX_VISITOR} characters without control characters")]
    BadVisitor,
    #[error(transparent)]
    Room(#[from] RoomError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The lobby of this instance; cloned into every handler.
#[derive(Clone)]
pub struct Lobby {
    inner: Arc<Inner>,
}

struct Inner {
    rooms: Rooms,
    /// Who sits in the games in progress, by identity.
    players: Arc<dyn PlayerStore>,
    config: LobbyConfig,
    /// The open seeks, the changes not yet sent and the frames that tell of them: one lock,
    /// so a socket's snapshot and its subscription to the changes after it are taken together.
    list: Mutex<List>,
    /// Open seeks held by this instance's lobby sockets, with how many sockets hold each.
    held: Mutex<HashMap<String, usize>>,
    /// Wakes the games' reader when a seek was taken.
    games_changed: Notify,
}

struct List {
    /// Open seeks by (posted at, room): the order of the pages, newest last.
    open: BTreeMap<(UnixMs, String), SeekRow>,
    /// When each open seek was posted, to find it by room.
    at: HashMap<String, UnixMs>,
    games: Vec<LobbyGame>,
    /// The changes since the last flush.
    batch: Batch,
    /// How many times the list was handed out (a new socket's first page, a `more` page, a
    /// lagging socket's fresh list): the batch needs it to know whether anyone may have seen a
    /// seek.
    handed_out: u64,
    frames: broadcast::Sender<FrameText>,
}

/// What a new lobby socket starts from: the first page and games, and every change after.
pub struct Listing {
    pub first: LobbyFrame,
    pub changes: broadcast::Receiver<FrameText>,
}

/// A seek a lobby socket holds; dropping it lets the seek go (it is withdrawn after the grace
/// unless another socket holds it).
pub struct Hold {
    lobby: Lobby,
    room: String,
}

impl Drop for Hold {
    fn drop(&mut self) {
        let mut held = self.lobby.held();
        if let Some(count) = held.get_mut(&self.room) {
            *count -= 1;
            if *count == 0 {
                held.remove(&self.room);
            }
        }
    }
}

impl Lobby {
    /// The lobby over `rooms`, with the open seeks read from the store, renewing and sweeping
    /// until `shutdown`, and hearing other instances through `news`.
    pub async fn start(
        rooms: Rooms,
        players: Arc<dyn PlayerStore>,
        config: LobbyConfig,
        news: Subscription,
        shutdown: CancellationToken,
    ) -> Result<Lobby, LobbyError> {
        let (frames, _) = broadcast::channel(FRAME_BUFFER);
        let lobby = Lobby {
            inner: Arc::new(Inner {
                rooms,
                players,
                config,
                list: Mutex::new(List {
                    open: BTreeMap::new(),
                    at: HashMap::new(),
                    games: Vec::new(),
                    batch: Batch::default(),
                    handed_out: 0,
                    frames,
                }),
                held: Mutex::new(HashMap::new()),
                games_changed: Notify::new(),
            }),
        };
        lobby.reload().await?;
        tokio::spawn(lobby.clone().follow(news));
        tokio::spawn(lobby.clone().flush(shutdown.clone()));
        tokio::spawn(lobby.clone().keep(shutdown));
        Ok(lobby)
    }

    fn store(&self) -> &Store {
        self.inner.rooms.store()
    }

    fn list(&self) -> MutexGuard<'_, List> {
        self.inner.list.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn held(&self) -> MutexGuard<'_, HashMap<String, usize>> {
        self.inner.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Posts a seek from `owner` (a client address): its room as an online room is created
    /// (the answer is the same as for `POST /api/rooms`), then listed.
    pub async fn post(
        &self,
        owner: &str,
        side: SideChoice,
        clock: Option<TimeControl>,
        visitor: Option<String>,
    ) -> Result<RoomCreated, LobbyError> {
        let visitor = visitor_or(visitor, owner)?;
        self.post_as(owner, side, clock, visitor).await
    }

    /// [`Lobby::post`] for a visitor already named.
    async fn post_as(
        &self,
        owner: &str,
        side: SideChoice,
        clock: Option<TimeControl>,
        visitor: String,
    ) -> Result<RoomCreated, LobbyError> {
        let received = Instant::now();
        let per_owner = self.inner.config.max_seeks_per_address;
        // Checked before the room is made, so a refused seek leaves none behind; the store
        // checks again as it lists it.
        if per_owner != 0 && self.open_of(owner) >= per_owner as usize {
            return Err(LobbyError::TooManySeeks);
        }
        if visitor.starts_with(NAMED_VISITOR) && self.has_open_seek(&visitor) {
            return Err(LobbyError::SeekOpen);
        }
        let created = self
            .inner
            .rooms
            .create(NewRoom::Online, side, clock)
            .await?;
        let now = now_ms();
        let seek = SeekRow {
            room: created.room.clone(),
            side,
            clock,
            created_at: now,
            expires_at: now + self.grace_ms(),
            owner: owner.to_string(),
            visitor,
            taken_at: None,
        };
        let caps = SeekCaps {
            per_owner,
            total: MAX_OPEN_SEEKS,
        };
        if !self.store().seeks.post_seek(&seek, caps).await? {
            return Err(LobbyError::TooManySeeks);
        }
        tracing::info!(room = %seek.room, "seek posted");
        self.opened(seek, Some(received));
        metrics::histogram!(crate::telemetry::SEEK_POST_LATENCY)
            .record(received.elapsed().as_secs_f64());
        Ok(created)
    }

    /// Takes an open seek: joins its room's free seat.
    pub async fn take(&self, room: &str) -> Result<RoomCreated, LobbyError> {
        if !self.store().seeks.take_seek(room, now_ms()).await? {
            return Err(LobbyError::SeekTaken);
        }
        self.gone(room, SeekGone::Taken);
        self.join(room).await
    }

    /// Cancels one's own open seek; `token` is its creator's seat token.
    pub async fn cancel(&self, room: &str, token: &str) -> Result<(), LobbyError> {
        self.check_creator(room, token).await?;
        if !self
            .store()
            .seeks
            .withdraw_seek(room, SeekGone::Cancelled)
            .await?
        {
            return Err(LobbyError::SeekTaken);
        }
        self.withdrawn(room, SeekGone::Cancelled).await;
        Ok(())
    }

    /// Quick pairing: takes the oldest open seek with this time control that is not the
    /// visitor's own, or posts one (side random) and looks once more, in case another visitor
    /// posted at the same moment.
    pub async fn pair(
        &self,
        owner: &str,
        clock: Option<TimeControl>,
        visitor: Option<String>,
    ) -> Result<Paired, LobbyError> {
        let visitor = visitor_or(visitor, owner)?;
        let mut pairing = Pairing {
            clock,
            visitor: &visitor,
            own: None,
            at: now_ms(),
        };
        if let Some(room) = self.store().seeks.pair_seek(&pairing).await? {
            return self.paired(&room).await;
        }
        let own = self
            .post_as(owner, SideChoice::Random, clock, visitor.clone())
            .await?;
        pairing.own = Some(&own.room);
        pairing.at = now_ms();
        match self.store().seeks.pair_seek(&pairing).await? {
            Some(room) => {
                self.withdrawn(&own.room, SeekGone::Cancelled).await;
                self.paired(&room).await
            }
            None => Ok(Paired {
                seat: own,
                paired: false,
            }),
        }
    }

    /// Joins a seek the store just marked taken for us.
    async fn paired(&self, room: &str) -> Result<Paired, LobbyError> {
        self.gone(room, SeekGone::Taken);
        let seat = self.join(room).await?;
        Ok(Paired { seat, paired: true })
    }

    async fn join(&self, room: &str) -> Result<RoomCreated, LobbyError> {
        let joined = self.inner.rooms.join(room, None).await;
        self.inner.games_changed.notify_one();
        let joined = joined.map_err(|error| match error {
            // Someone joined the room by its id (it is public once listed) first.
            RoomError::Refused(_) => LobbyError::SeekTaken,
            other => other.into(),
        })?;
        Ok(RoomCreated {
            room: room.to_string(),
            url: room_url(room),
            seat: joined.seat,
            token: joined.token,
        })
    }

    /// Lets a lobby socket keep its creator's seek listed; `token` is the creator's seat token.
    pub async fn hold(&self, room: &str, token: &str) -> Result<Hold, LobbyError> {
        self.check_creator(room, token).await?;
        // Held before the store is asked: the page must hear its seek go, so a held seek is
        // never left out of a batch ([`Lobby::gone`]), and one gone before is refused here.
        *self.held().entry(room.to_string()).or_insert(0) += 1;
        let hold = Hold {
            lobby: self.clone(),
            room: room.to_string(),
        };
        let open = self.store().seeks.seek(room).await?;
        if open.is_none_or(|seek| seek.taken_at.is_some()) {
            return Err(LobbyError::SeekTaken);
        }
        Ok(hold)
    }

    /// Fails unless `token` holds a seat of `room`.
    async fn check_creator(&self, room: &str, token: &str) -> Result<(), LobbyError> {
        if !crate::secrets::is_room_id(room) {
            return Err(LobbyError::SeekTaken);
        }
        let row = self
            .store()
            .log
            .room(room)
            .await?
            .ok_or(LobbyError::SeekTaken)?;
        match Seats::of_room(&row).seat_of(&hash_token(token)) {
            Seat::Spectator => Err(LobbyError::NotYours),
            _ => Ok(()),
        }
    }

    /// A new lobby socket's start: the newest page of seeks, the games, and the changes after.
    pub fn join_list(&self) -> Listing {
        let mut list = self.list();
        let changes = list.frames.subscribe();
        let first = LobbyFrame::Lobby {
            page: list.page(None),
            games: list.games.clone(),
        };
        Listing { first, changes }
    }

    /// The page of seeks older than the one posted at `at` with id `room`.
    pub fn page_before(&self, at: UnixMs, room: String) -> SeekPage {
        self.list().page(Some((at, room)))
    }

    fn open_of(&self, owner: &str) -> usize {
        let list = self.list();
        list.open
            .values()
            .filter(|seek| seek.owner == owner)
            .count()
    }

    /// Whether a visitor (a browser's id) has a seek listed now.
    fn has_open_seek(&self, visitor: &str) -> bool {
        self.list()
            .open
            .values()
            .any(|seek| seek.visitor == visitor)
    }

    fn grace_ms(&self) -> UnixMs {
        self.inner.config.grace.as_millis() as UnixMs
    }

    /// Lists a seek that is open in the store (once, however often we hear of it); `received`
    /// is when its post arrived, if here.
    fn opened(&self, seek: SeekRow, received: Option<Instant>) {
        let mut list = self.list();
        if list.at.contains_key(&seek.room) {
            return;
        }
        let handed_out = list.handed_out;
        list.batch.add(public(&seek), handed_out, received);
        list.at.insert(seek.room.clone(), seek.created_at);
        list.open.insert((seek.created_at, seek.room.clone()), seek);
    }

    /// Takes a seek off the list (once, however often we hear of it): whether it was listed.
    fn gone(&self, room: &str, why: SeekGone) -> bool {
        let held = self.held().contains_key(room);
        let mut list = self.list();
        let Some(at) = list.at.remove(room) else {
            return false;
        };
        list.open.remove(&(at, room.to_string()));
        let handed_out = list.handed_out;
        list.batch.remove(room, why, handed_out, held);
        drop(list);
        if why == SeekGone::Taken {
            self.inner.games_changed.notify_one();
        }
        true
    }

    /// Takes a seek off the list that went without being taken (as far as we know): the store
    /// deleted its room with it unless someone joined by id first, and a task holding that room
    /// here must end, or it would still seat a late joiner's socket.
    async fn withdrawn(&self, room: &str, why: SeekGone) {
        if self.gone(room, why)
            && let Err(error) = self.inner.rooms.close_if_deleted(room).await
        {
            tracing::warn!(%room, %error, "could not end a withdrawn seek's room");
        }
    }

    /// Reads every open seek from the store and sends the difference to the list.
    async fn reload(&self) -> Result<(), LobbyError> {
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
            self.opened(seek, None);
        }
        Ok(())
    }

    /// Applies other instances' changes (and, on PostgreSQL, our own coming back).
    async fn follow(self, mut news: Subscription) {
        while let Some(news) = news.recv().await {
            let applied = match news {
                crate::store::News::Seek { room, change } => self.heard(&room, change).await,
                crate::store::News::Resync => self.reload().await,
                crate::store::News::Appended { .. }
                | crate::store::News::Spectators { .. }
                | crate::store::News::SpectatorsAsked { .. } => Ok(()),
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
                    self.opened(seek, None);
                }
            }
        }
        Ok(())
    }

    /// Renews held seeks, withdraws unrenewed ones, and reads the games again, until shutdown.
    /// A taken seek brings the next reading forward, to at most one per [`GAMES_SOON`]: under
    /// many takes each reading (one summary per game) serves them all.
    async fn keep(self, shutdown: CancellationToken) {
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
            Ok(Some(seated)) => shown::seated(players, &seated).await,
            Ok(None) => Ok(SeatPlayers::default()),
            Err(error) => Err(error),
        };
        seated.unwrap_or_else(|error| {
            tracing::warn!(%room, %error, "the players of a game in progress could not be read");
            SeatPlayers::default()
        })
    }

    /// Sends the batch of changes every [`FLUSH_EVERY`], until shutdown.
    async fn flush(self, shutdown: CancellationToken) {
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

impl List {
    /// Sends what changed since the last flush, if anything, as one frame.
    fn flush(&mut self) {
        let Some(Flushed { frame, received }) = self.batch.flush() else {
            return;
        };
        // No lobby socket open is fine.
        let _ = self.frames.send(frame.to_json().into());
        for at in received {
            metrics::histogram!(crate::telemetry::SEEK_SHOWN_LATENCY)
                .record(at.elapsed().as_secs_f64());
        }
    }

    /// Up to [`PAGE`] seeks, newest first, older than `before` if given; the list counts as
    /// handed out.
    fn page(&mut self, before: Option<(UnixMs, String)>) -> SeekPage {
        self.handed_out += 1;
        let older = match before {
            Some(key) => self.open.range(..key),
            None => self.open.range(..),
        };
        let mut seeks: Vec<Seek> = older.rev().take(PAGE + 1).map(|(_, s)| public(s)).collect();
        let more = seeks.len() > PAGE;
        seeks.truncate(PAGE);
        SeekPage { seeks, more }
    }
}

/// A seek as anyone may see it (no owner, no visitor).
fn public(seek: &SeekRow) -> Seek {
    Seek {
        room: seek.room.clone(),
        side: seek.side,
        clock: seek.clock,
        at: seek.created_at,
    }
}

/// How a visitor id the client gave is stored; the address standing in for a missing one is
/// not a browser, so the one-open-seek rule does not apply to it (the per-address cap does).
const NAMED_VISITOR: &str = "visitor ";

/// The visitor id given, or the client's address standing for it.
fn visitor_or(visitor: Option<String>, owner: &str) -> Result<String, LobbyError> {
    match visitor {
        None => Ok(format!("address {owner}")),
        Some(id) => {
            let length = id.chars().count();
            if length == 0 || length > MAX_VISITOR || id.chars().any(char::is_control) {
                return Err(LobbyError::BadVisitor);
            }
            Ok(format!("{NAMED_VISITOR}{id}"))
        }
    }
}
