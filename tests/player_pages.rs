//! The read-only player routes against a real server (`GET /api/players/{id}`,
//! `GET /api/players?name=`, `GET /api/top`), on SQLite and PostgreSQL: players and rated games
//! are seeded through the `PlayerStore` and the rooms' log on the server's own database.

mod common;
mod postgres_support;

use std::net::SocketAddr;

use common::{TestServer, http, room};
use senet::engine::Side;
use senet::players::identity::{new_player_id, new_secret};
use senet::players::name::Name;
use senet::players::rating::Score;
use senet::players::store::{FinishedGame, PlayerStore, Rated};
use senet::store::{Store, StoredEvent};
use serde_json::Value;

const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

fn now() -> i64 {
    senet::room::now_ms()
}

async fn player(players: &dyn PlayerStore, name: Option<&str>) -> String {
    let id = new_player_id();
    let (_, hash) = new_secret();
    players
        .create_player(&id, &hash, "127.0.0.1", now() - 60 * DAY)
        .await
        .unwrap();
    if let Some(name) = name {
        let name = Name::parse(name).unwrap();
        players
            .set_name(&id, &name, now() - 60 * DAY)
            .await
            .unwrap();
    }
    id
}

/// `rounds` rated games between two players, 9 hours apart from `from` (under the pair limit),
/// black winning the even ones and drawing the odd ones.
async fn rated_series(players: &dyn PlayerStore, (a, b): (&str, &str), rounds: i64, from: i64) {
    for n in 0..rounds {
        let (black, white) = if n % 2 == 0 { (a, b) } else { (b, a) };
        let score = if n % 2 == 0 { Score::Win } else { Score::Draw };
        let game = FinishedGame {
            room: senet::secrets::new_room_id(),
            black: black.into(),
            white: white.into(),
            score,
            at: from + n * 9 * HOUR,
        };
        let rated = players.rate_game(&game).await.unwrap();
        assert!(matches!(rated, Rated::Changed(_)), "{rated:?}");
    }
}

