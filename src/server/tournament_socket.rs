//! `GET /ws/tournaments/{id}`: a tournament page's live view (issue 45; docs/PROTOCOL.md
//! "`GET /ws/tournaments/{id}`"). The socket sends the tournament as `GET /api/tournaments/{id}`
//! shows it to the socket's player as it opens, then again each time its log changes: a
//! pairing, a result, a join, a pause. Nothing is polled: the log's appends on this instance,
//! and on PostgreSQL every instance's (their `NOTIFY`, which [`Views::start`] passes on), reach
//! [`crate::store::TournamentNews`].
//!
//! One task per tournament followed here ([`Views`]) reads each change off the log once and
//! hands the fold to every socket on it through a `watch` (a socket that was busy sees the
//! latest fold, never a queue of old ones); each socket then words it for its own player, whose
//! game's seat token is theirs alone (by their cookie, as with `GET`). A tournament is followed
//! only while a socket is on it, and only an existing one: what it holds is bounded by the
//! connection caps and the tournaments stored.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::extract::ws::Utf8Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use serde_json::{Value, json};
use tokio::sync::broadcast::error::RecvError;
use tokio::sync::watch;

use super::AppState;
use super::error::{AppError, WireError};
use super::identity::Identity;
use super::limits::ConnectionPermit;
use super::socket::{self, Admitted, CLOSE_RESTART, Close, Handler, Peer};
use super::tournaments::{load, view};
use crate::protocol::ErrorCode;
use crate::store::{News, Store, Subscription};
use crate::tournament::Tournament;
use crate::tournament::stored::{self, TournamentError};

type Fold = Arc<Tournament>;

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
        let (sender, receiver) = watch::channel(Arc::new(tournament.clone()));
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
            // Sent even when the log did not change: a game's room made changes what a player
            // is shown (their seat token).
            match stored::catch_up(&self.store, &id, &mut tournament).await {
                Ok(_) => {
                    sender.send_replace(Arc::new(tournament.clone()));
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
        id,
        player: player.map(|row| row.id),
        fold,
        _permit: permit,
    });
    let span = tracing::info_span!("tournament");
    Ok(socket::open(ws, &state, client, connection, span))
}

struct TournamentSocket {
    state: AppState,
    id: String,
    /// The socket's player (public id), by their cookie at the handshake.
    player: Option<String>,
    fold: watch::Receiver<Fold>,
    /// This connection's place under the caps, freed when it ends.
    _permit: ConnectionPermit,
}

impl TournamentSocket {
    /// Sends the tournament as it stands now, as this socket's player sees it.
    async fn send_view(&mut self, peer: &mut Peer) -> Result<(), Close> {
        let fold = self.fold.borrow_and_update().clone();
        let shown = view(&self.state, &self.id, &fold, self.player.as_deref()).await;
        match shown {
            Ok(shown) => send(peer, "tournament", shown).await,
            Err(_) => Err(Close::With(CLOSE_RESTART, "tournament unavailable")),
        }
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
