//! Errors at the edge. Every failure a client hears of is worded here, once, as a
//! [`WireError`] (the stable code, the words, and for an illegal move the engine's reason),
//! whichever transport carries it: a WebSocket `error` reply or an HTTP response ([`AppError`],
//! which adds the status). Internal failures are logged here and answered with a generic
//! message, never with their details.

use std::time::Duration;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use serde::de::DeserializeOwned;

use axum::http::StatusCode;
use axum::http::header::RETRY_AFTER;
use axum::response::{IntoResponse, Response};

use super::refusals::{PuzzleRefusal, SeatRefusal, TournamentRefusal};
use crate::class::ClassError;
use crate::lobby::LobbyError;
use crate::lobby::challenges::ChallengeError;
use crate::players::name::NameError;
use crate::players::push::PushRefusal;
use crate::players::social::SocialError;
use crate::players::store::PlayerError;
use crate::protocol::vocabulary::wire_name;
use crate::protocol::{ErrorCode, HttpError};
use crate::room::{Refusal, RoomError};
use crate::store::StoreError;
use crate::tournament::Refusal as TournamentDecision;
use crate::tournament::stored::TournamentError;

/// An error as a client is told it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WireError {
    pub code: ErrorCode,
    pub message: String,
    /// For `illegal_move`: the engine's reason code.
    pub reason: Option<&'static str>,
}

impl WireError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> WireError {
        WireError {
            code,
            message: message.into(),
            reason: None,
        }
    }

    pub(super) fn internal(error: &dyn std::fmt::Display) -> WireError {
        tracing::error!(%error, "internal error");
        WireError::new(ErrorCode::Internal, "internal error")
    }
}

impl From<Refusal> for WireError {
    fn from(refusal: Refusal) -> WireError {
        let reason = match &refusal {
            Refusal::Illegal(illegal) => Some(illegal.code()),
            _ => None,
        };
        WireError {
            code: refusal_code(&refusal),
            message: refusal.to_string(),
            reason,
        }
    }
}

fn refusal_code(refusal: &Refusal) -> ErrorCode {
    match refusal {
        Refusal::NotSeated => ErrorCode::NotSeated,
        Refusal::NotYourTurn(_) => ErrorCode::NotYourTurn,
        Refusal::MustRoll => ErrorCode::MustRoll,
        Refusal::AlreadyRolled(_) => ErrorCode::AlreadyRolled,
        Refusal::Illegal(_) => ErrorCode::IllegalMove,
        Refusal::GameOver | Refusal::OutOfTime(_) => ErrorCode::GameOver,
        Refusal::NotStarted => ErrorCode::GameNotStarted,
        Refusal::DrawNotAllowed => ErrorCode::DrawNotAllowed,
        Refusal::HintNotAllowed => ErrorCode::HintNotAllowed,
        Refusal::DrawAlreadyOffered | Refusal::DrawOfferPending | Refusal::DrawOfferSpent => {
            ErrorCode::BadRequest
        }
        Refusal::NoDrawToAccept | Refusal::NoDrawToDecline => ErrorCode::NoDrawOffer,
        Refusal::ClaimNotOnline | Refusal::ClaimTooEarly(_) | Refusal::ClaimNoCountdown => {
            ErrorCode::CannotClaim
        }
        Refusal::RematchBeforeTheEnd | Refusal::RematchOpen(_) => ErrorCode::RematchNotAvailable,
        Refusal::ClientSeedLocked | Refusal::ClientSeedsSpent(_) => ErrorCode::ClientSeedLocked,
        Refusal::RoomLogFull(_) => ErrorCode::RoomLogFull,
        Refusal::RematchAlreadyAsked | Refusal::BadClock(_) => ErrorCode::BadRequest,
        Refusal::SeatTaken(_) | Refusal::RoomFull => ErrorCode::RoomFull,
        Refusal::ChatClosed => ErrorCode::GameOver,
        Refusal::ChatNotOnline
        | Refusal::ChatPlayersOnly
        | Refusal::FreeTextNeedsPlayers
        | Refusal::FreeTextOff
        | Refusal::CannotMute(_) => ErrorCode::ChatNotAllowed,
        Refusal::SpectatorNeedsPlayer => ErrorCode::ChatNeedsPlayer,
        Refusal::ChatRepeat => ErrorCode::ChatRepeat,
        Refusal::ChatFlood => ErrorCode::ChatFlood,
        Refusal::ChatMuted => ErrorCode::ChatMuted,
        Refusal::ChatFull => ErrorCode::ChatFull,
    }
}

