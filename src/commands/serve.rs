//! `senet serve`: run the room server until SIGTERM or Ctrl-C.

use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

use super::UsageError;
use crate::config::Config;

pub fn run(config: Config) -> Result<(), UsageError> {
    init_tracing();
    let runtime = tokio::runtime::Runtime::new()?;
    runtime
        .block_on(async {
            let shutdown = CancellationToken::new();
            tokio::spawn(cancel_on_signal(shutdown.clone()));
            crate::server::serve(config, shutdown).await
        })
        .map_err(|e| UsageError(format!("{e:#}")))
}

/// Libraries that log whole WebSocket messages (tokens included) at debug
/// and trace level: capped whatever `RUST_LOG` asks for.
const MESSAGE_LOGGERS_CAP: &str = "tungstenite=info,tokio_tungstenite=info";

/// Logs go to stderr (stdout carries the listening URL); `RUST_LOG` filters.
fn init_tracing() {
    let wanted = std::env::var("RUST_LOG").unwrap_or_else(|_| "info".into());
    let filter = EnvFilter::try_new(format!("{wanted},{MESSAGE_LOGGERS_CAP}"))
        .unwrap_or_else(|_| EnvFilter::new(format!("info,{MESSAGE_LOGGERS_CAP}")));
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
}

async fn cancel_on_signal(shutdown: CancellationToken) {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate())
            .expect("SIGTERM handler");
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    let _ = ctrl_c.await;
    tracing::info!("shutting down");
    shutdown.cancel();
}
