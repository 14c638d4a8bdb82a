//! Which web pages may open a WebSocket to this server. A browser sends the page's `Origin`
//! with every WebSocket handshake and, unlike with `fetch`, enforces nothing itself, so any
//! site a player visits could otherwise open a socket to us (cross-site WebSocket hijacking).
//! By default only the server's own pages may (the origin names the host the request came to);
//! `--allowed-origins` adds others, `*` allows every origin. A client that sends no `Origin`
//! is not a browser page and is let through.

use std::str::FromStr;

use axum::http::HeaderMap;
use axum::http::header::{HOST, ORIGIN};

/// The origins allowed besides the server's own, from `--allowed-origins`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AllowedOrigins {
    any: bool,
    /// Lowercase `scheme://host[:port]`, without a trailing slash.
    listed: Vec<String>,
}

impl FromStr for AllowedOrigins {
    type Err = String;

    /// A comma-separated list of origins such as `https://senet.example`, or `*`.
    fn from_str(text: &str) -> Result<Self, String> {
        let mut allowed = AllowedOrigins::default();
        for origin in text.split(',').map(str::trim).filter(|o| !o.is_empty()) {
            if origin == "*" {
                allowed.any = true;
            } else if origin.starts_with("http://") || origin.starts_with("https://") {
                allowed.listed.push(normalize(origin));
            } else {
                return Err(format!(
                    "{origin:?} is not an origin: expected http(s)://host[:port] or *"
                ));
            }
        }
        Ok(allowed)
    }
}

impl AllowedOrigins {
    /// Whether a WebSocket handshake with these headers may proceed.
    pub fn allows(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get(ORIGIN) else {
            return true;
        };
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        let origin = normalize(origin);
        self.any || self.listed.contains(&origin) || is_same_origin(&origin, headers)
    }
}

/// Whether the origin names the host the request was sent to (the `Host` header).
fn is_same_origin(origin: &str, headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(HOST).and_then(|h| h.to_str().ok()) else {
        return false;
    };
    let host = host.to_ascii_lowercase();
    match origin.split_once("://") {
        Some(("http", authority)) => authority == host || with_port(authority, 80) == host,
        Some(("https", authority)) => authority == host || with_port(authority, 443) == host,
        _ => false,
    }
}

/// `host` with its scheme's default port spelled out, unless it already has a port.
fn with_port(authority: &str, port: u16) -> String {
    let has_port = authority
        .rsplit_once(':')
        .is_some_and(|(_, p)| p.bytes().all(|b| b.is_ascii_digit()) && !authority.ends_with(']'));
    if has_port {
        authority.to_string()
    } else {
        format!("{authority}:{port}")
    }
}

fn normalize(origin: &str) -> String {
    origin.trim().trim_end_matches('/').to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(origin: Option<&str>, host: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(HOST, host.parse().unwrap());
        if let Some(origin) = origin {
            headers.insert(ORIGIN, origin.parse().unwrap());
        }
        headers
    }

    #[test]
    fn own_pages_and_non_browsers_are_allowed_by_default() {
        let default = AllowedOrigins::default();
        assert!(default.allows(&headers(Some("http://127.0.0.1:8080"), "127.0.0.1:8080")));
        assert!(default.allows(&headers(Some("https://Senet.example"), "senet.example")));
        assert!(default.allows(&headers(Some("https://senet.example"), "senet.example:443")));
        assert!(default.allows(&headers(None, "127.0.0.1:8080")));
    }

    #[test]
    fn other_sites_are_refused_unless_listed() {
        let default = AllowedOrigins::default();
        let evil = headers(Some("https://evil.example"), "senet.example");
        assert!(!default.allows(&evil));
        assert!(!default.allows(&headers(Some("http://127.0.0.1:9999"), "127.0.0.1:8080")));
        assert!(!default.allows(&headers(Some("null"), "senet.example")));

        let listed: AllowedOrigins = "https://evil.example/, https://other.example"
            .parse()
            .unwrap();
        assert!(listed.allows(&evil));
        let any: AllowedOrigins = "*".parse().unwrap();
        assert!(any.allows(&evil));
        assert!("evil.example".parse::<AllowedOrigins>().is_err());
    }
}
