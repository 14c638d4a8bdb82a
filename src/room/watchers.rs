//! Spectators over every instance. A room task counts the spectator sockets it holds; with
//! several instances on one PostgreSQL, each instance also tells the others its counts and keeps
//! theirs, so that a room's `spectators` (its state, the `watchers` frame, its summary and the
//! lobby's games) counts the spectators of every live instance.
//!
//! - Coalesced: a task only notes its new count here ([`Watchers::set_here`]); every
//!   [`ANNOUNCE_EVERY`] the rooms whose count changed go out together, each with its count of
//!   the moment, as notifications on the store's channel. Sockets that come and go within one
//!   interval cost nothing, and an action's path never waits for any of it.
//! - A count is the announcing instance's while it lives: every `presence_check` this instance
//!   asks whether each instance it holds counts of still holds its key in its presence session
//!   (`store::presence`), and drops a dead one's counts. An instance killed stops counting within
//!   that interval.
//! - Announcements are hints, like all news: when some may have been missed (`Resync`: the
//!   listener reconnected, at start too, or fell behind) this instance forgets the others' counts
//!   and asks every instance to announce all of its again. It asks too when it drops an
//!   instance's counts, in case only that instance's session died and it lives on.
//! - Bounded: at most [`MAX_HEARD`] (room, instance) counts are kept; more are not counted.
//!
//! With one instance (SQLite) the store has no instance name, nothing is noted or announced, and
//! a room's spectators are its task's sockets.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::MissedTickBehavior;
use tokio_util::sync::CancellationToken;

use super::Rooms;
use crate::store::InstanceId;

/// How often the counts that changed are announced: another instance shows a spectator who came
/// or went within this (plus the notification's way).
pub const ANNOUNCE_EVERY: Duration = Duration::from_millis(500);

/// (room, instance) counts kept of other instances: each costs about 100 bytes, so these take
/// some 10 MB at most. Every count is of spectator sockets another instance admitted under its
/// connection caps, so only a very large cluster comes near.
pub const MAX_HEARD: usize = 100_000;

/// This instance's spectator counts and the others', shared by the registry and every room task.
#[derive(Clone)]
pub struct Watchers {
    /// This instance's name in its announcements; `None`: there is no other instance.
    me: Option<InstanceId>,
    counts: Arc<Mutex<Counts>>,
}

#[derive(Default)]
struct Counts {
    /// This instance's spectators, by room (rooms with none left out).
    here: HashMap<String, u32>,
    /// Rooms whose count here changed since it was last announced.
    unsent: HashSet<String>,
    /// The other instances' spectators, by room and instance (none left out).
    elsewhere: HashMap<String, HashMap<InstanceId, u32>>,
    /// How many counts `elsewhere` holds, for [`MAX_HEARD`].
    heard: usize,
}

