//! Every earlier release's database opens with this code and loses nothing (issue 47).
//!
//! `tests/fixtures/releases/<version>/` holds, for each release CHANGELOG.md names, a SQLite
//! database and a PostgreSQL dump written by that release's own binary
//! (`scripts/make-fixture.sh`), with the manifest of what it holds. Each is opened by a server
//! of the current code, which migrates it, and then: every room is still there under its id
//! with its last version and position; every finished game's record verifies (`senet verify`)
//! with the same result and as many events; every player keeps their name, rating and record,
//! and their cookie still names them; `senet ratings verify` finds the stored ratings
//! consistent; the bans in force still hold and the audit log keeps its rows; the games left
//! in progress continue from their last event (their players say hello with the tokens they
//! had and play on), a timed one with the time each side had when its server stopped.

mod common;
#[allow(dead_code)]
mod postgres_support;

use std::path::{Path, PathBuf};

use common::{Client, TestServer, admin, http, ratings_verify, record, verify_accepted};
use serde_json::{Value, json};

/// The schema name scripts/make-fixture.sh dumps under.
const DUMP_SCHEMA: &str = "senet_fixture";

fn releases() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/releases");
    let mut releases: Vec<PathBuf> = std::fs::read_dir(&root)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    releases.sort();
    assert!(
        !releases.is_empty(),
        "no release fixtures in {}",
        root.display()
    );
    releases
}

fn manifest(release: &Path, store: &str) -> Value {
    let path = release.join(format!("manifest-{store}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

#[tokio::test]
async fn every_release_sqlite_database_opens_and_loses_nothing() {
    for release in releases() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("senet.db");
        std::fs::copy(release.join("senet.sqlite"), &file).unwrap();
        let url = format!("sqlite://{}", file.display());
        let server = TestServer::start_on(dir, url.clone(), |_| {}).await;
        keeps_everything(&server, &url, &manifest(&release, "sqlite")).await;
        server.stop().await;
    }
}

#[tokio::test]
#[cfg_attr(
    senet_no_test_postgres,
    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
)]
async fn every_release_postgres_dump_opens_and_loses_nothing() {
    for release in releases() {
        postgres_support::in_fresh_schema(|url| async move {
            load_dump(&url, &release.join("postgres.sql"));
            let server =
                TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {}).await;
            keeps_everything(&server, &url, &manifest(&release, "postgres")).await;
            server.stop().await;
        })
        .await;
    }
}

/// Loads a release's dump into the (empty) schema `url` names, with psql: the dump is psql's
/// script (`\restrict`, COPY-free INSERTs), under the schema name it was made with.
fn load_dump(url: &str, dump: &Path) {
    let schema = url.rsplit("search_path%3D").next().unwrap();
    let server = url.split('?').next().unwrap();
    let script = std::fs::read_to_string(dump)
        .unwrap()
        .replace(&format!("CREATE SCHEMA {DUMP_SCHEMA};"), "")
        .replace(&format!("{DUMP_SCHEMA}."), &format!("{schema}."));
    let mut psql = std::process::Command::new("psql")
        .args(["-q", "-v", "ON_ERROR_STOP=1", server])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("psql (PostgreSQL's client) loads the release dumps");
    use std::io::Write;
    psql.stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    assert!(
        psql.wait().unwrap().success(),
        "psql could not load {}",
        dump.display()
    );
}

async fn keeps_everything(server: &TestServer, url: &str, manifest: &Value) {
    for room in manifest["rooms"].as_array().unwrap() {
        room_kept(server, room).await;
    }
    for (id, player) in manifest["players"].as_object().unwrap() {
        player_kept(server, id, player).await;
    }
    let (code, verdict) = ratings_verify(url);
    assert_eq!(code, Some(0), "senet ratings verify: {verdict}");
    operators_kept(url, manifest).await;
    for room in manifest["rooms"].as_array().unwrap() {
        if room["what"] != "finished" {
            plays_on(server, room).await;
        }
    }
}

