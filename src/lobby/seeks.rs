//! What visitors do with seeks: post one (its room made first, then listed), take one (the
//! store's one winner joins the room), cancel one's own, pair quickly, and hold one's own listed
//! while the page is open; a visitor's id as it is stored.

use tokio::time::Instant;

use super::{Hold, Lobby, LobbyError, MAX_OPEN_SEEKS, MAX_VISITOR};
use crate::protocol::{Paired, RoomCreated, Seat, SeekGone, SideChoice, TimeControl, room_url};
use crate::room::{NewRoom, RoomError, Seats, now_ms};
use crate::secrets::hash_token;
use crate::store::{Pairing, Poster, SeekCaps, SeekRow};

impl Lobby {
    /// Posts a seek from `owner` (a client address): its room as an online room is created
    /// (the answer is the same as for `POST /api/rooms`), then listed.
    pub async fn post(
        &self,
        owner: &str,
        side: SideChoice,
        clock: Option<TimeControl>,
        visitor: Option<String>,
        poster: Poster,
    ) -> Result<RoomCreated, LobbyError> {
        let visitor = visitor_or(visitor, owner)?;
        check_range(&poster)?;
        self.post_as(owner, side, clock, visitor, poster).await
    }

    /// [`Lobby::post`] for a visitor already named.
    async fn post_as(
        &self,
        owner: &str,
        side: SideChoice,
        clock: Option<TimeControl>,
        visitor: String,
        poster: Poster,
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
            poster,
        };
        let caps = SeekCaps {
            per_owner,
            total: MAX_OPEN_SEEKS,
        };
        if !self.store().seeks.post_seek(&seek, caps).await? {
            return Err(LobbyError::TooManySeeks);
        }
        tracing::info!(room = %seek.room, "seek posted");
        self.opened(seek, Some(received)).await;
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

    /// Quick pairing: takes the compatible open seek nearest in rating (see the module doc),
    /// or posts one (side random, the asker's range) and looks once more, in case another
    /// visitor posted at the same moment.
    pub async fn pair(
        &self,
        owner: &str,
        clock: Option<TimeControl>,
        visitor: Option<String>,
        poster: Poster,
    ) -> Result<Paired, LobbyError> {
        let visitor = visitor_or(visitor, owner)?;
        check_range(&poster)?;
        let asker = poster.clone();
        let mut pairing = Pairing {
            clock,
            poster: &asker,
            window: self.inner.config.window,
            visitor: &visitor,
            own: None,
            at: now_ms(),
        };
        if let Some(room) = self.store().seeks.pair_seek(&pairing).await? {
            return self.paired(&room).await;
        }
        let own = self
            .post_as(owner, SideChoice::Random, clock, visitor.clone(), poster)
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
}

/// How a visitor id the client gave is stored; the address standing in for a missing one is
/// not a browser, so the one-open-seek rule does not apply to it (the per-address cap does).
const NAMED_VISITOR: &str = "visitor ";

/// Refuses a rating range whose ends are out of order.
fn check_range(poster: &Poster) -> Result<(), LobbyError> {
    match poster.range {
        Some([min, max]) if min > max => Err(LobbyError::BadRange),
        _ => Ok(()),
    }
}

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
