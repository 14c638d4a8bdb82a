//! Scripted players: open an online room over HTTP, seat one client on each side, and play
//! random legal moves until told to stop, opening a new room whenever a game ends. With
//! `reconnect`, a player whose socket closes (its instance was killed or stopped) takes its seat
//! again through the next target, as a browser does, and times how long it was away.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::Phases;
use super::conn::{Conn, Pacing};
use super::http::JsonClient;
use super::stats::Stats;
use super::wire::{self, Incoming, Reaction};
use crate::engine::Side;
use crate::protocol::{Joined, RoomCreated, TimeControl};

/// How long a client waits for the `welcome` after `hello`, and for an HTTP answer.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(30);
/// How long a stopping client waits for the answers it is still owed.
pub const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a player whose socket closed keeps trying to take its seat again.
const RECONNECT_PATIENCE: Duration = Duration::from_secs(60);
/// The pause between two attempts to take the seat again.
const RECONNECT_PAUSE: Duration = Duration::from_millis(100);

/// One seated client and the frames it has not acted on yet (its `welcome`, and what came
/// before the run started).
pub struct Player {
    conn: Conn,
    side: Side,
    unread: VecDeque<Incoming>,
    /// Where and how this player took its seat, to take it again after its socket closes.
    seat: SeatKey,
}

/// A seat's room and token, the player's cookie secret in a rated room, and the client
/// (target, source address) it was taken through.
#[derive(Clone)]
struct SeatKey {
    room: String,
    token: String,
    player: Option<String>,
    target: usize,
    source: usize,
}

/// What the players of every room share: the servers, where to connect from, how to pace.
#[derive(Clone)]
pub struct Table {
    /// `clients[target][source]`: an HTTP client for each server (instances of one cluster, or
    /// the proxy in front of them) from each local address. Each new room goes to the next
    /// target in turn, and its players to the next source address.
    pub clients: Arc<[Vec<JsonClient>]>,
    /// Rooms opened so far, which picks the next room's target and source.
    pub rooms_opened: Arc<AtomicUsize>,
    /// Seat a room's white player through the target after its black player's, so that the
    /// room's two players are on different instances and every event crosses the cluster.
    pub split_players: bool,
    pub pacing: Arc<Pacing>,
    /// Hold the connections without playing (the memory test).
    pub idle: bool,
    /// The rooms' time control; `None` for untimed games.
    pub clock: Option<TimeControl>,
    /// A player whose socket closes takes its seat again (through the next target).
    pub reconnect: bool,
    /// Every game rated: each room is played by two new players (identities), so no pair
    /// reaches the limit of rated games a day.
    pub rated: bool,
}

impl Table {
    /// Creates an online room (rated: two new players first, one for each seat), joins its
    /// second seat, and connects both players.
    pub async fn open_room(&self, stats: &mut Stats) -> Result<[Player; 2], String> {
        let (home, away, source) = self.next_targets();
        let (black_player, white_player) = if self.rated {
            let (black, white) = tokio::join!(
                new_player(self.client(home, source)),
                new_player(self.client(away, source))
            );
            (Some(black?), Some(white?))
        } else {
            (None, None)
        };
        let body = wire::create_room_body(Side::Black, self.clock, self.rated);
        let home_client = self.client(home, source);
        let created: RoomCreated = post(home_client, "/api/rooms", body, &black_player).await?;
        let room = created.room;
        let join = format!("/api/rooms/{room}/join");
        let away_client = self.client(away, source);
        let joined: Joined = post(away_client, &join, "{}".into(), &white_player).await?;
        stats.rooms_opened += 1;
        let key = |token: String, player: Option<String>, target: usize| SeatKey {
            room: room.clone(),
            token,
            player,
            target,
            source,
        };
        let (black, white) = tokio::join!(
            self.seat(key(created.token, black_player, home)),
            self.seat(key(joined.token, white_player, away))
        );
        let players = [black?, white?];
        stats.connections_opened += 2;
        Ok(players)
    }

