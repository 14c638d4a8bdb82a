//! One tournament bot of `senet loadgen --tournament`: a player who keeps the tournament's page
//! socket open (`/ws/tournaments/{id}`, with their cookie, as the page does), plays every game
//! they are paired into as soon as its seat token shows there, and times, after each of their
//! games ends (the `game-over` on their room's socket), how long until the tournament shows it:
//! their next pairing (the game's room), their next seat (its token: they can sit), and their
//! standings line counting the game.
//!
//! Everything is read off the socket's frames, so the times are what a player's page sees.

use std::net::IpAddr;

use futures_util::StreamExt;
use serde::Deserialize;
use tokio::task::JoinHandle;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::Message;
use tokio_util::sync::CancellationToken;

use super::conn::open_websocket;
use super::player::{End, Table};
use super::stats::Stats;

/// A registered player: their number among the bots, their cookie's secret.
pub(super) struct Bot {
    pub number: usize,
    pub secret: String,
}

/// What one bot saw and did.
#[derive(Default)]
pub(super) struct Tally {
    pub stats: Stats,
    /// From a game's end to the tournament socket showing this player's next game, in µs.
    pub to_pairing_us: Vec<u32>,
    /// From a game's end to the next game's seat token (its room made), in µs.
    pub to_seat_us: Vec<u32>,
    /// From a game's end to this player's standings line counting it, in µs.
    pub to_standings_us: Vec<u32>,
    /// The tournament's round at each pairing timed in `to_pairing_us` (a Swiss's round).
    pub pairing_rounds: Vec<u32>,
    /// The rooms of the games played, and of those seen to end by the rules.
    pub rooms: Vec<String>,
    pub finished: Vec<String>,
    /// `tournament` frames received.
    pub frames: u64,
    /// The tournament's status in the last frame.
    pub status: String,
}

fn micros(from: Instant, to: Instant) -> u32 {
    u32::try_from(to.saturating_duration_since(from).as_micros()).unwrap_or(u32::MAX)
}

/// `{"t": "tournament", "d": {...}}`, the fields a bot reads (the standings and games are
/// skipped unparsed: a bot needs only its own line, which `you` carries).
#[derive(Deserialize)]
struct Frame {
    t: String,
    d: Option<View>,
}

#[derive(Deserialize)]
struct View {
    status: String,
    round: u32,
    you: Option<You>,
}

#[derive(Deserialize)]
struct You {
    /// The games counted in this player's standings line.
    games: u32,
    game: Option<Game>,
}

#[derive(Deserialize)]
struct Game {
    room: String,
    token: Option<String>,
}

/// What the bot last saw and what it waits to see.
#[derive(Default)]
struct Watch {
    status: String,
    round: u32,
    /// This player's games counted in the standings, as last seen.
    counted: u32,
    /// The game shown as theirs (room, token), as last seen.
    game: Option<(String, Option<String>)>,
    /// When the last frame arrived.
    seen_at: Option<Instant>,
    /// The room of the game last started, and the games counted then.
    last_room: Option<String>,
    counted_at_start: u32,
    /// The end of the last game, for each thing not seen since.
    awaiting_standings: Option<Instant>,
    awaiting_pairing: Option<Instant>,
    awaiting_seat: Option<Instant>,
}

impl Watch {
    fn seen(&mut self, view: View, at: Instant, tally: &mut Tally) {
        self.counted = view.you.as_ref().map_or(0, |you| you.games);
        self.game = view
            .you
            .and_then(|you| you.game)
            .map(|game| (game.room, game.token));
        self.status = view.status;
        self.round = view.round;
        self.seen_at = Some(at);
        self.settle(tally);
    }

    /// Records what the last frame shows of what the bot waits for.
    fn settle(&mut self, tally: &mut Tally) {
        let Some(at) = self.seen_at else { return };
        if let Some(end) = self.awaiting_standings
            && self.counted > self.counted_at_start
        {
            tally.to_standings_us.push(micros(end, at));
            self.awaiting_standings = None;
        }
        let new_game = self
            .game
            .as_ref()
            .filter(|(room, _)| Some(room) != self.last_room.as_ref());
        if let Some((_, token)) = new_game {
            if let Some(end) = self.awaiting_pairing.take() {
                tally.to_pairing_us.push(micros(end, at));
                tally.pairing_rounds.push(self.round);
            }
            if token.is_some()
                && let Some(end) = self.awaiting_seat.take()
            {
                tally.to_seat_us.push(micros(end, at));
            }
        }
    }

    /// This player's game ended at `at`: time what follows from then.
    fn ended(&mut self, at: Instant, tally: &mut Tally) {
        self.awaiting_standings = Some(at);
        self.awaiting_pairing = Some(at);
        self.awaiting_seat = Some(at);
        // The frames may have come before the game's task was seen to end.
        self.settle(tally);
    }

