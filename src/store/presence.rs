//! Which players an instance holds connections of, as PostgreSQL advisory
//! locks, so that other instances can tell a player connected elsewhere
//! from one whose instance died.
//!
//! Each instance keeps one session (connection) holding a *shared* advisory
//! lock per (room, side) it has a connection of. PostgreSQL releases a
//! session's locks when the session ends — also when the process is killed
//! or its network goes — so a lock held is an instance alive. To ask whether
//! anyone holds one, any other session tries to take the same key
//! *exclusively* and lets go at once: that fails exactly while a shared
//! holder exists.
//!
//! The same session holds a shared key per timed room whose clock this
//! instance keeps (its task is in memory and its timer runs). An instance
//! that loads a timed game being played asks for that key first: if a live
//! instance keeps the clock, its time has run all along and nothing is to be
//! given back (no `resumed`, see `crate::room::task`).
//!
//! And it holds one key that names the instance itself ([`PresenceLocks::instance`]), from its
//! first announcement of spectators on: other instances count the spectators it announced only
//! while that key is held (see `crate::room::watchers`).

use std::collections::HashSet;

use sha2::{Digest, Sha256};
use sqlx::postgres::PgConnectOptions;
use sqlx::{Connection, PgConnection, PgExecutor, PgPool};
use tokio::sync::Mutex;

use super::InstanceId;
use crate::engine::Side;
use crate::secrets::random_bytes;

/// The `application_name` of presence sessions (unless the URL sets one).
const APPLICATION_NAME: &str = "senet-presence";

/// The advisory lock key of (room, side): 63 bits of the room id's
/// SHA-256 and the side in the lowest bit.
fn key(room: &str, side: Side) -> i64 {
    let digest = Sha256::digest(room.as_bytes());
    let high = i64::from_be_bytes(digest[..8].try_into().expect("8 bytes"));
    (high & !1) | i64::from(side == Side::White)
}

/// The advisory lock key of a room's clock: 64 bits of the SHA-256 of the room id behind a tag,
/// so that it is no room's presence key (but by a 2^-63 chance).
fn clock_key(room: &str) -> i64 {
    let digest = Sha256::digest(format!("clock {room}").as_bytes());
    i64::from_be_bytes(digest[..8].try_into().expect("8 bytes"))
}

/// The advisory lock key of an instance: its random name's 64 bits, so that it is no room's
/// presence or clock key (but by a 2^-63 chance).
fn instance_key(instance: InstanceId) -> i64 {
    i64::from_be_bytes(instance.to_be_bytes())
}

/// This instance's presence session and the keys it holds.
pub(super) struct PresenceLocks {
    /// This instance's name, random, which is also its own key's.
    instance: InstanceId,
    options: PgConnectOptions,
    session: Mutex<Session>,
}

#[derive(Default)]
struct Session {
    /// `None` until first needed, and after a failure (made again then,
    /// taking every held key again).
    connection: Option<PgConnection>,
    held: HashSet<i64>,
}

impl PresenceLocks {
    pub(super) fn new(options: &PgConnectOptions) -> PresenceLocks {
        let mut options = options.clone();
        if options.get_application_name().is_none() {
            options = options.application_name(APPLICATION_NAME);
        }
        PresenceLocks {
            instance: u64::from_be_bytes(random_bytes()),
            options,
            session: Mutex::new(Session::default()),
        }
    }

    /// Takes (`held`) or lets go of the key of (room, side). If nothing
    /// changes, makes sure the session still lives: PostgreSQL lets go of a
    /// dead session's keys, and a new session takes them all again.
    pub(super) async fn set(&self, room: &str, side: Side, held: bool) -> Result<(), sqlx::Error> {
        self.set_key(key(room, side), held).await
    }

    /// Takes this session's hold on `room`'s clock and answers whether another session held it
    /// already. The key is first tried exclusively, which succeeds exactly when no other session
    /// holds it, and held shared before that is let go: of two instances asking at once, one
    /// hears that the other keeps the clock.
    pub(super) async fn keep_clock(&self, room: &str) -> Result<bool, sqlx::Error> {
        let key = clock_key(room);
        let mut guard = self.session.lock().await;
        // A session found dead is made again once, as `set_key` does.
        let mut tries = 2;
        loop {
            if guard.connection.is_none() {
                self.reconnect(&mut guard).await?;
            }
            let session = &mut *guard;
            let take = !session.held.contains(&key);
            let connection = session.connection.as_mut().expect("connected above");
            match take_first(connection, key, take).await {
                Ok(first) => {
                    session.held.insert(key);
                    return Ok(!first);
                }
                Err(error) => {
                    session.connection = None;
                    tries -= 1;
                    if tries == 0 {
                        return Err(error);
                    }
                }
            }
        }
    }

    pub(super) fn instance(&self) -> InstanceId {
        self.instance
    }

    /// Holds this instance's own key (or makes sure the session holding it still lives).
    pub(super) async fn hold_instance(&self) -> Result<(), sqlx::Error> {
        self.set_key(instance_key(self.instance), true).await
    }

