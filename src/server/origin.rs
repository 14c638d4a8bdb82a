//! Which web pages may open a WebSocket to this server. A browser sends the page's `Origin`
//! with every WebSocket handshake and, unlike with `fetch`, enforces nothing itself, so any
//! site a player visits could otherwise open a socket to us (cross-site WebSocket hijacking).
//! By default only the server's own pages may (the origin names the host the request came to);
//! `--allowed-origins` adds others, `*` allows every origin. A client that sends no `Origin`
//! is not a browser page and is let through.
//!
//! The `Host` header is the attacker's to choose under DNS rebinding (their name, resolved to
//! our address, makes their page "same-origin"), so a public server names its own origins with
//! `--public-origin`: then those, and no `Host`, say which pages are its own.

use std::net::SocketAddr;
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
        let any = text.split(',').any(|origin| origin.trim() == "*");
        let others = text.split(',').filter(|origin| origin.trim() != "*");
        let listed = origins(&others.collect::<Vec<_>>().join(","))
            .map_err(|error| format!("{error} or *"))?;
        Ok(AllowedOrigins { any, listed })
    }
}

/// The server's own origins, from `--public-origin`; empty: whatever `Host` names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PublicOrigins(Vec<String>);

impl FromStr for PublicOrigins {
    type Err = String;

    /// A comma-separated list of origins such as `https://senet.example`.
    fn from_str(text: &str) -> Result<Self, String> {
        origins(text).map(PublicOrigins)
    }
}

impl PublicOrigins {
    /// Whether the server's pages are served over https (its cookies are then `Secure`).
    pub fn is_https(&self) -> bool {
        self.0.iter().any(|origin| origin.starts_with("https://"))
    }
}

/// Refuses to serve beyond loopback without `--public-origin`: there the `Host` header, which
/// the origin check would otherwise believe, is the attacker's under DNS rebinding.
pub fn check_public(listening: SocketAddr, public: &PublicOrigins) -> Result<(), NoPublicOrigin> {
    if listening.ip().is_loopback() || !public.0.is_empty() {
        Ok(())
    } else {
        Err(NoPublicOrigin(listening))
    }
}

/// Why a server listening beyond loopback did not start.
#[derive(Debug, thiserror::Error)]
#[error(
    "--public-origin (SENET_PUBLIC_ORIGIN) is required when listening on {0}, beyond loopback: \
     set it to the origin players load the pages from (such as https://senet.example), so that \
     WebSockets from other pages are refused whatever Host they send (DNS rebinding)"
)]
pub struct NoPublicOrigin(SocketAddr);

/// A comma-separated list of `http(s)://host[:port]`, normalized.
fn origins(text: &str) -> Result<Vec<String>, String> {
    text.split(',')
        .map(str::trim)
        .filter(|origin| !origin.is_empty())
        .map(|origin| {
            if origin.starts_with("http://") || origin.starts_with("https://") {
                Ok(normalize(origin))
            } else {
                Err(format!(
                    "{origin:?} is not an origin: expected http(s)://host[:port]"
                ))
            }
        })
        .collect()
}

/// Which pages may open WebSockets: the server's own and the allowed others.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Origins {
    pub public: PublicOrigins,
    pub allowed: AllowedOrigins,
}

impl Origins {
    /// Whether a WebSocket handshake with these headers may proceed.
    pub fn allows(&self, headers: &HeaderMap) -> bool {
        let Some(origin) = headers.get(ORIGIN) else {
            return true;
        };
        let Ok(origin) = origin.to_str() else {
            return false;
        };
        let origin = normalize(origin);
        let own = if self.public.0.is_empty() {
            is_same_origin(&origin, headers)
        } else {
            self.public.0.contains(&origin)
        };
        own || self.allowed.any || self.allowed.listed.contains(&origin)
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

    fn allowing(allowed: &str) -> Origins {
        Origins {
            public: PublicOrigins::default(),
            allowed: allowed.parse().unwrap(),
        }
    }

    #[test]
    fn own_pages_and_non_browsers_are_allowed_by_default() {
        let default = Origins::default();
        assert!(default.allows(&headers(Some("http://127.0.0.1:8080"), "127.0.0.1:8080")));
        assert!(default.allows(&headers(Some("https://Senet.example"), "senet.example")));
        assert!(default.allows(&headers(Some("https://senet.example"), "senet.example:443")));
        assert!(default.allows(&headers(None, "127.0.0.1:8080")));
    }

    #[test]
    fn other_sites_are_refused_unless_listed() {
        let default = Origins::default();
        let evil = headers(Some("https://evil.example"), "senet.example");
        assert!(!default.allows(&evil));
        assert!(!default.allows(&headers(Some("http://127.0.0.1:9999"), "127.0.0.1:8080")));
        assert!(!default.allows(&headers(Some("null"), "senet.example")));

        let listed = allowing("https://evil.example/, https://other.example");
        assert!(listed.allows(&evil));
        assert!(allowing("*").allows(&evil));
        assert!("evil.example".parse::<AllowedOrigins>().is_err());
    }

    #[test]
    fn with_public_origins_the_host_header_no_longer_decides() {
        let public = Origins {
            public: "https://senet.example".parse().unwrap(),
            allowed: AllowedOrigins::default(),
        };
        assert!(public.allows(&headers(Some("https://senet.example/"), "whatever")));
        // DNS rebinding: the attacker's name, resolved to us, with a matching Host.
        let rebound = headers(Some("http://rebind.example:8080"), "rebind.example:8080");
        assert!(!public.allows(&rebound));
        assert!(Origins::default().allows(&rebound));
        assert!("*".parse::<PublicOrigins>().is_err());
    }
}
