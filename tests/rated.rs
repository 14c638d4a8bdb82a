//! Seats that belong to players and rated games, over real sockets with cookie-keeping
//! browsers, on SQLite and PostgreSQL: who may sit and act, what hello and state show, a rated
//! game played to its end giving the Glicko-2 numbers `senet ratings verify` agrees with, and
//! two games of one player ending at once on two instances.

mod common;
mod postgres_support;

use common::{Browser, Client, TestServer, play_turn, ratings_verify};
use senet::players::rating::{self, Score, Standing};
use serde_json::{Value, json};

/// A browser with a new player, named `name`.
async fn player(addr: std::net::SocketAddr, name: &str) -> (Browser, String) {
    let mut browser = Browser::new(addr);
    let created = browser.call("POST", "/api/me", None).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let named = browser
        .call("PUT", "/api/me/name", Some(json!({ "name": name })))
        .await;
    assert_eq!(named.status, 200, "{}", named.body);
    (browser, created.body["id"].as_str().unwrap().to_owned())
}

fn refused(answer: &common::Answer) -> (u16, &str) {
    (answer.status, answer.body["error"].as_str().unwrap_or(""))
}

/// A rated room `black` created and `white` joined: its id and both seat tokens.
async fn rated_room(black: &mut Browser, white: &mut Browser) -> (String, String, String) {
    let rated = json!({"mode": "online", "side": "black", "rated": true});
    let created = black.call("POST", "/api/rooms", Some(rated)).await;
    assert_eq!(created.status, 201, "{}", created.body);
    let room = created.body["room"].as_str().unwrap().to_owned();
    let joined = white
        .call("POST", &format!("/api/rooms/{room}/join"), Some(json!({})))
        .await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let token = |answer: &common::Answer| answer.body["token"].as_str().unwrap().to_owned();
    (room, token(&created), token(&joined))
}

/// Plays until each side has moved at least twice (so the game counts), whoever's turn;
/// black's socket sees every move.
async fn two_moves_each(black: &mut Client, white: &mut Client) {
    let moved = |client: &Client, side: &str| {
        let moves = client.events.iter().filter(|e| e["t"] == "moved");
        moves.filter(|e| e["d"]["side"] == side).count()
    };
    while moved(black, "black") < 2 || moved(black, "white") < 2 {
        let turn = black.sync().await["turn"].as_str().unwrap().to_owned();
        let mover = if turn == "black" {
            &mut *black
        } else {
            &mut *white
        };
        play_turn(mover, &turn).await;
    }
}

/// The `at` of a room's `game-over`, from its record.
async fn game_over_at(addr: std::net::SocketAddr, room: &str) -> i64 {
    let record = common::record(addr, room).await;
    let events = record["events"].as_array().unwrap();
    let over = events.iter().find(|e| e["t"] == "game-over").unwrap();
    over["at"].as_i64().unwrap()
}

fn shown(rating: &skillratings::glicko2::Glicko2Rating) -> Value {
    json!({
        "rating": rating.rating.round() as i64,
        "deviation": rating.deviation.round() as i64,
        "provisional": rating::is_provisional(rating),
    })
}

