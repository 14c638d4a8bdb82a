//! The store's contract, written once as functions over a [`Store`] so that every backend runs
//! the same checks, for every method of the log of rooms ([`senet::store::RoomLog`]) and of the
//! seeks ([`senet::store::SeekList`]): SQLite always, on a temporary file; PostgreSQL on a fresh
//! schema when `SENET_TEST_POSTGRES_URL` is set (otherwise its cases are reported as ignored, see
//! tests/postgres_support). The cluster's methods, PostgreSQL's alone, are checked between
//! instances in tests/cluster.rs.

mod common;
mod postgres_support;

use common::{event, room, seat};
use senet::engine::Side;
use senet::protocol::{Mode, SeekGone, SideChoice, TimeControl, UnixMs};
use senet::store::{
    CreateOnCommit, Pairing, Poster, RoomRow, SeekCaps, SeekRow, Store, StoreError, StoredEvent,
    Sweep, TournamentRow, Window,
};

/// A room reads back exactly as created; unknown ids read as `None`.
async fn rooms_round_trip(store: &Store) {
    let created = room("r1");
    store
        .log
        .create_room(&created, &[event(1, "started")], None)
        .await
        .unwrap();
    assert_eq!(store.log.room("r1").await.unwrap(), Some(created.clone()));
    assert_eq!(store.log.room("nope").await.unwrap(), None);
    let again = store.log.create_room(&created, &[], None).await;
    assert!(matches!(again, Err(StoreError::RoomExists)), "{again:?}");
    assert_eq!(
        store.log.events_after("r1", 0).await.unwrap(),
        vec![event(1, "started")]
    );
}

/// A seat is taken once; the second taker is refused and nothing changes.
async fn seats_are_taken_once(store: &Store) {
    store.log.create_room(&room("r2"), &[], None).await.unwrap();
    let white = seat("white token", "ws");
    assert!(
        store
            .log
            .take_seat("r2", Side::White, &white)
            .await
            .unwrap()
    );
    assert!(
        !store
            .log
            .take_seat("r2", Side::White, &seat("other", "x"))
            .await
            .unwrap()
    );
    assert!(
        !store
            .log
            .take_seat("r2", Side::Black, &seat("other", "x"))
            .await
            .unwrap()
    );
    let row = store.log.room("r2").await.unwrap().unwrap();
    assert_eq!(row.white, Some(white));
    assert_eq!(row.black, room("r2").black);
}

/// Versions are consecutive; appending an existing version is a conflict
/// that writes nothing, even when part of the batch was new.
async fn appends_conflict_on_existing_versions(store: &Store) {
    store.log.create_room(&room("r3"), &[], None).await.unwrap();
    store
        .log
        .append("r3", &[event(1, "a"), event(2, "b")], None)
        .await
        .unwrap();
    let clash = store
        .log
        .append("r3", &[event(2, "x"), event(3, "y")], None)
        .await;
    assert!(
        matches!(clash, Err(StoreError::VersionConflict(2))),
        "{clash:?}"
    );
    store
        .log
        .append("r3", &[event(3, "c")], None)
        .await
        .unwrap();
    let kinds: Vec<_> = store
        .log
        .events_after("r3", 0)
        .await
        .unwrap()
        .into_iter()
        .map(|e| (e.v, e.kind))
        .collect();
    assert_eq!(kinds, [(1, "a".into()), (2, "b".into()), (3, "c".into())]);
    let tail = store.log.events_after("r3", 2).await.unwrap();
    assert_eq!(tail, vec![event(3, "c")]);
}

