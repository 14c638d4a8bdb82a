//! Challenges by name or by link, blocks and follows on the wire (issue 46; docs/PROTOCOL.md
//! "Challenges" and "Follows").

use serde::{Deserialize, Serialize};
use strum::{EnumIter, EnumString, IntoStaticStr};

use super::players::PlayerRef;
use super::{Seat, SideChoice, TimeControl, UnixMs};

/// The short messages a challenge may carry, by id; each page words them in its language.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter, IntoStaticStr, EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ChallengeMessage {
    Hello,
    Rematch,
    Practice,
    Friendly,
}

/// Why a challenge was declined, from a list (so a decline carries no free text).
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter, IntoStaticStr, EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum DeclineReason {
    /// No reason given.
    Generic,
    Later,
    TooFast,
    TooSlow,
    RatedOnly,
    CasualOnly,
}

/// Where a challenge stands.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, EnumIter, IntoStaticStr, EnumString,
)]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum ChallengeStatus {
    Pending,
    Accepted,
    Declined,
    Cancelled,
    Expired,
}

/// `POST /api/challenges`: a named player (`name`), or without one a link challenge that
/// whoever opens its link may accept.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PostChallenge {
    #[serde(default)]
    pub name: Option<String>,
    /// Live or correspondence; a challenge is always timed.
    pub clock: TimeControl,
    /// The challenger's side.
    #[serde(default)]
    pub side: SideChoice,
    #[serde(default)]
    pub rated: bool,
    #[serde(default)]
    pub message: Option<ChallengeMessage>,
}

/// `POST /api/challenges/{id}/decline`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeclineChallenge {
    #[serde(default = "generic")]
    pub reason: DeclineReason,
}

fn generic() -> DeclineReason {
    DeclineReason::Generic
}

/// A challenge as its challenger, the challenged player or a link's holder sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenge {
    pub id: String,
    pub challenger: PlayerRef,
    /// `null` for a link challenge.
    pub challenged: Option<PlayerRef>,
    pub clock: TimeControl,
    /// The challenger's side.
    pub side: SideChoice,
    pub rated: bool,
    pub message: Option<ChallengeMessage>,
    pub status: ChallengeStatus,
    /// A decline's reason.
    pub reason: Option<DeclineReason>,
    pub expires_at: UnixMs,
    /// The page that accepts a link challenge (`/c/{id}`); `null` for a named one.
    pub link: Option<String>,
    /// Once accepted: the game's room and page.
    pub room: Option<String>,
    pub url: Option<String>,
    /// Once accepted, to the challenger only: their seat and its token.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seat: Option<Seat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// `GET /api/challenges`: the asker's pending challenges, sent and received.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Challenges {
    pub sent: Vec<Challenge>,
    pub received: Vec<Challenge>,
}

/// `PUT /api/me/follows/{id}`, `PUT /api/me/blocks/{id}` answer the list's length and bound.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ListCount {
    pub count: usize,
    pub max: u32,
}

/// One followed player as the asker's list shows them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Followed {
    pub player: PlayerRef,
    /// A page of theirs holds a socket on this server now.
    pub online: bool,
    /// The room of a game they play now, to watch.
    pub playing: Option<String>,
    /// Their last finished games, newest first: `"win"`, `"loss"` or `"draw"`, and the room.
    pub recent: Vec<RecentResult>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecentResult {
    pub room: String,
    pub result: String,
    pub opponent: Option<String>,
}

/// `GET /api/me/follows`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Follows {
    pub follows: Vec<Followed>,
    pub max: u32,
}

/// `GET /api/me/blocks`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Blocks {
    pub blocks: Vec<PlayerRef>,
    pub max: u32,
}