/// Who may sit and act in a rated room, what hello shows, and a game to its end: the
/// `rated` frame, both players' new numbers as Glicko-2 computes them, `verify` exits 0.
async fn a_rated_game_to_the_end(url: String) {
    let server = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
    let addr = server.addr;
    let (mut anna, anna_id) = player(addr, "Anna").await;
    let (mut boris, boris_id) = player(addr, "Boris").await;
    let mut nobody = Browser::new(addr);

    let rated = |mode: &str| Some(json!({"mode": mode, "rated": true}));
    let anonymous = nobody.call("POST", "/api/rooms", rated("online")).await;
    assert_eq!(refused(&anonymous), (400, "rated_needs_player"));
    let local = anna.call("POST", "/api/rooms", rated("local")).await;
    assert_eq!(refused(&local), (400, "bad_request"));

    let rated = json!({"mode": "online", "side": "black", "rated": true});
    let created = anna.call("POST", "/api/rooms", Some(rated)).await;
    let room = created.body["room"].as_str().unwrap().to_owned();
    let join = format!("/api/rooms/{room}/join");
    let anonymous = nobody.call("POST", &join, Some(json!({}))).await;
    assert_eq!(refused(&anonymous), (400, "rated_needs_player"));
    let herself = anna.call("POST", &join, Some(json!({}))).await;
    assert_eq!(refused(&herself), (400, "rated_needs_player"));
    let joined = boris.call("POST", &join, Some(json!({}))).await;
    assert_eq!(joined.status, 200, "{}", joined.body);
    let anna_token = created.body["token"].as_str().unwrap();
    let boris_token = joined.body["token"].as_str().unwrap();

    // Boris's browser with Anna's token: refused, and Anna's seat is still hers.
    let mut wrong = Client::connect_as(addr, &room, boris.cookie.as_deref()).await;
    wrong
        .send(json!({"t": "hello", "d": {"token": anna_token, "id": 1}}))
        .await;
    let reply = wrong.next_reply().await;
    assert_eq!(reply["t"], "error", "{reply}");
    assert_eq!(reply["d"]["code"], "seat_of_another_player", "{reply}");
    // The token alone (the CLI, an old link) still works.
    let cli = Client::join(addr, &room, Some(anna_token)).await;
    assert_eq!(cli.seat, "black");
    cli.close().await;

    let mut black = Client::join_as(addr, &room, Some(anna_token), anna.cookie.as_deref()).await;
    let mut white = Client::join_as(addr, &room, Some(boris_token), boris.cookie.as_deref()).await;
    let state = &black.state;
    assert_eq!(state["rated"], true, "{state}");
    assert_eq!(state["players"]["black"]["name"], "Anna", "{state}");
    assert_eq!(state["players"]["black"]["id"], anna_id.as_str());
    assert_eq!(state["players"]["white"]["id"], boris_id.as_str());
    assert_eq!(state["players"]["white"]["provisional"], true);
    assert_eq!(state["players"]["white"]["seated"], true);

    two_moves_each(&mut black, &mut white).await;
    black.ok("resign", Value::Null).await;
    let frame = white.wait_for("rated").await;
    assert_eq!(black.wait_for("rated").await, frame);

    let at = game_over_at(addr, &room).await;
    let (anna_after, boris_after) = rating::rate(Standing::NEW, Standing::NEW, Score::Loss, at);
    let start = shown(&rating::START);
    let expected = json!({
        "black": {"before": start, "after": shown(&anna_after)},
        "white": {"before": start, "after": shown(&boris_after)},
    });
    assert_eq!(frame["d"], expected, "{frame}");
    let state = black.sync().await;
    assert_eq!(state["ratings"], expected, "{state}");
    let me = anna.call("GET", "/api/me", None).await.body;
    assert_eq!(
        (me["rating"].clone(), me["losses"].clone()),
        (shown(&anna_after)["rating"].clone(), 1.into())
    );
    let players = senet::players::store::open(&url).await.unwrap();
    let stored = players.player(&boris_id).await.unwrap().unwrap();
    assert_eq!(stored.standing.rating, boris_after, "bit for bit");
    assert_eq!(stored.wins, 1);

    let (status, verdict) = ratings_verify(&url);
    assert_eq!(status, Some(0), "{verdict}");
    assert_eq!(verdict["consistent"], true, "{verdict}");
    assert_eq!(verdict["games"], 1, "{verdict}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_a_rated_game_to_the_end() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    a_rated_game_to_the_end(url).await;
}

#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_a_rated_game_to_the_end() {
    postgres_support::in_fresh_schema(a_rated_game_to_the_end).await
}

/// A casual online room binds seats too (for the names), and is never rated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_casual_game_shows_its_players_and_is_not_rated() {
    let server = TestServer::start().await;
    let (mut anna, _) = player(server.addr, "Anna").await;
    let casual = json!({"mode": "online", "side": "black"});
    let created = anna.call("POST", "/api/rooms", Some(casual)).await;
    let room = created.body["room"].as_str().unwrap().to_owned();
    let joined = common::join_room(server.addr, &room).await;
    let token = created.body["token"].as_str();
    let mut black = Client::join_as(server.addr, &room, token, anna.cookie.as_deref()).await;
    let mut white = Client::join(server.addr, &room, joined["token"].as_str()).await;
    assert_eq!(black.state["rated"], false);
    assert_eq!(black.state["players"]["black"]["name"], "Anna");
    assert!(
        black.state["players"]["white"].get("id").is_none(),
        "anonymous"
    );
    two_moves_each(&mut black, &mut white).await;
    black.ok("resign", Value::Null).await;
    let state = black.sync().await;
    assert!(
        state["result"].is_object() && state.get("ratings").is_none(),
        "{state}"
    );
    let me = anna.call("GET", "/api/me", None).await.body;
    assert_eq!(
        (me["rating"].clone(), me["losses"].clone()),
        (1500.into(), 0.into())
    );
}

