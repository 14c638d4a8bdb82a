//! Seats and connections: a player joining takes a seat (and the game starts once both are
//! taken), a socket attaches with its token (or as a spectator) and detaches; a seat holds a
//! bounded number of sockets, which share one message budget.

use tokio_util::sync::CancellationToken;

use super::{Attached, Conn, ConnId, RoomTask};
use crate::engine::Side;
use crate::protocol::{Joined, Seat, Version};
use crate::room::error::RoomError;
use crate::room::rate::SeatBudget;
use crate::room::seats::Seats;
use crate::room::{new_seat, now_ms};
use crate::secrets::hash_token;

impl RoomTask {
    pub(super) async fn join(&mut self, side: Option<Side>) -> Result<Joined, RoomError> {
        let (token, sitter) = new_seat();
        let row = sitter.row().expect("a person's seat is stored");
        let side = loop {
            let side = self.game.seats().free_seat(side)?;
            if self.store.log.take_seat(self.game.id(), side, &row).await? {
                break side;
            }
            // Taken meanwhile through another instance: learn who sits where.
            self.reload_seats().await?;
        };
        self.reload_seats().await?;
        self.start_if_full().await?;
        Ok(Joined {
            seat: Seat::side(side),
            token,
        })
    }

    /// Logs `started` once both seats are taken.
    pub(super) async fn start_if_full(&mut self) -> Result<Version, RoomError> {
        self.commit_with_retry(|game, ctx| Ok(game.decide_start_present(ctx)))
            .await
    }

    pub(super) async fn reload_seats(&mut self) -> Result<(), RoomError> {
        let row = self
            .store
            .log
            .room(self.game.id())
            .await?
            .ok_or(RoomError::NotFound)?;
        let seats = Seats::of_room(&row);
        self.game.set_seats(seats);
        Ok(())
    }

    pub(super) async fn attach(&mut self, token: Option<Box<str>>) -> Result<Attached, RoomError> {
        // The log first: another instance's events may not be heard here yet (their
        // notification is on its way), and a welcome must not show a player coming from there
        // less than it saw (in a rolling update under load: a welcome one event behind); nor
        // may a drain's pause logged there charge the player on turn for the time it stood.
        self.catch_up().await?;
        let seat = match token {
            None => Seat::Spectator,
            Some(token) => self.seat_of_token(&token).await?,
        };
        let frames = self.frames.subscribe();
        let conn = self.next_conn;
        self.next_conn += 1;
        let budget = (seat != Seat::Spectator).then(|| self.make_room_for(seat));
        let evicted = CancellationToken::new();
        self.conns.insert(
            conn,
            Conn {
                seat,
                evicted: evicted.clone(),
            },
        );
        self.share_presence(seat).await;
        self.connections_changed(seat).await;
        // A drain's pause caught up above is resumed before the welcome, so that it shows the
        // clock running again.
        self.resume_if_back().await;
        Ok(Attached {
            conn,
            seat,
            state: self.game.state_for(seat, self.spectators(), now_ms()),
            frames,
            budget,
            evicted,
        })
    }

    /// Before a new socket of `seat` is added: lets the seat's oldest sockets go while it holds
    /// as many as it may, and returns the seat's message budget.
    fn make_room_for(&mut self, seat: Seat) -> SeatBudget {
        loop {
            let held = self.conns.iter().filter(|(_, conn)| conn.seat == seat);
            if held.clone().count() < self.config.max_sockets_per_seat {
                break;
            }
            // Connection ids only grow: the smallest is the oldest.
            let oldest = *held.map(|(id, _)| id).min().expect("counted at least one");
            if let Some(conn) = self.conns.remove(&oldest) {
                conn.evicted.cancel();
            }
        }
        let limit = self.config.seat_messages_per_second;
        self.budgets
            .entry(seat)
            .or_insert_with(|| SeatBudget::new(limit))
            .clone()
    }

    /// The seat a token holds. An unknown token may belong to a seat taken
    /// through another instance since the room was loaded here, so the log
    /// and the seats are re-read once before refusing.
    async fn seat_of_token(&mut self, token: &str) -> Result<Seat, RoomError> {
        let hash = hash_token(token);
        if self.game.seats().seat_of(&hash) == Seat::Spectator {
            self.catch_up().await?;
            self.reload_seats().await?;
        }
        match self.game.seats().seat_of(&hash) {
            Seat::Spectator => Err(RoomError::BadToken),
            seat => Ok(seat),
        }
    }

    pub(super) async fn detach(&mut self, conn: ConnId) {
        if let Some(Conn { seat, .. }) = self.conns.remove(&conn) {
            self.share_presence(seat).await;
            self.connections_changed(seat).await;
        }
    }
}
