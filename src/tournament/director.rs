//! The director (issue 45): one task per tournament this instance runs, which makes it run by
//! itself. Every step catches up with the tournament's log, then: at the scheduled start starts
//! it or cancels it below two players; makes the room of every game paired (both seats taken
//! by the paired players' tokens, bound to them; the room held in memory so its clock ends the
//! game of a player who never comes); takes every ended game's result from its room's
//! `game-over` (as `senet tournament verify` reads it); withdraws (Swiss) or pauses (Arena) a
//! player absent from their last two games; and pairs: the next Swiss round when the last
//! game of one ended, the Arena's free players as they come free until its time is up; then
//! finishes it. Everything it decides is appended to the log before anyone is told (rooms are
//! made after the pairing is committed), and everything it knows comes from the log, so a
//! director started after a restart carries on where the last one stopped.
//!
//! [`Directors`] finds the tournaments to run: every `tick` it lists the open ones (at most
//! [`MAX_DIRECTED`]) and starts a director for each it does not run yet. Of several instances
//! on one database only the one holding a tournament's lease (a row with an expiry, renewed
//! every [`LEASE_RENEW`]) directs it; the others' directors look, and take the lease over once
//! it has run out ([`LEASE`] after the holder's last renewal: a SIGKILLed holder's tournament is
//! taken over within it and a tick). A drained instance lets its leases go at once.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use super::decide::Refusal;
use super::event::{Event, Format, Settings};
use super::fold::{Status, Tournament};
use super::stored::{self, RoomEnd, TournamentError};
use crate::engine::Side;
use crate::players::store::PlayerStore;
use crate::protocol::UnixMs;
use crate::room::{Rooms, now_ms};
use crate::secrets::{new_room_id, new_token};
use crate::store::Store;
use crate::telemetry;

/// How often a director looks at its tournament, and the directors for new tournaments.
pub const DEFAULT_TICK: Duration = Duration::from_millis(250);
/// The most tournaments (upcoming or running) one instance directs, and so the most open at
/// once: creating one more is refused (docs/TOURNAMENTS.md).
pub const MAX_DIRECTED: u32 = 100;
/// How long a director's lease lasts unless renewed.
pub const LEASE: Duration = Duration::from_secs(3);
/// How often the holder renews its lease.
pub const LEASE_RENEW: Duration = Duration::from_secs(1);
/// How often a director looks at an upcoming tournament before its start: as often as the
/// lease is renewed, so that its holder keeps it (a lease let lapse moves for nothing).
const UPCOMING_LOOK: Duration = LEASE_RENEW;
/// Games in a row a player may miss (lost on time or abandoned without a throw) before they
/// are withdrawn (Swiss) or paused (Arena).
pub const ABSENT_GAMES: usize = 2;

/// The directors of this instance.
#[derive(Clone)]
pub struct Directors {
    inner: Arc<Inner>,
}

struct Inner {
    rooms: Rooms,
    players: Arc<dyn PlayerStore>,
    tick: Duration,
    directing: Mutex<HashSet<String>>,
    shutdown: CancellationToken,
    /// This instance's name in the leases (random: an instance restarted is another).
    holder: String,
}

impl Directors {
    /// Starts looking for tournaments to run, every `tick` until `shutdown`.
    pub fn start(
        rooms: Rooms,
        players: Arc<dyn PlayerStore>,
        tick: Duration,
        shutdown: CancellationToken,
    ) -> Directors {
        let directors = Directors {
            inner: Arc::new(Inner {
                rooms,
                players,
                tick,
                directing: Mutex::default(),
                shutdown,
                holder: crate::secrets::new_room_id(),
            }),
        };
        let scanning = directors.clone();
        tokio::spawn(async move { scanning.scan_now_and_then().await });
        directors
    }

    /// How many tournaments this instance directs now.
    pub fn directing(&self) -> usize {
        self.directing_set().len()
    }

