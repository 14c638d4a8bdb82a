//! The room layer's errors, in the room's own words. The wire's codes (`ErrorCode`) are chosen
//! once, at the edge that speaks to a client (`server::error`), so nothing here knows whether
//! a refusal becomes a WebSocket `error` reply or an HTTP status.

use crate::analysis::AnalysisError;
use crate::engine::{IllegalMove, Side};
use crate::protocol::Version;
use crate::store::StoreError;

/// Why the game refuses an action or a seat, judged by [`super::Game`]. Told to the actor only;
/// nothing is logged or broadcast.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("spectators cannot act")]
    NotSeated,
    #[error("it is {0}'s turn")]
    NotYourTurn(Side),
    #[error("throw the sticks before moving")]
    MustRoll,
    #[error("you already threw a {0}: move a piece")]
    AlreadyRolled(u8),
    /// The engine's reason, whose stable code goes to the client too.
    #[error("{0}")]
    Illegal(IllegalMove),
    #[error("the game is over")]
    GameOver,
    #[error("the game starts when both seats are taken")]
    NotStarted,
    #[error("{0} has run out of time")]
    OutOfTime(Side),
    #[error("draw offers need two players: there is no one to offer a draw to here")]
    DrawNotAllowed,
    #[error("you have already offered a draw")]
    DrawAlreadyOffered,
    #[error("your opponent has offered a draw: accept or decline it")]
    DrawOfferPending,
    #[error(
        "you have offered a draw in this turn: you may offer again once your opponent has moved"
    )]
    DrawOfferSpent,
    #[error("your opponent has not offered a draw")]
    NoDrawToAccept,
    #[error("there is no draw offer")]
    NoDrawToDecline,
    #[error("hints are for practice: only against the computer or on one screen, never online")]
    HintNotAllowed,
    #[error("only online games can be abandoned")]
    ClaimNotOnline,
    #[error("your opponent may still come back: wait {0} ms")]
    ClaimTooEarly(i64),
    #[error("it is not your opponent's turn")]
    ClaimNoCountdown,
    #[error("a rematch is possible once the game is over")]
    RematchBeforeTheEnd,
    #[error("the rematch is already open in room {0}")]
    RematchOpen(String),
    #[error("you already asked for a rematch")]
    RematchAlreadyAsked,
    #[error("client seeds are locked once the game's first throw is made")]
    ClientSeedLocked,
    #[error("each side may set its client seed at most {0} times")]
    ClientSeedsSpent(u8),
    /// The room's log holds as many events as it may (see `room::bounds`).
    #[error(
        "this room's log is full ({0} events): only resigning, a draw or a claim can end the game"
    )]
    RoomLogFull(u64),
    #[error("the {0} seat is taken")]
    SeatTaken(Side),
    #[error("both seats are taken")]
    RoomFull,
    /// A time control out of range, or one for a room that cannot have it.
    #[error("{0}")]
    BadClock(String),
    #[error("chat is for the players and spectators of online rooms")]
    ChatNotOnline,
    #[error("chat settings and mutes are the players'")]
    ChatPlayersOnly,
    #[error("an operator ended this game: its chat is closed (a report is still taken)")]
    ChatClosed,
    #[error("free text is for identified players (and spectators): create a player first")]
    FreeTextNeedsPlayers,
    #[error("spectators chat with an identity: create a player first (POST /api/me)")]
    SpectatorNeedsPlayer,
    #[error("free text needs both players to turn it on for this game: send a preset instead")]
    FreeTextOff,
    #[error("you cannot mute {0:?}: only the other side or someone who spoke here")]
    CannotMute(String),
    #[error("that repeats one of your last two messages")]
    ChatRepeat,
    #[error("too many messages or chat settings changes: at most 5 in 10 seconds")]
    ChatFlood,
    #[error("the reader muted you for the rest of this game")]
    ChatMuted,
    /// The room's chat bound (see `room::bounds`).
    #[error("this room's chat is full")]
    ChatFull,
}

impl Refusal {
    /// Whether the refusal comes from where the game is (whose turn, which phase, what was
    /// offered), which another instance may have moved on, rather than from who asked or how.
    pub fn depends_on_the_game(&self) -> bool {
        !matches!(
            self,
            Refusal::NotSeated
                | Refusal::DrawNotAllowed
                | Refusal::HintNotAllowed
                | Refusal::ClaimNotOnline
                | Refusal::BadClock(_)
                | Refusal::ChatNotOnline
                | Refusal::ChatPlayersOnly
                | Refusal::FreeTextNeedsPlayers
                | Refusal::SpectatorNeedsPlayer
        )
    }
}

/// The log does not replay: an event that the state it follows cannot take. Names the event.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("event {v} ({kind}) does not replay: {why}")]
pub struct ReplayError {
    pub v: Version,
    pub kind: &'static str,
    pub why: String,
}

/// Why a request to a room failed.
#[derive(Debug, thiserror::Error)]
pub enum RoomError {
    #[error("no such room")]
    NotFound,
    /// The game refused the action or the seat.
    #[error(transparent)]
    Refused(#[from] Refusal),
    #[error("this token holds no seat in this room; send hello without a token to watch")]
    BadToken,
    /// An action from a connection the room does not know: it never said hello (or left).
    #[error("say hello first")]
    NotAttached,
    /// Other writers took the next version every time the action was judged again.
    #[error("the room is too busy: try again")]
    Busy,
    /// The room moved on from the version an action was chosen for (the computer's, which is
    /// then chosen again).
    #[error("the room moved on to version {0}")]
    Stale(Version),
    /// Replaying the room's log took longer than its bound (`bounds::REPLAY_TIMEOUT`): the
    /// machine is overloaded.
    #[error("reading this room's log took longer than {0:?}: the server is busy, try again")]
    ReplayTooSlow(std::time::Duration),
    /// The room's task ended before answering (idle, or the server is shutting down).
    #[error("the room is restarting")]
    Unavailable,
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Corrupt(#[from] ReplayError),
    /// An analysis was asked for before the game's end: it must never help a live player.
    #[error("the game is not finished; it can be analysed after its end")]
    NotFinished,
    /// The stored log could not be replayed for the analysis.
    #[error(transparent)]
    Analysis(#[from] AnalysisError),
}
