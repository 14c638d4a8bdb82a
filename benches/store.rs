//! Store speed: appending one event — what every action pays before anyone
//! sees it — on SQLite and on PostgreSQL (where the append also notifies),
//! and how long another instance's listener takes to hear of it. The
//! PostgreSQL parts run when `SENET_TEST_POSTGRES_URL` is set, in a schema
//! of their own. Run with `cargo bench --bench store`.

#[path = "../tests/postgres_support/mod.rs"]
#[allow(dead_code)] // the tests' helpers beyond `TestSchema`
mod postgres_support;

use criterion::{Criterion, criterion_group, criterion_main};
use postgres_support::TestSchema;
use senet::protocol::{Mode, Version};
use senet::store::{Listener, News};
use senet::store::{RoomRow, Store, StoredEvent};
use tokio::runtime::Runtime;
use tokio_util::sync::CancellationToken;

fn runtime() -> Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

fn postgres_configured() -> bool {
    let set = std::env::var("SENET_TEST_POSTGRES_URL").is_ok_and(|url| !url.is_empty());
    if !set {
        println!("skipped PostgreSQL benchmarks: SENET_TEST_POSTGRES_URL not set");
    }
    set
}

/// A new room in `store` and the next version to append to it.
fn new_room(runtime: &Runtime, store: &Store) -> (String, Version) {
    let id = senet::secrets::new_room_id();
    let row = RoomRow {
        id: id.clone(),
        mode: Mode::Online,
        seed: [0; 32],
        created_at: 0,
        black: None,
        white: None,
        clock: None,
    };
    runtime
        .block_on(store.log.create_room(&row, &[], None))
        .unwrap();
    (id, 1)
}

/// An event the size of a typical `moved`.
fn event(v: Version) -> StoredEvent {
    StoredEvent {
        v,
        at: 0,
        kind: "moved".into(),
        data: r#"{"side":"black","from":10,"to":13,"effect":"step","position":"WBWBWBWBW..B.................. w","next":"white","extra":false}"#.into(),
    }
}

fn bench_appends(c: &mut Criterion, runtime: &Runtime, name: &str, store: Store) {
    let (room, mut v) = new_room(runtime, &store);
    c.bench_function(&format!("append one event/{name}"), |b| {
        b.iter(|| {
            runtime
                .block_on(store.log.append(&room, &[event(v)], None))
                .unwrap();
            v += 1;
        })
    });
}

fn appends(c: &mut Criterion) {
    let runtime = runtime();
    let dir = tempfile::tempdir().unwrap();
    let url = format!("sqlite://{}", dir.path().join("bench.db").display());
    let sqlite = runtime.block_on(senet::store::open(&url)).unwrap();
    bench_appends(c, &runtime, "sqlite", sqlite);
    if postgres_configured() {
        let schema = runtime.block_on(TestSchema::create());
        let postgres = runtime.block_on(senet::store::open(&schema.url)).unwrap();
        bench_appends(c, &runtime, "postgres", postgres);
        runtime.block_on(schema.drop_schema());
    }
}

/// From the start of an append on one connection until a listener (as
/// another instance runs) hears of it.
fn notify_round_trip(c: &mut Criterion) {
    if !postgres_configured() {
        return;
    }
    let runtime = runtime();
    let schema = runtime.block_on(TestSchema::create());
    let store = runtime.block_on(senet::store::open(&schema.url)).unwrap();
    let (room, mut v) = new_room(&runtime, &store);
    let shutdown = CancellationToken::new();
    let listener = {
        let _context = runtime.enter();
        Listener::start(&schema.url, shutdown.clone())
    };
    let mut news = listener.subscribe();
    // Listening once the first Resync arrives.
    assert_eq!(runtime.block_on(news.recv()), Some(News::Resync));
    c.bench_function("append until heard/postgres", |b| {
        b.iter(|| {
            runtime.block_on(async {
                store.log.append(&room, &[event(v)], None).await.unwrap();
                loop {
                    match news.recv().await.unwrap() {
                        News::Appended { room: r, v: heard } if r == room && heard == v => break,
                        _ => {}
                    }
                }
            });
            v += 1;
        })
    });
    shutdown.cancel();
    runtime.block_on(schema.drop_schema());
}

criterion_group!(benches, appends, notify_round_trip);
criterion_main!(benches);