    fn directing_set(&self) -> std::sync::MutexGuard<'_, HashSet<String>> {
        self.inner
            .directing
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }

    async fn scan_now_and_then(&self) {
        loop {
            if let Err(error) = self.scan().await {
                tracing::warn!(%error, "could not list the tournaments to direct");
            }
            tokio::select! {
                () = self.inner.shutdown.cancelled() => return,
                () = tokio::time::sleep(self.inner.tick) => {}
            }
        }
    }

    async fn scan(&self) -> Result<(), TournamentError> {
        let store = self.inner.rooms.store();
        let open = store
            .tournaments
            .tournaments(None, false, MAX_DIRECTED)
            .await?;
        for row in open {
            if self.directing_set().insert(row.id.clone()) {
                let directors = self.clone();
                tokio::spawn(async move {
                    directors.direct(&row.id).await;
                    directors.directing_set().remove(&row.id);
                });
            }
        }
        Ok(())
    }

    async fn direct(&self, id: &str) {
        let mut director = Director {
            id: id.to_owned(),
            rooms: self.inner.rooms.clone(),
            players: self.inner.players.clone(),
            tournament: Tournament::default(),
            known: Known::default(),
            holder: self.inner.holder.clone(),
            leased_until: None,
        };
        loop {
            match director.hold_lease().await {
                Ok(true) => match director.step().await {
                    Ok(true) => break,
                    Ok(false) => {}
                    Err(error) => {
                        tracing::warn!(tournament = %id, %error, "a director's step failed")
                    }
                },
                // Another instance directs it: look again for its lease running out.
                Ok(false) => {}
                Err(error) => {
                    tracing::warn!(tournament = %id, %error, "could not take the director's lease")
                }
            }
            tokio::select! {
                () = self.inner.shutdown.cancelled() => {
                    director.release().await;
                    return;
                }
                () = tokio::time::sleep(director.pause(self.inner.tick)) => {}
            }
        }
        director.release().await;
        tracing::info!(tournament = %id, status = ?director.tournament.status, "directed to its end");
    }
}

/// What a director reads off the log besides the fold, and what it found of the rooms.
#[derive(Default)]
struct Known {
    /// When each player last came free (registered, the start, a game's end, back from a
    /// pause): an Arena player's waiting time runs from it.
    free_since: HashMap<u32, UnixMs>,
    /// Each game's players by room: black, white.
    boards: HashMap<String, [u32; 2]>,
    /// Each player's games by room, in the order paired.
    played: HashMap<u32, Vec<String>>,
    /// How many of a player's games were paired when they last came back from a pause: only
    /// later ones count towards an absence.
    counted_from: HashMap<u32, usize>,
    /// Rooms made (or found made) since this director started.
    seated: HashSet<String>,
    /// How each ended room ended.
    ends: HashMap<String, RoomEnd>,
}

impl Known {
    fn note(&mut self, tournament: &Tournament, events: &[(Event, UnixMs)]) {
        for (event, at) in events {
            match event {
                Event::Registered { player, .. } => {
                    self.free_since.insert(*player, *at);
                }
                Event::Resumed { player } => {
                    self.free_since.insert(*player, *at);
                    let paired = self.played.get(player).map_or(0, Vec::len);
                    self.counted_from.insert(*player, paired);
                }
                Event::Started => {
                    for player in 1..=tournament.players.len() as u32 {
                        self.free_since.insert(player, *at);
                    }
                }
                Event::Paired { boards, .. } => {
                    for board in boards {
                        self.boards
                            .insert(board.room.clone(), [board.black, board.white]);
                        for player in [board.black, board.white] {
                            self.played
                                .entry(player)
                                .or_default()
                                .push(board.room.clone());
                        }
                    }
                }
                Event::Result { room, .. } => {
                    for player in self.boards.get(room).into_iter().flatten() {
                        self.free_since.insert(*player, *at);
                    }
                }
                _ => {}
            }
        }
    }
}

struct Director {
    id: String,
    rooms: Rooms,
    players: Arc<dyn PlayerStore>,
    tournament: Tournament,
    known: Known,
    holder: String,
    /// Until when this director holds the lease, as last taken or renewed.
    leased_until: Option<tokio::time::Instant>,
}

impl Director {
    /// Whether this director holds the tournament's lease, renewing it when due.
    async fn hold_lease(&mut self) -> Result<bool, TournamentError> {
        let now = tokio::time::Instant::now();
        let renewed_recently = self
            .leased_until
            .is_some_and(|until| now + LEASE - LEASE_RENEW < until);
        if renewed_recently {
            return Ok(true);
        }
        let at = now_ms();
        let until = at + LEASE.as_millis() as i64;
        let held = self
            .store()
            .tournaments
            .lease(&self.id, &self.holder, at, until)
            .await?;
        if held && self.leased_until.is_none() {
            tracing::info!(tournament = %self.id, "directing");
        }
        if !held && self.leased_until.is_some() {
            tracing::warn!(tournament = %self.id, "another instance took the lease");
            // Its rooms may be made elsewhere since: look them up again when it comes back.
            self.known.seated.clear();
        }
        self.leased_until = held.then_some(now + LEASE);
        Ok(held)
    }