/// The room is there under its id, at its last version and position; a finished one's record
/// verifies, with the result and the events it had.
async fn room_kept(server: &TestServer, room: &Value) {
    let id = room["room"].as_str().unwrap();
    let (status, summary) = http(server.addr, "GET", &format!("/api/rooms/{id}"), None).await;
    assert_eq!(status, 200, "room {id}: {summary}");
    assert_eq!(summary["result"], room["summary"]["result"], "room {id}");
    assert_eq!(summary["mode"], room["summary"]["mode"], "room {id}");
    let watcher = Client::join(server.addr, id, None).await;
    assert_eq!(
        watcher.state["v"],
        last_v(room, server).await,
        "room {id}'s version"
    );
    assert_eq!(
        watcher.state["position"], room["position"],
        "room {id}'s position"
    );
    clock_kept(room, &watcher.state);
    watcher.close().await;
    if room["what"] == "finished" {
        let record = record(server.addr, id).await;
        assert_eq!(
            record["events"].as_array().unwrap().len() as u64,
            room["events"]
        );
        let verdict = verify_accepted(&record).await;
        assert_eq!(verdict["room"], id);
    }
}

/// The version a room must be at: the manifest's, and one more for a timed game in progress,
/// whose clock the new server took up again (a `resumed` event, the time kept).
async fn last_v(room: &Value, server: &TestServer) -> u64 {
    let kept = room["last_v"].as_u64().unwrap();
    if room["what"] != "timed-in-progress" {
        return kept;
    }
    let id = room["room"].as_str().unwrap();
    let (_, summary) = http(server.addr, "GET", &format!("/api/rooms/{id}"), None).await;
    assert_eq!(summary["status"], "playing", "{summary}");
    kept + 1
}