/// A finished room in the log, its seats bound to `black` and `white` (`None`: anonymous).
async fn finished_room(
    players: &dyn PlayerStore,
    rooms: &Store,
    (black, white): (Option<&str>, Option<&str>),
    winner: &str,
    rated: bool,
    at: i64,
) -> String {
    let id = senet::secrets::new_room_id();
    let seed = "6ff3b1a0c741ef22cdd7faae479859c4537db4b2d7443ed5a2d47852cbb23a97";
    let over = StoredEvent {
        v: 1,
        at,
        kind: "game-over".into(),
        data: format!(r#"{{"winner":"{winner}","reason":"resign","seed":"{seed}"}}"#),
    };
    rooms
        .log
        .create_room(&room(&id), &[over], None)
        .await
        .unwrap();
    players.open_room(&id, rated).await.unwrap();
    for (side, player) in [(Side::Black, black), (Side::White, white)] {
        if let Some(player) = player {
            assert!(players.bind_seat(&id, side, player).await.unwrap());
        }
    }
    if let (true, Some(black), Some(white)) = (rated, black, white) {
        let score = match winner {
            "black" => Score::Win,
            "white" => Score::Loss,
            _ => Score::Draw,
        };
        let game = FinishedGame {
            room: id.clone(),
            black: black.into(),
            white: white.into(),
            score,
            at,
        };
        assert!(matches!(
            players.rate_game(&game).await.unwrap(),
            Rated::Changed(_)
        ));
    }
    id
}

async fn get(addr: SocketAddr, path: &str) -> (u16, Value) {
    http(addr, "GET", path, None).await
}

/// The whole contract of the three routes on one database.
async fn player_routes(url: String) {
    let dir = tempfile::tempdir().unwrap();
    let server = TestServer::start_on(dir, url.clone(), |_| {}).await;
    let rooms = senet::store::open(&url).await.unwrap();
    let players = senet::players::store::open(&url).await.unwrap();
    let players = players.as_ref();
    let addr = server.addr;

    let anna = player(players, Some("Jos\u{e9} Anna")).await;
    let boris = player(players, Some("Борис")).await;
    let vera = player(players, None).await;
    // Thirty games in the last twelve days: both leave the provisional range.
    rated_series(players, (&anna, &boris), 30, now() - 12 * DAY).await;
    // A strong pair whose last game was 40 days ago: off the leaderboard.
    let (cora, dan) = (
        player(players, Some("Cora")).await,
        player(players, None).await,
    );
    rated_series(players, (&cora, &dan), 30, now() - 52 * DAY).await;
    // Anna's newest games: a rated one with vera (then deleted), a casual one with a stranger.
    let rated = finished_room(
        players,
        &rooms,
        (Some(&vera), Some(&anna)),
        "white",
        true,
        now() - HOUR,
    )
    .await;
    let casual = finished_room(
        players,
        &rooms,
        (Some(&anna), None),
        "white",
        false,
        now() - 60_000,
    )
    .await;
    assert!(players.delete_player(&vera, now()).await.unwrap());

    let (status, page) = get(addr, &format!("/api/players/{anna}")).await;
    assert_eq!(status, 200, "{page}");
    let stored = players.player(&anna).await.unwrap().unwrap();
    assert_eq!(page["id"], anna.as_str());
    assert_eq!(page["name"], "Jos\u{e9} Anna");
    assert_eq!(
        (page["named"].as_bool(), page["deleted"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(page["rating"], stored.standing.rating.rating.round() as i64);
    assert_eq!(
        page["deviation"],
        stored.standing.rating.deviation.round() as i64
    );
    assert_eq!(page["provisional"], false);
    assert_eq!(
        (page["wins"].as_i64(), page["losses"].as_i64()),
        (Some(stored.wins), Some(stored.losses))
    );
    assert_eq!(page["draws"], stored.draws);
    assert_eq!(stored.wins + stored.losses + stored.draws, 31);

    let history = page["history"].as_array().unwrap();
    assert_eq!(history.len(), 31, "every rated game, none of cora's");
    let newest = &history[0];
    assert_eq!(newest["room"], rated.as_str());
    assert_eq!(
        (
            newest["score"].as_f64(),
            newest["opponent"]["deleted"].as_bool()
        ),
        (Some(1.0), Some(true))
    );
    assert_eq!(newest["opponent"]["name"], "deleted player");
    assert_eq!(newest["after"]["rating"], page["rating"]);
    // The rating carries over; the deviation grew with the idle hours in between.
    assert_eq!(
        newest["before"]["rating"], history[1]["after"]["rating"],
        "{newest}"
    );
    // The series' last game: anna (black on even rounds) won round 28, drew round 29 as white.
    assert_eq!(
        (history[1]["score"].as_f64(), history[2]["score"].as_f64()),
        (Some(0.5), Some(1.0))
    );
    assert_eq!(history[1]["opponent"]["name"], "Борис");
    let ats: Vec<i64> = history
        .iter()
        .map(|entry| entry["at"].as_i64().unwrap())
        .collect();
    assert!(
        ats.windows(2).all(|pair| pair[0] >= pair[1]),
        "newest first: {ats:?}"
    );

    let recent = page["recent"].as_array().unwrap();
    assert_eq!(
        recent.len(),
        2,
        "only games with a room and a game-over: {recent:?}"
    );
    assert_eq!(recent[0]["room"], casual.as_str());
    assert_eq!(
        (recent[0]["score"].as_f64(), recent[0]["rated"].as_bool()),
        (Some(0.0), Some(false))
    );
    assert!(recent[0]["opponent"].is_null());
    assert_eq!(recent[1]["room"], rated.as_str());
    assert_eq!(
        (recent[1]["score"].as_f64(), recent[1]["rated"].as_bool()),
        (Some(1.0), Some(true))
    );
    assert_eq!(recent[1]["opponent"]["id"], vera.as_str());

    // By name: ignoring case, in either Unicode form.
    for name in ["jos%C3%A9%20anna", "JOSE%CC%81%20ANNA"] {
        let (status, by_name) = get(addr, &format!("/api/players?name={name}")).await;
        assert_eq!(status, 200, "{name}: {by_name}");
        assert_eq!(by_name, page);
    }

    // The deleted player's page stays (their games do), under no name.
    let (status, gone) = get(addr, &format!("/api/players/{vera}")).await;
    assert_eq!(
        (status, gone["deleted"].as_bool()),
        (200, Some(true)),
        "{gone}"
    );
    assert_eq!(gone["name"], "deleted player");
    let (_, unnamed) = get(addr, &format!("/api/players/{dan}")).await;
    assert_eq!(unnamed["name"], format!("anon-{}", &dan[..6]));
    assert_eq!(unnamed["named"], false);

    for path in [
        "/api/players/0000000000000000".to_owned(),
        "/api/players/not-an-id".to_owned(),
        "/api/players?name=nobody".to_owned(),
        format!("/api/players?name=anon-{}", &dan[..6]),
        "/api/players?name=deleted%20player".to_owned(),
    ] {
        let (status, error) = get(addr, &path).await;
        assert_eq!(
            (status, error["error"].as_str()),
            (404, Some("no_player")),
            "{path}: {error}"
        );
        // Its own words: not /api/me's "no player goes with this browser".
        let message = error["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("no player has this id or name"),
            "{path}: {error}"
        );
    }
    let (status, _) = get(addr, "/api/players").await;
    assert_eq!(status, 400, "a name is needed");

    // The leaderboard: active, non-provisional, live players, best first.
    let (status, top) = get(addr, "/api/top").await;
    assert_eq!(status, 200, "{top}");
    let listed: Vec<&str> = top["players"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["id"].as_str().unwrap())
        .collect();
    let (a, b) = (
        players.player(&anna).await.unwrap().unwrap(),
        players.player(&boris).await.unwrap().unwrap(),
    );
    let expected = if a.standing.rating.rating >= b.standing.rating.rating {
        [&anna, &boris]
    } else {
        [&boris, &anna]
    };
    assert_eq!(listed, expected.map(String::as_str), "{top}");
    assert_eq!(top["players"][0]["provisional"], false);
    assert!(top["players"][0]["deviation"].as_i64().unwrap() < 110);
    assert!(top["players"][0].get("history").is_none());
    server.stop().await;
}

#[tokio::test]
async fn player_routes_on_sqlite() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    player_routes(url).await;
}

#[tokio::test]
#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
async fn player_routes_on_postgres() {
    postgres_support::in_fresh_schema(player_routes).await;
}
