//! Stable error codes, shared by WebSocket `error` replies and HTTP error bodies.

use serde::{Deserialize, Serialize};
use strum::EnumIter;

/// Stable error codes, shared by WebSocket `error` replies and HTTP bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    BadJson,
    UnknownType,
    BadRequest,
    NotSeated,
    NotYourTurn,
    MustRoll,
    AlreadyRolled,
    IllegalMove,
    GameOver,
    GameNotStarted,
    NoDrawOffer,
    DrawNotAllowed,
    /// A hint asked for in an online game: hints are for practice against the computer or on
    /// one screen.
    HintNotAllowed,
    CannotClaim,
    RematchNotAvailable,
    /// `seed` after the game's first throw: the throws' client seeds are fixed by then.
    ClientSeedLocked,
    /// An action that would take the room's log past its cap: only the game's end is logged.
    RoomLogFull,
    HelloRequired,
    BadToken,
    RoomNotFound,
    RoomFull,
    /// The analysis of a game that has not ended (HTTP 404): it must never help a live player.
    NotFinished,
    /// A WebSocket handshake from a page of another site (HTTP 403).
    OriginNotAllowed,
    /// The server's or this address's cap on open connections is reached (HTTP 429).
    TooManyConnections,
    /// This address's quota on creating or joining rooms is spent (HTTP 429, `Retry-After`).
    RateLimited,
    /// The seek was taken, cancelled or withdrawn before this request (HTTP 409).
    SeekTaken,
    /// This address holds as many open seeks as it may, or the lobby is full (HTTP 429).
    TooManySeeks,
    /// This browser (its visitor id) already has an open seek: one at a time (HTTP 409).
    SeekOpen,
    /// No player goes with this request: no cookie, or it names nobody (unknown or deleted).
    NoPlayer,
    /// A display name that breaks the rules (length, characters, spaces).
    BadName,
    /// A name nobody may take (a side's, the server's, the generated names' prefix).
    NameReserved,
    /// Another player has this name (ignoring case) (HTTP 409).
    NameTaken,
    /// A name may be changed once a week (HTTP 429).
    RenameTooSoon,
    /// A transfer code that is unknown, used or expired: one word for all.
    BadCode,
    /// A push subscription that is not one: an endpoint not https (or too long), keys that are
    /// not a P-256 key and a 16-byte secret (HTTP 400).
    BadSubscription,
    /// The player has as many push subscriptions (devices) as they may: 10 (HTTP 429).
    TooManySubscriptions,
    /// A rated game asked for without an identity (no player cookie).
    RatedNeedsPlayer,
    /// A seat bound to one player acted in by another player's socket.
    SeatOfAnotherPlayer,
    /// A chat preset id that is not on the list (docs/PROTOCOL.md, Chat).
    UnknownPreset,
    /// Free text longer than 140 characters.
    ChatTooLong,
    /// Free text that looks like a seat token or a link carrying one.
    ChatHasToken,
    /// Chat this sender may not send: free text without both players identified and opted in,
    /// chat outside online rooms, a bad mute.
    ChatNotAllowed,
    /// A spectator without an identity (no player cookie) spoke: spectators chat as a player,
    /// so that a mute or a flood limit holds them across reconnects (`POST /api/me` makes one).
    ChatNeedsPlayer,
    /// A message that repeats one of the sender's last two.
    ChatRepeat,
    /// A sixth message within 10 seconds.
    ChatFlood,
    /// The sender is muted by the reader (for the rest of the game).
    ChatMuted,
    /// An operator timed this player out of chat for a while.
    ChatTimedOut,
    /// The room's chat holds as many messages as it may.
    ChatFull,
    /// A puzzle id that is not in the set (HTTP 404).
    PuzzleNotFound,
    /// An answer without a valid ticket for this puzzle from this client: fetch the puzzle
    /// first (HTTP 409).
    PuzzleNotAsked,
    /// No tournament has this id (HTTP 404).
    TournamentNotFound,
    /// The tournament is not open for this: a Swiss after its start, a tournament over, a
    /// player not (or already) in it (HTTP 409).
    TournamentClosed,
    /// The tournament has its 1,000 players (HTTP 409).
    TournamentFull,
    /// A bound on creating tournaments: the creator's upcoming ones, or the server's open ones
    /// (HTTP 429).
    TooManyTournaments,
    /// No open class has this id, or the asker is not its teacher (HTTP 404).
    ClassNotFound,
    /// No open class has this join code (HTTP 404; no hint of what is wrong).
    ClassCodeUnknown,
    /// The class has its 60 pupils (HTTP 409).
    ClassFull,
    /// Another pupil of the class has this name (HTTP 409).
    PupilNameTaken,
    /// The teacher has 10 open classes (HTTP 429).
    TooManyClasses,
    /// The request needs a pupil of an open class (the `senet_pupil` cookie) (HTTP 404).
    NoPupil,
    /// No challenge has this id, or it is not the asker's to see or answer (HTTP 404).
    ChallengeNotFound,
    /// The challenge was accepted, declined, cancelled or expired before this request (HTTP 409).
    ChallengeClosed,
    /// A bound on challenges: pending per player, per address or per challenged player, or sent
    /// per hour (HTTP 429; the message says which).
    TooManyChallenges,
    /// One of the two players blocked the other: no challenge between them (HTTP 403).
    Blocked,
    /// The asker follows as many players as they may (500) (HTTP 429).
    TooManyFollows,
    /// The asker blocks as many players as they may (HTTP 429).
    TooManyBlocks,
    /// The database is not answering (or just failed to): nothing is known of the request's
    /// outcome; send it again, with the same `id` (HTTP 503).
    Unavailable,
    Internal,
}
