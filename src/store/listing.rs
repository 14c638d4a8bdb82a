//! The lobby's listings: a seek is a room plus a row here, open until one taker wins it, then a
//! game in progress until it ends (see `migrations/*/0015_seeks.sql`). Every backend keeps
//! them; the SQL of both is [`super::seeks`].

use async_trait::async_trait;

use super::StoreError;
use super::seeks::Pairing;
use crate::protocol::{SeekGone, SideChoice, TimeControl, UnixMs};

/// A room listed in the lobby: an open seek until it is taken, then a game in progress until it
/// ends (see `migrations/*/0015_seeks.sql`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeekRow {
    pub room: String,
    /// What the creator asked for, shown to takers.
    pub side: SideChoice,
    /// The room's time control, kept here so the list needs no look at the rooms.
    pub clock: Option<TimeControl>,
    pub created_at: UnixMs,
    /// An open seek not renewed by then is withdrawn (its creator's page is gone).
    pub expires_at: UnixMs,
    /// The client address that posted it, counted by the per-address cap; never sent.
    pub owner: String,
    /// Who posted it, so quick pairing skips one's own; never sent.
    pub visitor: String,
    /// When it was taken; `None` while open.
    pub taken_at: Option<UnixMs>,
    /// Who posted it by identity, and what game they want.
    pub poster: Poster,
}

/// A seek's poster by identity (migration 0290): quick pairing matches on it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Poster {
    /// Their player id; `None` for an anonymous visitor.
    pub player: Option<String>,
    /// A rated game wanted (only with another player's rated seek).
    pub rated: bool,
    /// Their rating when posting, rounded; `None` for an anonymous visitor.
    pub rating: Option<i64>,
    /// The takers' ratings accepted, both ends included; `None`: any.
    pub range: Option<[i64; 2]>,
}

/// How many open seeks may exist (0: no cap).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeekCaps {
    /// Per client address.
    pub per_owner: u32,
    /// In all: each instance keeps every open seek in memory.
    pub total: u32,
}

/// What happened to a seek, as other instances hear it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeekChange {
    Open,
    Gone(SeekGone),
}

/// The seeks, open and taken.
#[async_trait]
pub trait SeekList: Send + Sync + 'static {
    /// Lists a seek, unless a cap is reached (`false`).
    async fn post_seek(&self, seek: &SeekRow, caps: SeekCaps) -> Result<bool, StoreError>;

    /// A listed room's seek, open or taken.
    async fn seek(&self, room: &str) -> Result<Option<SeekRow>, StoreError>;

    /// Every open seek, newest first.
    async fn open_seeks(&self) -> Result<Vec<SeekRow>, StoreError>;

    /// Up to `limit` taken seeks (games started from the lobby), most recently taken first.
    async fn taken_seeks(&self, limit: u32) -> Result<Vec<SeekRow>, StoreError>;

    /// Marks an open seek taken; `false` if it is not open (taken or gone already): of several
    /// takers at once exactly one gets `true`.
    async fn take_seek(&self, room: &str, at: UnixMs) -> Result<bool, StoreError>;

    /// Deletes an open seek with its room, unless someone joined the room by its id and started
    /// its game (then the room stays, unlisted); `false` if the seek is not open.
    async fn withdraw_seek(&self, room: &str, why: SeekGone) -> Result<bool, StoreError>;

    /// Deletes a listed room's row, open or taken (its game ended).
    async fn unlist_seek(&self, room: &str) -> Result<(), StoreError>;

    /// Keeps these open seeks listed until `until`.
    async fn renew_seeks(&self, rooms: &[String], until: UnixMs) -> Result<(), StoreError>;

    /// Withdraws the open seeks not renewed before `now` (as [`Self::withdraw_seek`]); returns
    /// their rooms.
    async fn expire_seeks(&self, now: UnixMs) -> Result<Vec<String>, StoreError>;

    /// Quick pairing: takes the oldest compatible open seek (see [`Pairing`]) and returns its
    /// room, or `None`. Pairings are serialized, so of two askers who both posted a seek, the
    /// later one to ask again finds the other's.
    async fn pair_seek(&self, pairing: &Pairing<'_>) -> Result<Option<String>, StoreError>;
}