impl From<RoomError> for WireError {
    fn from(error: RoomError) -> WireError {
        match error {
            RoomError::Refused(refusal) => refusal.into(),
            RoomError::NotFound => WireError::new(ErrorCode::RoomNotFound, "no such room"),
            RoomError::BadToken => WireError::new(ErrorCode::BadToken, error.to_string()),
            RoomError::NotAttached => WireError::new(
                ErrorCode::HelloRequired,
                "send hello first (with your token to play, without to watch)",
            ),
            RoomError::Busy | RoomError::ReplayTooSlow(_) => {
                WireError::new(ErrorCode::Internal, error.to_string())
            }
            RoomError::Unavailable => {
                WireError::new(ErrorCode::Internal, "the room is restarting: try again")
            }
            RoomError::NotFinished => WireError::new(ErrorCode::NotFinished, error.to_string()),
            RoomError::Store(store) if store.is_unavailable() => WireError::new(
                ErrorCode::Unavailable,
                "the database is not answering: try again in a moment",
            ),
            RoomError::Stale(_)
            | RoomError::Store(_)
            | RoomError::Corrupt(_)
            | RoomError::Analysis(_) => WireError::internal(&error),
        }
    }
}

impl From<LobbyError> for WireError {
    fn from(error: LobbyError) -> WireError {
        match error {
            LobbyError::SeekTaken => WireError::new(
                ErrorCode::SeekTaken,
                "this seek is no longer open: someone took it, or it was cancelled or withdrawn",
            ),
            LobbyError::TooManySeeks => WireError::new(
                ErrorCode::TooManySeeks,
                "this address has as many open seeks as it may (or the lobby is full): \
                 cancel one or wait for a taker",
            ),
            LobbyError::SeekOpen => WireError::new(
                ErrorCode::SeekOpen,
                "this browser already has an open seek: cancel it or wait for a taker",
            ),
            LobbyError::NotYours => WireError::new(ErrorCode::BadToken, error.to_string()),
            LobbyError::BadVisitor | LobbyError::BadRange => {
                WireError::new(ErrorCode::BadRequest, error.to_string())
            }
            LobbyError::Room(error) => error.into(),
            LobbyError::Store(_) => WireError::internal(&error),
        }
    }
}

impl From<PlayerError> for WireError {
    fn from(error: PlayerError) -> WireError {
        match error {
            PlayerError::UnknownPlayer => WireError::new(
                ErrorCode::NoPlayer,
                "no player goes with this browser: create one (POST /api/me) or move yours here",
            ),
            // The same code (the page shows "not found" for both), its own words.
            PlayerError::NotFound => WireError::new(
                ErrorCode::NoPlayer,
                "no player has this id or name (a deleted player's id still has a page)",
            ),
            PlayerError::NameTaken => WireError::new(ErrorCode::NameTaken, error.to_string()),
            PlayerError::RenameTooSoon => {
                WireError::new(ErrorCode::RenameTooSoon, error.to_string())
            }
            // One word for all, so a guesser learns nothing about which codes exist.
            PlayerError::BadCode | PlayerError::ExpiredCode => WireError::new(
                ErrorCode::BadCode,
                "this code is unknown, used or expired: ask the other device for a new one",
            ),
            PlayerError::Corrupt(_) | PlayerError::Database(_) | PlayerError::Schema(_) => {
                WireError::internal(&error)
            }
        }
    }
}

