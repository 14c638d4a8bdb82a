//! The HTTP and WebSocket front: [`app`] builds the router, [`Server`] binds
//! and runs it with graceful shutdown behind our own accept loop ([`edge`]).
//!
//! Shutdown (SIGTERM, Ctrl-C or a cancelled token): pause the clock of every player on turn
//! connected here (`Rooms::pause_clocks`, at most half the grace), then stop accepting, close
//! every WebSocket with 1012, let room tasks finish the command they are
//! writing, then return; after `--shutdown-grace` return anyway, so a peer that never finishes
//! its request cannot keep the process up until the orchestrator's SIGKILL. Everything a client
//! saw was committed before.
//!
//! [`limits`] and [`origin`] decide which WebSocket handshakes proceed (connection caps, the
//! page's origin) and size the sockets; [`ops`] answers `/readyz` and `/metrics` (the latter on
//! `--metrics-listen` only, loopback by default).
//!
//! A server listening beyond loopback must be told its public origin (`--public-origin`): without
//! it the origin check believes the `Host` header, which a DNS-rebinding page chooses, so
//! [`Server::bind`] refuses to start.

pub mod classes;
pub mod config;
pub mod counts;
pub mod edge;
pub mod error;
mod flags;
pub mod game_puzzles;
pub mod http;
pub mod identity;
pub mod limits;
pub mod lobby;
pub mod ops;
pub mod origin;
pub mod player_pages;
pub mod push;
pub mod puzzles;
pub mod refusals;
pub mod seating;
pub mod social;
pub mod socket;
pub mod tournament_socket;
pub mod tournaments;
pub mod ws;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::header::{CACHE_CONTROL, X_CONTENT_TYPE_OPTIONS};
use axum::http::{HeaderValue, StatusCode};
use axum::middleware::from_fn_with_state;
use axum::routing::{delete, get, post, put};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::timeout::TimeoutLayer;
use tower_http::trace::TraceLayer;

use self::config::Config;
use crate::lobby::Lobby;
use crate::players::push::Push;
use crate::players::store::PlayerStore;
use crate::room::Rooms;
use crate::store::Listener;

/// Largest HTTP request body accepted.
const MAX_BODY_BYTES: usize = 4 * 1024;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub rooms: Rooms,
    /// Seeks, quick pairing and the live list (`/api/seeks`, `/api/pairing`, `/ws/lobby`).
    pub lobby: Lobby,
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
    /// Room creations and joins per client address.
    pub quotas: Arc<edge::Quotas>,
    /// The operators' bans in force (`senet admin ban`), refused before any handler.
    pub bans: Arc<edge::BanList>,
    /// Chat time-outs and reports (issue 33), on the operators' tables.
    pub moderation: crate::store::bans::BanStore,
    /// Players, names and ratings (`/api/me`, seats bound to players, rated games).
    pub players: Arc<dyn PlayerStore>,
    /// Web Push: the VAPID key and the devices' subscriptions (`/api/push/key`, `/api/me/push`).
    pub push: Arc<Push>,
    /// Puzzle ratings and the key puzzle tickets are signed with (`/api/puzzles`).
    pub puzzles: Arc<puzzles::Puzzles>,
    /// Player cookies are `Secure`: `--public-origin` is https.
    pub secure_cookies: bool,
    /// The tournaments this instance directs (issue 45).
    pub directors: crate::tournament::director::Directors,
    /// The tournaments followed by pages' sockets here (`/ws/tournaments/{id}`).
    pub tournament_views: Arc<tournament_socket::Views>,
    /// The last reading of `GET /api/counts`, answered for a few seconds.
    pub counts: Arc<counts::LastCounts>,
    /// `--kiosk`: the home page `/` is the museum kiosk.
    pub kiosk: bool,
    /// `--kiosk-idle`: the kiosk's seconds without a touch before "still playing?".
    pub kiosk_idle: u32,
    /// Classes, their pupils and games (issue 50, `server::classes`).
    pub classes: Arc<crate::class::ClassStore>,
    /// `--class-retention`: how long a new class is kept.
    pub class_retention: Duration,
    /// Challenges, follows and blocks (issue 46), and who hears of their challenges live.
    pub challenges: crate::lobby::challenges::Challenges,
}

