//! Scripted players: open an online room over HTTP, seat one client on each side, and play
//! random legal moves until told to stop, opening a new room whenever a game ends.

use std::collections::VecDeque;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde::de::DeserializeOwned;
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

/// One seated client and the frames it has not acted on yet (its `welcome`, and what came
/// before the run started).
pub struct Player {
    conn: Conn,
    side: Side,
    unread: VecDeque<Incoming>,
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
}

impl Table {
    /// Creates an online room, joins its second seat, and connects both players.
    pub async fn open_room(&self, stats: &mut Stats) -> Result<[Player; 2], String> {
        let (home, away) = self.next_targets();
        let body = wire::create_room_body(Side::Black, self.clock);
        let created: RoomCreated = post(home, "/api/rooms", body).await?;
        let room = created.room;
        let joined: Joined = post(away, &format!("/api/rooms/{room}/join"), "{}".into()).await?;
        stats.rooms_opened += 1;
        let (black, white) = tokio::join!(
            self.seat(home, &room, &created.token),
            self.seat(away, &room, &joined.token)
        );
        let players = [black?, white?];
        stats.connections_opened += 2;
        Ok(players)
    }

    /// The clients of the next room's black player and white player.
    fn next_targets(&self) -> (&JsonClient, &JsonClient) {
        let (targets, k) = (
            self.clients.len(),
            self.rooms_opened.fetch_add(1, Ordering::Relaxed),
        );
        let (home, source) = (k % targets, k / targets % self.clients[0].len());
        let away = (home + usize::from(self.split_players)) % targets;
        (&self.clients[home][source], &self.clients[away][source])
    }

    /// Connects a seat's client to `target` and waits for its `welcome`.
    async fn seat(&self, target: &JsonClient, room: &str, token: &str) -> Result<Player, String> {
        let url = target.base().ws(&format!("/ws/rooms/{room}"));
        let mut conn = Conn::connect(&url, target.source(), self.pacing.clone()).await?;
        conn.send(wire::hello(token)).await?;
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
        })
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
            if black_end != End::GameOver || white_end != End::GameOver {
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
    async fn play(&self, player: &mut Player, stop: &CancellationToken, stats: &mut Stats) -> End {
        let end = loop {
            let frame = match player.unread.pop_front() {
                Some(frame) => frame,
                None => tokio::select! {
                    _ = stop.cancelled() => break End::Stopped,
                    frame = player.conn.recv(stats) => match frame {
                        Some(frame) => frame,
                        None => break End::Closed,
                    },
                },
            };
            match wire::react(player.side, &frame) {
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

async fn post<T: DeserializeOwned>(
    target: &JsonClient,
    path: &str,
    body: String,
) -> Result<T, String> {
    tokio::time::timeout(ANSWER_TIMEOUT, target.post(path, body))
        .await
        .map_err(|_| format!("POST {path} to {}: timed out", target.base()))?
}

impl Player {
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
enum End {
    GameOver,
    Stopped,
    Closed,
}
