//! The `PlayerStore` contract (identities, names, transfer codes, seats, rated games), written
//! once over `&dyn PlayerStore` and run on SQLite and on PostgreSQL (a fresh schema each; see
//! tests/postgres_support), plus two instances rating one player's two games at once.

mod common;
mod postgres_support;

use common::{ratings_verify, room};
use senet::engine::Side;
use senet::players::identity::{new_player_id, new_secret};
use senet::players::name::{Name, RENAME_INTERVAL_MS};
use senet::players::rating::{self, MAX_RATED_PER_PAIR, Score, Standing};
use senet::players::store::{FinishedGame, PlayerError, PlayerStore, Rated};
use senet::secrets::hash_token;
use senet::store::Store;

const T0: i64 = 1_800_000_000_000;

async fn new_player(players: &dyn PlayerStore) -> (String, String) {
    let id = new_player_id();
    let (secret, hash) = new_secret();
    players
        .create_player(&id, &hash, "127.0.0.1", T0)
        .await
        .unwrap();
    (id, secret)
}

/// A player is found by secret and id; names are unique ignoring case, changed once a week;
/// every refusal leaves the player as they were.
async fn identities_and_names(players: &dyn PlayerStore, _rooms: &Store) {
    let (anna, secret) = new_player(players).await;
    let found = players
        .player_by_secret(&hash_token(&secret))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(found.id, anna);
    assert_eq!((found.name.clone(), found.standing), (None, Standing::NEW));
    assert_eq!(players.player(&anna).await.unwrap(), Some(found));
    assert!(
        players
            .player_by_secret(&hash_token("nope"))
            .await
            .unwrap()
            .is_none()
    );

    let name = Name::parse("Anna Ó").unwrap();
    players.set_name(&anna, &name, T0).await.unwrap();
    assert_eq!(
        players.player_named(&name.key).await.unwrap().unwrap().id,
        anna
    );
    let again = players
        .set_name(&anna, &Name::parse("Anya").unwrap(), T0 + 1)
        .await;
    assert!(
        matches!(again, Err(PlayerError::RenameTooSoon)),
        "{again:?}"
    );

    let (boris, _) = new_player(players).await;
    let taken = players
        .set_name(&boris, &Name::parse("ANNA ó").unwrap(), T0)
        .await;
    assert!(matches!(taken, Err(PlayerError::NameTaken)), "{taken:?}");
    assert_eq!(players.player(&boris).await.unwrap().unwrap().name, None);
    let unknown = players.set_name("0000000000000000", &name, T0).await;
    assert!(
        matches!(unknown, Err(PlayerError::UnknownPlayer)),
        "{unknown:?}"
    );

    let week = T0 + RENAME_INTERVAL_MS;
    players
        .set_name(&anna, &Name::parse("Anya").unwrap(), week)
        .await
        .unwrap();
    assert_eq!(
        players
            .player(&anna)
            .await
            .unwrap()
            .unwrap()
            .name
            .as_deref(),
        Some("Anya")
    );
    // The old name is free again.
    players.set_name(&boris, &name, week).await.unwrap();
}

/// A transfer code moves the identity once, within its time; a bad, used or expired code
/// is refused and moves nothing.
async fn transfer_codes(players: &dyn PlayerStore, _rooms: &Store) {
    let (anna, old_secret) = new_player(players).await;
    let code = hash_token("ABCD2345");
    players
        .issue_transfer_code(&anna, &code, T0 + 600_000)
        .await
        .unwrap();
    let (new_secret, new_hash) = new_secret();
    let bad = players
        .redeem_transfer_code(&hash_token("ZZZZ2345"), &new_hash, T0)
        .await;
    assert!(matches!(bad, Err(PlayerError::BadCode)), "{bad:?}");
    assert_eq!(
        players
            .redeem_transfer_code(&code, &new_hash, T0 + 1)
            .await
            .unwrap(),
        anna
    );
    assert!(
        players
            .player_by_secret(&hash_token(&old_secret))
            .await
            .unwrap()
            .is_none()
    );
    let moved = players
        .player_by_secret(&hash_token(&new_secret))
        .await
        .unwrap();
    assert_eq!(moved.unwrap().id, anna);
    let reused = players
        .redeem_transfer_code(&code, &hash_token("x"), T0 + 2)
        .await;
    assert!(matches!(reused, Err(PlayerError::BadCode)), "{reused:?}");

    players
        .issue_transfer_code(&anna, &code, T0 + 600_000)
        .await
        .unwrap();
    let late = players
        .redeem_transfer_code(&code, &hash_token("y"), T0 + 600_000)
        .await;
    assert!(matches!(late, Err(PlayerError::ExpiredCode)), "{late:?}");
    let still = players
        .player_by_secret(&hash_token(&new_secret))
        .await
        .unwrap();
    assert_eq!(still.unwrap().id, anna);
}

