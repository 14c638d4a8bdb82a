//! `senet serve`: run the room server until SIGTERM or Ctrl-C.

use tokio_util::sync::CancellationToken;

use super::UsageError;
use crate::server::config::Config;
use crate::{os, telemetry};

pub fn run(config: Config) -> Result<(), UsageError> {
    telemetry::init_tracing(config.log_format);
    raise_open_file_limit(config.edge.max_tcp_connections);
    let runtime = tokio::runtime::Runtime::new()?;
    runtime
        .block_on(async {
            let shutdown = CancellationToken::new();
            tokio::spawn(cancel_on_signal(shutdown.clone()));
            crate::server::serve(config, shutdown).await
        })
        .map_err(|e| UsageError(format!("{e:#}")))
}

/// Files the server needs besides its TCP connections (database, listeners, logs).
const SPARE_FILES: u64 = 256;

/// Each connection is a file: raises the open-file limit as far as allowed, and warns when the
/// TCP connection cap does not fit under it (connections past the limit would fail at accept
/// instead of getting a clean 503).
fn raise_open_file_limit(max_connections: usize) {
    match os::raise_fd_limit() {
        Ok(limit) if max_connections == 0 || max_connections as u64 + SPARE_FILES > limit => {
            tracing::warn!(
                limit,
                max_connections,
                "the open-file limit is too low for --max-tcp-connections"
            );
        }
        Ok(_) => {}
        Err(error) => tracing::warn!(%error, "could not raise the open-file limit"),
    }
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
