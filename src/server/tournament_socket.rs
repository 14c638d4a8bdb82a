//! `GET /ws/tournaments/{id}`: a tournament page's live view (issue 45; docs/PROTOCOL.md
//! "`GET /ws/tournaments/{id}`"). The socket sends the tournament as `GET /api/tournaments/{id}`
//! shows it to the socket's player as it opens, then again each time its log changes: a
//! pairing, a result, a join, a pause. Nothing is polled: the log's appends on this instance,
//! and on PostgreSQL every instance's (their `NOTIFY`, which [`Views::start`] passes on), reach
//! [`crate::store::TournamentNews`].
//!
//! One task per tournament followed here ([`Views`]) reads each change off the log once, builds
//! and serialises what every viewer sees alike (the standings and games: 126 KB for 500 players)
//! once, and hands it to every socket on it through a `watch` (a socket that was busy sees the
//! latest, never a queue of old ones). Each socket then adds only its own player's part, whose
//! game's seat token is theirs alone (by their cookie, as with `GET`), read once per game. Built
//! per socket instead, a change of a 500-player Arena cost about a second of CPU and the page's
//! p99 reached 16 s (docs/PERFORMANCE.md, "Tournaments under load"). Changes that come in a
//! burst are sent together, at most one frame per [`MIN_GAP`]. A tournament is followed only
//! while a socket is on it, and only an existing one: what it holds is bounded by the connection
//! caps and the tournaments stored.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::ws::Utf8Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::{RecvError, TryRecvError};
use tokio::sync::watch;

use super::AppState;
use super::error::{AppError, WireError};
use super::identity::Identity;
use super::limits::ConnectionPermit;
use super::socket::{self, Admitted, CLOSE_RESTART, Close, Handler, Peer};
use super::tournaments::{load, playing, seat_token, shared_view, your_view};
use crate::protocol::ErrorCode;
use crate::store::{News, Store, Subscription};
use crate::tournament::Tournament;
use crate::tournament::stored::{self, TournamentError};

/// The shortest time between two frames of one tournament: a burst of changes (a game's
/// result, the next pairing, its room made) reaches the pages as one frame, well within the
/// second a page may take to show a change (issue 45).
const MIN_GAP: Duration = Duration::from_millis(200);

/// A tournament as its sockets send it after a change, built once for all of them.
struct Shown {
    fold: Tournament,
    /// The frame up to its player's own part: `{"t":"tournament","d":{…,"you":`.
    head: String,
}

impl Shown {
    fn new(id: &str, fold: Tournament) -> Shown {
        let shared = shared_view(id, &fold).to_string();
        // The object's closing `}` becomes `,"you":`; each socket closes it after its own part.
        let head = format!(
            r#"{{"t":"tournament","d":{},"you":"#,
            &shared[..shared.len() - 1]
        );
        Shown { fold, head }
    }

    /// The whole frame for a viewer whose own part is `you`.
    fn frame(&self, you: &Value) -> String {
        let you = you.to_string();
        let mut frame = String::with_capacity(self.head.len() + you.len() + 2);
        frame.push_str(&self.head);
        frame.push_str(&you);
        frame.push_str("}}");
        frame
    }
}

type Fold = Arc<Shown>;

/// The tournaments followed on this instance, each by one task.
pub struct Views {
    store: Store,
    followed: Mutex<HashMap<String, watch::Sender<Fold>>>,
}

impl Views {
    /// Follows tournaments for the sockets; `news` is the database's, whose tournament news
    /// (other instances' appends) is passed on to this instance's followers.
    pub fn start(store: Store, mut news: Subscription) -> Arc<Views> {
        let tournament_news = store.tournament_news.clone();
        tokio::spawn(async move {
            while let Some(heard) = news.recv().await {
                match heard {
                    News::Tournament { id } => tournament_news.changed(&id),
                    News::Resync => tournament_news.resync(),
                    _ => {}
                }
            }
        });
        Arc::new(Views {
            store,
            followed: Mutex::default(),
        })
    }

    fn followed(&self) -> std::sync::MutexGuard<'_, HashMap<String, watch::Sender<Fold>>> {
        self.followed.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The fold of tournament `id` as it changes, followed from now on if it was not yet.
    async fn follow(self: &Arc<Self>, id: &str) -> Result<watch::Receiver<Fold>, TournamentError> {
        if let Some(sender) = self.followed().get(id) {
            return Ok(sender.subscribe());
        }
        // Listening before the load: an append in between is heard, not missed.
        let news = self.store.tournament_news.subscribe();
        let tournament = stored::load(&self.store, id).await?;
        let mut followed = self.followed();
        if let Some(sender) = followed.get(id) {
            return Ok(sender.subscribe());
        }
        let (sender, receiver) = watch::channel(Arc::new(Shown::new(id, tournament.clone())));
        followed.insert(id.to_owned(), sender.clone());
        let views = self.clone();
        let id = id.to_owned();
        tokio::spawn(async move { views.keep(id, tournament, sender, news).await });
        Ok(receiver)
    }