    /// A game shown with its seat token and not played yet: (room, token).
    fn next_game(&mut self) -> Option<(String, String)> {
        let (room, token) = self.game.clone()?;
        let token = token?;
        if Some(&room) == self.last_room.as_ref() {
            return None;
        }
        self.last_room = Some(room.clone());
        self.counted_at_start = self.counted;
        Some((room, token))
    }

    fn over(&self) -> bool {
        matches!(self.status.as_str(), "finished" | "cancelled")
    }
}

/// One game: (how it ended for this player, when, its tallies).
type Played = (End, Instant, Stats);

/// Plays the tournament as `bot` until it is over or `stop`.
pub(super) async fn run(
    table: Table,
    url: String,
    source: Option<IpAddr>,
    bot: Bot,
    stop: CancellationToken,
) -> Tally {
    let mut tally = Tally::default();
    let mut socket = match open_websocket(&url, source, Some(&bot.secret)).await {
        Ok(socket) => socket,
        Err(error) => {
            tally.stats.error(format!("tournament socket: {error}"));
            return tally;
        }
    };
    let mut watch = Watch::default();
    let mut game: Option<JoinHandle<Played>> = None;
    loop {
        tokio::select! {
            () = stop.cancelled() => break,
            message = socket.next() => {
                let at = Instant::now();
                let text = match message {
                    Some(Ok(Message::Text(text))) => text,
                    Some(Ok(Message::Close(close))) => {
                        let code = close.map_or(1005, |c| u16::from(c.code));
                        tally.stats.error(format!("tournament socket closed by server: {code}"));
                        break;
                    }
                    Some(Ok(_)) => continue,
                    Some(Err(error)) => {
                        tally.stats.error(format!("tournament socket: {error}"));
                        break;
                    }
                    None => {
                        tally.stats.error("tournament socket closed");
                        break;
                    }
                };
                match serde_json::from_str::<Frame>(&text) {
                    Ok(Frame { t, d: Some(view) }) if t == "tournament" => {
                        tally.frames += 1;
                        watch.seen(view, at, &mut tally);
                    }
                    Ok(_) => {}
                    Err(_) => tally.stats.error("unreadable tournament frame"),
                }
            }
            done = async { game.as_mut().expect("polled only while a game runs").await },
                if game.is_some() =>
            {
                game = None;
                match done {
                    Ok((End::GameOver, at, stats)) => {
                        tally.stats.merge(stats);
                        tally.stats.games_finished += 1;
                        tally.finished.extend(tally.rooms.last().cloned());
                        watch.ended(at, &mut tally);
                    }
                    // Ended on time or by abandonment: an end all the same, which the
                    // tournament counts and follows with a pairing.
                    Ok((End::Lost, at, stats)) => {
                        tally.stats.merge(stats);
                        tally.stats.games_lost += 1;
                        tally.finished.extend(tally.rooms.last().cloned());
                        watch.ended(at, &mut tally);
                    }
                    // Stopped by --stop-after: not lost.
                    Ok((End::Stopped, _, stats)) => tally.stats.merge(stats),
                    Ok((End::Closed, _, stats)) => {
                        tally.stats.merge(stats);
                        tally.stats.games_lost += 1;
                    }
                    Err(error) => tally.stats.error(format!("game task: {error}")),
                }
            }
        }
        if game.is_none()
            && let Some((room, token)) = watch.next_game()
        {
            tally.rooms.push(room.clone());
            let (table, secret, stop) = (table.clone(), bot.secret.clone(), stop.clone());
            let source = bot.number;
            game = Some(tokio::spawn(async move {
                play(table, room, token, secret, source, stop).await
            }));
        }
        if game.is_none() && watch.over() {
            break;
        }
    }
    if let Some(game) = game {
        game.abort();
    }
    let _ = socket.close(None).await;
    tally.status = watch.status;
    tally
}

/// Sits in `room` with `token` and plays random legal moves until the game ends or `stop`.
async fn play(
    table: Table,
    room: String,
    token: String,
    secret: String,
    source: usize,
    stop: CancellationToken,
) -> Played {
    let mut stats = Stats::default();
    match table.take_seat(&room, &token, &secret, source).await {
        Ok(mut player) => {
            stats.connections_opened += 1;
            let end = table.play(&mut player, &stop, &mut stats).await;
            let at = Instant::now();
            player.leave().await;
            (end, at, stats)
        }
        Err(error) => {
            stats.error(format!("seat in a tournament game: {error}"));
            (End::Closed, Instant::now(), stats)
        }
    }
}
