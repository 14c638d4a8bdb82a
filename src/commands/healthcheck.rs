//! `senet healthcheck [--url URL]`: exit 0 if the server's `GET /healthz` answers 200 within two
//! seconds, else 1 (with the reason on stderr). The container's HEALTHCHECK runs it.

use std::process::ExitCode;
use std::time::Duration;

use http_body_util::Empty;
use hyper::body::Bytes;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;

use crate::loadgen::http::BaseUrl;

/// How long the server has to answer.
const TIMEOUT: Duration = Duration::from_secs(2);

/// Where the server listens when neither `--url` nor `SENET_LISTEN` says otherwise.
const DEFAULT_LISTEN: &str = "127.0.0.1:8080";

/// Ask a running server whether it is alive.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The server's base URL [default: derived from SENET_LISTEN, else http://127.0.0.1:8080].
    #[arg(long, env = "SENET_HEALTHCHECK_URL")]
    url: Option<String>,
}

pub fn run(args: Args) -> ExitCode {
    match check(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(reason) => {
            eprintln!("senet healthcheck: {reason}");
            ExitCode::FAILURE
        }
    }
}

fn check(args: Args) -> Result<(), String> {
    let url = match args.url {
        Some(url) => url,
        None => url_from_listen(std::env::var("SENET_LISTEN").ok().as_deref()),
    };
    let healthz = BaseUrl::parse(&url)?
        .uri("/healthz")
        .map_err(|e| e.to_string())?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let response = runtime
        .block_on(async {
            let client = Client::builder(TokioExecutor::new()).build_http::<Empty<Bytes>>();
            tokio::time::timeout(TIMEOUT, client.get(healthz.clone())).await
        })
        .map_err(|_| format!("{healthz} did not answer within {TIMEOUT:?}"))?
        // `{:#}` shows the causes too, e.g. "... tcp connect error: Connection refused".
        .map_err(|e| format!("{healthz}: {:#}", anyhow::Error::new(e)))?;
    match response.status().as_u16() {
        200 => Ok(()),
        status => Err(format!("{healthz} answered {status}")),
    }
}

/// The URL to reach a server listening on `listen` (`SENET_LISTEN`) from the same host: a
/// wildcard address is reached on loopback.
fn url_from_listen(listen: Option<&str>) -> String {
    let listen = listen.unwrap_or(DEFAULT_LISTEN);
    let local = if let Some(port) = listen.strip_prefix("0.0.0.0:") {
        format!("127.0.0.1:{port}")
    } else if let Some(port) = listen.strip_prefix("[::]:") {
        format!("[::1]:{port}")
    } else {
        listen.to_string()
    };
    format!("http://{local}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derives_the_url_from_the_listen_address() {
        assert_eq!(url_from_listen(None), "http://127.0.0.1:8080");
        assert_eq!(
            url_from_listen(Some("0.0.0.0:9000")),
            "http://127.0.0.1:9000"
        );
        assert_eq!(url_from_listen(Some("[::]:80")), "http://[::1]:80");
        assert_eq!(url_from_listen(Some("10.0.0.2:81")), "http://10.0.0.2:81");
    }
}