/// Two instances on one PostgreSQL database: Anna's two rated games, one on each, end at the
/// same moment. Both are rated, one after the other: the second's "before" is the first's
/// "after", and `senet ratings verify` exits 0.
#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_games_of_one_player_ending_at_once_on_two_instances() {
    postgres_support::in_fresh_schema(async |url| {
        let one = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
        let two = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
        let (mut anna_one, anna) = player(one.addr, "Anna").await;
        let mut anna_two = Browser::new(two.addr);
        anna_two.cookie = anna_one.cookie.clone();
        let (mut boris, _) = player(one.addr, "Boris").await;
        let (mut vera, _) = player(two.addr, "Vera").await;

        let mut games = Vec::new();
        for (addr, anna, other) in [
            (one.addr, &mut anna_one, &mut boris),
            (two.addr, &mut anna_two, &mut vera),
        ] {
            let (room, black_token, white_token) = rated_room(anna, other).await;
            let mut black =
                Client::join_as(addr, &room, Some(&black_token), anna.cookie.as_deref()).await;
            let mut white =
                Client::join_as(addr, &room, Some(&white_token), other.cookie.as_deref()).await;
            two_moves_each(&mut black, &mut white).await;
            games.push((black, white));
        }
        let [
            (mut black_one, mut white_one),
            (mut black_two, mut white_two),
        ] = <[_; 2]>::try_from(games).ok().unwrap();
        tokio::join!(
            black_one.ok("resign", Value::Null),
            black_two.ok("resign", Value::Null)
        );
        white_one.wait_for("rated").await;
        white_two.wait_for("rated").await;

        let players = senet::players::store::open(&url).await.unwrap();
        let mut history = players.history(&anna, 10).await.unwrap();
        history.reverse();
        assert_eq!(history.len(), 2, "{history:?}");
        assert_eq!(history[0].change.before, rating::START);
        let first = Standing {
            rating: history[0].change.after,
            rated_at: Some(history[0].at),
        };
        assert_eq!(history[1].change.before, rating::at(first, history[1].at));
        let stored = players.player(&anna).await.unwrap().unwrap();
        assert_eq!(stored.standing.rating, history[1].change.after);
        assert_eq!(stored.losses, 2);
        let (status, verdict) = ratings_verify(&url);
        assert_eq!(status, Some(0), "{verdict}");
        assert_eq!(verdict["games"], 2, "{verdict}");
    })
    .await
}

type Socket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

async fn lobby_socket(addr: std::net::SocketAddr) -> Socket {
    let url = format!("ws://{addr}/ws/lobby");
    tokio_tungstenite::connect_async(url).await.unwrap().0
}

/// The first thing `find` finds in a lobby frame, waiting for the frames.
async fn in_lobby(lobby: &mut Socket, what: &str, find: impl Fn(&Value) -> Option<Value>) -> Value {
    use futures_util::StreamExt;
    loop {
        let message = tokio::time::timeout(common::PATIENCE, lobby.next()).await;
        let message = message
            .unwrap_or_else(|_| panic!("{what} is listed"))
            .unwrap()
            .unwrap();
        let Ok(text) = message.into_text() else {
            continue;
        };
        let frame: Value = serde_json::from_str(&text).unwrap_or_default();
        if let Some(found) = find(&frame["d"]) {
            return found;
        }
    }
}

/// The entry of `room` once a lobby frame lists it among the games in progress.
async fn game_in_lobby(lobby: &mut Socket, room: &str) -> Value {
    in_lobby(lobby, "the game", |frame| {
        let games = frame["games"].as_array()?;
        games.iter().find(|game| game["room"] == room).cloned()
    })
    .await
}

