//! Web Push (issue 46) end to end against a real local push service, the npm package
//! `web-push-testing` (e2e/package.json; `npm ci` in e2e/ installs it): a correspondence game's
//! turn passing to a player delivers an RFC 8291-encrypted, VAPID-signed message, which the
//! service decrypts to the expected payload (the room's path and the opponent's name, no
//! secret); a subscription the service answers 410 for is removed; bad subscriptions and an
//! 11th device are refused in words.

mod common;

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::{Browser, Client, TestServer, play_turn};
use serde_json::{Value, json};

/// `web-push-testing` on a free port, killed when dropped.
struct PushService {
    child: Child,
    url: String,
}

impl Drop for PushService {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl PushService {
    async fn start() -> PushService {
        let script = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("e2e/node_modules/web-push-testing/src/bin/server.js");
        assert!(
            script.exists(),
            "{} is missing: run `npm ci` in e2e/",
            script.display()
        );
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let child = Command::new("node")
            .arg(&script)
            .arg(port.to_string())
            .stdout(Stdio::null())
            .spawn()
            .expect("node runs web-push-testing");
        let service = PushService {
            child,
            url: format!("http://localhost:{port}"),
        };
        for _ in 0..100 {
            if service.post("/status", json!({})).await.0 == 200 {
                return service;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("web-push-testing did not start on port {port}");
    }

    async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        use http_body_util::{BodyExt, Full};
        use hyper::body::Bytes;
        use hyper_util::client::legacy::Client;
        use hyper_util::rt::TokioExecutor;

        let client = Client::builder(TokioExecutor::new()).build_http();
        let request = hyper::Request::post(format!("{}{path}", self.url))
            .header(hyper::header::CONTENT_TYPE, "application/json")
            .body(Full::new(Bytes::from(body.to_string())))
            .unwrap();
        let Ok(response) = client.request(request).await else {
            return (0, Value::Null);
        };
        let status = response.status().as_u16();
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(Value::Null),
        )
    }

    /// A new subscription for `key` (the server's VAPID public key), as a browser would have.
    async fn subscribe(&self, key: &str) -> Value {
        let (status, answer) = self
            .post("/subscribe", json!({"applicationServerKey": key}))
            .await;
        assert_eq!(status, 200, "{answer}");
        answer["data"].clone()
    }