impl From<NameError> for WireError {
    fn from(error: NameError) -> WireError {
        let code = match error {
            NameError::Reserved => ErrorCode::NameReserved,
            NameError::Length | NameError::Characters => ErrorCode::BadName,
        };
        WireError::new(code, error.to_string())
    }
}

impl From<SeatRefusal> for WireError {
    fn from(refusal: SeatRefusal) -> WireError {
        match refusal {
            SeatRefusal::RatedNeedsPlayer => WireError::new(
                ErrorCode::RatedNeedsPlayer,
                "rated games are for identified players: create a player (POST /api/me) first",
            ),
            SeatRefusal::SamePlayer => WireError::new(
                ErrorCode::RatedNeedsPlayer,
                "a rated game needs two different players: you hold the other seat",
            ),
            SeatRefusal::SeatOfAnotherPlayer => WireError::new(
                ErrorCode::SeatOfAnotherPlayer,
                "this seat belongs to another player than this browser's",
            ),
        }
    }
}

/// What an HTTP handler fails with.
#[derive(Debug)]
pub enum AppError {
    /// The request itself is wrong (400).
    BadRequest(String),
    /// The room layer failed or refused; its status follows from which.
    Room(RoomError),
    /// The lobby refused or failed; its status follows from which.
    Lobby(LobbyError),
    /// The players' store refused or failed; its status follows from which.
    Player(PlayerError),
    /// A display name that breaks the rules (400).
    Name(NameError),
    /// A seat refused for who the player is (400, or 403 for another player's seat).
    Seat(SeatRefusal),
    /// A WebSocket handshake from another site's page (403).
    OriginNotAllowed,
    /// A connection cap is reached (429); says which.
    TooManyConnections(String),
    /// This client's quota is spent (429); the next request may come after this long.
    RateLimited(Duration),
    /// A puzzle request refused (404, 400 or 409).
    Puzzle(PuzzleRefusal),
    /// A tournament not created: a setting out of bounds (400), too many (429).
    TournamentRefused(TournamentRefusal),
    /// A tournament unknown (404), a player's request refused (409, 403) or failed.
    Tournament(TournamentError),
    /// A class unknown (404), full or a name taken (409), too many (429), or failed.
    Class(ClassError),
    /// A challenge refused (404, 409, 400, 403, 429) or failed.
    Challenge(ChallengeError),
    /// A push subscription refused: not one (400), too many (429).
    Push(PushRefusal),
}

impl From<ClassError> for AppError {
    fn from(error: ClassError) -> Self {
        AppError::Class(error)
    }
}