/// Seeks and quick pairing: a rated seek wants a player to post it and another to take it;
/// the seats are bound, and the room says it is rated.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_seeks_and_pairing_bind_their_seats() {
    let server = TestServer::start().await;
    let addr = server.addr;
    let (mut anna, anna_id) = player(addr, "Anna").await;
    let (mut boris, boris_id) = player(addr, "Boris").await;
    let rated = Some(json!({"rated": true, "side": "black"}));
    let anonymous = Browser::new(addr)
        .call("POST", "/api/seeks", rated.clone())
        .await;
    assert_eq!(refused(&anonymous), (400, "rated_needs_player"));
    let posted = anna.call("POST", "/api/seeks", rated).await;
    assert_eq!(posted.status, 201, "{}", posted.body);
    let room = posted.body["room"].as_str().unwrap().to_owned();
    let mut lobby = lobby_socket(addr).await;
    let take = format!("/api/seeks/{room}/take");
    let herself = anna.call("POST", &take, None).await;
    assert_eq!(refused(&herself), (400, "rated_needs_player"));
    let taken = boris.call("POST", &take, None).await;
    assert_eq!(taken.status, 200, "{}", taken.body);
    let token = taken.body["token"].as_str();
    let white = Client::join_as(addr, &room, token, boris.cookie.as_deref()).await;
    assert_eq!(white.state["rated"], true);
    assert_eq!(white.state["players"]["black"]["id"], anna_id.as_str());
    assert_eq!(white.state["players"]["white"]["id"], boris_id.as_str());
    // The lobby's games in progress name both players.
    let game = game_in_lobby(&mut lobby, &room).await;
    assert_eq!(game["players"]["black"]["name"], "Anna", "{game}");
    assert_eq!(game["players"]["white"]["id"], boris_id.as_str(), "{game}");

    // Quick pairing: Anna's rated request posts her own rated seek; Boris's pairs with it.
    // (Each page names itself: both come from 127.0.0.1.)
    let pair = |visitor: &str| Some(json!({"rated": true, "visitor": visitor}));
    let waiting = anna.call("POST", "/api/pairing", pair("anna")).await;
    assert_eq!(waiting.body["paired"], false, "{}", waiting.body);
    let paired = boris.call("POST", "/api/pairing", pair("boris")).await;
    assert_eq!(paired.body["paired"], true, "{}", paired.body);
    let room = paired.body["room"].as_str().unwrap();
    assert_eq!(room, waiting.body["room"].as_str().unwrap());
    let socket = Client::join_as(
        addr,
        room,
        paired.body["token"].as_str(),
        boris.cookie.as_deref(),
    )
    .await;
    assert_eq!(socket.state["rated"], true);
    let seat = socket.seat.clone();
    assert_eq!(socket.state["players"][&seat]["id"], boris_id.as_str());
}

/// Sets a player's rating in the server's SQLite database, as if games had made it.
async fn set_rating(server: &TestServer, player: &str, rating: f64) {
    use sqlx::Connection;
    let path = server.dir.path().join("senet.db");
    let mut db = sqlx::SqliteConnection::connect(&format!("sqlite://{}", path.display()))
        .await
        .unwrap();
    let updated = sqlx::query("UPDATE players SET rating = ? WHERE id = ?")
        .bind(rating)
        .bind(player)
        .execute(&mut db)
        .await
        .unwrap();
    assert_eq!(updated.rows_affected(), 1);
}

/// The entry of open seek `room` once a lobby frame lists it (a new socket's first frame
/// lists the open ones, a change adds one).
async fn listed_seek(lobby: &mut Socket, room: &str) -> Value {
    in_lobby(lobby, "the seek", |frame| {
        let seeks = frame["seeks"].as_array().or(frame["added"].as_array())?;
        seeks.iter().find(|seek| seek["room"] == room).cloned()
    })
    .await
}