/// The room's state once a person is to act: the computer of a game against it, left to move,
/// moves as soon as the room is loaded.
async fn human_turn(client: &mut Client, id: &str) -> Value {
    for _ in 0..100 {
        let state = client.sync().await;
        if state["mode"] != "ai" || state["turn"] == client.seat.as_str() {
            return state;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    panic!("room {id}: the computer did not play its turn");
}

/// A timed game's clocks are where its server left them when it stopped: the days the database
/// waited for the upgrade are charged to nobody. The side whose clock is stopped has exactly its
/// time; the running one may differ by the seconds its servers ran while the manifest was read
/// and this test looked.
fn clock_kept(room: &Value, state: &Value) {
    if state["clock"].is_null() {
        assert!(
            room["clock"].is_null(),
            "room {}: its clock is gone",
            room["room"]
        );
        return;
    }
    let running = state["clock"]["running"].as_str();
    for side in ["black", "white"] {
        let was = room["clock"]["remaining"][side].as_i64().unwrap();
        let is = state["clock"]["remaining"][side].as_i64().unwrap();
        let slack = if running == Some(side) { 10_000 } else { 0 };
        assert!(
            (was - is).abs() <= slack,
            "room {}: {side}'s clock was {was} ms, is {is}",
            room["room"]
        );
    }
}

/// Their page shows the same name, rating and record, and their cookie still names them.
async fn player_kept(server: &TestServer, id: &str, player: &Value) {
    let (status, page) = http(server.addr, "GET", &format!("/api/players/{id}"), None).await;
    assert_eq!(status, 200, "player {id}: {page}");
    for field in [
        "name",
        "rating",
        "deviation",
        "wins",
        "losses",
        "draws",
        "named",
    ] {
        assert_eq!(page[field], player["page"][field], "player {id}'s {field}");
    }
    let mut browser = common::Browser::new(server.addr);
    browser.cookie = Some(player["cookie"].as_str().unwrap().to_string());
    let me = browser.call("GET", "/api/me", None).await;
    assert_eq!(
        (me.status, &me.body["id"]),
        (200, &json!(id)),
        "player {id}'s cookie"
    );
}

/// The bans in force are in force, the audit log has every row it had.
async fn operators_kept(url: &str, manifest: &Value) {
    let (code, bans, stderr) = admin(url, &["bans"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(bans, manifest["bans"]);
    let (code, audit, stderr) = admin(url, &["audit", "--limit", "1000"]).await;
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(audit, manifest["audit"]);
}

/// Each seat's player says hello with the token they had, finds the game where they left it
/// and plays its next action.
async fn plays_on(server: &TestServer, room: &Value) {
    let id = room["room"].as_str().unwrap();
    let mut seats = Vec::new();
    for (side, token) in room["tokens"].as_object().unwrap() {
        let cookie = room["cookies"][side].as_str();
        seats.push(Client::join_as(server.addr, id, token.as_str(), cookie).await);
    }
    let state = human_turn(&mut seats[0], id).await;
    let turn = state["turn"].as_str().unwrap();
    let mover = seats
        .iter_mut()
        .find(|client| client.seat == turn || client.seat == "both")
        .unwrap_or_else(|| panic!("room {id}: no seat for {turn} in {state}"));
    let action = match state["phase"].as_str().unwrap() {
        "roll" => ("roll", Value::Null),
        "move" => ("move", json!({"from": state["legal"][0]["from"]})),
        phase => panic!("room {id}: phase {phase}"),
    };
    let events = mover.ok(action.0, action.1).await;
    assert!(!events.is_empty(), "room {id}: {} made no event", action.0);
    assert!(
        mover.last_v() > room["last_v"].as_u64().unwrap(),
        "room {id}"
    );
    for seat in seats {
        seat.close().await;
    }
}

/// `senet migrate --check` on a release's database says what a start would apply and changes
/// nothing; `senet migrate` applies it, after which a check finds nothing to do.
#[tokio::test]
async fn migrate_check_says_what_a_start_would_apply_and_changes_nothing() {
    let release = releases().into_iter().next().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("senet.db");
    std::fs::copy(release.join("senet.sqlite"), &file).unwrap();
    let url = format!("sqlite://{}", file.display());
    let before = std::fs::read(&file).unwrap();
    let (code, check) = senet(&["migrate", "--check", "--database-url", &url]).await;
    assert_eq!(
        (code, &check["start"]),
        (0, &json!("would_migrate")),
        "{check}"
    );
    let pending = check["pending"].as_array().unwrap();
    assert!(pending.iter().any(|m| m["version"] == 370), "{check}");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "--check changed the database"
    );
    let (code, done) = senet(&["migrate", "--database-url", &url]).await;
    assert_eq!(
        (code, &done["start"], &done["pending"]),
        (0, &json!("migrated"), &check["pending"])
    );
    let (code, again) = senet(&["migrate", "--check", "--database-url", &url]).await;
    assert_eq!(
        (code, &again["start"]),
        (0, &json!("up_to_date")),
        "{again}"
    );
}

/// A migration of a newer release that this binary does not know (expand only, by the rules)
/// does not stop it: an older instance restarting during a rolling update comes back. A
/// contract naming a later release does: `migrate --check` and `serve` refuse, saying which
/// release is needed.
async fn newer_schema_runs_until_a_contract_says_otherwise(url: String) {
    TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {})
        .await
        .stop()
        .await;
    execute(
        &url,
        "INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time) \
         VALUES (99990, 'a newer release', TRUE, X'00', 0)",
    )
    .await;
    let (code, check) = senet(&["migrate", "--check", "--database-url", &url]).await;
    assert_eq!((code, &check["newer"]), (0, &json!([99990])), "{check}");
    TestServer::start_on(tempfile::tempdir().unwrap(), url.clone(), |_| {})
        .await
        .stop()
        .await;

    execute(
        &url,
        "INSERT INTO schema_contracts (migration, oldest_release, why) \
         VALUES (99990, '99.0.0', 'a column dropped')",
    )
    .await;
    let (code, check) = senet(&["migrate", "--check", "--database-url", &url]).await;
    assert_eq!((code, &check["start"]), (1, &json!("refused")), "{check}");
    let stderr = common::serve_refused(env!("CARGO_BIN_EXE_senet"), &url).await;
    assert!(stderr.contains("needs senet 99.0.0 or later"), "{stderr}");
}

#[tokio::test]
async fn newer_sqlite_schema_runs_until_a_contract_says_otherwise() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("senet.db").display());
    newer_schema_runs_until_a_contract_says_otherwise(url).await;
}

postgres_support::postgres_tests!(newer_schema_runs_until_a_contract_says_otherwise);

/// Runs one statement on the database `url` names.
async fn execute(url: &str, sql: &'static str) {
    if url.starts_with("sqlite:") {
        let pool = sqlx::SqlitePool::connect(url).await.unwrap();
        sqlx::query(sql).execute(&pool).await.unwrap();
        pool.close().await;
    } else {
        let pool = sqlx::PgPool::connect(url).await.unwrap();
        let sql = sql.replace("X'00'", "decode('00', 'hex')");
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .execute(&pool)
            .await
            .unwrap();
        pool.close().await;
    }
}

