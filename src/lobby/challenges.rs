//! Challenges by name or by link (issue 46 item 3; docs/PROTOCOL.md "Challenges"): a player
//! challenges a named player, or makes a link that whoever opens it may accept. Beside the seeks
//! and like them on top of the rooms: accepting makes the room with both seats taken at once
//! (`Rooms::create_seated`, as a tournament's games are made), binds the seats to the players and
//! hands the accepter their token; the challenger's is kept with the challenge and fetched with
//! their player cookie (tokens never travel in a broadcast).
//!
//! Who hears of a challenge: each player's pages with a lobby socket subscribe to their player's
//! challenges here ([`Challenges::subscribe`]); every change (sent, accepted, declined, cancelled,
//! expired) goes to the challenger's and the challenged player's subscribers as one
//! `challenge` frame, without any token. On PostgreSQL the change is announced on the store's
//! channel and every instance (this one too) reads the challenge and tells its own subscribers,
//! so a page on another instance hears it within the listener's delay; on SQLite the one instance
//! tells them directly.
//!
//! Expiry runs here: a live challenge lasts [`ChallengeConfig::live`] (two minutes by default),
//! a correspondence one [`ChallengeConfig::correspondence`] (seven days); every
//! [`SWEEP_EVERY`] the due ones are marked expired and their players told. A cancel ends one at
//! once. A live challenge lasts its two minutes only while its challenger is online (lichess's
//! rule: nobody accepts into a game whose other player has gone): it is made to expire after
//! [`offline_grace`], and every sweep each instance moves that on for the challengers with a
//! lobby socket on it (their pages), up to the challenge's whole life. So a challenger whose
//! pages all closed loses it within the grace, on whichever instance they were, and a reload or
//! a move to another page with a lobby socket within the grace keeps it.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::broadcast;
use tokio_util::sync::CancellationToken;

use crate::engine::Side;
use crate::players::shown;
use crate::players::social::{ChallengeRow, Outcome, SocialError, SocialStore, status};
use crate::players::store::{PlayerError, PlayerRow, PlayerStore};
use crate::protocol::social::{Challenge, ChallengeStatus, DeclineReason, PostChallenge};
use crate::protocol::{
    FrameText, LobbyFrame, RoomCreated, Seat, SideChoice, TimeControl, room_url,
};
use crate::room::{RoomError, Rooms, now_ms};
use crate::secrets::{new_room_id, new_token};
use crate::store::{News, Subscription};

/// How often due challenges are expired.
pub const SWEEP_EVERY: Duration = Duration::from_secs(1);
/// A live challenge's life by default.
pub const DEFAULT_LIVE_EXPIRY: Duration = Duration::from_secs(120);
/// A correspondence challenge's life.
pub const CORRESPONDENCE_EXPIRY: Duration = Duration::from_secs(7 * 24 * 3600);
/// How long a live challenge outlives its challenger's last lobby socket, at most.
pub const OFFLINE_GRACE: Duration = Duration::from_secs(20);

/// The grace for a live life of `live`: [`OFFLINE_GRACE`], shorter for a short life (tests).
pub fn offline_grace(live: Duration) -> Duration {
    OFFLINE_GRACE.min(live / 6)
}

/// Frames one player's subscribers may fall behind by (a page missing some re-reads the list).
const FRAME_BUFFER: usize = 16;

/// How long challenges wait for an answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChallengeConfig {
    pub live: Duration,
    pub correspondence: Duration,
}

impl Default for ChallengeConfig {
    fn default() -> Self {
        ChallengeConfig {
            live: DEFAULT_LIVE_EXPIRY,
            correspondence: CORRESPONDENCE_EXPIRY,
        }
    }
}