    /// Lets the lease go (this instance stops), so another takes over at once.
    async fn release(&self) {
        if self.leased_until.is_none() {
            return;
        }
        if let Err(error) = self
            .store()
            .tournaments
            .release(&self.id, &self.holder)
            .await
        {
            tracing::warn!(tournament = %self.id, %error, "could not let the lease go");
        }
    }

    fn store(&self) -> &Store {
        self.rooms.store()
    }

    fn settings(&self) -> Result<Settings, TournamentError> {
        let settings = self.tournament.settings.clone();
        settings.ok_or_else(|| TournamentError::Unknown(self.id.clone()))
    }

    /// How long until the next look: a tick while it runs; before its start, until the start
    /// (looking again at least every [`UPCOMING_LOOK`], for the lease and an operator's cancel).
    fn pause(&self, tick: Duration) -> Duration {
        let starts_at = self.tournament.settings.as_ref().map(|s| s.starts_at);
        match (self.tournament.status, starts_at) {
            (Status::Upcoming, Some(at)) => {
                let until = Duration::from_millis(u64::try_from(at - now_ms()).unwrap_or(0));
                until.clamp(tick, UPCOMING_LOOK)
            }
            _ => tick,
        }
    }

    /// One look at the tournament; `true` once it is over.
    async fn step(&mut self) -> Result<bool, TournamentError> {
        let caught_up =
            stored::catch_up(self.rooms.store(), &self.id, &mut self.tournament).await?;
        self.known.note(&self.tournament, &caught_up);
        match self.tournament.status {
            Status::Upcoming if now_ms() >= self.settings()?.starts_at => {
                self.append(|t| Ok(vec![t.start()?])).await?;
            }
            Status::Upcoming => {}
            Status::Running => {
                self.seat_games().await?;
                self.take_results().await?;
                self.next().await?;
            }
            Status::Empty | Status::Finished | Status::Cancelled => return Ok(true),
        }
        Ok(false)
    }

    /// Appends what `decide` decides after the log as it stands, and notes every event.
    async fn append(
        &mut self,
        decide: impl Fn(&Tournament) -> Result<Vec<Event>, Refusal>,
    ) -> Result<(), TournamentError> {
        let store = self.rooms.store().clone();
        let applied =
            stored::decide_and_append(&store, &self.id, &mut self.tournament, decide, None).await?;
        self.known.note(&self.tournament, &applied);
        Ok(())
    }

    /// Makes the room of every game paired and not made yet (after a restart: finds it made).
    async fn seat_games(&mut self) -> Result<(), TournamentError> {
        let games: Vec<(String, [u32; 2])> = self
            .tournament
            .games
            .iter()
            .filter(|(room, _)| !self.known.seated.contains(*room))
            .map(|(room, game)| (room.clone(), [game.black, game.white]))
            .collect();
        let made = !games.is_empty();
        for (room, players) in games {
            self.seat(&room, players).await?;
            self.known.seated.insert(room);
        }
        // The pages show a player their game's seat token once its room is made.
        if made {
            stored::announce(self.store(), &self.id).await?;
        }
        Ok(())
    }

    async fn seat(&self, room: &str, players: [u32; 2]) -> Result<(), TournamentError> {
        let settings = self.settings()?;
        let ids = players.map(|number| {
            self.tournament
                .player(number)
                .map_or_else(String::new, |entry| entry.id.clone())
        });
        let asked = [(ids[0].clone(), new_token()), (ids[1].clone(), new_token())];
        let seats = self.store().tournaments.keep_seats(&self.id, room, &asked);
        let tokens = seats.await?;
        self.rooms
            .create_seated(room, Some(settings.clock), [&tokens[0], &tokens[1]])
            .await
            .map_err(|e| TournamentError::Room(e.to_string()))?;
        let failed = |e: crate::players::store::PlayerError| TournamentError::Room(e.to_string());
        if self
            .players
            .room_players(room)
            .await
            .map_err(failed)?
            .is_none()
        {
            self.players
                .open_room(room, settings.rated)
                .await
                .map_err(failed)?;
        }
        for (side, id) in [Side::Black, Side::White].into_iter().zip(&ids) {
            self.players
                .bind_seat(room, side, id)
                .await
                .map_err(failed)?;
        }
        tracing::info!(tournament = %self.id, %room, "game seated");
        Ok(())
    }

