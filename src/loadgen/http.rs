//! The load generator's HTTP side: the server's base URL, and JSON requests over hyper's
//! pooled client (plain `http://`: the peer is our own server).

use std::fmt;
use std::net::IpAddr;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::CONTENT_TYPE;
use hyper::http::uri::Authority;
use hyper::{Request, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::de::DeserializeOwned;

/// Kept-alive connections between room openings; more would eat into the open-file budget
/// that the WebSocket clients need.
const MAX_IDLE_CONNECTIONS: usize = 8;

/// A server's base URL, `http://host[:port]` (a trailing `/` is allowed, nothing more).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    authority: Authority,
}

impl BaseUrl {
    pub fn parse(url: &str) -> Result<Self, String> {
        let uri: Uri = url.parse().map_err(|e| format!("{url:?}: {e}"))?;
        if uri.scheme_str() != Some("http") {
            return Err(format!("{url:?}: only http:// URLs are supported"));
        }
        match (uri.authority(), uri.path_and_query().map(|p| p.as_str())) {
            (Some(authority), None | Some("/")) => Ok(BaseUrl {
                authority: authority.clone(),
            }),
            _ => Err(format!("{url:?}: expected http://host:port")),
        }
    }

    /// The URL of `path` (starting with `/`) on this server.
    pub fn uri(&self, path: &str) -> Result<Uri, hyper::http::Error> {
        Uri::builder()
            .scheme("http")
            .authority(self.authority.clone())
            .path_and_query(path)
            .build()
    }

    /// The WebSocket URL for a path on the same server, e.g. `ws://host:port/ws/rooms/x`.
    pub fn ws(&self, path: &str) -> String {
        format!("ws://{}{path}", self.authority)
    }
}

impl fmt::Display for BaseUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "http://{}", self.authority)
    }
}

/// JSON requests to one server from one local address; clones share the connection pool.
#[derive(Clone)]
pub struct JsonClient {
    base: BaseUrl,
    /// The local address this client's connections come from (`None`: the system's choice).
    /// The players' WebSockets use it too, so a room looks like one household to the server's
    /// (and a proxy's) per-address limits.
    source: Option<IpAddr>,
    client: Client<HttpConnector, Full<Bytes>>,
}

impl JsonClient {
    pub fn new(base: BaseUrl, source: Option<IpAddr>) -> Self {
        let mut connector = HttpConnector::new();
        connector.set_local_address(source);
        connector.set_nodelay(true);
        let client = Client::builder(TokioExecutor::new())
            .pool_max_idle_per_host(MAX_IDLE_CONNECTIONS)
            .build(connector);
        JsonClient {
            base,
            source,
            client,
        }
    }

    pub fn base(&self) -> &BaseUrl {
        &self.base
    }

    pub fn source(&self) -> Option<IpAddr> {
        self.source
    }

    /// `POST path` with a JSON body; a 2xx answer's body read as `T`.
    pub async fn post<T: DeserializeOwned>(&self, path: &str, body: String) -> Result<T, String> {
        // `{:#}` shows the causes too, e.g. "... tcp connect error: Connection refused".
        self.try_post(path, body)
            .await
            .map_err(|e| format!("POST {path}: {e:#}"))
    }

    async fn try_post<T: DeserializeOwned>(&self, path: &str, body: String) -> anyhow::Result<T> {
        let request = Request::post(self.base.uri(path)?)
            .header(CONTENT_TYPE, "application/json")
            .body(Full::from(body))?;
        let response = self.client.request(request).await?;
        let status = response.status();
        anyhow::ensure!(status.is_success(), "status {status}");
        let body = response.into_body().collect().await?.to_bytes();
        Ok(serde_json::from_slice(&body)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_base_urls() {
        let url = BaseUrl::parse("http://127.0.0.1:8080/").unwrap();
        assert_eq!(url.to_string(), "http://127.0.0.1:8080");
        assert_eq!(
            url.uri("/api/rooms").unwrap(),
            "http://127.0.0.1:8080/api/rooms"
        );
        assert_eq!(url.ws("/ws/rooms/ab"), "ws://127.0.0.1:8080/ws/rooms/ab");
        assert!(BaseUrl::parse("http://example").is_ok());
        assert!(BaseUrl::parse("https://x:1").is_err());
        assert!(BaseUrl::parse("http://x:1/api").is_err());
        assert!(BaseUrl::parse("http://x:1/?q").is_err());
        assert!(BaseUrl::parse("x:1").is_err());
    }
}