fn class_wire(error: ClassError) -> (StatusCode, WireError) {
    let (status, code) = match &error {
        ClassError::NotFound => (StatusCode::NOT_FOUND, ErrorCode::ClassNotFound),
        ClassError::CodeUnknown => (StatusCode::NOT_FOUND, ErrorCode::ClassCodeUnknown),
        ClassError::Full | ClassError::GamesSpent => (StatusCode::CONFLICT, ErrorCode::ClassFull),
        ClassError::NameTaken => (StatusCode::CONFLICT, ErrorCode::PupilNameTaken),
        ClassError::TooManyOpen => (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyClasses),
        ClassError::NoPupil => (StatusCode::NOT_FOUND, ErrorCode::NoPupil),
        ClassError::Bad(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
        ClassError::Name(_) | ClassError::Room(_) | ClassError::Database(_) => {
            return match error {
                ClassError::Name(name) => AppError::Name(name).wire(),
                ClassError::Room(room) => AppError::Room(room).wire(),
                _ => (
                    StatusCode::INTERNAL_SERVER_ERROR,
                    WireError::internal(&error),
                ),
            };
        }
    };
    (status, WireError::new(code, error.to_string()))
}

impl From<ChallengeError> for AppError {
    fn from(error: ChallengeError) -> Self {
        AppError::Challenge(error)
    }
}

impl From<SocialError> for AppError {
    fn from(error: SocialError) -> Self {
        AppError::Challenge(error.into())
    }
}

fn challenge_wire(error: ChallengeError) -> (StatusCode, WireError) {
    let message = error.to_string();
    let (status, code) = match error {
        ChallengeError::NotFound => (StatusCode::NOT_FOUND, ErrorCode::ChallengeNotFound),
        ChallengeError::Closed(_) => (StatusCode::CONFLICT, ErrorCode::ChallengeClosed),
        ChallengeError::Yourself => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
        ChallengeError::RatedNeedsPlayer => (StatusCode::BAD_REQUEST, ErrorCode::RatedNeedsPlayer),
        ChallengeError::Room(error) => return (room_status(&error), error.into()),
        ChallengeError::Social(SocialError::Player(error)) => {
            return (player_status(&error), error.into());
        }
        ChallengeError::Social(refusal) => match refusal {
            SocialError::Blocked => (StatusCode::FORBIDDEN, ErrorCode::Blocked),
            SocialError::TooManyFollows(_) => {
                (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyFollows)
            }
            SocialError::TooManyBlocks(_) => {
                (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyBlocks)
            }
            _ => (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyChallenges),
        },
    };
    (status, WireError::new(code, message))
}

impl From<PushRefusal> for AppError {
    fn from(refusal: PushRefusal) -> Self {
        AppError::Push(refusal)
    }
}

fn push_refused(refusal: PushRefusal) -> (StatusCode, WireError) {
    let (status, code) = match refusal {
        PushRefusal::BadEndpoint | PushRefusal::BadKeys => {
            (StatusCode::BAD_REQUEST, ErrorCode::BadSubscription)
        }
        PushRefusal::TooMany => (
            StatusCode::TOO_MANY_REQUESTS,
            ErrorCode::TooManySubscriptions,
        ),
    };
    (status, WireError::new(code, refusal.to_string()))
}

impl From<TournamentRefusal> for AppError {
    fn from(refusal: TournamentRefusal) -> Self {
        AppError::TournamentRefused(refusal)
    }
}

impl From<TournamentError> for AppError {
    fn from(error: TournamentError) -> Self {
        AppError::Tournament(error)
    }
}

fn tournament_refused(refusal: TournamentRefusal) -> (StatusCode, WireError) {
    let (status, code) = match refusal {
        TournamentRefusal::BadSettings(_) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
        TournamentRefusal::TooManyUpcoming | TournamentRefusal::TooManyOpen => {
            (StatusCode::TOO_MANY_REQUESTS, ErrorCode::TooManyTournaments)
        }
    };
    (status, WireError::new(code, refusal.to_string()))
}

fn tournament_wire(error: TournamentError) -> (StatusCode, WireError) {
    let refusal = match error {
        TournamentError::Unknown(_) => {
            let message = "no tournament has this id";
            let error = WireError::new(ErrorCode::TournamentNotFound, message);
            return (StatusCode::NOT_FOUND, error);
        }
        TournamentError::Refused(refusal) => refusal,
        TournamentError::Store(store) if store.is_unavailable() => {
            let error = WireError::new(ErrorCode::Unavailable, "the database is not answering");
            return (StatusCode::SERVICE_UNAVAILABLE, error);
        }
        // Lost the race for the tournament's next version every time it tried (many players
        // joining at once): a retry later succeeds, as a room's `Busy` says.
        TournamentError::Store(StoreError::VersionConflict(_)) => {
            let message = "the tournament is busy with other changes: try again";
            let error = WireError::new(ErrorCode::Unavailable, message);
            return (StatusCode::SERVICE_UNAVAILABLE, error);
        }
        other => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                WireError::internal(&other),
            );
        }
    };
    let (status, code) = match &refusal {
        TournamentDecision::Full => (StatusCode::CONFLICT, ErrorCode::TournamentFull),
        TournamentDecision::RatingOutOfLimits { .. } => {
            (StatusCode::FORBIDDEN, ErrorCode::TournamentClosed)
        }
        TournamentDecision::NotArena => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
        TournamentDecision::NotOpen
        | TournamentDecision::AlreadyRegistered
        | TournamentDecision::NotRegistered => (StatusCode::CONFLICT, ErrorCode::TournamentClosed),
        TournamentDecision::NothingToPair | TournamentDecision::Pairing(_) => {
            return (
                StatusCode::INTERNAL_SERVER_ERROR,
                WireError::internal(&refusal),
            );
        }
    };
    (status, WireError::new(code, refusal.to_string()))
}