    /// Reads each change of tournament `id` off its log until no socket follows it.
    async fn keep(
        &self,
        id: String,
        mut tournament: Tournament,
        sender: watch::Sender<Fold>,
        mut news: tokio::sync::broadcast::Receiver<Option<String>>,
    ) {
        let mut last_sent = tokio::time::Instant::now();
        loop {
            tokio::select! {
                () = sender.closed() => {
                    // A socket may have subscribed since: it is done under the same lock.
                    let mut followed = self.followed();
                    if sender.receiver_count() == 0 {
                        followed.remove(&id);
                        return;
                    }
                    continue;
                }
                heard = news.recv() => match heard {
                    Ok(Some(changed)) if changed != id => continue,
                    Err(RecvError::Closed) => return,
                    // Ours, everyone's (a resync), or some missed: read the log.
                    Ok(_) | Err(RecvError::Lagged(_)) => {}
                },
            }
            tokio::time::sleep_until(last_sent + MIN_GAP).await;
            // What came in the meantime is read with this change.
            while let Ok(_) | Err(TryRecvError::Lagged(_)) = news.try_recv() {}
            // Sent even when the log did not change: a game's room made changes what a player
            // is shown (their seat token).
            match stored::catch_up(&self.store, &id, &mut tournament).await {
                Ok(_) => {
                    sender.send_replace(Arc::new(Shown::new(&id, tournament.clone())));
                    last_sent = tokio::time::Instant::now();
                }
                Err(error) => tracing::warn!(tournament = %id, %error, "could not follow"),
            }
        }
    }
}

/// `GET /ws/tournaments/{id}`: 404 `tournament_not_found` for an unknown id, before the upgrade.
pub async fn upgrade(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Identity(player): Identity,
    admitted: Admitted,
) -> Result<Response, AppError> {
    let Admitted { ws, permit, client } = admitted;
    load(&state, &id).await?;
    let fold = state.tournament_views.follow(&id).await?;
    let connection = Box::new(TournamentSocket {
        state: state.clone(),
        player: player.map(|row| row.id),
        fold,
        seat: None,
        _permit: permit,
    });
    let span = tracing::info_span!("tournament");
    Ok(socket::open(ws, &state, client, connection, span))
}

struct TournamentSocket {
    state: AppState,
    /// The socket's player (public id), by their cookie at the handshake.
    player: Option<String>,
    fold: watch::Receiver<Fold>,
    /// The player's current game and its seat token, once read: (room, token).
    seat: Option<(String, String)>,
    /// This connection's place under the caps, freed when it ends.
    _permit: ConnectionPermit,
}

impl TournamentSocket {
    /// Sends the tournament as it stands now, as this socket's player sees it.
    async fn send_view(&mut self, peer: &mut Peer) -> Result<(), Close> {
        let shown = self.fold.borrow_and_update().clone();
        let Ok(token) = self.token(&shown.fold).await else {
            return Err(Close::With(CLOSE_RESTART, "tournament unavailable"));
        };
        let you = your_view(&shown.fold, self.player.as_deref(), token);
        peer.text(shown.frame(&you).into()).await
    }

    /// The seat token of the game this socket's player plays now, read once per game.
    async fn token(&mut self, fold: &Tournament) -> Result<Option<String>, AppError> {
        let Some((player, room)) = self
            .player
            .as_deref()
            .and_then(|p| Some((p, playing(fold, p)?)))
        else {
            return Ok(None);
        };
        if let Some((known, token)) = &self.seat
            && *known == room
        {
            return Ok(Some(token.clone()));
        }
        let token = seat_token(&self.state, &room, player).await?;
        if let Some(token) = &token {
            self.seat = Some((room, token.clone()));
        }
        Ok(token)
    }
}

/// The largest `tournament` frame: 1,000 standings lines and 500 games, each with names of up
/// to 30 characters of 4 bytes in UTF-8, are about 420 KB. Above the default write buffer cap
/// (64 KiB, which a tournament of about 430 players passes): without it every page's socket
/// was dropped at its first frame (measured, issue 45 item 7).
const LARGEST_FRAME: usize = 512 * 1024;

impl Handler for TournamentSocket {
    type Event = Result<(), watch::error::RecvError>;
    const LARGEST_FRAME: usize = LARGEST_FRAME;

    async fn on_open(&mut self, peer: &mut Peer) -> Result<(), Close> {
        self.send_view(peer).await
    }

    async fn next_event(&mut self) -> Self::Event {
        self.fold.changed().await
    }

    async fn on_event(&mut self, peer: &mut Peer, changed: Self::Event) -> Result<(), Close> {
        match changed {
            Ok(()) => self.send_view(peer).await,
            Err(_) => Err(Close::With(CLOSE_RESTART, "tournament closed")),
        }
    }

    /// The only message is `ping` (answered `pong`, with its `id`).
    async fn on_text(&mut self, peer: &mut Peer, text: Utf8Bytes) -> Result<(), Close> {
        let Ok(message) = serde_json::from_str::<Value>(&text) else {
            let error = WireError::new(ErrorCode::BadJson, "not a JSON object");
            return peer.text(self.error_frame(error)).await;
        };
        if message["t"] != "ping" {
            let error = WireError::new(ErrorCode::UnknownType, "the only message here is ping");
            return peer.text(self.error_frame(error)).await;
        }
        send(peer, "pong", json!({"id": message["id"]})).await
    }

    fn error_frame(&self, error: WireError) -> Utf8Bytes {
        crate::telemetry::error_answered(error.code);
        let frame = json!({"t": "error", "d": {"code": error.code, "message": error.message}});
        frame.to_string().into()
    }
}

async fn send(peer: &mut Peer, kind: &str, data: Value) -> Result<(), Close> {
    peer.text(json!({"t": kind, "d": data}).to_string().into())
        .await
}