impl Watchers {
    pub fn new(me: Option<InstanceId>) -> Watchers {
        Watchers {
            me,
            counts: Arc::default(),
        }
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Notes how many spectators `room` has here now, to be announced.
    pub fn set_here(&self, room: &str, count: usize) {
        if self.me.is_none() {
            return;
        }
        let count = u32::try_from(count).unwrap_or(u32::MAX);
        let mut counts = self.counts();
        let before = match count {
            0 => counts.here.remove(room),
            _ => counts.here.insert(room.to_string(), count),
        };
        if before.unwrap_or(0) != count {
            counts.unsent.insert(room.to_string());
        }
    }

    /// The spectators of `room` on the other live instances.
    pub fn elsewhere(&self, room: &str) -> usize {
        let counts = self.counts();
        let sum: u32 = counts
            .elsewhere
            .get(room)
            .map_or(0, |by_instance| by_instance.values().sum());
        sum as usize
    }

    /// Keeps what `instance` announced; returns the rooms whose count elsewhere changed.
    fn heard(&self, instance: InstanceId, announced: Vec<(String, u32)>) -> Vec<String> {
        if self.me.is_none_or(|me| me == instance) {
            return Vec::new();
        }
        let mut counts = self.counts();
        let mut changed = Vec::new();
        for (room, count) in announced {
            if counts.set_elsewhere(&room, instance, count) {
                changed.push(room);
            }
        }
        changed
    }

    /// The instances whose counts are kept.
    fn instances(&self) -> Vec<InstanceId> {
        let counts = self.counts();
        let all: HashSet<InstanceId> = counts
            .elsewhere
            .values()
            .flat_map(|by_instance| by_instance.keys().copied())
            .collect();
        all.into_iter().collect()
    }

    /// Drops the counts of `instance` (all instances: `None`); returns the rooms they were of.
    fn forget(&self, instance: Option<InstanceId>) -> Vec<String> {
        let mut counts = self.counts();
        let mut changed = Vec::new();
        let mut dropped = 0;
        counts.elsewhere.retain(|room, by_instance| {
            let before = by_instance.len();
            by_instance.retain(|id, _| instance.is_some_and(|gone| gone != *id));
            if by_instance.len() != before {
                dropped += before - by_instance.len();
                changed.push(room.clone());
            }
            !by_instance.is_empty()
        });
        counts.heard -= dropped;
        changed
    }

    /// The counts that changed since the last call, with their rooms.
    fn take_unsent(&self) -> Vec<(String, u32)> {
        let mut counts = self.counts();
        let unsent = std::mem::take(&mut counts.unsent);
        unsent
            .into_iter()
            .map(|room| {
                let count = counts.here.get(&room).copied().unwrap_or(0);
                (room, count)
            })
            .collect()
    }

    /// Has every count here announced again at the next turn.
    fn announce_all(&self) {
        let mut counts = self.counts();
        let rooms: Vec<String> = counts.here.keys().cloned().collect();
        counts.unsent.extend(rooms);
    }
}

impl Counts {
    /// Sets `instance`'s count in `room`; whether it changed.
    fn set_elsewhere(&mut self, room: &str, instance: InstanceId, count: u32) -> bool {
        let known = self
            .elsewhere
            .get(room)
            .and_then(|by_instance| by_instance.get(&instance))
            .copied();
        match (known, count) {
            (None, 0) => false,
            (Some(known), _) if known == count => false,
            (Some(_), 0) => {
                let by_instance = self.elsewhere.get_mut(room).expect("known above");
                by_instance.remove(&instance);
                if by_instance.is_empty() {
                    self.elsewhere.remove(room);
                }
                self.heard -= 1;
                true
            }
            (Some(_), _) => {
                let by_instance = self.elsewhere.get_mut(room).expect("known above");
                by_instance.insert(instance, count);
                true
            }
            (None, _) if self.heard >= MAX_HEARD => false,
            (None, _) => {
                let by_instance = self.elsewhere.entry(room.to_string()).or_default();
                by_instance.insert(instance, count);
                self.heard += 1;
                true
            }
        }
    }
}

impl Rooms {
    /// Keeps what another instance announced, and tells the rooms held here whose count changed.
    pub(super) fn heard_spectators(&self, instance: InstanceId, counts: Vec<(String, u32)>) {
        let changed = self.inner.watchers.heard(instance, counts);
        self.watchers_changed(&changed);
    }

    /// Another instance asks for every count: they go out at the next announcement.
    pub(super) fn asked_for_spectators(&self, instance: InstanceId) {
        if self.inner.watchers.me != Some(instance) {
            self.inner.watchers.announce_all();
        }
    }

    /// After news may have been missed: forgets the other instances' counts (telling the rooms
    /// held here) and asks them all for theirs again.
    pub(super) async fn resync_spectators(&self) {
        let changed = self.inner.watchers.forget(None);
        self.watchers_changed(&changed);
        self.ask_for_spectators().await;
    }

    async fn ask_for_spectators(&self) {
        let Some(cluster) = &self.inner.store.cluster else {
            return;
        };
        if let Err(error) = cluster.ask_for_spectators().await {
            tracing::warn!(%error, "could not ask other instances for their spectators");
        }
    }