/// Deleting keeps the row (for the games) but drops secret, name and code; a deleted player
/// can do nothing more.
async fn deletion(players: &dyn PlayerStore, _rooms: &Store) {
    let (anna, secret) = new_player(players).await;
    let name = Name::parse("Deleted Soon").unwrap();
    players.set_name(&anna, &name, T0).await.unwrap();
    let code = hash_token("CODE2345");
    players
        .issue_transfer_code(&anna, &code, T0 + 600_000)
        .await
        .unwrap();
    assert!(players.delete_player(&anna, T0 + 5).await.unwrap());
    assert!(!players.delete_player(&anna, T0 + 6).await.unwrap());
    assert!(
        players
            .player_by_secret(&hash_token(&secret))
            .await
            .unwrap()
            .is_none()
    );
    let row = players.player(&anna).await.unwrap().unwrap();
    assert_eq!((row.name, row.deleted_at), (None, Some(T0 + 5)));
    assert!(players.player_named(&name.key).await.unwrap().is_none());
    let redeemed = players
        .redeem_transfer_code(&code, &hash_token("z"), T0 + 7)
        .await;
    assert!(
        matches!(redeemed, Err(PlayerError::BadCode)),
        "{redeemed:?}"
    );
    for refused in [
        players
            .issue_transfer_code(&anna, &code, T0 + 600_000)
            .await,
        players
            .set_name(
                &anna,
                &Name::parse("Back").unwrap(),
                T0 + RENAME_INTERVAL_MS * 2,
            )
            .await,
    ] {
        assert!(
            matches!(refused, Err(PlayerError::UnknownPlayer)),
            "{refused:?}"
        );
    }
}

/// A seat is bound to a player once; the room remembers whether it is rated.
async fn seats_bound_once(players: &dyn PlayerStore, rooms: &Store) {
    rooms
        .log
        .create_room(&room("seats"), &[], None)
        .await
        .unwrap();
    let (anna, _) = new_player(players).await;
    let (boris, _) = new_player(players).await;
    assert_eq!(players.room_players("seats").await.unwrap(), None);
    players.open_room("seats", true).await.unwrap();
    assert!(
        players
            .bind_seat("seats", Side::Black, &anna)
            .await
            .unwrap()
    );
    assert!(
        !players
            .bind_seat("seats", Side::Black, &boris)
            .await
            .unwrap()
    );
    assert!(
        players
            .bind_seat("seats", Side::White, &boris)
            .await
            .unwrap()
    );
    let bound = players.room_players("seats").await.unwrap().unwrap();
    assert!(bound.rated);
    assert_eq!((bound.black, bound.white), (Some(anna), Some(boris)));
}

fn game(room: &str, black: &str, white: &str, score: Score, at: i64) -> FinishedGame {
    FinishedGame {
        room: room.into(),
        black: black.into(),
        white: white.into(),
        score,
        at,
    }
}