/// Quick pairing by strength over real sockets: a seek lists its poster, rated choice and
/// range; a range leaves out a player outside it; rated pairs only with rated, never with
/// one's own seek; of the seeks in the window, the nearest rating is taken, not the oldest.
/// (The window's widening, by the seek's wait, is tested with the time given in tests/store.rs.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quick_pairing_prefers_the_nearest_rating() {
    let server = TestServer::start_with(|config| config.max_seeks_per_address = 0).await;
    let addr = server.addr;
    let (mut anna, _) = player(addr, "Anna").await;
    let (mut boris, _) = player(addr, "Boris").await;
    let (mut carl, carl_id) = player(addr, "Carl").await;
    let (mut dora, dora_id) = player(addr, "Dora").await;
    set_rating(&server, &carl_id, 1590.0).await;
    set_rating(&server, &dora_id, 1520.0).await;
    let seek = |visitor: &str, range: Value| {
        Some(json!({"rated": true, "visitor": visitor, "range": range}))
    };
    let pair = |visitor: &str| Some(json!({"rated": true, "visitor": visitor}));

    let bad = anna
        .call("POST", "/api/seeks", seek("a", json!([1600, 1400])))
        .await;
    assert_eq!(refused(&bad), (400, "bad_request"), "{}", bad.body);
    let picky = anna
        .call("POST", "/api/seeks", seek("a", json!([1600, 2000])))
        .await;
    assert_eq!(picky.status, 201, "{}", picky.body);
    let picky_room = picky.body["room"].as_str().unwrap().to_owned();
    let mut lobby = lobby_socket(addr).await;
    let listed = listed_seek(&mut lobby, &picky_room).await;
    assert_eq!(listed["rated"], true, "{listed}");
    assert_eq!(listed["range"], json!([1600, 2000]), "{listed}");
    assert_eq!(listed["player"]["name"], "Anna", "{listed}");
    assert_eq!(listed["player"]["rating"], 1500, "{listed}");

    // Carl (1590) posts first, Dora (1520) after: both inside Boris's ±100.
    let carl_seek = carl
        .call("POST", "/api/seeks", seek("c", Value::Null))
        .await;
    let dora_seek = dora
        .call("POST", "/api/seeks", seek("d", Value::Null))
        .await;
    assert_eq!(dora_seek.status, 201, "{}", dora_seek.body);
    // An anonymous casual asker takes none of the rated seeks.
    let casual = Browser::new(addr)
        .call("POST", "/api/pairing", Some(json!({"visitor": "anon"})))
        .await;
    assert_eq!(casual.body["paired"], false, "{}", casual.body);
    // Boris (1500): Dora's seek (1520) is nearer than Carl's older one (1590); Anna's range
    // leaves him out.
    let paired = boris.call("POST", "/api/pairing", pair("b")).await;
    assert_eq!(paired.body["paired"], true, "{}", paired.body);
    assert_eq!(paired.body["room"], dora_seek.body["room"]);
    // Carl, from another page, is never paired with his own seek (and Anna's range leaves
    // out 1590): he waits.
    let himself = carl.call("POST", "/api/pairing", pair("c2")).await;
    assert_eq!(himself.body["paired"], false, "{}", himself.body);
    assert_ne!(himself.body["room"], carl_seek.body["room"]);

    // The asker's own range: Boris (1500) wants 1595 to 1700, which leaves out Carl's seeks
    // (1590, inside his window); he waits, and his seek keeps the range for its takers.
    let ranged = |visitor: &str, range: Value| {
        Some(json!({"rated": true, "visitor": visitor, "range": range}))
    };
    let bad = boris
        .call("POST", "/api/pairing", ranged("b2", json!([1700, 1595])))
        .await;
    assert_eq!(refused(&bad), (400, "bad_request"), "{}", bad.body);
    let waits = boris
        .call("POST", "/api/pairing", ranged("b2", json!([1595, 1700])))
        .await;
    assert_eq!(waits.body["paired"], false, "{}", waits.body);
    let waiting_room = waits.body["room"].as_str().unwrap();
    let listed = listed_seek(&mut lobby, waiting_room).await;
    assert_eq!(listed["range"], json!([1595, 1700]), "{listed}");
    // Without the range, from another page, he is paired with Carl's older seek.
    let unranged = boris.call("POST", "/api/pairing", pair("b3")).await;
    assert_eq!(unranged.body["paired"], true, "{}", unranged.body);
    assert_eq!(unranged.body["room"], carl_seek.body["room"]);
}