    /// Lets go of this session's hold on `room`'s clock.
    pub(super) async fn let_go_of_clock(&self, room: &str) -> Result<(), sqlx::Error> {
        self.set_key(clock_key(room), false).await
    }

    /// Takes (`held`) or lets go of `key` (see [`PresenceLocks::set`]).
    async fn set_key(&self, key: i64, held: bool) -> Result<(), sqlx::Error> {
        let mut session = self.session.lock().await;
        let changed = if held {
            session.held.insert(key)
        } else {
            session.held.remove(&key)
        };
        let result = match session.connection.as_mut() {
            // A new session takes every held key, this one included.
            None => return self.reconnect(&mut session).await,
            Some(connection) if !changed => ping(connection).await,
            Some(connection) if held => lock(connection, key).await,
            Some(connection) => unlock(connection, key).await,
        };
        if result.is_err() {
            session.connection = None;
            return self.reconnect(&mut session).await;
        }
        result
    }

    async fn reconnect(&self, session: &mut Session) -> Result<(), sqlx::Error> {
        let mut connection = PgConnection::connect_with(&self.options).await?;
        // In one statement: an instance holds a key per connected player, tens of thousands,
        // and every attach waits for this session meanwhile.
        let held: Vec<i64> = session.held.iter().copied().collect();
        sqlx::query("SELECT pg_advisory_lock_shared(key) FROM unnest($1::bigint[]) AS key")
            .bind(held)
            .execute(&mut connection)
            .await?;
        session.connection = Some(connection);
        Ok(())
    }

    /// Whether any session holds the key of (room, side).
    pub(super) async fn held_anywhere(
        pool: &PgPool,
        room: &str,
        side: Side,
    ) -> Result<bool, sqlx::Error> {
        held(pool, key(room, side)).await
    }

    /// Whether the instance named `instance` lives: its session holds its key.
    pub(super) async fn instance_alive(
        pool: &PgPool,
        instance: InstanceId,
    ) -> Result<bool, sqlx::Error> {
        held(pool, instance_key(instance)).await
    }
}

/// Whether any other session holds `key`: a session's own holds never conflict with its try. The
/// rooms ask on a pooled connection, which never holds presence keys itself.
async fn held<'c>(executor: impl PgExecutor<'c>, key: i64) -> Result<bool, sqlx::Error> {
    sqlx::query_scalar(
        "SELECT CASE WHEN pg_try_advisory_lock($1) THEN NOT pg_advisory_unlock($1) \
         ELSE true END",
    )
    .bind(key)
    .fetch_one(executor)
    .await
}

/// Tries `key` exclusively, takes it shared (unless `take` is false: the session holds it
/// already), and lets the exclusive try go: whether the try succeeded, i.e. no other session held
/// the key. A session's own locks never conflict with its requests, so taking it shared after
/// the exclusive try does not wait.
///
/// All in one statement, in the order CASE guarantees: the server runs a statement to its end
/// whatever the client does, so the exclusive hold never outlasts it. In separate statements, an
/// instance stopped between them (SIGSTOP, a hung host: its session lives on, idle) held the key
/// exclusively for as long as it was stopped, and another instance's shared lock on it waited as
/// long, and with it that instance's presence session and every attach there
/// (`an_instance_stopped_while_asking_for_a_clock_holds_up_no_other` in tests/cluster.rs).
async fn take_first(
    connection: &mut PgConnection,
    key: i64,
    take: bool,
) -> Result<bool, sqlx::Error> {
    if !take {
        return Ok(!held(connection, key).await?);
    }
    // `pg_advisory_lock_shared` returns void, never NULL: `IS NULL` only sequences it.
    sqlx::query_scalar(
        "SELECT CASE WHEN pg_try_advisory_lock($1) \
         THEN CASE WHEN pg_advisory_lock_shared($1) IS NULL THEN NULL \
                   ELSE pg_advisory_unlock($1) END \
         ELSE pg_advisory_lock_shared($1) IS NULL END",
    )
    .bind(key)
    .fetch_one(connection)
    .await
}

async fn ping(connection: &mut PgConnection) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT 1").execute(connection).await.map(drop)
}

async fn lock(connection: &mut PgConnection, key: i64) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_advisory_lock_shared($1)")
        .bind(key)
        .execute(connection)
        .await
        .map(drop)
}

async fn unlock(connection: &mut PgConnection, key: i64) -> Result<(), sqlx::Error> {
    sqlx::query("SELECT pg_advisory_unlock_shared($1)")
        .bind(key)
        .execute(connection)
        .await
        .map(drop)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_differ_by_side_and_room() {
        let room = "00112233445566778899aabbccddeeff";
        assert_ne!(key(room, Side::Black), key(room, Side::White));
        assert_eq!(key(room, Side::Black) | 1, key(room, Side::White));
        assert_ne!(
            key(room, Side::Black),
            key("ffeeddccbbaa99887766554433221100", Side::Black)
        );
        assert_ne!(clock_key(room) & !1, key(room, Side::Black));
    }
}