    /// Appends the result of every game whose room says it ended.
    async fn take_results(&mut self) -> Result<(), TournamentError> {
        let rooms: Vec<String> = self.tournament.games.keys().cloned().collect();
        let mut ended = Vec::new();
        for room in rooms {
            if let Some(end) = self.end_of(&room).await? {
                ended.push((room, end.outcome));
            }
        }
        if ended.is_empty() {
            return Ok(());
        }
        self.append(|t| {
            Ok(ended
                .iter()
                .filter(|(room, _)| t.games.contains_key(room))
                .map(|(room, outcome)| Event::Result {
                    room: room.clone(),
                    outcome: *outcome,
                })
                .collect())
        })
        .await
    }

    /// How the game in `room` ended, once it did: its summary says so first (one row), then its
    /// log is read once.
    async fn end_of(&mut self, room: &str) -> Result<Option<RoomEnd>, TournamentError> {
        if let Some(end) = self.known.ends.get(room) {
            return Ok(Some(*end));
        }
        let summary = self.store().log.summary(room).await?;
        let finished = summary
            .and_then(|s| serde_json::from_str::<serde_json::Value>(&s).ok())
            .is_none_or(|s| s["status"] == "finished");
        if !finished {
            return Ok(None);
        }
        let end = stored::room_end(self.store(), room).await?;
        if let Some(end) = end {
            self.known.ends.insert(room.to_owned(), end);
        }
        Ok(end)
    }

    /// What comes next: absentees out, then the next Swiss round or the Arena's free players
    /// paired, or the end.
    async fn next(&mut self) -> Result<(), TournamentError> {
        let swiss = matches!(self.settings()?.format, Format::Swiss { .. });
        if swiss && !self.tournament.games.is_empty() {
            return Ok(());
        }
        let absent = self.absent().await?;
        if !absent.is_empty() {
            self.append(|t| {
                Ok(absent
                    .iter()
                    .filter(|&&p| t.player(p).is_some_and(|e| !e.withdrawn && !e.paused))
                    .map(|&player| match swiss {
                        true => Event::Withdrawn { player },
                        false => Event::Paused { player },
                    })
                    .collect())
            })
            .await?;
        }
        let now = now_ms();
        if let Ok(finished) = self.tournament.finish(now) {
            return self.append(|_| Ok(vec![finished.clone()])).await;
        }
        match swiss {
            true => {
                self.append(|t| {
                    let paired = telemetry::pairing_timed("swiss", || t.pair_swiss(new_room_id));
                    nothing_if_idle(paired.map(|e| vec![e]))
                })
                .await
            }
            false if self.tournament.ends_at().is_some_and(|end| now < end) => {
                let free_since = self.known.free_since.clone();
                let waited = move |player: u32| {
                    let since = free_since.get(&player).copied().unwrap_or(now);
                    u64::try_from(now - since).unwrap_or(0)
                };
                self.append(|t| {
                    let paired =
                        telemetry::pairing_timed("arena", || t.pair_arena(&waited, new_room_id));
                    nothing_if_idle(paired.map(Vec::from_iter))
                })
                .await
            }
            false => Ok(()),
        }
    }

    /// The players still in and free whose last [`ABSENT_GAMES`] games (since they last came
    /// back from a pause) all ended with them absent.
    async fn absent(&mut self) -> Result<Vec<u32>, TournamentError> {
        let mut absent = Vec::new();
        let candidates: Vec<(u32, Vec<String>)> = self
            .known
            .played
            .iter()
            .filter(|(player, _)| {
                self.tournament
                    .player(**player)
                    .is_some_and(|e| !e.withdrawn && !e.paused && e.playing.is_none())
            })
            .map(|(player, rooms)| {
                let from = self.known.counted_from.get(player).copied().unwrap_or(0);
                (*player, rooms[from.min(rooms.len())..].to_vec())
            })
            .filter(|(_, rooms)| rooms.len() >= ABSENT_GAMES)
            .collect();
        for (player, rooms) in candidates {
            let mut missed = 0;
            for room in &rooms[rooms.len() - ABSENT_GAMES..] {
                let side = usize::from(self.known.boards.get(room).is_some_and(|b| b[1] == player));
                if self.end_of(room).await?.is_some_and(|end| end.absent[side]) {
                    missed += 1;
                }
            }
            if missed == ABSENT_GAMES {
                absent.push(player);
            }
        }
        absent.sort_unstable();
        Ok(absent)
    }
}

/// A pairing with nothing to pair is no event, not a failure.
fn nothing_if_idle<T: Default>(decided: Result<T, Refusal>) -> Result<T, Refusal> {
    match decided {
        Err(Refusal::NothingToPair) => Ok(T::default()),
        other => other,
    }
}