/// What a challenge request is refused with, or fails with; worded in `server::error`.
#[derive(Debug, thiserror::Error)]
pub enum ChallengeError {
    /// No challenge has this id, or the asker may not see it.
    #[error("no challenge has this id (or it is not yours to see)")]
    NotFound,
    /// It was answered, cancelled or expired before this request.
    #[error("this challenge is {0} already")]
    Closed(&'static str),
    #[error("you cannot challenge yourself")]
    Yourself,
    #[error("a rated challenge is for identified players: create a player (POST /api/me) first")]
    RatedNeedsPlayer,
    #[error(transparent)]
    Social(#[from] SocialError),
    #[error(transparent)]
    Room(#[from] RoomError),
}

impl From<PlayerError> for ChallengeError {
    fn from(error: PlayerError) -> Self {
        ChallengeError::Social(error.into())
    }
}

/// The challenges of this instance's players; cloned into every handler.
#[derive(Clone)]
pub struct Challenges {
    inner: Arc<Inner>,
}

struct Inner {
    rooms: Rooms,
    players: Arc<dyn PlayerStore>,
    social: Arc<SocialStore>,
    config: ChallengeConfig,
    /// Each player's live subscribers on this instance.
    live: Mutex<HashMap<String, broadcast::Sender<FrameText>>>,
}

impl Challenges {
    /// Starts expiring due challenges and hearing other instances' changes, until `shutdown`.
    pub fn start(
        rooms: Rooms,
        players: Arc<dyn PlayerStore>,
        social: Arc<SocialStore>,
        config: ChallengeConfig,
        news: Subscription,
        shutdown: CancellationToken,
    ) -> Challenges {
        let challenges = Challenges {
            inner: Arc::new(Inner {
                rooms,
                players,
                social,
                config,
                live: Mutex::new(HashMap::new()),
            }),
        };
        tokio::spawn(challenges.clone().sweep(shutdown.clone()));
        tokio::spawn(challenges.clone().follow(news, shutdown));
        challenges
    }

    pub fn social(&self) -> &SocialStore {
        &self.inner.social
    }

    /// Every change to `player`'s challenges from now on, as `challenge` frames.
    pub fn subscribe(&self, player: &str) -> broadcast::Receiver<FrameText> {
        let mut live = self.live();
        live.retain(|_, sender| sender.receiver_count() > 0);
        live.entry(player.to_owned())
            .or_insert_with(|| broadcast::channel(FRAME_BUFFER).0)
            .subscribe()
    }

    /// Whether a page of `player` listens on this instance.
    pub fn online_here(&self, player: &str) -> bool {
        self.live()
            .get(player)
            .is_some_and(|sender| sender.receiver_count() > 0)
    }

    fn live(&self) -> std::sync::MutexGuard<'_, HashMap<String, broadcast::Sender<FrameText>>> {
        self.inner.live.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Sends a challenge from `challenger` (at client address `address`): to the player named
    /// `challenged`, or a link challenge when `None`.
    pub async fn send(
        &self,
        challenger: &PlayerRow,
        challenged: Option<&PlayerRow>,
        address: &str,
        request: &PostChallenge,
    ) -> Result<Challenge, ChallengeError> {
        if challenged.is_some_and(|row| row.id == challenger.id) {
            return Err(ChallengeError::Yourself);
        }
        self.inner.rooms.check_online_clock(request.clock)?;
        let now = now_ms();
        // A live one lives on while its challenger is online ([`Challenges::keep_alive`]).
        let life = if request.clock.is_correspondence() {
            self.inner.config.correspondence
        } else {
            offline_grace(self.inner.config.live)
        };
        let row = ChallengeRow {
            id: new_room_id(),
            challenger: challenger.id.clone(),
            challenged: challenged.map(|row| row.id.clone()),
            address: address.to_owned(),
            clock: serde_json::to_string(&request.clock).expect("a time control serializes"),
            side: crate::protocol::vocabulary::wire_name(&request.side),
            rated: request.rated,
            message: request.message.map(|m| <&str>::from(m).to_owned()),
            status: status::PENDING.to_owned(),
            reason: None,
            room: None,
            challenger_token: None,
            created_at: now,
            expires_at: now + life.as_millis() as i64,
        };
        self.inner.social.challenge(&row).await?;
        self.publish(&row).await;
        self.view(&row, false).await
    }

    /// The challenge `id` as `asker` may see it: its two players always (the challenger with
    /// their seat's token once accepted), anyone holding a link challenge's id.
    pub async fn show(&self, id: &str, asker: Option<&str>) -> Result<Challenge, ChallengeError> {
        let row = self.find(id).await?;
        let is = |who: Option<&str>| who.is_some() && who == asker;
        let challenger = is(Some(&row.challenger));
        if !challenger && !is(row.challenged.as_deref()) && row.challenged.is_some() {
            return Err(ChallengeError::NotFound);
        }
        self.view(&row, challenger).await
    }

    /// `asker`'s pending challenges: (sent, received), newest first.
    pub async fn pending(
        &self,
        asker: &str,
    ) -> Result<(Vec<Challenge>, Vec<Challenge>), ChallengeError> {
        let rows = self.inner.social.pending_of(asker, now_ms()).await?;
        let (mut sent, mut received) = (Vec::new(), Vec::new());
        for row in rows {
            let mine = row.challenger == asker;
            let shown = self.view(&row, false).await?;
            if mine { &mut sent } else { &mut received }.push(shown);
        }
        Ok((sent, received))
    }

    /// Accepts: makes the room, seats both, answers the accepter's seat.
    pub async fn accept(
        &self,
        id: &str,
        accepter: Option<&PlayerRow>,
    ) -> Result<RoomCreated, ChallengeError> {
        let row = self.find(id).await?;
        let accepter_id = accepter.map(|row| row.id.as_str());
        match &row.challenged {
            Some(challenged) if Some(challenged.as_str()) != accepter_id => {
                return Err(ChallengeError::NotFound);
            }
            _ => {}
        }
        if accepter_id == Some(row.challenger.as_str()) {
            return Err(ChallengeError::Yourself);
        }
        if row.rated && accepter.is_none() {
            return Err(ChallengeError::RatedNeedsPlayer);
        }
        if let Some(accepter) = accepter_id
            && self
                .inner
                .social
                .blocked_either(&row.challenger, accepter)
                .await?
        {
            return Err(SocialError::Blocked.into());
        }
        let challenger_side = match row.side.as_str() {
            "black" => Side::Black,
            "white" => Side::White,
            _ if rand::random::<bool>() => Side::Black,
            _ => Side::White,
        };
        let clock: TimeControl = serde_json::from_str(&row.clock)
            .map_err(|e| PlayerError::Corrupt(format!("challenge {id}'s clock: {e}")))?;
        let room = new_room_id();
        let (challenger_token, accepter_token) = (new_token(), new_token());
        let outcome = Outcome::Accepted {
            room: &room,
            challenger_token: &challenger_token,
        };
        if !self.inner.social.decide(id, outcome, now_ms()).await? {
            return Err(self.closed(id).await);
        }
        let tokens = match challenger_side {
            Side::Black => [challenger_token.as_str(), accepter_token.as_str()],
            Side::White => [accepter_token.as_str(), challenger_token.as_str()],
        };
        self.inner
            .rooms
            .create_seated(&room, Some(clock), tokens)
            .await?;
        let players = &self.inner.players;
        players.open_room(&room, row.rated).await?;
        players
            .bind_seat(&room, challenger_side, &row.challenger)
            .await?;
        let accepter_side = challenger_side.other();
        if let Some(accepter) = accepter_id {
            players.bind_seat(&room, accepter_side, accepter).await?;
        }
        if let Some(accepted) = self.inner.social.find(id).await? {
            self.publish(&accepted).await;
        }
        Ok(RoomCreated {
            url: room_url(&room),
            room,
            seat: seat_of(accepter_side),
            token: accepter_token,
        })
    }

    /// The challenged player declines, with a reason from the list; a link challenge, whoever
    /// holds its link (as whoever holds it may accept), but not its challenger.
    pub async fn decline(
        &self,
        id: &str,
        asker: Option<&str>,
        reason: DeclineReason,
    ) -> Result<(), ChallengeError> {
        let row = self.find(id).await?;
        let allowed = match &row.challenged {
            Some(challenged) => asker == Some(challenged.as_str()),
            None => asker != Some(row.challenger.as_str()),
        };
        if !allowed {
            return Err(ChallengeError::NotFound);
        }
        let reason = <&str>::from(reason);
        self.end(&row, Outcome::Declined { reason }).await
    }

    /// The challenger takes it back.
    pub async fn cancel(&self, id: &str, asker: &str) -> Result<(), ChallengeError> {
        let row = self.find(id).await?;
        if row.challenger != asker {
            return Err(ChallengeError::NotFound);
        }
        self.end(&row, Outcome::Cancelled).await
    }

    async fn end(&self, row: &ChallengeRow, outcome: Outcome<'_>) -> Result<(), ChallengeError> {
        if !self.inner.social.decide(&row.id, outcome, now_ms()).await? {
            return Err(self.closed(&row.id).await);
        }
        if let Some(ended) = self.inner.social.find(&row.id).await? {
            self.publish(&ended).await;
        }
        Ok(())
    }

    async fn find(&self, id: &str) -> Result<ChallengeRow, ChallengeError> {
        self.inner
            .social
            .find(id)
            .await?
            .ok_or(ChallengeError::NotFound)
    }

    /// Why a challenge could not change: its status now (a pending one past its time is
    /// expired, whether or not the sweep has marked it yet).
    async fn closed(&self, id: &str) -> ChallengeError {
        match self.inner.social.find(id).await {
            Ok(Some(row)) => ChallengeError::Closed(closed_word(&row.status)),
            Ok(None) => ChallengeError::NotFound,
            Err(error) => error.into(),
        }
    }

    /// A challenge as shown; `with_token`: the challenger's own view, with their seat.
    async fn view(
        &self,
        row: &ChallengeRow,
        with_token: bool,
    ) -> Result<Challenge, ChallengeError> {
        let player = |id: String| async move {
            let row = self.inner.players.player(&id).await?;
            row.map(|row| shown::player_ref(&row))
                .ok_or_else(|| PlayerError::Corrupt(format!("challenge of unknown player {id}")))
        };
        let challenger = player(row.challenger.clone()).await?;
        let challenged = match &row.challenged {
            Some(id) => Some(player(id.clone()).await?),
            None => None,
        };
        let corrupt = |what: &str| PlayerError::Corrupt(format!("challenge {}'s {what}", row.id));
        let status: ChallengeStatus = row.status.parse().map_err(|_| corrupt("status"))?;
        let status = match status {
            ChallengeStatus::Pending if row.expires_at <= now_ms() => ChallengeStatus::Expired,
            other => other,
        };
        let seat = match (with_token, &row.room, row.side.as_str()) {
            (true, Some(room), _) => self.challenger_seat(room, &row.challenger).await?,
            _ => None,
        };
        Ok(Challenge {
            id: row.id.clone(),
            challenger,
            challenged,
            clock: serde_json::from_str(&row.clock).map_err(|_| corrupt("clock"))?,
            side: row
                .side
                .parse::<SideChoice>()
                .map_err(|_| corrupt("side"))?,
            rated: row.rated,
            message: row.message.as_deref().and_then(|m| m.parse().ok()),
            status,
            reason: row.reason.as_deref().and_then(|r| r.parse().ok()),
            expires_at: row.expires_at,
            link: row.challenged.is_none().then(|| format!("/c/{}", row.id)),
            url: row.room.as_deref().map(room_url),
            room: row.room.clone(),
            token: seat.and(row.challenger_token.clone()),
            seat,
        })
    }

    /// The challenger's seat in the room their accepted challenge made.
    async fn challenger_seat(
        &self,
        room: &str,
        challenger: &str,
    ) -> Result<Option<Seat>, PlayerError> {
        let seated = self.inner.players.room_players(room).await?;
        Ok(seated.and_then(|seated| {
            if seated.black.as_deref() == Some(challenger) {
                Some(Seat::Black)
            } else if seated.white.as_deref() == Some(challenger) {
                Some(Seat::White)
            } else {
                None
            }
        }))
    }

    /// Tells the challenge's players of its change: through the database's channel where
    /// instances share one, else here at once.
    async fn publish(&self, row: &ChallengeRow) {
        match self.inner.social.announce(&row.id).await {
            Ok(true) => {}
            Ok(false) => self.deliver(row).await,
            Err(error) => {
                tracing::warn!(challenge = %row.id, %error, "a challenge's change was not announced");
                self.deliver(row).await;
            }
        }
    }

    /// Sends the challenge's frame to its players' subscribers here.
    async fn deliver(&self, row: &ChallengeRow) {
        let players: Vec<&str> = std::iter::once(row.challenger.as_str())
            .chain(row.challenged.as_deref())
            .collect();
        if !players.iter().any(|player| self.online_here(player)) {
            return;
        }
        let challenge = match self.view(row, false).await {
            Ok(challenge) => challenge,
            Err(error) => {
                tracing::warn!(challenge = %row.id, %error, "a challenge could not be shown");
                return;
            }
        };
        let frame = FrameText::from(
            LobbyFrame::Challenge {
                challenge: Box::new(challenge),
            }
            .to_json(),
        );
        let live = self.live();
        for player in players {
            if let Some(sender) = live.get(player) {
                let _ = sender.send(frame.clone());
            }
        }
    }

    async fn sweep(self, shutdown: CancellationToken) {
        let mut every = tokio::time::interval(SWEEP_EVERY);
        loop {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = every.tick() => {}
            }
            if let Err(error) = self.keep_alive(now_ms()).await {
                tracing::warn!(%error, "online challengers' challenges were not kept");
            }
            match self.inner.social.expire_due(now_ms()).await {
                Ok(expired) => {
                    for row in expired {
                        self.publish(&row).await;
                    }
                }
                Err(error) => tracing::warn!(%error, "due challenges were not expired"),
            }
        }
    }

    /// Moves on the expiry of the live challenges whose challenger has a lobby socket here.
    async fn keep_alive(&self, now: i64) -> Result<(), PlayerError> {
        let live = self.inner.config.live.as_millis() as i64;
        let grace = offline_grace(self.inner.config.live).as_millis() as i64;
        for (id, challenger, created_at) in self.inner.social.pending_live(live).await? {
            if self.online_here(&challenger) {
                let until = (now + grace).min(created_at + live);
                self.inner.social.keep_until(&id, until).await?;
            }
        }
        Ok(())
    }

    async fn follow(self, mut news: Subscription, shutdown: CancellationToken) {
        loop {
            let heard = tokio::select! {
                _ = shutdown.cancelled() => return,
                heard = news.recv() => heard,
            };
            match heard {
                Some(News::Challenge { id }) => match self.inner.social.find(&id).await {
                    Ok(Some(row)) => self.deliver(&row).await,
                    Ok(None) => {}
                    Err(error) => {
                        tracing::warn!(challenge = %id, %error, "a challenge was not read")
                    }
                },
                Some(_) => {}
                None => return,
            }
        }
    }
}

/// A status as a refusal words it.
fn closed_word(status: &str) -> &'static str {
    match status {
        status::ACCEPTED => status::ACCEPTED,
        status::DECLINED => status::DECLINED,
        status::CANCELLED => status::CANCELLED,
        _ => status::EXPIRED,
    }
}

fn seat_of(side: Side) -> Seat {
    match side {
        Side::Black => Seat::Black,
        Side::White => Seat::White,
    }
}