    /// The targets of the next room's black player and white player, and its source address.
    fn next_targets(&self) -> (usize, usize, usize) {
        let (targets, k) = (
            self.clients.len(),
            self.rooms_opened.fetch_add(1, Ordering::Relaxed),
        );
        let (home, source) = (k % targets, k / targets % self.clients[0].len());
        let away = (home + usize::from(self.split_players)) % targets;
        (home, away, source)
    }

    fn client(&self, target: usize, source: usize) -> &JsonClient {
        &self.clients[target][source]
    }

    /// Takes a seat already given (a tournament's game: `token`, for the player whose cookie
    /// secret is `player`) through the first target from source address `source`.
    pub(super) async fn take_seat(
        &self,
        room: &str,
        token: &str,
        player: &str,
        source: usize,
    ) -> Result<Player, String> {
        self.seat(SeatKey {
            room: room.to_owned(),
            token: token.to_owned(),
            player: Some(player.to_owned()),
            target: 0,
            source: source % self.clients[0].len(),
        })
        .await
    }

    /// Connects a seat's client to its target and waits for its `welcome`.
    async fn seat(&self, seat: SeatKey) -> Result<Player, String> {
        let target = self.client(seat.target, seat.source);
        let url = target.base().ws(&format!("/ws/rooms/{}", seat.room));
        let player = seat.player.as_deref();
        let pacing = self.pacing.clone();
        let mut conn = Conn::connect_as(&url, target.source(), player, pacing).await?;
        conn.send(wire::hello(&seat.token)).await?;
        // Bookkeeping of the handshake is not part of the measured run.
        let mut scratch = Stats::default();
        let welcome = tokio::time::timeout(ANSWER_TIMEOUT, conn.recv(&mut scratch))
            .await
            .map_err(|_| "no welcome".to_string())?
            .ok_or("closed before welcome")?;
        let side = welcome
            .welcome_side()
            .ok_or("expected a welcome to a black or white seat")?;
        Ok(Player {
            conn,
            side,
            unread: VecDeque::from([welcome]),
            seat,
        })
    }

    /// Takes a closed player's seat again through the next targets in turn until one welcomes
    /// it, and records how long the player was away (from noticing the close to its welcome).
    /// The welcome must show every event the player saw before: none committed may be lost.
    /// Also counts the acknowledged actions the welcome does not hold, and, if the player's own
    /// time was running, how much of it the absence cost.
    async fn rejoin(&self, player: &mut Player, stats: &mut Stats) -> Result<(), String> {
        let closed = Instant::now();
        let seen = player.conn.version();
        let own_time = player.conn.running_time(player.side, closed);
        stats.actions_in_flight_at_close += player.conn.forget_pending();
        let mut seat = player.seat.clone();
        let before = loop {
            seat.target = (seat.target + 1) % self.clients.len();
            match self.seat(seat.clone()).await {
                Ok(again) => break std::mem::replace(player, again),
                Err(_) if closed.elapsed() < RECONNECT_PATIENCE => {
                    tokio::time::sleep(RECONNECT_PAUSE).await;
                }
                Err(error) => return Err(format!("could not take the seat again: {error}")),
            }
        };
        stats.reconnected(closed.elapsed());
        let welcomed = player.conn.version().unwrap_or(0);
        stats.acknowledged_lost += before.conn.acked_above(welcomed);
        let now_time = player.conn.running_time(player.side, Instant::now());
        if let (Some(then), Some(now)) = (own_time, now_time) {
            stats.clock_charged_ms.push(then - now);
        }
        match (seen, player.conn.version()) {
            (Some(seen), Some(now)) if now < seen => Err(format!(
                "events lost: saw version {seen} before the close, the welcome is at {now}"
            )),
            _ => Ok(()),
        }
    }