/// The routes; every request (a WebSocket's handshake, not its life) ends within
/// `request_timeout` or is answered 408. `/metrics` is not among them: it has a listener of its
/// own ([`metrics_app`]), so that no proxy in front passes it to the internet.
pub fn app(state: AppState, request_timeout: Duration) -> Router {
    // The quotas per client address, as route layers: no handler takes from them itself.
    let creating = Router::new()
        .route("/api/rooms", post(http::create_room))
        .route("/api/seeks", post(lobby::post_seek))
        .route("/api/pairing", post(lobby::pair))
        .route("/api/tournaments", post(tournaments::create))
        // What a teacher starts for a whole class: each at most one game per pupil.
        .route("/api/classes", post(classes::create))
        .route("/api/classes/{id}/pair", post(classes::pair))
        .route("/api/classes/{id}/computer", post(classes::computer))
        .route("/api/challenges", post(social::post))
        .route_layer(from_fn_with_state(
            state.quotas.create.clone(),
            edge::quota::enforce,
        ));
    let joining = Router::new()
        .route("/api/rooms/{id}/join", post(http::join_room))
        .route("/api/seeks/{id}/take", post(lobby::take_seek))
        .route("/api/challenges/{id}/accept", post(social::accept))
        .route_layer(from_fn_with_state(
            state.quotas.join.clone(),
            edge::quota::enforce,
        ));
    // Creating a player and redeeming a transfer code (which guessing would try) have their own.
    let identifying = Router::new()
        .route("/api/me", post(identity::create))
        .route("/api/me/redeem", post(identity::redeem))
        .route_layer(from_fn_with_state(
            state.quotas.identify.clone(),
            edge::quota::enforce,
        ));
    // Joining a class (right code or wrong): a quota of its own, what paces guessing codes.
    let joining_class = Router::new()
        .route("/api/classes/join", post(classes::join))
        .route_layer(from_fn_with_state(
            state.quotas.class_join.clone(),
            edge::quota::enforce,
        ));
    // Puzzle answers are paced like joins, per address.
    let answering = Router::new()
        .route("/api/puzzles/{id}/answer", post(puzzles::answer))
        // A game's puzzle may compute the game's analysis (once): paced the same.
        .route("/api/puzzles/game/{room}/{v}", get(game_puzzles::question))
        .route(
            "/api/puzzles/game/{room}/{v}/answer",
            post(game_puzzles::answer),
        )
        .route_layer(from_fn_with_state(
            state.quotas.join.clone(),
            edge::quota::enforce,
        ));
    let api = Router::new()
        .merge(creating)
        .merge(answering)
        .merge(joining)
        .merge(identifying)
        .merge(joining_class)
        .route("/api/classes", get(classes::list))
        .route(
            "/api/classes/{id}",
            get(classes::show).delete(classes::delete),
        )
        .route("/api/classes/{id}/report.csv", get(classes::csv))
        .route("/api/classes/{id}/qr.svg", get(classes::qr))
        .route("/api/classes/{id}/lesson", post(classes::lesson))
        .route("/api/classes/{id}/pause", post(classes::pause))
        .route("/api/classes/{id}/resume", post(classes::resume))
        .route("/api/classes/{id}/end", post(classes::end))
        .route(
            "/api/classes/{id}/pupils/{pupil}",
            delete(classes::remove_pupil),
        )
        .route("/api/kiosk", get(kiosk_settings))
        .route("/api/class/me", get(classes::me))
        .route("/api/class/me/lessons/{lesson}", post(classes::lesson_done))
        .route("/api/class/me/stumbles", post(classes::stumbled))
        .route("/api/me", get(identity::me).delete(identity::delete))
        .route("/api/me/name", put(identity::rename))
        .route("/api/me/transfer", post(identity::transfer))
        .route("/api/me/turns", get(player_pages::turns))
        .route(
            "/api/me/push",
            post(push::subscribe).delete(push::unsubscribe),
        )
        .route("/api/push/key", get(push::key))
        .route("/api/rooms/{id}", get(http::room_summary))
        .route("/api/rooms/{id}/record", get(http::room_record))
        .route("/api/rooms/{id}/analysis", get(http::room_analysis))
        .route("/api/rooms/{id}/tournament", get(tournaments::of_room))
        .route("/ws/rooms/{id}", get(ws::upgrade))
        .route("/api/seeks/{id}", delete(lobby::cancel_seek))
        .route("/api/players", get(player_pages::by_name))
        .route("/api/players/{id}", get(player_pages::by_id))
        .route("/api/top", get(player_pages::top))
        .route("/api/puzzles/daily", get(puzzles::daily))
        .route("/api/puzzles/next", get(puzzles::next))
        .route("/api/puzzles/{id}", get(puzzles::by_id))
        .route("/ws/lobby", get(lobby::upgrade))
        .route("/api/tournaments", get(tournaments::list))
        .route("/api/tournaments/{id}", get(tournaments::show))
        .route("/api/tournaments/{id}/join", post(tournaments::join))
        .route(
            "/api/tournaments/{id}/withdraw",
            post(tournaments::withdraw),
        )
        .route("/api/tournaments/{id}/pause", post(tournaments::pause))
        .route("/api/tournaments/{id}/resume", post(tournaments::resume))
        .route("/ws/tournaments/{id}", get(tournament_socket::upgrade))
        .route("/api/counts", get(counts::counts))
        .route("/api/challenges", get(social::pending))
        .route(
            "/api/challenges/{id}",
            get(social::show).delete(social::cancel),
        )
        .route("/api/challenges/{id}/decline", post(social::decline))
        .route("/api/me/follows", get(social::follows))
        .route(
            "/api/me/follows/{id}",
            put(social::follow).delete(social::unfollow),
        )
        .route("/api/me/blocks", get(social::blocks))
        .route(
            "/api/me/blocks/{id}",
            put(social::block).delete(social::unblock),
        )
        .route("/healthz", get(http::healthz))
        .route("/readyz", get(ops::readyz));
    let bans = state.bans.clone();
    let kiosk = state.kiosk;
    api.with_state(state)
        // Answers carry seat tokens: no cache may keep them.
        .layer(SetResponseHeaderLayer::overriding(
            CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        ))
        // The web client's pages (`/`, `/r/{id}`, assets) from src/web.rs, cached as it says:
        .merge(crate::web::router(kiosk))
        .layer(axum::middleware::from_fn_with_state(
            bans,
            edge::bans::refuse_banned,
        ))
        .layer(SetResponseHeaderLayer::overriding(
            X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(TimeoutLayer::with_status_code(
            StatusCode::REQUEST_TIMEOUT,
            request_timeout,
        ))
        .layer(TraceLayer::new_for_http())
}

/// `/metrics` alone, on `--metrics-listen`.
pub fn metrics_app(state: AppState) -> Router {
    Router::new()
        .route("/metrics", get(ops::metrics))
        .with_state(state)
}

/// One of the server's listeners, as an error names it: what it serves and how to move it.
struct ListenerName {
    serves: &'static str,
    flag: &'static str,
    env: &'static str,
}

const PUBLIC_LISTENER: ListenerName = ListenerName {
    serves: "the public listener (pages, API, WebSockets)",
    flag: "--listen",
    env: "SENET_LISTEN",
};

const METRICS_LISTENER: ListenerName = ListenerName {
    serves: "the metrics listener (/metrics)",
    flag: "--metrics-listen",
    env: "SENET_METRICS_LISTEN",
};

/// `GET /api/kiosk`: what the kiosk page takes from the server (`--kiosk-idle`), so a museum
/// sets it on the command line, not in the page's address.
async fn kiosk_settings(
    axum::extract::State(state): axum::extract::State<AppState>,
) -> axum::Json<serde_json::Value> {
    axum::Json(serde_json::json!({"idle": state.kiosk_idle}))
}

/// Binds `address` for `name`; a failure says which listener it was and how to move it (another
/// process, a second `senet serve` or an exporter, may hold the port).
async fn bind_listener(address: &str, name: ListenerName) -> anyhow::Result<TcpListener> {
    TcpListener::bind(address).await.map_err(|error| {
        anyhow::anyhow!(
            "{} could not listen on {address}: {error}; move it with {} ADDRESS:PORT or {}=ADDRESS:PORT \
             (port 0 picks a free one)",
            name.serves,
            name.flag,
            name.env
        )
    })
}

/// A bound server, not yet running: tests read its address first.
pub struct Server {
    listener: TcpListener,
    /// `--metrics-listen`: `/metrics` there, and not on the public listener.
    metrics_listener: TcpListener,
    state: AppState,
    edge: Arc<edge::Edge>,
    request_timeout: Duration,
    /// How long [`Server::run`] waits for connections and rooms after shutdown: a peer that
    /// never finishes its request must not keep the process alive until SIGKILL.
    shutdown_grace: Duration,
    /// Cancelled to drain: the rooms pause clocks, then `state.shutdown` closes everything.
    drain: CancellationToken,
}

impl Server {
    /// Opens the database (migrating it) and binds the listener. When `drain` is cancelled the
    /// rooms pause their players' clocks (`Rooms::pause_clocks`), then everything closes.
    pub async fn bind(config: &Config, drain: CancellationToken) -> anyhow::Result<Server> {
        let store = crate::store::open(&config.database_url).await?;
        let players = crate::players::store::open(&config.database_url).await?;
        let tracker = TaskTracker::new();
        let shutdown = CancellationToken::new();
        let push = Arc::new(Push::open(&config.database_url, config.push.config()).await?);
        let mut room_config = config.room_config();
        room_config.notices =
            push.clone()
                .start(players.clone(), tracker.clone(), shutdown.clone());
        let rooms = Rooms::new(store, room_config, tracker.clone(), shutdown.clone());

        // Other instances on the same PostgreSQL append to rooms held here, and change seeks.
        let listener = Listener::start(&config.database_url, shutdown.clone());
        rooms.follow(listener.subscribe());
        rooms.sweep_now_and_then();
        rooms.forget_now_and_then();
        rooms.resume_clocks();
        rooms.time_out_due_turns_now_and_then();
        rooms.backfill_summaries();
        let lobby = Lobby::start(
            rooms.clone(),
            players.clone(),
            config.lobby_config(),
            listener.subscribe(),
            shutdown.clone(),
        )
        .await?;
        let tournament_views =
            tournament_socket::Views::start(rooms.store().clone(), listener.subscribe());
        let directors = crate::tournament::director::Directors::start(
            rooms.clone(),
            players.clone(),
            crate::tournament::director::DEFAULT_TICK,
            shutdown.clone(),
        );
        let social = crate::players::social::SocialStore::open(
            &config.database_url,
            crate::players::social::Bounds::default(),
        );
        let challenges = crate::lobby::challenges::Challenges::start(
            rooms.clone(),
            players.clone(),
            Arc::new(social.await?),
            config.challenge_config(),
            listener.subscribe(),
            shutdown.clone(),
        );
        let bans = edge::BanList::start(&config.database_url, shutdown.clone()).await?;
        let moderation = crate::store::bans::BanStore::open(&config.database_url).await?;
        let puzzles = Arc::new(puzzles::Puzzles::open(&config.database_url).await?);
        let classes = Arc::new(crate::class::ClassStore::open(&config.database_url).await?);
        classes::sweep_now_and_then(classes.clone(), config.class_retention, shutdown.clone());
        let listener = bind_listener(&config.listen, PUBLIC_LISTENER).await?;
        origin::check_public(listener.local_addr()?, &config.connections.public_origin)?;
        let metrics_listener = bind_listener(&config.metrics_listen, METRICS_LISTENER).await?;
        Ok(Server {
            listener,
            metrics_listener,
            state: AppState {
                rooms,
                lobby,
                shutdown,
                tracker,
                max_messages_per_second: config.max_messages_per_second,
                ping_every: config.ping_interval,
                gate: Arc::new(limits::Gate::new(&config.connections)),
                metrics: crate::telemetry::prometheus(),
                quotas: Arc::new(edge::Quotas {
                    create: Arc::new(edge::Quota::new(
                        config.edge.create_burst,
                        config.edge.create_per_minute,
                    )),
                    join: Arc::new(edge::Quota::new(
                        config.edge.join_burst,
                        config.edge.join_per_minute,
                    )),
                    identify: Arc::new(edge::Quota::per_hour(
                        config.edge.identify_burst,
                        config.edge.identify_per_hour,
                    )),
                    class_join: Arc::new(edge::Quota::new(
                        config.edge.class_join_burst,
                        config.edge.class_join_per_minute,
                    )),
                }),
                bans,
                moderation,
                players,
                push,
                puzzles,
                secure_cookies: config.connections.public_origin.is_https(),
                directors,
                tournament_views,
                counts: Arc::default(),
                kiosk: config.kiosk,
                kiosk_idle: config.kiosk_idle,
                classes,
                class_retention: config.class_retention,
                challenges,
            },
            edge: Arc::new(edge::Edge::new(&config.edge)),
            request_timeout: config.edge.request_timeout,
            shutdown_grace: config.shutdown_grace,
            drain,
        })
    }

    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Where `/metrics` is served.
    pub fn metrics_addr(&self) -> std::io::Result<SocketAddr> {
        self.metrics_listener.local_addr()
    }

    pub fn rooms(&self) -> &Rooms {
        &self.state.rooms
    }

    /// Serves until the drain token is cancelled, then pauses clocks and closes for at most the
    /// grace in all.
    pub async fn run(self) -> anyhow::Result<()> {
        let shutdown = self.state.shutdown.clone();
        let tracker = self.state.tracker.clone();
        let grace = self.shutdown_grace;
        let closing = close_after_pausing(
            self.state.rooms.clone(),
            self.drain,
            shutdown.clone(),
            grace / 2,
        );
        let public = app(self.state.clone(), self.request_timeout);
        let metrics = edge::serve(
            self.metrics_listener,
            metrics_app(self.state),
            self.edge.clone(),
            shutdown.clone(),
            tracker.clone(),
        );
        let public = edge::serve(
            self.listener,
            public,
            self.edge.clone(),
            shutdown.clone(),
            tracker.clone(),
        );
        let (drained_at, (), ()) = tokio::join!(closing, public, metrics);
        tracker.close();
        if tokio::time::timeout_at(drained_at + grace, tracker.wait())
            .await
            .is_err()
        {
            tracing::warn!(
                tasks = tracker.len(),
                ?grace,
                "shutdown grace is over: exiting with connections or rooms still open"
            );
        }
        Ok(())
    }
}

/// On a drain, pauses the clocks of this instance's players on turn (for at most `within`: the
/// rest of the grace is for the sockets and rooms to close), then shuts everything down: their
/// sockets close only after the pause is committed, so the move to another instance costs them
/// no time.
async fn close_after_pausing(
    rooms: Rooms,
    drain: CancellationToken,
    shutdown: CancellationToken,
    within: Duration,
) -> tokio::time::Instant {
    drain.cancelled().await;
    let drained_at = tokio::time::Instant::now();
    rooms.pause_clocks(within).await;
    shutdown.cancel();
    drained_at
}

/// `senet serve`: bind, print the URL, run until `shutdown`.
pub async fn serve(config: Config, shutdown: CancellationToken) -> anyhow::Result<()> {
    let server = Server::bind(&config, shutdown).await?;
    println!("listening on http://{}", server.local_addr()?);
    println!("metrics on http://{}/metrics", server.metrics_addr()?);
    server.run().await
}
