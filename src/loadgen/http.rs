//! The load generator's HTTP side: the server's base URL, and JSON requests over hyper's
//! pooled client (plain `http://`: the peer is our own server).

use std::fmt;
use std::net::IpAddr;

use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use hyper::header::{CONTENT_TYPE, COOKIE, SET_COOKIE};
use hyper::http::uri::Authority;
use hyper::{Request, Uri};
use hyper_util::client::legacy::Client;
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::rt::TokioExecutor;
use serde::de::DeserializeOwned;

/// Kept-alive connections between room openings; more would eat into the open-file budget
/// that the WebSocket clients need.
const MAX_IDLE_CONNECTIONS: usize = 8;

/// The cookie that carries a player's secret (`server::identity::COOKIE_NAME`).
pub const PLAYER_COOKIE: &str = "senet_player";

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
        Ok(self.post_as(path, body, None).await?.0)
    }

    /// [`JsonClient::post`] as the player whose cookie secret is `player`, if any; also the
    /// secret of a player cookie the answer sets (`POST /api/me` makes a player).
    pub async fn post_as<T: DeserializeOwned>(
        &self,
        path: &str,
        body: String,
        player: Option<&str>,
    ) -> Result<(T, Option<String>), String> {
        // `{:#}` shows the causes too, e.g. "... tcp connect error: Connection refused".
        self.try_post(path, body, player)
            .await
            .map_err(|e| format!("POST {path}: {e:#}"))
    }

    async fn try_post<T: DeserializeOwned>(
        &self,
        path: &str,
        body: String,
        player: Option<&str>,
    ) -> anyhow::Result<(T, Option<String>)> {
        let mut request =
            Request::post(self.base.uri(path)?).header(CONTENT_TYPE, "application/json");
        if let Some(secret) = player {
            request = request.header(COOKIE, format!("{PLAYER_COOKIE}={secret}"));
        }
        let response = self.client.request(request.body(Full::from(body))?).await?;
        let status = response.status();
        anyhow::ensure!(status.is_success(), "status {status}");
        let set = response.headers().get_all(SET_COOKIE).iter();
        let secret = set
            .filter_map(|value| player_secret(value.to_str().ok()?))
            .next();
        let body = response.into_body().collect().await?.to_bytes();
        Ok((serde_json::from_slice(&body)?, secret))
    }
}

/// The player secret a `Set-Cookie` value carries, if it is the player cookie.
fn player_secret(set_cookie: &str) -> Option<String> {
    let pair = set_cookie.split(';').next()?;
    let (name, value) = pair.trim().split_once('=')?;
    (name == PLAYER_COOKIE && !value.is_empty()).then(|| value.to_string())
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

    #[test]
    fn reads_the_player_secret_of_a_set_cookie() {
        let set = "senet_player=abc123; HttpOnly; SameSite=Lax; Path=/; Max-Age=31536000";
        assert_eq!(player_secret(set).as_deref(), Some("abc123"));
        assert_eq!(player_secret("senet_player=; Max-Age=0"), None);
        assert_eq!(player_secret("other=abc; Path=/"), None);
    }
}
