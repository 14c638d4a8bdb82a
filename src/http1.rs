//! A minimal HTTP/1.1 client for the project's own tools (`senet healthcheck`, `senet loadgen`):
//! one request per connection (`Connection: close`), plain `http://` only. Our own server is the
//! only peer, so this stays small instead of pulling in a general client.

use std::fmt;
use std::io;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The largest answer we read; our endpoints answer a few hundred bytes.
const MAX_RESPONSE: u64 = 1 << 20;

/// A server's base URL, `http://host:port` (a trailing `/` is allowed, nothing more).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BaseUrl {
    /// `host:port`, as used for the TCP connection and the `Host` header.
    authority: String,
}

impl BaseUrl {
    pub fn parse(url: &str) -> Result<Self, String> {
        let rest = url
            .strip_prefix("http://")
            .ok_or_else(|| format!("{url:?}: only http:// URLs are supported"))?;
        let authority = rest.trim_end_matches('/');
        if authority.is_empty() || authority.contains('/') {
            return Err(format!("{url:?}: expected http://host:port"));
        }
        let authority = if authority
            .rsplit_once(':')
            .is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
        {
            authority.to_string()
        } else {
            format!("{authority}:80")
        };
        Ok(BaseUrl { authority })
    }

    /// `host:port`.
    pub fn authority(&self) -> &str {
        &self.authority
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

/// A response: status code and body text.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub body: String,
}

/// `GET path`.
pub async fn get(base: &BaseUrl, path: &str) -> io::Result<Response> {
    request(base, "GET", path, None).await
}

/// `POST path` with a JSON body.
pub async fn post_json(base: &BaseUrl, path: &str, body: &str) -> io::Result<Response> {
    request(base, "POST", path, Some(body)).await
}

async fn request(
    base: &BaseUrl,
    method: &str,
    path: &str,
    body: Option<&str>,
) -> io::Result<Response> {
    let mut stream = TcpStream::connect(base.authority()).await?;
    stream.set_nodelay(true)?;
    let mut head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {}\r\nConnection: close\r\n",
        base.authority()
    );
    if let Some(body) = body {
        head.push_str("Content-Type: application/json\r\n");
        head.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    head.push_str("\r\n");
    head.push_str(body.unwrap_or(""));
    stream.write_all(head.as_bytes()).await?;

    let mut raw = Vec::new();
    stream.take(MAX_RESPONSE).read_to_end(&mut raw).await?;
    parse_response(&raw)
}

fn parse_response(raw: &[u8]) -> io::Result<Response> {
    let bad = |what: &str| io::Error::new(io::ErrorKind::InvalidData, what.to_string());
    let text = std::str::from_utf8(raw).map_err(|_| bad("response is not UTF-8"))?;
    let (head, body) = text
        .split_once("\r\n\r\n")
        .ok_or_else(|| bad("response has no end of headers"))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| bad("response has no status code"))?;
    let chunked = head.lines().any(|line| {
        let line = line.to_ascii_lowercase();
        line.starts_with("transfer-encoding:") && line.contains("chunked")
    });
    if chunked {
        return Err(bad("chunked responses are not supported"));
    }
    Ok(Response {
        status,
        body: body.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_base_urls() {
        let url = BaseUrl::parse("http://127.0.0.1:8080/").unwrap();
        assert_eq!(url.authority(), "127.0.0.1:8080");
        assert_eq!(url.ws("/ws/rooms/ab"), "ws://127.0.0.1:8080/ws/rooms/ab");
        assert_eq!(
            BaseUrl::parse("http://example").unwrap().authority(),
            "example:80"
        );
        assert!(BaseUrl::parse("https://x:1").is_err());
        assert!(BaseUrl::parse("http://x:1/api").is_err());
    }

    #[test]
    fn parses_responses() {
        let raw = b"HTTP/1.1 201 Created\r\ncontent-length: 7\r\n\r\n{\"a\":1}";
        let response = parse_response(raw).unwrap();
        assert_eq!(response.status, 201);
        assert_eq!(response.body, "{\"a\":1}");
        assert!(parse_response(b"HTTP/1.1 200 OK\r\n").is_err());
        assert!(parse_response(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n").is_err());
    }
}