    /// The decrypted messages the subscription `hash` received.
    async fn messages(&self, hash: &str) -> Vec<Value> {
        let (status, answer) = self
            .post("/get-notifications", json!({"clientHash": hash}))
            .await;
        assert_eq!(status, 200, "{answer}");
        answer["data"]["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|text| serde_json::from_str(text.as_str().unwrap()).unwrap())
            .collect()
    }
}

async fn player(addr: SocketAddr, name: &str) -> Browser {
    let mut browser = Browser::new(addr);
    assert_eq!(browser.call("POST", "/api/me", None).await.status, 201);
    let named = browser
        .call("PUT", "/api/me/name", Some(json!({ "name": name })))
        .await;
    assert_eq!(named.status, 200, "{}", named.body);
    browser
}

fn refused(answer: &common::Answer) -> (u16, &str) {
    (answer.status, answer.body["error"].as_str().unwrap_or(""))
}

async fn subscriptions(server: &TestServer) -> i64 {
    let url = format!("sqlite://{}", server.dir.path().join("senet.db").display());
    let mut db = <sqlx::SqliteConnection as sqlx::Connection>::connect(&url)
        .await
        .unwrap();
    sqlx::query_scalar("SELECT COUNT(*) FROM push_subscriptions")
        .fetch_one(&mut db)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_turn_is_pushed_encrypted_and_a_gone_subscription_is_removed() {
    let service = PushService::start().await;
    let server = TestServer::start_with(|config| config.push.push_allow_http = true).await;
    let addr = server.addr;
    let mut anna = player(addr, "Anna").await;
    let mut boris = player(addr, "Boris").await;
    let key = Browser::new(addr).call("GET", "/api/push/key", None).await;
    assert_eq!(key.status, 200);
    let key = key.body["key"].as_str().unwrap().to_owned();
    let device = service.subscribe(&key).await;
    let hash = device["clientHash"].as_str().unwrap().to_owned();

    // Refusals, in words: not a subscription; no identity; an 11th device.
    let sub = |endpoint: &str, keys: &Value| json!({"endpoint": endpoint, "keys": keys});
    let keys = device["keys"].clone();
    for bad in [
        sub("ftp://push.example/1", &keys),
        sub(
            "https://push.example/1",
            &json!({"p256dh": "AAAA", "auth": keys["auth"]}),
        ),
        sub(
            "https://push.example/1",
            &json!({"p256dh": keys["p256dh"], "auth": "AAAA"}),
        ),
        sub(&format!("https://push.example/{}", "x".repeat(1024)), &keys),
    ] {
        let answer = anna.call("POST", "/api/me/push", Some(bad.clone())).await;
        assert_eq!(refused(&answer), (400, "bad_subscription"), "{bad}");
    }
    let nobody = Browser::new(addr)
        .call("POST", "/api/me/push", Some(device.clone()))
        .await;
    assert_eq!(refused(&nobody), (404, "no_player"));
    let real = sub(device["endpoint"].as_str().unwrap(), &keys);
    assert_eq!(
        anna.call("POST", "/api/me/push", Some(real.clone()))
            .await
            .status,
        201
    );
    // The same device again replaces its row.
    assert_eq!(
        anna.call("POST", "/api/me/push", Some(real.clone()))
            .await
            .status,
        201
    );
    let others: Vec<Value> = (1..10)
        .map(|i| sub(&format!("https://push.example/{i}"), &keys))
        .collect();
    for other in &others {
        assert_eq!(
            anna.call("POST", "/api/me/push", Some(other.clone()))
                .await
                .status,
            201
        );
    }
    let eleventh = sub("https://push.example/11", &keys);
    let answer = anna.call("POST", "/api/me/push", Some(eleventh)).await;
    assert_eq!(
        refused(&answer),
        (429, "too_many_subscriptions"),
        "{}",
        answer.body
    );
    for other in &others {
        let gone = anna
            .call("DELETE", "/api/me/push", Some(other.clone()))
            .await;
        assert_eq!(gone.status, 204);
    }
    assert_eq!(subscriptions(&server).await, 1);

    // A correspondence game starts with Anna to move: her device is told.
    let body = json!({"mode": "online", "side": "black", "clock": {"days": 3}});
    let created = anna.call("POST", "/api/rooms", Some(body)).await;
    let room = created.body["room"].as_str().unwrap().to_owned();
    let joined = boris
        .call("POST", &format!("/api/rooms/{room}/join"), Some(json!({})))
        .await;
    let (black_token, white_token) = (
        created.body["token"].as_str().unwrap().to_owned(),
        joined.body["token"].as_str().unwrap().to_owned(),
    );
    let mut black = Client::join_as(addr, &room, Some(&black_token), anna.cookie.as_deref()).await;
    let mut white = Client::join_as(addr, &room, Some(&white_token), boris.cookie.as_deref()).await;
    let mut messages = Vec::new();
    for _ in 0..100 {
        messages = service.messages(&hash).await;
        if !messages.is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        messages,
        vec![json!({"room": format!("/r/{room}"), "opponent": "Boris"})]
    );
    let text = serde_json::to_string(&messages).unwrap();
    for secret in [&black_token, &white_token, anna.cookie.as_ref().unwrap()] {
        assert!(!text.contains(secret.as_str()), "a secret in {text}");
    }

    // The device unsubscribed at the push service: the next push meets 410 and removes it.
    let (status, _) = service
        .post(&format!("/expire-subscription/{hash}"), json!({}))
        .await;
    assert_eq!(status, 200);
    play_turn(&mut black, "black").await;
    play_turn(&mut white, "white").await;
    for _ in 0..100 {
        if subscriptions(&server).await == 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(subscriptions(&server).await, 0);
    assert_eq!(service.messages(&hash).await.len(), 1);
    black.close().await;
    white.close().await;
    server.stop().await;
}