/// A room made in another room's append (a rematch's) exists exactly when the append does: a
/// version clash makes neither, and so does a room id already taken.
async fn rooms_made_with_an_append_share_its_commit(store: &Store) {
    store.log.create_room(&room("r7"), &[], None).await.unwrap();
    store
        .log
        .append("r7", &[event(1, "a")], None)
        .await
        .unwrap();
    let made = || CreateOnCommit::new(room("r7next"), vec![event(1, "started")], "{}".into());
    let clash = store
        .log
        .append_with("r7", &[event(1, "rematch")], None, Some(made()))
        .await;
    assert!(
        matches!(clash, Err(StoreError::VersionConflict(1))),
        "{clash:?}"
    );
    assert_eq!(store.log.room("r7next").await.unwrap(), None);
    store
        .log
        .append_with("r7", &[event(2, "rematch")], None, Some(made()))
        .await
        .unwrap();
    assert_eq!(
        store.log.room("r7next").await.unwrap(),
        Some(room("r7next"))
    );
    let first = store.log.events_after("r7next", 0).await.unwrap();
    assert_eq!(first, vec![event(1, "started")]);
    assert_eq!(
        store.log.summary("r7next").await.unwrap().as_deref(),
        Some("{}")
    );
    let taken = store
        .log
        .append_with("r7", &[event(3, "rematch")], None, Some(made()))
        .await;
    assert!(taken.is_err(), "{taken:?}");
    assert_eq!(store.log.events_after("r7", 2).await.unwrap(), vec![]);
}

