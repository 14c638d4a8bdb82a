//! The HTTP and WebSocket front: [`app`] builds the router, [`Server`] binds
//! and runs it with graceful shutdown.
//!
//! Shutdown (SIGTERM, Ctrl-C or a cancelled token): stop accepting, close
//! every WebSocket with 1012, let room tasks finish the command they are
//! writing, then return. Everything a client saw was committed before.
//!
//! [`limits`] and [`origin`] decide which WebSocket handshakes proceed (connection caps, the
//! page's origin) and size the sockets; [`ops`] answers `/readyz` and `/metrics`.

pub mod error;
pub mod http;
pub mod limits;
pub mod ops;
pub mod origin;
pub mod ws;

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};
use axum::serve::ListenerExt;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::trace::TraceLayer;

use crate::config::Config;
use crate::room::Rooms;
use crate::store::Listener;

/// Largest HTTP request body accepted.
const MAX_BODY_BYTES: usize = 4 * 1024;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub rooms: Rooms,
    /// Cancelled when the server shuts down.
    pub shutdown: CancellationToken,
    /// Tracks connection and room tasks so shutdown can wait for them.
    pub tracker: TaskTracker,
    /// Messages one connection may send per second before it is closed.
    pub max_messages_per_second: usize,
    /// How often each WebSocket is pinged to notice peers that vanished.
    pub ping_every: std::time::Duration,
    /// Which WebSocket handshakes proceed, and socket buffer sizes.
    pub gate: Arc<limits::Gate>,
    /// Renders `GET /metrics`.
    pub metrics: metrics_exporter_prometheus::PrometheusHandle,
}

pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/api/rooms", post(http::create_room))
        .route("/api/rooms/{id}", get(http::room_summary))
        .route("/api/rooms/{id}/join", post(http::join_room))
        .route("/api/rooms/{id}/record", get(http::room_record))
        .route("/api/rooms/{id}/analysis", get(http::room_analysis))
        .route("/ws/rooms/{id}", get(ws::upgrade))
        .route("/healthz", get(http::healthz))
        .route("/readyz", get(ops::readyz))
        .route("/metrics", get(ops::metrics))
        .with_state(state)
        // The web client's pages (`/`, `/r/{id}`, assets) from src/web.rs:
        .merge(crate::web::router())
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(TraceLayer::new_for_http())
}

/// A bound server, not yet running: tests read its address first.
pub struct Server {
    listener: TcpListener,
    state: AppState,
}

impl Server {
    /// Opens the database (migrating it) and binds the listener.
    pub async fn bind(config: &Config, shutdown: CancellationToken) -> anyhow::Result<Server> {
        let store = crate::store::open(&config.database_url).await?;
        let tracker = TaskTracker::new();
        let rooms = Rooms::new(
            store,
            config.room_config(),
            tracker.clone(),
            shutdown.clone(),
        );
        // Other instances on the same PostgreSQL append to rooms held here.
        rooms.follow(Listener::start(&config.database_url, shutdown.clone()).subscribe());
        let listener = TcpListener::bind(&config.listen).await?;
        Ok(Server {
            listener,
            state: AppState {
                rooms,
                shutdown,
                tracker,
                max_messages_per_second: config.max_messages_per_second,
                ping_every: config.ping_interval,
                gate: Arc::new(limits::Gate::new(&config.connections)),
                metrics: crate::telemetry::prometheus(),
            },
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    pub fn rooms(&self) -> &Rooms {
        &self.state.rooms
    }

    /// Serves until the shutdown token is cancelled, then drains.
    pub async fn run(self) -> anyhow::Result<()> {
        let shutdown = self.state.shutdown.clone();
        let tracker = self.state.tracker.clone();
        // Frames are small and interactive: send them at once, not after
        // Nagle's algorithm waits for the peer's delayed ack.
        let listener = self.listener.tap_io(|tcp| {
            if let Err(error) = tcp.set_nodelay(true) {
                tracing::warn!(%error, "could not set TCP_NODELAY");
            }
        });
        // The peer's address is what the per-address connection cap counts.
        let app = app(self.state).into_make_service_with_connect_info::<SocketAddr>();
        axum::serve(listener, app)
            .with_graceful_shutdown(shutdown.cancelled_owned())
            .await?;
        tracker.close();
        tracker.wait().await;
        Ok(())
    }
}

/// `senet serve`: bind, print the URL, run until `shutdown`.
pub async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    let server = Server::bind(&config, shutdown).await?;
    println!("listening on http://{}", server.local_addr()?);
    server.run().await
}