impl From<PuzzleRefusal> for AppError {
    fn from(refusal: PuzzleRefusal) -> Self {
        AppError::Puzzle(refusal)
    }
}

fn puzzle_wire(refusal: PuzzleRefusal) -> (StatusCode, WireError) {
    let (status, code) = match &refusal {
        PuzzleRefusal::NotFound(_) | PuzzleRefusal::NotAMistake(_) => {
            (StatusCode::NOT_FOUND, ErrorCode::PuzzleNotFound)
        }
        PuzzleRefusal::UnknownTheme(..) => (StatusCode::BAD_REQUEST, ErrorCode::BadRequest),
        PuzzleRefusal::NotAsked => (StatusCode::CONFLICT, ErrorCode::PuzzleNotAsked),
        PuzzleRefusal::Illegal(_) => (StatusCode::BAD_REQUEST, ErrorCode::IllegalMove),
    };
    let reason = match &refusal {
        PuzzleRefusal::Illegal(illegal) => Some(illegal.code()),
        _ => None,
    };
    let mut error = WireError::new(code, refusal.to_string());
    error.reason = reason;
    (status, error)
}

impl From<RoomError> for AppError {
    fn from(error: RoomError) -> Self {
        AppError::Room(error)
    }
}

impl From<LobbyError> for AppError {
    fn from(error: LobbyError) -> Self {
        AppError::Lobby(error)
    }
}

impl From<PlayerError> for AppError {
    fn from(error: PlayerError) -> Self {
        AppError::Player(error)
    }
}

fn player_status(error: &PlayerError) -> StatusCode {
    match error {
        PlayerError::UnknownPlayer | PlayerError::NotFound => StatusCode::NOT_FOUND,
        PlayerError::NameTaken => StatusCode::CONFLICT,
        PlayerError::RenameTooSoon => StatusCode::TOO_MANY_REQUESTS,
        PlayerError::BadCode | PlayerError::ExpiredCode => StatusCode::BAD_REQUEST,
        PlayerError::Corrupt(_) | PlayerError::Database(_) | PlayerError::Schema(_) => {
            StatusCode::INTERNAL_SERVER_ERROR
        }
    }
}

fn seat_status(refusal: SeatRefusal) -> StatusCode {
    match refusal {
        SeatRefusal::RatedNeedsPlayer | SeatRefusal::SamePlayer => StatusCode::BAD_REQUEST,
        SeatRefusal::SeatOfAnotherPlayer => StatusCode::FORBIDDEN,
    }
}