/// A rated game changes both players as `rating::rate` says, once; the history lists it;
/// a pair's fourth game within a day is not rated.
async fn rated_games(players: &dyn PlayerStore, _rooms: &Store) {
    let (anna, _) = new_player(players).await;
    let (boris, _) = new_player(players).await;
    let first = game("g1", &anna, &boris, Score::Win, T0);
    let Rated::Changed([a, b]) = players.rate_game(&first).await.unwrap() else {
        panic!("not rated")
    };
    let expected = rating::rate(Standing::NEW, Standing::NEW, Score::Win, T0);
    assert_eq!((a.after, b.after), expected);
    assert_eq!(a.before, rating::START);
    assert_eq!(players.rate_game(&first).await.unwrap(), Rated::Already);
    let stored = players.player(&anna).await.unwrap().unwrap();
    assert_eq!(
        stored.standing,
        Standing {
            rating: a.after,
            rated_at: Some(T0)
        }
    );
    assert_eq!((stored.wins, stored.losses), (1, 0));
    assert_eq!(players.player(&boris).await.unwrap().unwrap().losses, 1);

    for n in 2..=MAX_RATED_PER_PAIR {
        let room = format!("g{n}");
        let rated = players
            .rate_game(&game(&room, &boris, &anna, Score::Draw, T0 + i64::from(n)))
            .await;
        assert!(matches!(rated, Ok(Rated::Changed(_))), "{rated:?}");
    }
    let fourth = game("g4", &anna, &boris, Score::Win, T0 + 10);
    assert_eq!(players.rate_game(&fourth).await.unwrap(), Rated::PairLimit);
    let next_day = game(
        "g5",
        &anna,
        &boris,
        Score::Loss,
        T0 + rating::PAIR_WINDOW_MS + 1,
    );
    assert!(matches!(
        players.rate_game(&next_day).await.unwrap(),
        Rated::Changed(_)
    ));

    let history = players.history(&anna, 10).await.unwrap();
    let rooms: Vec<&str> = history.iter().map(|h| h.room.as_str()).collect();
    assert_eq!(rooms, ["g5", "g3", "g2", "g1"]);
    assert_eq!(history[3].change, a);
    let games = players.rated_games(0, 100).await.unwrap();
    assert_eq!(games.len(), 4);
    assert!(games.windows(2).all(|w| w[0].seq < w[1].seq));
    let changes = players.changes(games[0].seq).await.unwrap();
    assert_eq!(changes.len(), 2);
    assert!(changes.contains(&(anna.clone(), a)) && changes.contains(&(boris.clone(), b)));
    let unknown = players
        .rate_game(&game("g6", &anna, "0000000000000000", Score::Win, T0))
        .await;
    assert!(
        matches!(unknown, Err(PlayerError::UnknownPlayer)),
        "{unknown:?}"
    );
}