    /// Plays games in this room once the run starts, then in new rooms, until it stops;
    /// returns the room's tallies.
    pub async fn run_room(self, mut players: [Player; 2], phases: Phases) -> Stats {
        let mut stats = Stats::default();
        {
            let [black, white] = &mut players;
            let mut white_stats = Stats::default();
            tokio::join!(
                black.wait(&phases.start, &mut stats),
                white.wait(&phases.start, &mut white_stats)
            );
            stats.merge(white_stats);
        }
        let stop = phases.stop;
        loop {
            let [black, white] = &mut players;
            let (mut black_stats, mut white_stats) = (Stats::default(), Stats::default());
            let (black_end, white_end) = tokio::join!(
                self.play(black, &stop, &mut black_stats),
                self.play(white, &stop, &mut white_stats)
            );
            stats.merge(black_stats);
            stats.merge(white_stats);
            let [black, white] = players;
            tokio::join!(black.conn.close(), white.conn.close());
            let ends = [black_end, white_end];
            if ends
                .iter()
                .any(|end| matches!(end, End::Lost | End::Closed))
            {
                stats.games_lost += 1;
            }
            if ends != [End::GameOver; 2] {
                break;
            }
            stats.games_finished += 1;
            if stop.is_cancelled() {
                break;
            }
            players = match self.open_room(&mut stats).await {
                Ok(players) => players,
                Err(error) => {
                    stats.error(error);
                    break;
                }
            };
        }
        stats
    }

    /// One client's side of one game: react to every frame until the game ends or `stop`.
    pub(super) async fn play(
        &self,
        player: &mut Player,
        stop: &CancellationToken,
        stats: &mut Stats,
    ) -> End {
        let end = loop {
            let frame = match player.unread.pop_front() {
                Some(frame) => frame,
                None => {
                    let next = tokio::select! {
                        _ = stop.cancelled() => break End::Stopped,
                        frame = player.conn.recv(stats) => frame,
                    };
                    match next {
                        Some(frame) => frame,
                        None if self.reconnect && !stop.is_cancelled() => {
                            if let Err(error) = self.rejoin(player, stats).await {
                                stats.error(error);
                                break End::Closed;
                            }
                            continue;
                        }
                        None => break End::Closed,
                    }
                }
            };
            match wire::react(player.side, &frame) {
                Reaction::GameOver if wire::ended_badly(&frame) => break End::Lost,
                Reaction::GameOver => break End::GameOver,
                _ if self.idle => {}
                reaction => {
                    let sent = player
                        .conn
                        .send_action(stats, |id| wire::action_frame(reaction, id))
                        .await;
                    if let Err(error) = sent {
                        stats.error(error);
                        break End::Closed;
                    }
                }
            }
        };
        player.conn.drain(stats, DRAIN_TIMEOUT).await;
        end
    }
}

/// `POST path` as `player` (a cookie secret), if any, within [`ANSWER_TIMEOUT`].
pub(super) async fn post<T: DeserializeOwned>(
    target: &JsonClient,
    path: &str,
    body: String,
    player: &Option<String>,
) -> Result<T, String> {
    Ok(posted(target, path, body, player.as_deref()).await?.0)
}

async fn posted<T: DeserializeOwned>(
    target: &JsonClient,
    path: &str,
    body: String,
    player: Option<&str>,
) -> Result<(T, Option<String>), String> {
    tokio::time::timeout(ANSWER_TIMEOUT, target.post_as(path, body, player))
        .await
        .map_err(|_| format!("POST {path} to {}: timed out", target.base()))?
}

/// A new player (`POST /api/me`): the secret of its cookie.
pub(super) async fn new_player(target: &JsonClient) -> Result<String, String> {
    let (_, secret): (serde_json::Value, _) = posted(target, "/api/me", "{}".into(), None).await?;
    secret.ok_or_else(|| "POST /api/me set no player cookie".to_string())
}

impl Player {
    /// Closes the player's socket (its game is over).
    pub(super) async fn leave(self) {
        self.conn.close().await;
    }

    /// Reads the socket until `start` (so that the server's pings are answered), keeping the
    /// frames for `play`.
    async fn wait(&mut self, start: &CancellationToken, stats: &mut Stats) {
        loop {
            tokio::select! {
                _ = start.cancelled() => return,
                frame = self.conn.recv(stats) => match frame {
                    Some(frame) => self.unread.push_back(frame),
                    None => return,
                },
            }
        }
    }
}

/// Why a client stopped playing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    GameOver,
    /// The game ended by abandonment or on time.
    Lost,
    Stopped,
    Closed,
}
