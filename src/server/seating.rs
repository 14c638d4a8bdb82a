//! Seats belong to players (issue 29): a seat taken by a request that carries a player's
//! cookie is bound to that player in the players' store; a socket carrying another player's
//! cookie may not act in it. The room's token still works without a cookie (old links, the
//! CLI). A rated game needs two different identified players, so a rated room refuses a
//! seat to a request without a player, or to the player holding the other seat.
//!
//! Only online rooms have a record of their players (local and computer games are never
//! rated, and nobody else sits in them). The record is written after the room is created and
//! the seat taken: a server stopped in between leaves a casual room with unbound seats.

use std::time::Duration;

use super::AppState;
use super::error::AppError;
use super::refusals::SeatRefusal;
use crate::engine::Side;
use crate::players::shown;
use crate::players::store::{PlayerError, PlayerRow, PlayerStore, RoomPlayers};
use crate::protocol::{Mode, Seat, State as RoomState};

/// Checks a new room's rated choice against who creates it.
pub(super) fn check_creator(
    mode: Mode,
    rated: bool,
    player: Option<&PlayerRow>,
) -> Result<(), AppError> {
    if !rated {
        return Ok(());
    }
    if mode != Mode::Online {
        return Err(AppError::BadRequest(
            "only online games are rated: \"rated\" is for mode \"online\"".into(),
        ));
    }
    match player {
        Some(_) => Ok(()),
        None => Err(AppError::Seat(SeatRefusal::RatedNeedsPlayer)),
    }
}

/// Records a new online room's rated choice and binds the creator's seat to their player.
pub(super) async fn seat_creator(
    state: &AppState,
    room: &str,
    seat: Seat,
    rated: bool,
    player: Option<&PlayerRow>,
) -> Result<(), AppError> {
    state.players.open_room(room, rated).await?;
    bind(state, room, seat, player).await
}

/// Checks a joiner of `room` before they take a seat: a rated room wants a player, and
/// another one than the player already seated; nobody who blocked or was blocked by a seated
/// player.
pub(super) async fn check_joiner(
    state: &AppState,
    room: &str,
    player: Option<&PlayerRow>,
) -> Result<(), AppError> {
    let Some(seated) = state.players.room_players(room).await? else {
        return Ok(());
    };
    // Blocked players never meet (issue 46): not by a seek, nor by a room's id.
    if let Some(player) = player {
        let social = state.challenges.social();
        for other in [&seated.black, &seated.white].into_iter().flatten() {
            if other != &player.id && social.blocked_either(&player.id, other).await? {
                return Err(crate::players::social::SocialError::Blocked.into());
            }
        }
    }
    if !seated.rated {
        return Ok(());
    }
    let Some(player) = player else {
        return Err(AppError::Seat(SeatRefusal::RatedNeedsPlayer));
    };
    let already = [&seated.black, &seated.white]
        .into_iter()
        .any(|bound| bound.as_deref() == Some(player.id.as_str()));
    if already {
        return Err(AppError::Seat(SeatRefusal::SamePlayer));
    }
    Ok(())
}

/// Binds a seat just taken in an online room to the player who took it (nothing without a
/// player, or for a room without a record: not online).
pub(super) async fn bind(
    state: &AppState,
    room: &str,
    seat: Seat,
    player: Option<&PlayerRow>,
) -> Result<(), AppError> {
    let (Some(player), Some(side)) = (player, side_of(seat)) else {
        return Ok(());
    };
    state.players.bind_seat(room, side, &player.id).await?;
    Ok(())
}

/// Whether a socket carrying `player`'s cookie may act in `seat` of `room`: not when the
/// seat is bound to someone else. Without a cookie the token alone decides.
pub(super) async fn may_act(
    players: &dyn PlayerStore,
    room: &str,
    seat: Seat,
    player: Option<&str>,
) -> Result<(), AppError> {
    let (Some(player), Some(side)) = (player, side_of(seat)) else {
        return Ok(());
    };
    let Some(seated) = players.room_players(room).await? else {
        return Ok(());
    };
    match bound(&seated, side) {
        Some(owner) if owner != player => Err(AppError::Seat(SeatRefusal::SeatOfAnotherPlayer)),
        _ => Ok(()),
    }
}

/// Adds to a room's state who sits in it by identity, and whether its game is rated. A store
/// that fails leaves the state without them (logged): a page still draws the board.
/// The players' names are for show: a database that does not answer in time leaves them out
/// rather than hold back the state a player waits for (every request answered within two
/// seconds, docs/RELIABILITY.md).
pub(super) const NAMES_WITHIN: Duration = Duration::from_millis(300);

pub(super) async fn show_players(players: &dyn PlayerStore, state: &mut RoomState) {
    if state.mode != Mode::Online {
        return;
    }
    let room = state.room.clone();
    match tokio::time::timeout(NAMES_WITHIN, add_players(players, state)).await {
        Ok(Ok(())) => {}
        Ok(Err(error)) => tracing::warn!(%room, %error, "the room's players could not be read"),
        Err(_) => tracing::warn!(%room, "the room's players were not read in time"),
    }
}

async fn add_players(players: &dyn PlayerStore, state: &mut RoomState) -> Result<(), PlayerError> {
    let Some(seated) = players.room_players(&state.room).await? else {
        return Ok(());
    };
    state.rated = seated.rated;
    if seated.rated && state.result.is_some() {
        let changes = players.room_changes(&state.room).await?;
        state.ratings = changes.as_ref().map(shown::changes);
    }
    let shown = crate::players::store::seated(players, &seated).await?;
    state.players.black.player = shown.black;
    state.players.white.player = shown.white;
    Ok(())
}

fn bound(seated: &RoomPlayers, side: Side) -> Option<&str> {
    match side {
        Side::Black => seated.black.as_deref(),
        Side::White => seated.white.as_deref(),
    }
}

fn side_of(seat: Seat) -> Option<Side> {
    match seat {
        Seat::Black => Some(Side::Black),
        Seat::White => Some(Side::White),
        Seat::Both | Seat::Spectator => None,
    }
}