macro_rules! backend_tests {
    ($backend:ident, $on:ident $(, #[$attr:meta])?) => {
        mod $backend {
            use super::*;
            $(#[$attr])?
            #[tokio::test]
            async fn identities_and_names() { $on(super::identities_and_names).await }
            $(#[$attr])?
            #[tokio::test]
            async fn transfer_codes() { $on(super::transfer_codes).await }
            $(#[$attr])?
            #[tokio::test]
            async fn deletion() { $on(super::deletion).await }
            $(#[$attr])?
            #[tokio::test]
            async fn seats_bound_once() { $on(super::seats_bound_once).await }
            $(#[$attr])?
            #[tokio::test]
            async fn rated_games() { $on(super::rated_games).await }
        }
    };
}

async fn on_sqlite(contract: impl AsyncFnOnce(&dyn PlayerStore, &Store)) {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("test.db").display());
    let rooms = senet::store::open(&url).await.unwrap();
    let players = senet::players::store::open(&url).await.unwrap();
    contract(players.as_ref(), &rooms).await;
}

async fn on_postgres(contract: impl AsyncFnOnce(&dyn PlayerStore, &Store)) {
    postgres_support::in_fresh_schema(async |url| {
        let rooms = senet::store::open(&url).await.unwrap();
        let players = senet::players::store::open(&url).await.unwrap();
        contract(players.as_ref(), &rooms).await;
    })
    .await
}

backend_tests!(sqlite, on_sqlite);
backend_tests!(
    postgres,
    on_postgres,
    #[cfg_attr(senet_no_test_postgres, ignore = "skipped: SENET_TEST_POSTGRES_URL not set")]
);

/// Two instances (two pools on one database) rate two games of one player at the same moment,
/// many times over: every game is rated, and each player's changes form one chain — each
/// game's rating before is the one the previous game left (no lost update).
#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_instances_rating_one_player_at_once_lose_nothing() {
    postgres_support::in_fresh_schema(async |url| {
        let one = senet::players::store::open(&url).await.unwrap();
        let two = senet::players::store::open(&url).await.unwrap();
        let (anna, _) = new_player(one.as_ref()).await;
        let (boris, _) = new_player(one.as_ref()).await;
        let (vera, _) = new_player(one.as_ref()).await;
        const ROUNDS: i64 = 20;
        for round in 0..ROUNDS {
            // Each pair plays once a day, under the pair limit.
            let at = T0 + round * rating::PAIR_WINDOW_MS;
            let with_boris = game(&format!("b{round}"), &anna, &boris, Score::Win, at);
            let with_vera = game(&format!("v{round}"), &vera, &anna, Score::Win, at);
            let (x, y) = tokio::join!(one.rate_game(&with_boris), two.rate_game(&with_vera));
            assert!(matches!(x, Ok(Rated::Changed(_))) && matches!(y, Ok(Rated::Changed(_))));
        }
        let mut history = one.history(&anna, 100).await.unwrap();
        history.reverse();
        assert_eq!(history.len(), 2 * ROUNDS as usize);
        let mut standing = Standing::NEW;
        for entry in &history {
            assert_eq!(
                entry.change.before,
                rating::at(standing, entry.at),
                "{entry:?}"
            );
            standing = Standing {
                rating: entry.change.after,
                rated_at: Some(entry.at),
            };
        }
        let stored = one.player(&anna).await.unwrap().unwrap();
        assert_eq!(stored.standing, standing);
        assert_eq!((stored.wins, stored.losses), (ROUNDS, ROUNDS));
    })
    .await
}

/// A room's log as a rated game leaves it: two moves a side unless `moves_each` says fewer,
/// then `game-over` at `at`.
fn game_log(moves_each: u32, winner: &str, at: i64) -> Vec<senet::store::StoredEvent> {
    let moved = |side: &str| {
        format!(
            r#"{{"side":"{side}","from":2,"to":7,"effect":"swap","extra":false,"next":"white","position":"WWWBWBBBWB.................... b","swapped":2}}"#
        )
    };
    let mut data = Vec::new();
    for _ in 0..moves_each {
        data.push(("moved", moved("black")));
        data.push(("moved", moved("white")));
    }
    let seed = "6ff3b1a0c741ef22cdd7faae479859c4537db4b2d7443ed5a2d47852cbb23a97";
    data.push((
        "game-over",
        format!(r#"{{"winner":"{winner}","reason":"resign","seed":"{seed}"}}"#),
    ));
    let last = data.len() as u64;
    data.into_iter()
        .zip(1..)
        .map(|((kind, data), v)| senet::store::StoredEvent {
            v,
            at: at - (last - v) as i64,
            kind: kind.into(),
            data,
        })
        .collect()
}

/// Plays out a rated game in both stores as the server would leave it.
async fn rated_game(
    players: &dyn PlayerStore,
    rooms: &Store,
    id: &str,
    (black, white): (&str, &str),
    moves_each: u32,
    at: i64,
) {
    rooms
        .log
        .create_room(&room(id), &game_log(moves_each, "white", at), None)
        .await
        .unwrap();
    players.open_room(id, true).await.unwrap();
    assert!(players.bind_seat(id, Side::Black, black).await.unwrap());
    assert!(players.bind_seat(id, Side::White, white).await.unwrap());
    let finished = game(id, black, white, Score::Loss, at);
    assert!(matches!(
        players.rate_game(&finished).await.unwrap(),
        Rated::Changed(_)
    ));
}

async fn execute(url: &str, statement: &'static str) {
    if url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(url).await.unwrap();
        sqlx::query(statement).execute(&pool).await.unwrap();
    } else {
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        sqlx::query(statement).execute(&pool).await.unwrap();
    }
}

/// `senet ratings verify` recomputes every rating from the log and exits 0; a stored number
/// off by one part in 10^12, or a game the rule would not rate, makes it exit 1 naming it.
async fn verify_recomputes_every_rating(url: &str) {
    let rooms = senet::store::open(url).await.unwrap();
    let players = senet::players::store::open(url).await.unwrap();
    let (p, q, r) = (
        new_player(players.as_ref()).await.0,
        new_player(players.as_ref()).await.0,
        new_player(players.as_ref()).await.0,
    );
    let day = 24 * 3_600_000;
    rated_game(players.as_ref(), &rooms, "v1", (&p, &q), 2, T0).await;
    rated_game(players.as_ref(), &rooms, "v2", (&q, &r), 3, T0 + 5).await;
    // Idle time grows the deviation before the third game.
    rated_game(players.as_ref(), &rooms, "v3", (&r, &p), 2, T0 + 40 * day).await;
    let (status, verdict) = ratings_verify(url);
    assert_eq!(status, Some(0), "{verdict}");
    assert_eq!(
        verdict,
        serde_json::json!({"consistent": true, "games": 3, "puzzle_attempts": 0,
                           "puzzle_players": 0, "puzzles_rated": 0})
    );

    // A game with one move a side is aborted: the rule does not rate it (the store was told
    // to, as a faulty server would).
    rated_game(players.as_ref(), &rooms, "v4", (&p, &q), 1, T0 + 41 * day).await;
    let (status, verdict) = ratings_verify(url);
    assert_eq!(status, Some(1), "{verdict}");
    assert_eq!(verdict["difference"]["game"], 4, "{verdict}");
    assert_eq!(verdict["difference"]["what"], "rated", "{verdict}");

    // The first difference is named: game 2's stored rating, one part in 10^12 off.
    execute(
        url,
        "UPDATE rating_changes SET rating = rating * (1 + 1e-12) WHERE seq = 2",
    )
    .await;
    let (status, verdict) = ratings_verify(url);
    assert_eq!(status, Some(1), "{verdict}");
    assert_eq!(verdict["difference"]["game"], 2, "{verdict}");
    assert_eq!(verdict["difference"]["what"], "rating after", "{verdict}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_verify_recomputes_every_rating() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("test.db").display());
    verify_recomputes_every_rating(&url).await;
}

#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_verify_recomputes_every_rating() {
    postgres_support::in_fresh_schema(async |url| verify_recomputes_every_rating(&url).await).await
}

// ------------------------------------------------------------ the identity routes, over HTTP

fn error_code(answer: &common::Answer) -> (u16, &str) {
    (answer.status, answer.body["error"].as_str().unwrap_or(""))
}

/// Create, name, move to another device, delete — with a real `senet serve` whose debug log
/// is read afterwards: each refusal is a clear error that changes nothing, and no secret is
/// ever in a log line or in a body (only in `Set-Cookie`).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn identity_routes_with_a_cookie_keeping_browser() {
    let dir = tempfile::tempdir().unwrap();
    let database = dir.path().join("senet.db");
    let server = common::ChildServer::start(&database, &[]).await;
    let mut anna = common::Browser::new(server.addr);

    assert_eq!(
        error_code(&anna.call("GET", "/api/me", None).await),
        (404, "no_player")
    );
    let created = anna.call("POST", "/api/me", None).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let set = created.set_cookie.clone().unwrap();
    for part in ["HttpOnly", "SameSite=Lax", "Path=/", "Max-Age=31536000"] {
        assert!(set.contains(part), "{set}");
    }
    assert!(!set.contains("Secure"), "plain http: {set}");
    let id = created.body["id"].as_str().unwrap().to_owned();
    assert!(senet::players::identity::is_player_id(&id), "{id}");
    let me = &created.body;
    assert_eq!(me["name"], format!("anon-{}", &id[..6]));
    assert_eq!(
        (me["named"].clone(), me["deleted"].clone()),
        (false.into(), false.into())
    );
    assert_eq!(
        (me["rating"].clone(), me["deviation"].clone()),
        (1500.into(), 120.into())
    );
    assert_eq!(
        (me["provisional"].clone(), me["wins"].clone()),
        (true.into(), 0.into())
    );
    let secret_one = anna.cookie.clone().unwrap();
    // A browser with a valid cookie gets its player again, not a new one.
    let again = anna.call("POST", "/api/me", None).await;
    assert_eq!(
        (again.status, again.body["id"].as_str()),
        (200, Some(id.as_str()))
    );
    assert_eq!(again.set_cookie, None);

    // Names: bad, reserved, taken, too soon; each leaves the player as they were.
    let name = |name: &str| Some(serde_json::json!({ "name": name }));
    let bad = anna.call("PUT", "/api/me/name", name("a.b")).await;
    assert_eq!(error_code(&bad), (400, "bad_name"));
    let reserved = anna.call("PUT", "/api/me/name", name("Admin")).await;
    assert_eq!(error_code(&reserved), (400, "name_reserved"));
    let named = anna.call("PUT", "/api/me/name", name("Anna Ó")).await;
    assert_eq!(named.status, 200, "{}", named.body);
    assert_eq!(
        (named.body["name"].as_str(), named.body["named"].as_bool()),
        (Some("Anna Ó"), Some(true))
    );
    assert!(named.body["renamed_at"].is_i64());
    let mut boris = common::Browser::new(server.addr);
    let boris_created = boris.call("POST", "/api/me", None).await;
    assert_eq!(boris_created.status, 201);
    let taken = boris.call("PUT", "/api/me/name", name("ANNA ó")).await;
    assert_eq!(error_code(&taken), (409, "name_taken"));
    let soon = anna.call("PUT", "/api/me/name", name("Anya")).await;
    assert_eq!(error_code(&soon), (429, "rename_too_soon"));
    assert_eq!(
        anna.call("GET", "/api/me", None).await.body["name"],
        "Anna Ó"
    );
    let nameless = common::Browser::new(server.addr)
        .call("PUT", "/api/me/name", name("Vera"))
        .await;
    assert_eq!(error_code(&nameless), (404, "no_player"));

    // Moving to another device: a wrong code, then the right one once.
    let issued = anna.call("POST", "/api/me/transfer", None).await;
    assert_eq!(issued.status, 201, "{}", issued.body);
    let code = issued.body["code"].as_str().unwrap().to_owned();
    assert_eq!(code.len(), 8);
    let expires_in = issued.body["expires_at"].as_i64().unwrap() - senet::room::now_ms();
    assert!((590_000..=600_000).contains(&expires_in), "{expires_in}");
    let mut phone = common::Browser::new(server.addr);
    let redeem = |code: &str| Some(serde_json::json!({ "code": code }));
    for wrong in ["ZZZZZZZZ", "x", ""] {
        let refused = phone.call("POST", "/api/me/redeem", redeem(wrong)).await;
        assert_eq!(error_code(&refused), (400, "bad_code"), "{wrong:?}");
        assert_eq!(phone.cookie, None);
    }
    let typed = format!("{}-{}", &code[..4], code[4..].to_lowercase());
    let moved = phone.call("POST", "/api/me/redeem", redeem(&typed)).await;
    assert_eq!(
        (moved.status, moved.body["id"].as_str()),
        (200, Some(id.as_str()))
    );
    assert!(moved.set_cookie.unwrap().contains("HttpOnly"));
    assert_ne!(phone.cookie.as_deref(), Some(secret_one.as_str()));
    assert_eq!(
        error_code(&anna.call("GET", "/api/me", None).await),
        (404, "no_player"),
        "the first device's cookie names nobody any more"
    );
    assert_eq!(
        phone.call("GET", "/api/me", None).await.body["name"],
        "Anna Ó"
    );
    let used = boris.call("POST", "/api/me/redeem", redeem(&code)).await;
    assert_eq!(error_code(&used), (400, "bad_code"));

    // An expired code (issued in the store with a past expiry: the server's clock is real).
    let url = format!("sqlite://{}", database.display());
    let players = senet::players::store::open(&url).await.unwrap();
    players
        .issue_transfer_code(&id, &hash_token("ABCDEFGH"), senet::room::now_ms() - 1)
        .await
        .unwrap();
    let expired = boris
        .call("POST", "/api/me/redeem", redeem("ABCDEFGH"))
        .await;
    assert_eq!(error_code(&expired), (400, "bad_code"));
    assert_eq!(
        boris.call("GET", "/api/me", None).await.body["id"],
        boris_created.body["id"]
    );

    // Delete: the cookie is cleared, the player is gone for good, the row stays.
    let deleted = phone.call("DELETE", "/api/me", None).await;
    assert_eq!(deleted.status, 204);
    assert!(deleted.set_cookie.unwrap().contains("Max-Age=0"));
    assert_eq!(phone.cookie, None);
    let row = players.player(&id).await.unwrap().unwrap();
    assert!(row.deleted_at.is_some() && row.name.is_none());
    assert_eq!(
        error_code(&phone.call("DELETE", "/api/me", None).await),
        (404, "no_player")
    );

    // No secret (cookie values) in any body, nor anywhere in the server's log.
    server.kill().await;
    let log = std::fs::read_to_string(database.with_extension("log")).unwrap();
    assert!(log.contains("/api/me"), "the log has the requests");
    let browsers = [&anna, &boris, &phone];
    let secrets: Vec<String> = browsers
        .iter()
        .flat_map(|b| b.seen.iter())
        .filter_map(|seen| seen.strip_prefix("senet_player="))
        .map(|rest| rest.split(';').next().unwrap().to_owned())
        .filter(|secret| !secret.is_empty())
        .collect();
    assert_eq!(secrets.len(), 3, "anna's, boris's, the phone's");
    for secret in &secrets {
        assert!(!log.contains(secret.as_str()), "a secret in the log");
        let bodies = browsers.iter().flat_map(|b| b.seen.iter());
        let in_bodies = bodies.filter(|seen| seen.contains(secret.as_str())).count();
        assert_eq!(in_bodies, 1, "a secret only in its own Set-Cookie");
    }
}

/// Creating players and redeeming codes take from one address's quota (429 past it); cookies
/// are `Secure` when the public origin is https.
#[tokio::test]
async fn creating_and_redeeming_have_a_quota_and_https_cookies_are_secure() {
    let server = common::TestServer::start_with(|config| {
        config.edge.identify_burst = 2;
        config.edge.identify_per_hour = 1;
        config.connections.public_origin = "https://senet.example".parse().unwrap();
    })
    .await;
    let mut first = common::Browser::new(server.addr);
    let created = first.call("POST", "/api/me", None).await;
    assert_eq!(created.status, 201);
    assert!(created.set_cookie.unwrap().contains("Secure"));
    let code = Some(serde_json::json!({ "code": "ZZZZZZZZ" }));
    let mut guesser = common::Browser::new(server.addr);
    assert_eq!(
        error_code(&guesser.call("POST", "/api/me/redeem", code.clone()).await).1,
        "bad_code"
    );
    let refused = guesser.call("POST", "/api/me/redeem", code).await;
    assert_eq!(error_code(&refused), (429, "rate_limited"));
    let third = common::Browser::new(server.addr)
        .call("POST", "/api/me", None)
        .await;
    assert_eq!(error_code(&third), (429, "rate_limited"));
    // Rooms keep an allowance of their own.
    let (status, _) = common::http(
        server.addr,
        "POST",
        "/api/rooms",
        Some(serde_json::json!({"mode": "online"})),
    )
    .await;
    assert_eq!(status, 201);
}
