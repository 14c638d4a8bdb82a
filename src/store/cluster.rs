//! What only several instances sharing one database need: which instance holds whose
//! connection and whose clock, and how many spectators each one holds. A backend of one
//! instance (SQLite) has no cluster: [`super::Store::cluster`] is `None`, and each caller says in
//! one place what a single server does instead (nobody is elsewhere, no clock is kept
//! elsewhere, there is nobody to tell).

use async_trait::async_trait;

use super::StoreError;
use crate::engine::Side;

/// Names one instance among those sharing a database (see [`super::Store::instance`]).
pub type InstanceId = u64;

/// Presence, clocks and spectator counts across instances (PostgreSQL).
#[async_trait]
pub trait Cluster: Send + Sync + 'static {
    /// Records that this instance now holds (`true`) or no longer holds a connection of `side`
    /// in `room`, so that [`Cluster::held_elsewhere`] answers other instances truthfully — also
    /// after this instance dies. Recording the same again makes sure the record still stands.
    async fn hold_presence(&self, room: &str, side: Side, held: bool) -> Result<(), StoreError>;

    /// Whether a live instance holds a connection of `side` in `room` (asked for sides this
    /// instance holds none of).
    async fn held_elsewhere(&self, room: &str, side: Side) -> Result<bool, StoreError>;

    /// Records that this instance keeps `room`'s clock (its task holds the timed room in memory,
    /// its timer running) until [`Cluster::let_go_of_clock`] or its death, and answers whether
    /// another live instance kept it already: then the clock has run all along and taking the
    /// game up gives no time back. Of two instances asking at once, one hears of the other.
    async fn keep_clock(&self, room: &str) -> Result<bool, StoreError>;

    /// This instance no longer keeps `room`'s clock.
    async fn let_go_of_clock(&self, room: &str) -> Result<(), StoreError>;

    /// This instance's name among them, in what it announces.
    fn instance(&self) -> InstanceId;

    /// Tells the others how many spectators this instance holds in each of these rooms (0: none
    /// any more), heard as [`super::News::Spectators`]. From then until this instance dies,
    /// [`Cluster::instance_alive`] answers for it.
    async fn announce_spectators(&self, counts: &[(String, u32)]) -> Result<(), StoreError>;

    /// Asks every other to announce all its spectators again ([`super::News::SpectatorsAsked`]),
    /// after this one may have missed some.
    async fn ask_for_spectators(&self) -> Result<(), StoreError>;

    /// Whether the instance that announced spectators as `instance` lives.
    async fn instance_alive(&self, instance: InstanceId) -> Result<bool, StoreError>;
}