/// Against rating farming, over real sockets: the same two players' first 3 rated games in a
/// day are rated, the 4th (created rated, played to its end) is casual — no `rated` frame, no
/// `ratings` in its state, nobody's rating moved — and `verify` agrees (3 games).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_same_two_players_get_three_rated_games_a_day() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    let server = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
    let addr = server.addr;
    let (mut anna, anna_id) = player(addr, "Anna").await;
    let (mut boris, _) = player(addr, "Boris").await;
    for game in 1..=4 {
        let (room, black_token, white_token) = rated_room(&mut anna, &mut boris).await;
        let mut black =
            Client::join_as(addr, &room, Some(&black_token), anna.cookie.as_deref()).await;
        let mut white =
            Client::join_as(addr, &room, Some(&white_token), boris.cookie.as_deref()).await;
        assert_eq!(black.state["rated"], true, "game {game}");
        two_moves_each(&mut black, &mut white).await;
        let before = anna.call("GET", "/api/me", None).await.body;
        black.ok("resign", Value::Null).await;
        if game <= 3 {
            let frame = white.wait_for("rated").await;
            assert_ne!(frame["d"]["black"]["before"], frame["d"]["black"]["after"]);
            continue;
        }
        // The rating is written in the game-over's transaction: once the resign is answered,
        // the stored numbers say whether the game was rated.
        let state = black.sync().await;
        assert!(state["result"].is_object(), "{state}");
        assert!(state.get("ratings").is_none(), "game 4 is casual: {state}");
        assert!(!black.frames.iter().any(|f| f["t"] == "rated"), "game 4");
        let after = anna.call("GET", "/api/me", None).await.body;
        assert_eq!(
            (&after["rating"], &after["deviation"], &after["losses"]),
            (&before["rating"], &before["deviation"], &3.into())
        );
    }
    let players = senet::players::store::open(&url).await.unwrap();
    assert_eq!(players.history(&anna_id, 10).await.unwrap().len(), 3);
    let (status, verdict) = ratings_verify(&url);
    assert_eq!(status, Some(0), "{verdict}");
    assert_eq!(verdict["consistent"], true, "{verdict}");
    assert_eq!(verdict["games"], 3, "{verdict}");
    server.stop().await;
}

/// The parameters every database was rated with before `senet-2026-12` (lichess's values,
/// whole days idle), as a database of that time holds them.
const LICHESS: rating::Parameters = rating::Parameters {
    name: "lichess",
    start: skillratings::glicko2::Glicko2Rating {
        rating: 1500.0,
        deviation: 500.0,
        volatility: 0.09,
    },
    tau: 0.75,
    min_deviation: 45.0,
    idle_period_ms: 24 * 3_600_000,
};

/// Rewrites every stored number of a database's rated games as the server rated them before
/// the parameters changed (`LICHESS`, recorded as such): what an old database holds.
async fn as_rated_under_lichess(db: &mut sqlx::SqliteConnection) {
    use sqlx::Row;
    let games = sqlx::query("SELECT seq, black, white, score, at FROM rated_games ORDER BY seq")
        .fetch_all(&mut *db)
        .await
        .unwrap();
    let mut standings = std::collections::HashMap::new();
    for game in &games {
        let (seq, at): (i64, i64) = (game.get(0), game.get(4));
        let ids: [String; 2] = [game.get(1), game.get(2)];
        let score = Score::from_points(game.get(3)).unwrap();
        let before = ids
            .clone()
            .map(|id| *standings.entry(id).or_insert(LICHESS.new_standing()));
        let (black, white) = LICHESS.rate(before[0], before[1], score, at);
        for ((id, standing), after) in ids.iter().zip(before).zip([black, white]) {
            let was = LICHESS.at(standing, at);
            sqlx::query(
                "UPDATE rating_changes SET rating_before = ?, deviation_before = ?, \
                 volatility_before = ?, rating = ?, deviation = ?, volatility = ? \
                 WHERE seq = ? AND player = ?",
            )
            .bind(was.rating)
            .bind(was.deviation)
            .bind(was.volatility)
            .bind(after.rating)
            .bind(after.deviation)
            .bind(after.volatility)
            .bind(seq)
            .bind(id)
            .execute(&mut *db)
            .await
            .unwrap();
            standings.insert(
                id.clone(),
                Standing {
                    rating: after,
                    rated_at: Some(at),
                },
            );
        }
    }
    let set = "UPDATE players SET rating = ?, deviation = ?, volatility = ? WHERE id = ?";
    for (id, standing) in &standings {
        let r = standing.rating;
        let query = sqlx::query(set)
            .bind(r.rating)
            .bind(r.deviation)
            .bind(r.volatility);
        query.bind(id).execute(&mut *db).await.unwrap();
    }
    let start = LICHESS.start;
    sqlx::query(
        "UPDATE players SET rating = ?, deviation = ?, volatility = ? WHERE rated_at IS NULL",
    )
    .bind(start.rating)
    .bind(start.deviation)
    .bind(start.volatility)
    .execute(&mut *db)
    .await
    .unwrap();
    sqlx::query("UPDATE rating_parameters SET name = 'lichess', since = 0")
        .execute(&mut *db)
        .await
        .unwrap();
}

