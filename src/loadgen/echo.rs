//! The baseline: a bare axum WebSocket endpoint that sends every text frame back, run in this
//! process on its own runtime (like a separate server), and clients that take turns sending
//! frames to it exactly as the two players of a room take turns acting.

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use axum::routing::get;
use axum::serve::ListenerExt;
use tokio::sync::oneshot;

use super::Phases;
use super::conn::{Conn, Pacing};
use super::player::DRAIN_TIMEOUT;
use super::stats::Stats;
use super::wire::{self, ActionKind};
use crate::protocol::DEFAULT_WS_READ_BUFFER;

/// The echo endpoint, running until dropped.
pub struct EchoServer {
    addr: SocketAddr,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl EchoServer {
    /// Starts the endpoint on 127.0.0.1 (a free port) with a multi-threaded runtime of its own.
    pub fn start() -> std::io::Result<Self> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let (shutdown, stopped) = oneshot::channel::<()>();
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()?;
        let thread = std::thread::spawn(move || {
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener)
                    .expect("a non-blocking std listener converts")
                    .tap_io(|tcp| {
                        let _ = tcp.set_nodelay(true);
                    });
                let app = Router::new().route("/ws", get(upgrade));
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        Ok(EchoServer {
            addr,
            shutdown: Some(shutdown),
            thread: Some(thread),
        })
    }

    pub fn url(&self) -> String {
        format!("ws://{}/ws", self.addr)
    }
}

impl Drop for EchoServer {
    fn drop(&mut self) {
        if let Some(shutdown) = self.shutdown.take() {
            let _ = shutdown.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn upgrade(ws: WebSocketUpgrade) -> Response {
    // Sized as the Senet server sizes its sockets (axum's default is 128 KiB), so that both
    // are measured with the same memory per connection.
    ws.read_buffer_size(DEFAULT_WS_READ_BUFFER).on_upgrade(echo)
}

async fn echo(mut socket: WebSocket) {
    while let Some(Ok(message)) = socket.recv().await {
        if let Message::Text(_) = message
            && socket.send(message).await.is_err()
        {
            break;
        }
    }
}

/// Connects a room's two clients to the echo endpoint.
pub async fn open_pair(
    url: &str,
    pacing: &Arc<Pacing>,
    stats: &mut Stats,
) -> Result<[Conn; 2], String> {
    let (a, b) = tokio::join!(
        Conn::connect(url, None, pacing.clone()),
        Conn::connect(url, None, pacing.clone())
    );
    let pair = [a?, b?];
    stats.rooms_opened += 1;
    stats.connections_opened += 2;
    Ok(pair)
}

/// The two clients take turns, one frame in flight per room, as players do; `idle` holds the
/// connections without sending.
pub async fn run_pair(mut pair: [Conn; 2], idle: bool, phases: Phases) -> Stats {
    let mut stats = Stats::default();
    let mut turn = 0;
    // The echo endpoint sends nothing unasked: nothing to read until the run starts.
    phases.start.cancelled().await;
    let stop = phases.stop;
    if idle {
        stop.cancelled().await;
    }
    while !stop.is_cancelled() {
        let conn = &mut pair[turn];
        if let Err(error) = conn
            .send_action(&mut stats, |id| {
                Some((ActionKind::Echo, wire::echo_frame(id)))
            })
            .await
        {
            stats.error(error);
            break;
        }
        while conn.awaiting_answer() {
            tokio::select! {
                _ = stop.cancelled() => break,
                frame = conn.recv(&mut stats) => if frame.is_none() { break },
            }
        }
        turn = 1 - turn;
    }
    for conn in &mut pair {
        conn.drain(&mut stats, DRAIN_TIMEOUT).await;
    }
    let [a, b] = pair;
    tokio::join!(a.close(), b.close());
    stats
}