/// `senet <args>`: its exit code and the JSON it printed.
async fn senet(args: &[&str]) -> (i32, Value) {
    let output = tokio::process::Command::new(env!("CARGO_BIN_EXE_senet"))
        .args(args)
        .output()
        .await
        .unwrap();
    let printed = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "senet {args:?}: {e}: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output.status.code().unwrap(), printed)
}

/// Every migration after the first release follows docs/UPGRADES.md: it expands the schema (new
/// tables, indexes, nullable columns or columns with a default), or, contracting it (a drop, a
/// rename, a changed column), names in `schema_contracts` the oldest release that still runs.
#[tokio::test]
async fn migrations_after_the_first_release_only_expand_or_say_who_may_run() {
    let first = releases().into_iter().next().unwrap();
    let url = format!("sqlite://{}?mode=ro", first.join("senet.sqlite").display());
    let pool = sqlx::SqlitePool::connect(&url).await.unwrap();
    let released: Vec<i64> = sqlx::query_scalar("SELECT version FROM _sqlx_migrations")
        .fetch_all(&pool)
        .await
        .unwrap();
    pool.close().await;
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    let mut checked = 0;
    for backend in ["sqlite", "postgres"] {
        for entry in std::fs::read_dir(root.join(backend)).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            let version: i64 = name.split('_').next().unwrap().parse().unwrap();
            if released.contains(&version) {
                continue;
            }
            let sql = std::fs::read_to_string(&path).unwrap();
            if let Some(problem) = breaks_older_readers(&sql) {
                panic!("{backend}/{name}: {problem} (docs/UPGRADES.md)");
            }
            checked += 1;
        }
    }
    assert!(
        checked >= 2,
        "no migration after the first release was checked"
    );
}

/// Why a migration would break a release that does not know it, if it would.
fn breaks_older_readers(sql: &str) -> Option<String> {
    let statements = sql
        .lines()
        .map(|line| line.split("--").next().unwrap().to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    let names_its_readers = statements.contains("insert into schema_contracts");
    let contracting = [
        "drop table",
        "drop column",
        "rename",
        "alter column",
        "drop index",
    ];
    if let Some(word) = contracting.iter().find(|word| statements.contains(*word)) {
        return (!names_its_readers).then(|| format!("`{word}` without a row in schema_contracts"));
    }
    statements.split(';').find_map(|statement| {
        let adds_required = statement.contains("add column")
            && statement.contains("not null")
            && !statement.contains("default");
        adds_required.then(|| format!("a NOT NULL column without a default: {}", statement.trim()))
    })
}

#[test]
fn the_migration_rules_catch_a_contract_and_a_required_column() {
    assert!(breaks_older_readers("ALTER TABLE rooms DROP COLUMN seed;").is_some());
    assert!(breaks_older_readers("ALTER TABLE rooms RENAME TO games;").is_some());
    assert!(breaks_older_readers("ALTER TABLE rooms ADD COLUMN x TEXT NOT NULL;").is_some());
    assert!(
        breaks_older_readers("ALTER TABLE rooms ADD COLUMN x TEXT NOT NULL DEFAULT '';").is_none()
    );
    assert!(
        breaks_older_readers("CREATE TABLE t (a TEXT NOT NULL); -- drop table later").is_none()
    );
    let contract = "ALTER TABLE rooms DROP COLUMN seed;\n\
                    INSERT INTO schema_contracts VALUES (500, '0.3.0', 'seed moved');";
    assert!(breaks_older_readers(contract).is_none());
}

/// Every `welcome` says which protocol the server speaks, so a page opened before an upgrade
/// knows the server changed under it; 0.1.0's said nothing (read as 1).
#[tokio::test]
async fn welcome_says_the_protocol_version() {
    let server = TestServer::start().await;
    let (room, _token, _) = common::seated_room(server.addr).await;
    let mut client = Client::connect(server.addr, &room).await;
    client.send(json!({"t": "hello"})).await;
    let welcome = client.next_reply().await;
    assert_eq!(welcome["t"], "welcome", "{welcome}");
    assert_eq!(welcome["d"]["protocol"], senet::protocol::PROTOCOL);
    const { assert!(senet::protocol::PROTOCOL >= 2, "0.1.0 spoke protocol 1") };
    let generated = std::fs::read_to_string("web/js/protocol.js").unwrap();
    assert!(generated.contains(&format!(
        "export const PROTOCOL = {};",
        senet::protocol::PROTOCOL
    )));
}