fn lobby_status(error: &LobbyError) -> StatusCode {
    match error {
        LobbyError::SeekTaken => StatusCode::CONFLICT,
        LobbyError::TooManySeeks => StatusCode::TOO_MANY_REQUESTS,
        LobbyError::SeekOpen => StatusCode::CONFLICT,
        LobbyError::NotYours => StatusCode::FORBIDDEN,
        LobbyError::BadVisitor | LobbyError::BadRange => StatusCode::BAD_REQUEST,
        LobbyError::Room(error) => room_status(error),
        LobbyError::Store(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

fn room_status(error: &RoomError) -> StatusCode {
    match error {
        RoomError::NotFound | RoomError::NotFinished => StatusCode::NOT_FOUND,
        RoomError::Refused(Refusal::SeatTaken(_) | Refusal::RoomFull) => StatusCode::CONFLICT,
        RoomError::Refused(_) | RoomError::BadToken | RoomError::NotAttached => {
            StatusCode::BAD_REQUEST
        }
        RoomError::Busy | RoomError::Unavailable | RoomError::ReplayTooSlow(_) => {
            StatusCode::SERVICE_UNAVAILABLE
        }
        RoomError::Store(store) if store.is_unavailable() => StatusCode::SERVICE_UNAVAILABLE,
        RoomError::Stale(_)
        | RoomError::Store(_)
        | RoomError::Corrupt(_)
        | RoomError::Analysis(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl AppError {
    /// The HTTP status and the error as a client is told it (a socket's reply takes the
    /// latter alone).
    pub fn wire(self) -> (StatusCode, WireError) {
        match self {
            AppError::BadRequest(message) => (
                StatusCode::BAD_REQUEST,
                WireError::new(ErrorCode::BadRequest, message),
            ),
            AppError::Room(error) => (room_status(&error), error.into()),
            AppError::Lobby(error) => (lobby_status(&error), error.into()),
            AppError::Player(error) => (player_status(&error), error.into()),
            AppError::Name(error) => (StatusCode::BAD_REQUEST, error.into()),
            AppError::Seat(refusal) => (seat_status(refusal), refusal.into()),
            AppError::OriginNotAllowed => (
                StatusCode::FORBIDDEN,
                WireError::new(
                    ErrorCode::OriginNotAllowed,
                    "WebSockets from this page's origin are not allowed",
                ),
            ),
            AppError::TooManyConnections(message) => (
                StatusCode::TOO_MANY_REQUESTS,
                WireError::new(ErrorCode::TooManyConnections, message),
            ),
            AppError::RateLimited(wait) => (StatusCode::TOO_MANY_REQUESTS, rate_limited(wait)),
            AppError::Puzzle(refusal) => puzzle_wire(refusal),
            AppError::TournamentRefused(refusal) => tournament_refused(refusal),
            AppError::Tournament(error) => tournament_wire(error),
            AppError::Class(error) => class_wire(error),
            AppError::Challenge(error) => challenge_wire(error),
            AppError::Push(refusal) => push_refused(refusal),
        }
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        let retry_after = match &self {
            AppError::RateLimited(wait) => Some(retry_after_seconds(*wait)),
            _ => None,
        };
        let (status, error) = self.wire();
        crate::telemetry::error_answered(error.code);
        let body = HttpError {
            error: wire_name(&error.code),
            message: error.message,
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(seconds) = retry_after {
            response.headers_mut().insert(RETRY_AFTER, seconds.into());
        }
        response
    }
}

/// A spent quota, in words: over HTTP (429) and for a `rematch` over a room's socket.
pub(super) fn rate_limited(wait: Duration) -> WireError {
    WireError::new(
        ErrorCode::RateLimited,
        format!(
            "too many requests from this address: try again in {} s",
            retry_after_seconds(wait)
        ),
    )
}

/// Whole seconds to wait, rounded up: `Retry-After` has no fractions.
fn retry_after_seconds(wait: Duration) -> u64 {
    wait.as_secs() + u64::from(wait.subsec_nanos() > 0)
}

/// A JSON body, or a 400 with the parser's complaint in our error format.
pub(super) fn body<T: DeserializeOwned>(
    body: Result<Json<T>, JsonRejection>,
) -> Result<T, AppError> {
    body.map(|Json(value)| value)
        .map_err(|rejection| AppError::BadRequest(rejection.body_text()))
}