/// Many writers racing for the same next version: exactly one wins each.
async fn racing_appends_never_fork(store: &Store) {
    store.log.create_room(&room("r4"), &[], None).await.unwrap();
    let writers = (0..8).map(|writer| async move {
        let mut won = 0;
        for _ in 0..20 {
            let last = store.log.events_after("r4", 0).await.unwrap().len() as u64;
            let mut e = event(last + 1, "w");
            e.data = format!(r#"{{"writer":{writer}}}"#);
            match store.log.append("r4", &[e], None).await {
                Ok(()) => won += 1,
                Err(StoreError::VersionConflict(_)) => {}
                Err(other) => panic!("{other}"),
            }
        }
        won
    });
    let total: usize = futures_util::future::join_all(writers)
        .await
        .into_iter()
        .sum();
    let log = store.log.events_after("r4", 0).await.unwrap();
    assert_eq!(log.len(), total);
    assert!(log.iter().enumerate().all(|(i, e)| e.v == i as u64 + 1));
}

/// Appends to many rooms at once (SQLite commits them together) all land,
/// and a clash in one of them fails that append alone.
async fn concurrent_appends_fail_alone(store: &Store) {
    let rooms: Vec<String> = (0..40).map(|i| format!("c{i}")).collect();
    for id in &rooms {
        store
            .log
            .create_room(&room(id), &[event(1, "a")], None)
            .await
            .unwrap();
    }
    let appends = rooms.iter().enumerate().map(|(i, id)| async move {
        // Every fifth append reuses version 1, which exists.
        let v = if i % 5 == 0 { 1 } else { 2 };
        (
            v,
            store
                .log
                .append(id, &[event(v, "b"), event(v + 1, "c")], None)
                .await,
        )
    });
    for (v, result) in futures_util::future::join_all(appends).await {
        match (v, result) {
            (1, Err(StoreError::VersionConflict(1))) | (2, Ok(())) => {}
            (v, other) => panic!("append at {v}: {other:?}"),
        }
    }
    for (i, id) in rooms.iter().enumerate() {
        let log = store.log.events_after(id, 0).await.unwrap();
        let expected = if i % 5 == 0 { 1 } else { 3 };
        assert_eq!(log.len(), expected, "room {id}");
    }
}

/// Rooms past the cutoff whose log has no `started` event go, with their
/// events; started rooms and newer ones stay.
async fn unstarted_rooms_are_deleted_and_the_rest_kept(store: &Store) {
    let old = |id: &str| RoomRow {
        created_at: 1_000,
        ..room(id)
    };
    store.log.create_room(&old("u1"), &[], None).await.unwrap();
    store
        .log
        .create_room(&old("u2"), &[event(1, "presence")], None)
        .await
        .unwrap();
    store
        .log
        .create_room(&old("s1"), &[event(1, "started")], None)
        .await
        .unwrap();
    store
        .log
        .create_room(
            &RoomRow {
                created_at: 5_000,
                ..room("new")
            },
            &[],
            None,
        )
        .await
        .unwrap();
    let mut deleted = store
        .log
        .delete_swept(Sweep::Unstarted, 2_000, 10)
        .await
        .unwrap();
    deleted.sort();
    assert_eq!(deleted, ["u1", "u2"]);
    for gone in ["u1", "u2"] {
        assert!(store.log.room(gone).await.unwrap().is_none());
        assert!(store.log.events_after(gone, 0).await.unwrap().is_empty());
    }
    for kept in ["s1", "new"] {
        assert!(store.log.room(kept).await.unwrap().is_some(), "{kept}");
    }
    assert_eq!(
        store
            .log
            .delete_swept(Sweep::Unstarted, 2_000, 10)
            .await
            .unwrap(),
        Vec::<String>::new()
    );
}

/// One-screen and computer rooms whose last event is older than the cutoff go, with their
/// events and analysis; online rooms, newer ones and unstarted ones (the other sweep's) stay.
async fn forgotten_local_games_are_deleted_and_the_rest_kept(store: &Store) {
    let at = |v: u64, at: UnixMs| StoredEvent {
        at,
        ..event(v, "moved")
    };
    let rooms = [
        ("old-local", Mode::Local, 1_000),
        ("old-ai", Mode::Ai, 1_000),
        ("old-online", Mode::Online, 1_000),
        ("new-local", Mode::Local, 5_000),
    ];
    for (id, mode, last) in rooms {
        let row = RoomRow {
            mode,
            created_at: 500,
            ..room(id)
        };
        let events = [at(1, 600), at(2, last)];
        store.log.create_room(&row, &events, None).await.unwrap();
    }
    store.log.save_analysis("old-ai", "{}").await.unwrap();
    let mut deleted = store
        .log
        .delete_swept(Sweep::Forgotten, 2_000, 10)
        .await
        .unwrap();
    deleted.sort();
    assert_eq!(deleted, ["old-ai", "old-local"]);
    for gone in ["old-ai", "old-local"] {
        assert!(store.log.room(gone).await.unwrap().is_none());
        assert!(store.log.events_after(gone, 0).await.unwrap().is_empty());
    }
    assert!(store.log.analysis("old-ai").await.unwrap().is_none());
    for kept in ["old-online", "new-local"] {
        assert!(store.log.room(kept).await.unwrap().is_some(), "{kept}");
    }
    // Touched since the cutoff: kept on the next sweep too.
    let later = [at(3, 2_500)];
    store.log.append("new-local", &later, None).await.unwrap();
    assert!(
        store
            .log
            .delete_swept(Sweep::Forgotten, 4_000, 10)
            .await
            .unwrap()
            .is_empty()
    );
}

/// Timed rooms whose log has `started` and no `game-over`, a page at a time in id order.
async fn timed_rooms_in_play_are_listed_by_pages(store: &Store) {
    let timed = |id: &str| RoomRow {
        clock: Some(TimeControl::fischer(60, 1)),
        ..room(id)
    };
    let started = [event(1, "started"), event(2, "rolled")];
    for id in ["t1", "t3", "t4"] {
        store
            .log
            .create_room(&timed(id), &started, None)
            .await
            .unwrap();
    }
    let over = [event(1, "started"), event(2, "game-over")];
    store
        .log
        .create_room(&timed("t2"), &over, None)
        .await
        .unwrap();
    store
        .log
        .create_room(&timed("t0"), &[], None)
        .await
        .unwrap();
    store
        .log
        .create_room(&room("u1"), &started, None)
        .await
        .unwrap();
    assert_eq!(store.log.timed_in_play("", 2).await.unwrap(), ["t1", "t3"]);
    assert_eq!(store.log.timed_in_play("t3", 2).await.unwrap(), ["t4"]);
    assert!(store.log.timed_in_play("t4", 2).await.unwrap().is_empty());
}

/// A finished game's analysis reads back; the first one saved stays.
async fn analyses_are_kept_once(store: &Store) {
    store.log.create_room(&room("a1"), &[], None).await.unwrap();
    assert_eq!(store.log.analysis("a1").await.unwrap(), None);
    store
        .log
        .save_analysis("a1", r#"{"first":1}"#)
        .await
        .unwrap();
    store
        .log
        .save_analysis("a1", r#"{"second":2}"#)
        .await
        .unwrap();
    assert_eq!(
        store.log.analysis("a1").await.unwrap().as_deref(),
        Some(r#"{"first":1}"#)
    );
}

/// A room's summary is committed with its events: an append's summary replaces the stored one,
/// one that clashes stores nothing, an older one (a late backfill) never replaces a newer, and
/// rooms without one are listed for the backfill.
async fn summaries_are_committed_with_their_events(store: &Store) {
    let log = &store.log;
    log.create_room(&room("s0"), &[], None).await.unwrap();
    log.create_room(&room("s1"), &[event(1, "a")], Some("one"))
        .await
        .unwrap();
    assert_eq!(log.summary("s1").await.unwrap().as_deref(), Some("one"));
    assert_eq!(log.summary("s0").await.unwrap(), None);
    assert_eq!(log.unsummarized("", 10).await.unwrap(), ["s0"]);
    log.append("s1", &[event(2, "b")], Some("two"))
        .await
        .unwrap();
    let clash = log.append("s1", &[event(2, "x")], Some("clash")).await;
    assert!(
        matches!(clash, Err(StoreError::VersionConflict(2))),
        "{clash:?}"
    );
    log.save_summary("s1", 1, "late").await.unwrap();
    log.append("s1", &[event(3, "c")], None).await.unwrap();
    assert_eq!(log.summary("s1").await.unwrap().as_deref(), Some("two"));
    log.save_summary("s0", 0, "zero").await.unwrap();
    assert_eq!(log.summary("s0").await.unwrap().as_deref(), Some("zero"));
    assert!(log.unsummarized("", 10).await.unwrap().is_empty());
    // Rooms of one batch each keep their own.
    let appends = ["s0", "s1"].map(|id| {
        let v = if id == "s0" { 1 } else { 4 };
        async move { log.append(id, &[event(v, "d")], Some(id)).await }
    });
    for appended in futures_util::future::join_all(appends).await {
        appended.unwrap();
    }
    for id in ["s0", "s1"] {
        assert_eq!(log.summary(id).await.unwrap().as_deref(), Some(id));
    }
}

/// An open seek of `visitor` from `owner` on a new unstarted room `id`, posted at `at` and
/// listed until `at + 1000`, untimed.
async fn posted(store: &Store, id: &str, owner: &str, visitor: &str, at: UnixMs) -> SeekRow {
    let mut row = room(id);
    row.created_at = at;
    store.log.create_room(&row, &[], None).await.unwrap();
    let seek = SeekRow {
        room: id.to_string(),
        side: SideChoice::Random,
        clock: None,
        created_at: at,
        expires_at: at + 1000,
        owner: owner.to_string(),
        visitor: visitor.to_string(),
        taken_at: None,
        poster: Poster::default(),
    };
    assert!(store.seeks.post_seek(&seek, NO_CAPS).await.unwrap());
    seek
}

const NO_CAPS: SeekCaps = SeekCaps {
    per_owner: 0,
    total: 0,
};

/// A seek reads back as posted; the open ones are listed newest first; the caps per address and
/// in all refuse one more.
async fn seeks_are_listed_within_their_caps(store: &Store) {
    let first = posted(store, "s1", "10.0.0.1", "ann", 1_000).await;
    let second = posted(store, "s2", "10.0.0.1", "ann", 2_000).await;
    assert_eq!(store.seeks.seek("s1").await.unwrap(), Some(first.clone()));
    assert_eq!(store.seeks.seek("nope").await.unwrap(), None);
    assert_eq!(store.seeks.open_seeks().await.unwrap(), [second, first]);
    let mut third = room("s3");
    third.created_at = 3_000;
    store.log.create_room(&third, &[], None).await.unwrap();
    let seek = |owner: &str| SeekRow {
        room: "s3".into(),
        side: SideChoice::Black,
        clock: Some(TimeControl::fischer(60, 1)),
        created_at: 3_000,
        expires_at: 4_000,
        owner: owner.into(),
        visitor: "bob".into(),
        taken_at: None,
        poster: Poster::default(),
    };
    let per_owner = SeekCaps {
        per_owner: 2,
        total: 0,
    };
    assert!(
        !store
            .seeks
            .post_seek(&seek("10.0.0.1"), per_owner)
            .await
            .unwrap()
    );
    let total = SeekCaps {
        per_owner: 0,
        total: 2,
    };
    assert!(
        !store
            .seeks
            .post_seek(&seek("10.0.0.2"), total)
            .await
            .unwrap()
    );
    assert!(
        store
            .seeks
            .post_seek(&seek("10.0.0.2"), per_owner)
            .await
            .unwrap()
    );
    assert_eq!(
        store.seeks.seek("s3").await.unwrap(),
        Some(seek("10.0.0.2"))
    );
}

/// Of many takers at once, exactly one wins the seek; it then lists as a game (taken, newest
/// first) until it is unlisted, and its room stays.
async fn one_taker_wins_a_seek(store: &Store) {
    posted(store, "t1", "10.0.0.1", "ann", 1_000).await;
    posted(store, "t2", "10.0.0.1", "ann", 2_000).await;
    let takers = (0..8).map(|i| store.seeks.take_seek("t1", 5_000 + i));
    let won: Vec<bool> = futures_util::future::join_all(takers)
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
    assert_eq!(won.iter().filter(|won| **won).count(), 1, "{won:?}");
    assert!(!store.seeks.take_seek("t1", 9_000).await.unwrap());
    assert!(store.seeks.take_seek("t2", 9_000).await.unwrap());
    let open = store.seeks.open_seeks().await.unwrap();
    assert!(open.is_empty(), "{open:?}");
    let taken = store.seeks.taken_seeks(10).await.unwrap();
    let rooms: Vec<&str> = taken.iter().map(|seek| seek.room.as_str()).collect();
    assert_eq!(rooms, ["t2", "t1"]);
    assert_eq!(taken[0].taken_at, Some(9_000));
    assert_eq!(store.seeks.taken_seeks(1).await.unwrap().len(), 1);
    store.seeks.unlist_seek("t1").await.unwrap();
    assert_eq!(store.seeks.seek("t1").await.unwrap(), None);
    assert!(store.log.room("t1").await.unwrap().is_some());
}

/// A withdrawn seek goes with its unstarted room, once; a taken one cannot be withdrawn.
async fn withdrawn_seeks_take_their_room(store: &Store) {
    posted(store, "w1", "10.0.0.1", "ann", 1_000).await;
    posted(store, "w2", "10.0.0.1", "ann", 1_000).await;
    assert!(
        store
            .seeks
            .withdraw_seek("w1", SeekGone::Cancelled)
            .await
            .unwrap()
    );
    assert!(
        !store
            .seeks
            .withdraw_seek("w1", SeekGone::Cancelled)
            .await
            .unwrap()
    );
    assert_eq!(store.seeks.seek("w1").await.unwrap(), None);
    assert_eq!(store.log.room("w1").await.unwrap(), None);
    assert!(store.seeks.take_seek("w2", 2_000).await.unwrap());
    assert!(
        !store
            .seeks
            .withdraw_seek("w2", SeekGone::Withdrawn)
            .await
            .unwrap()
    );
    assert!(store.seeks.seek("w2").await.unwrap().is_some());
}

/// Seeks not renewed in time expire (withdrawn with their rooms); renewed ones stay.
async fn unrenewed_seeks_expire(store: &Store) {
    posted(store, "e1", "10.0.0.1", "ann", 1_000).await;
    posted(store, "e2", "10.0.0.2", "bob", 1_000).await;
    store
        .seeks
        .renew_seeks(&["e2".into()], 10_000)
        .await
        .unwrap();
    assert_eq!(store.seeks.expire_seeks(5_000).await.unwrap(), ["e1"]);
    assert_eq!(store.seeks.seek("e1").await.unwrap(), None);
    assert_eq!(store.log.room("e1").await.unwrap(), None);
    let kept = store.seeks.seek("e2").await.unwrap().unwrap();
    assert_eq!(kept.expires_at, 10_000);
    assert!(store.seeks.expire_seeks(5_000).await.unwrap().is_empty());
}

/// Quick pairing takes the oldest compatible open seek of someone else, and withdraws the
/// asker's own in the same step.
async fn pairing_takes_the_oldest_compatible_seek(store: &Store) {
    posted(store, "p1", "10.0.0.1", "ann", 1_000).await;
    posted(store, "p2", "10.0.0.3", "cid", 2_000).await;
    posted(store, "p3", "10.0.0.2", "bob", 3_000).await;
    let anonymous = Poster::default();
    let ask = |visitor, own, clock| Pairing {
        clock,
        poster: &anonymous,
        window: Window::default(),
        visitor,
        own,
        at: 4_000,
    };
    let timed = Some(TimeControl::fischer(60, 0));
    assert_eq!(
        store
            .seeks
            .pair_seek(&ask("bob", Some("p3"), timed))
            .await
            .unwrap(),
        None
    );
    let paired = store
        .seeks
        .pair_seek(&ask("ann", None, None))
        .await
        .unwrap();
    assert_eq!(paired.as_deref(), Some("p2"), "ann's own p1 is skipped");
    let paired = store
        .seeks
        .pair_seek(&ask("bob", Some("p3"), None))
        .await
        .unwrap();
    assert_eq!(paired.as_deref(), Some("p1"));
    assert_eq!(
        store.seeks.seek("p1").await.unwrap().unwrap().taken_at,
        Some(4_000)
    );
    assert_eq!(
        store.seeks.seek("p3").await.unwrap(),
        None,
        "bob's own seek is withdrawn"
    );
    assert_eq!(
        store
            .seeks
            .pair_seek(&ask("dan", None, None))
            .await
            .unwrap(),
        None
    );
}

/// A rated player's seek, posted at `at` by visitor `id` (player `id`) with its rating.
async fn rated_seek(store: &Store, id: &str, rating: i64, range: Option<[i64; 2]>, at: UnixMs) {
    let mut seek = posted_row(id, at);
    seek.poster = Poster {
        player: Some(id.to_string()),
        rated: true,
        rating: Some(rating),
        range,
    };
    let mut row = room(id);
    row.created_at = at;
    store.log.create_room(&row, &[], None).await.unwrap();
    assert!(store.seeks.post_seek(&seek, NO_CAPS).await.unwrap());
}

fn posted_row(id: &str, at: UnixMs) -> SeekRow {
    SeekRow {
        room: id.to_string(),
        side: SideChoice::Random,
        clock: None,
        created_at: at,
        expires_at: at + 100_000,
        owner: "10.0.0.9".into(),
        visitor: id.to_string(),
        taken_at: None,
        poster: Poster::default(),
    }
}

/// Pairing by strength, with the time given: the nearest rating inside the window first, the
/// window widening with the seek's wait (±100, +50 every 5 s, any after 30 s), a seek's range
/// kept, rated only with rated, never one's own seek by player.
async fn pairing_prefers_the_nearest_rating_in_a_widening_window(store: &Store) {
    rated_seek(store, "far", 1900, None, 0).await;
    rated_seek(store, "near", 1560, None, 1_000).await;
    rated_seek(store, "mid", 1620, None, 500).await;
    rated_seek(store, "picky", 1300, Some([1700, 2000]), 0).await;
    let casual = Poster::default();
    let me = |player: &str, rating| Poster {
        player: Some(player.to_string()),
        rated: true,
        rating: Some(rating),
        range: None,
    };
    let ask = |poster, at| Pairing {
        clock: None,
        poster,
        window: Window::default(),
        visitor: "asker",
        own: None,
        at,
    };
    let pair = |pairing| async move { store.seeks.pair_seek(&pairing).await.unwrap() };
    assert_eq!(
        pair(ask(&casual, 2_000)).await,
        None,
        "casual never takes rated"
    );
    let near = me("near", 1550);
    assert_eq!(
        pair(ask(&near, 2_000)).await.as_deref(),
        Some("mid"),
        "not one's own seek (near); mid is 70 away, picky's range leaves 1550 out"
    );
    let low = me("low", 1480);
    assert_eq!(pair(ask(&low, 2_000)).await.as_deref(), Some("near"));
    let strong = me("strong", 1750);
    // far (1900) is 150 away: out of ±100 at first, inside ±150 once it waited 5 s; picky
    // (1300, range 1700-2000: 450 away, out of ±350 at 29.999 s) only once any rating goes.
    assert_eq!(pair(ask(&strong, 4_999)).await, None);
    assert_eq!(pair(ask(&strong, 5_000)).await.as_deref(), Some("far"));
    assert_eq!(pair(ask(&strong, 29_999)).await, None);
    assert_eq!(pair(ask(&strong, 30_000)).await.as_deref(), Some("picky"));
}

/// A tournament's log: created with its first events, appended in order, a taken version
/// writes nothing, the summary follows each append, and a second tournament of one id is refused.
async fn tournament_logs_append_in_order(store: &Store) {
    let row = TournamentRow {
        id: "t1".into(),
        starts_at: 5_000,
        summary: "{\"v\":1}".into(),
    };
    let log = &store.tournaments;
    log.create_tournament(&row, &[event(1, "created")])
        .await
        .unwrap();
    let again = log.create_tournament(&row, &[]).await;
    assert!(
        matches!(again, Err(StoreError::TournamentExists)),
        "{again:?}"
    );
    log.append_tournament(
        "t1",
        &[event(2, "registered"), event(3, "registered")],
        "{\"v\":3}",
    )
    .await
    .unwrap();
    let taken = log
        .append_tournament("t1", &[event(3, "withdrawn"), event(4, "started")], "x")
        .await;
    assert!(
        matches!(taken, Err(StoreError::VersionConflict(3))),
        "{taken:?}"
    );
    let kinds: Vec<String> = log
        .tournament_events("t1", 1)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.kind)
        .collect();
    assert_eq!(kinds, ["registered", "registered"]);
    let read = log.tournament("t1").await.unwrap().unwrap();
    assert_eq!(
        (read.starts_at, read.summary.as_str()),
        (5_000, "{\"v\":3}")
    );
    assert_eq!(log.tournament("nope").await.unwrap(), None);
    assert!(log.tournament_events("nope", 0).await.unwrap().is_empty());
}

async fn ping_answers(store: &Store) {
    store.log.ping().await.unwrap();
}

/// An unknown kind of database URL is refused with a message naming it.
#[tokio::test]
async fn unknown_database_urls_are_refused() {
    let refused = senet::store::open("mysql://localhost/senet").await;
    let message = refused.err().expect("mysql: is not supported").to_string();
    assert!(message.contains("mysql"), "{message}");
}

/// One `#[tokio::test]` per contract function, each on a fresh store given
/// by `$on_store` (an async fn taking the contract function), carrying the
/// extra test attributes `$attr`.
macro_rules! backend_tests {
    ($backend:ident, $on_store:ident $(, #[$attr:meta])*) => {
        mod $backend {
            #[tokio::test]
            $(#[$attr])*
            async fn rooms_round_trip() {
                super::$on_store(super::rooms_round_trip).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn seats_are_taken_once() {
                super::$on_store(super::seats_are_taken_once).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn appends_conflict_on_existing_versions() {
                super::$on_store(super::appends_conflict_on_existing_versions).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn rooms_made_with_an_append_share_its_commit() {
                super::$on_store(super::rooms_made_with_an_append_share_its_commit).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn racing_appends_never_fork() {
                super::$on_store(super::racing_appends_never_fork).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn concurrent_appends_fail_alone() {
                super::$on_store(super::concurrent_appends_fail_alone).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn unstarted_rooms_are_deleted_and_the_rest_kept() {
                super::$on_store(super::unstarted_rooms_are_deleted_and_the_rest_kept).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn forgotten_local_games_are_deleted_and_the_rest_kept() {
                super::$on_store(super::forgotten_local_games_are_deleted_and_the_rest_kept).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn timed_rooms_in_play_are_listed_by_pages() {
                super::$on_store(super::timed_rooms_in_play_are_listed_by_pages).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn analyses_are_kept_once() {
                super::$on_store(super::analyses_are_kept_once).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn summaries_are_committed_with_their_events() {
                super::$on_store(super::summaries_are_committed_with_their_events).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn seeks_are_listed_within_their_caps() {
                super::$on_store(super::seeks_are_listed_within_their_caps).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn one_taker_wins_a_seek() {
                super::$on_store(super::one_taker_wins_a_seek).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn withdrawn_seeks_take_their_room() {
                super::$on_store(super::withdrawn_seeks_take_their_room).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn unrenewed_seeks_expire() {
                super::$on_store(super::unrenewed_seeks_expire).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn pairing_takes_the_oldest_compatible_seek() {
                super::$on_store(super::pairing_takes_the_oldest_compatible_seek).await
            }

            #[tokio::test]
            $(#[$attr])*
            async fn pairing_prefers_the_nearest_rating_in_a_widening_window() {
                super::$on_store(super::pairing_prefers_the_nearest_rating_in_a_widening_window)
                    .await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn tournament_logs_append_in_order() {
                super::$on_store(super::tournament_logs_append_in_order).await
            }
            #[tokio::test]
            $(#[$attr])*
            async fn ping_answers() {
                super::$on_store(super::ping_answers).await
            }
        }
    };
}

/// Runs `contract` on a new SQLite file in a temporary directory.
async fn on_sqlite(contract: impl AsyncFnOnce(&Store)) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("test.db").display());
    let store = senet::store::open(&url).await.unwrap();
    contract(&store).await;
}

/// SQLite's WAL is checkpointed in the background and started over every
/// second or two, even while appends never stop, so it does not grow with the
/// log; once appends stop, the file is truncated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_wal_restarts_under_steady_appends() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wal.db");
    let store = senet::store::open(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    store.log.create_room(&room("w"), &[], None).await.unwrap();
    let mut v = 0;
    let mut append = async || {
        v += 1;
        let mut e = event(v, "big");
        e.data = format!(r#"{{"pad":"{}"}}"#, "x".repeat(400));
        store.log.append("w", &[e], None).await.unwrap();
    };
    append().await;
    let first = wal_restarts(&path);
    let until = std::time::Instant::now() + std::time::Duration::from_millis(5_500);
    while std::time::Instant::now() < until {
        append().await;
    }
    let restarts = wal_restarts(&path).wrapping_sub(first);
    assert!(restarts >= 2, "the WAL restarted {restarts} times in 5.5 s");
    // The events were copied into the database file itself.
    let copied = std::fs::metadata(&path).unwrap().len();
    assert!(copied > 100_000, "database file of {copied} bytes");
    let log = store.log.events_after("w", 0).await.unwrap();
    assert_eq!(log.len() as u64, v);
    // Once quiet, the WAL file gives its space back.
    let wal = path.with_extension("db-wal");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    while std::fs::metadata(&wal).unwrap().len() > 0 {
        assert!(
            std::time::Instant::now() < deadline,
            "the WAL file was not truncated"
        );
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
}

/// A burst leaves the WAL file at its size only until it is over: it is truncated within a few
/// seconds even while a trickle of writes goes on (small appends, and the lobby's renewal of
/// no seeks, which writes nothing but is a write all the same).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_wal_truncated_after_a_burst_despite_a_trickle() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("burst.db");
    let store = senet::store::open(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    store.log.create_room(&room("b"), &[], None).await.unwrap();
    // The burst: 8 MB of events in a few commits.
    let padded = |v: u64| {
        let mut e = event(v, "big");
        e.data = format!(r#"{{"pad":"{}"}}"#, "x".repeat(8_000));
        e
    };
    let mut v = 0;
    for _ in 0..4 {
        let batch: Vec<_> = (v + 1..=v + 250).map(padded).collect();
        store.log.append("b", &batch, None).await.unwrap();
        v += 250;
    }
    let wal = path.with_extension("db-wal");
    let burst = std::fs::metadata(&wal).unwrap().len();
    assert!(burst > 8_000_000, "the burst left a WAL of {burst} bytes");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(6);
    loop {
        v += 1;
        store
            .log
            .append("b", &[event(v, "small")], None)
            .await
            .unwrap();
        store.seeks.renew_seeks(&[], 0).await.unwrap();
        let size = std::fs::metadata(&wal).unwrap().len();
        if size < 1_000_000 {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the WAL was still {size} bytes 6 s after the burst"
        );
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(
        store.log.events_after("b", 0).await.unwrap().len() as u64,
        v
    );
}

/// Salt-1 in the header of the WAL next to the SQLite file at `path` (bytes
/// 16..20, big-endian): SQLite adds one to it each time it starts the WAL over.
/// (The checkpoint sequence number beside it is counted per connection.)
fn wal_restarts(path: &std::path::Path) -> u32 {
    let wal = std::fs::read(path.with_extension("db-wal")).unwrap();
    u32::from_be_bytes(wal[16..20].try_into().unwrap())
}

/// Runs `contract` on a fresh schema of the test PostgreSQL server, opened
/// through `store::open` like the server does.
async fn on_postgres(contract: impl AsyncFnOnce(&Store)) {
    postgres_support::in_fresh_schema(async |url| {
        let store = senet::store::open(&url).await.unwrap();
        contract(&store).await;
    })
    .await
}

backend_tests!(sqlite, on_sqlite);
backend_tests!(
    postgres,
    on_postgres,
    #[cfg_attr(senet_no_test_postgres, ignore = "skipped: SENET_TEST_POSTGRES_URL not set")]
);