/// The store's re-ratings logged in `audit`.
async fn rerated(db: &mut sqlx::SqliteConnection) -> i64 {
    let audit = "SELECT COUNT(*) FROM audit WHERE action = 'ratings-rerate'";
    sqlx::query_scalar(audit).fetch_one(db).await.unwrap()
}

/// The upgrade to new rating parameters: two rated games and a player never rated, their
/// numbers as the old parameters stored them; the first open of the store re-rates every game
/// once (an audit row), after which every number is the new parameters' and `senet ratings
/// verify` exits 0 — and opening again re-rates nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_database_rated_under_old_parameters_is_re_rated_once_and_verifies() {
    use sqlx::Connection;
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    let server = TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
    let addr = server.addr;
    let (mut anna, anna_id) = player(addr, "Anna").await;
    let (mut boris, boris_id) = player(addr, "Boris").await;
    let (_, cleo_id) = player(addr, "Cleo").await;
    for _ in 0..2 {
        let (room, black_token, white_token) = rated_room(&mut anna, &mut boris).await;
        let mut black =
            Client::join_as(addr, &room, Some(&black_token), anna.cookie.as_deref()).await;
        let mut white =
            Client::join_as(addr, &room, Some(&white_token), boris.cookie.as_deref()).await;
        two_moves_each(&mut black, &mut white).await;
        black.ok("resign", Value::Null).await;
        white.wait_for("rated").await;
    }
    server.stop().await;
    let players = senet::players::store::open(&url).await.unwrap();
    let now_standing = |id: &str| {
        let players = players.clone();
        let id = id.to_owned();
        async move { players.player(&id).await.unwrap().unwrap().standing.rating }
    };
    let current = [
        now_standing(&anna_id).await,
        now_standing(&boris_id).await,
        now_standing(&cleo_id).await,
    ];
    assert_eq!(current[2], rating::START);
    drop(players);

    let mut db = sqlx::SqliteConnection::connect(&url).await.unwrap();
    as_rated_under_lichess(&mut db).await;
    let stored: (f64, f64) = sqlx::query_as("SELECT rating, volatility FROM players WHERE id = ?")
        .bind(&anna_id)
        .fetch_one(&mut db)
        .await
        .unwrap();
    assert_ne!(
        stored,
        (current[0].rating, current[0].volatility),
        "an old database"
    );
    assert_eq!(rerated(&mut db).await, 0);

    let (status, verdict) = ratings_verify(&url);
    assert_eq!(status, Some(0), "{verdict}");
    assert_eq!(verdict["consistent"], true, "{verdict}");
    assert_eq!(verdict["games"], 2, "{verdict}");
    assert_eq!(rerated(&mut db).await, 1);
    let players = senet::players::store::open(&url).await.unwrap();
    for (id, rating) in [&anna_id, &boris_id, &cleo_id].iter().zip(current) {
        let stored = players.player(id).await.unwrap().unwrap().standing.rating;
        assert_eq!(stored, rating, "bit for bit, {id}");
    }
    assert_eq!(rerated(&mut db).await, 1, "re-rated once");
    let (status, verdict) = ratings_verify(&url);
    assert_eq!(status, Some(0), "{verdict}");
}