    /// Announces this instance's counts as they change, and drops dead instances' counts, until
    /// `shutdown`. Does nothing with one instance.
    pub(super) fn share_spectators(&self, shutdown: CancellationToken) {
        if self.inner.watchers.me.is_none() {
            return;
        }
        let rooms = self.clone();
        let mut announce = tokio::time::interval(ANNOUNCE_EVERY);
        let mut check = tokio::time::interval(self.inner.config.presence_check);
        for ticks in [&mut announce, &mut check] {
            ticks.set_missed_tick_behavior(MissedTickBehavior::Delay);
        }
        tokio::spawn(async move {
            loop {
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    _ = announce.tick() => rooms.announce_spectators().await,
                    _ = check.tick() => rooms.forget_dead_instances().await,
                }
            }
        });
    }

    async fn announce_spectators(&self) {
        let Some(cluster) = &self.inner.store.cluster else {
            return;
        };
        let watchers = &self.inner.watchers;
        let counts = watchers.take_unsent();
        if counts.is_empty() {
            return;
        }
        if let Err(error) = cluster.announce_spectators(&counts).await {
            tracing::warn!(%error, "could not announce spectators; trying again");
            let rooms = counts.into_iter().map(|(room, _)| room);
            watchers.counts().unsent.extend(rooms);
        }
    }

    async fn forget_dead_instances(&self) {
        let Some(cluster) = &self.inner.store.cluster else {
            return;
        };
        let watchers = &self.inner.watchers;
        for instance in watchers.instances() {
            match cluster.instance_alive(instance).await {
                Ok(true) => {}
                Ok(false) => {
                    tracing::info!(
                        instance,
                        "an instance is gone: its spectators no longer count"
                    );
                    let changed = watchers.forget(Some(instance));
                    self.watchers_changed(&changed);
                    self.ask_for_spectators().await;
                }
                Err(error) => tracing::warn!(%error, "could not ask whether an instance lives"),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_add_up_over_instances_and_go_with_their_instance() {
        let watchers = Watchers::new(Some(1));
        watchers.heard(2, vec![("a".into(), 3), ("b".into(), 1)]);
        watchers.heard(3, vec![("a".into(), 2)]);
        // One's own announcements coming back are not counted twice.
        assert!(watchers.heard(1, vec![("a".into(), 5)]).is_empty());
        assert_eq!(watchers.elsewhere("a"), 5);
        assert_eq!(watchers.heard(2, vec![("a".into(), 0)]), ["a"]);
        assert_eq!(watchers.elsewhere("a"), 2);
        let mut changed = watchers.forget(Some(3));
        changed.sort();
        assert_eq!(changed, ["a"]);
        assert_eq!((watchers.elsewhere("a"), watchers.elsewhere("b")), (0, 1));
        assert_eq!(watchers.forget(None), ["b"]);
        assert_eq!(watchers.counts().heard, 0);
    }

    #[test]
    fn a_count_is_announced_once_with_its_last_value() {
        let watchers = Watchers::new(Some(1));
        for count in [1, 2, 1] {
            watchers.set_here("a", count);
        }
        assert_eq!(watchers.take_unsent(), [("a".to_string(), 1)]);
        assert!(watchers.take_unsent().is_empty());
        watchers.set_here("a", 0);
        assert_eq!(watchers.take_unsent(), [("a".to_string(), 0)]);
        // With no other instance nothing is noted.
        let alone = Watchers::new(None);
        alone.set_here("a", 1);
        assert!(alone.take_unsent().is_empty());
    }

    #[test]
    fn counts_heard_are_bounded() {
        let watchers = Watchers::new(Some(1));
        let many: Vec<(String, u32)> = (0..=MAX_HEARD).map(|n| (n.to_string(), 1)).collect();
        assert_eq!(watchers.heard(2, many).len(), MAX_HEARD);
        assert_eq!(watchers.elsewhere(&MAX_HEARD.to_string()), 0);
    }
}
