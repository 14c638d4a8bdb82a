//! Who a request comes from: [`ClientAddr`], the address every per-address limit counts.
//!
//! It is the socket's peer, unless that peer is one of `--trusted-proxies`: then it is the
//! right-most address in `X-Forwarded-For` (or, for a request without one, `Forwarded`) that
//! is not itself a trusted proxy. Each proxy appends the address it was connected from, so the
//! hops to the right of the first untrusted one were written by our own proxies, and anything
//! to its left is whatever the client chose to send (and is never believed).
//!
//! IPv6 clients are counted by their /64: one subscriber usually holds a whole /64, so its
//! single addresses would be free to spend.

use std::net::IpAddr;
use std::str::FromStr;

use axum::http::HeaderMap;
use ipnet::IpNet;

/// The address a request comes from, as the per-address limits count it; a request
/// extension set by the listener.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ClientAddr(pub IpAddr);

impl ClientAddr {
    /// `ip` as the limits count it: IPv4 as is, IPv6 by its /64.
    pub fn of(ip: IpAddr) -> ClientAddr {
        match ip {
            IpAddr::V4(_) => ClientAddr(ip),
            IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
                Some(v4) => ClientAddr(IpAddr::V4(v4)),
                None => {
                    let prefix = u128::from(v6) & !((1u128 << 64) - 1);
                    ClientAddr(IpAddr::V6(prefix.into()))
                }
            },
        }
    }
}

/// The reverse proxies whose forwarding headers are believed (`--trusted-proxies`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TrustedProxies(Vec<IpNet>);

impl FromStr for TrustedProxies {
    type Err = String;

    /// A comma-separated list of networks (`10.0.0.0/8`) or single addresses (`127.0.0.1`).
    fn from_str(text: &str) -> Result<Self, String> {
        text.split(',')
            .map(str::trim)
            .filter(|net| !net.is_empty())
            .map(|net| {
                net.parse::<IpNet>()
                    .or_else(|_| net.parse::<IpAddr>().map(IpNet::from))
                    .map_err(|_| format!("{net:?} is not a network (10.0.0.0/8) or an address"))
            })
            .collect::<Result<_, _>>()
            .map(TrustedProxies)
    }
}

impl TrustedProxies {
    pub fn contains(&self, ip: IpAddr) -> bool {
        let ip = ip.to_canonical();
        self.0.iter().any(|net| net.contains(&ip))
    }

    /// Where a request from `peer` with these headers comes from.
    pub fn client(&self, peer: IpAddr, headers: &HeaderMap) -> ClientAddr {
        // An IPv4 client of a dual-stack socket arrives as `::ffff:a.b.c.d`.
        let mut client = peer.to_canonical();
        if !self.contains(client) {
            return ClientAddr::of(client);
        }
        for hop in forwarded_hops(headers).iter().rev() {
            // A trusted proxy writes addresses; anything else came from further out.
            let Some(ip) = parse_hop(hop) else { break };
            client = ip.to_canonical();
            if !self.contains(client) {
                break;
            }
        }
        ClientAddr::of(client)
    }
}

/// The hops named by `X-Forwarded-For` (every such header, in order), else by `Forwarded`'s
/// `for=` parameters; the nearest last.
fn forwarded_hops(headers: &HeaderMap) -> Vec<String> {
    let list = |name: &str| -> Vec<String> {
        headers
            .get_all(name)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .flat_map(|value| value.split(','))
            .map(|hop| hop.trim().to_owned())
            .collect()
    };
    let forwarded_for = list("x-forwarded-for");
    if !forwarded_for.is_empty() {
        return forwarded_for;
    }
    list("forwarded")
        .iter()
        .map(|element| {
            element
                .split(';')
                .filter_map(|pair| pair.split_once('='))
                .find(|(key, _)| key.trim().eq_ignore_ascii_case("for"))
                .map(|(_, value)| value.trim().trim_matches('"').to_owned())
                .unwrap_or_default()
        })
        .collect()
}

/// An address as a proxy writes it: `192.0.2.1`, `192.0.2.1:4711`, `2001:db8::1` or
/// `[2001:db8::1]:4711`.
fn parse_hop(hop: &str) -> Option<IpAddr> {
    if let Ok(ip) = hop.parse() {
        return Some(ip);
    }
    if let Some(bracketed) = hop.strip_prefix('[') {
        return bracketed.split_once(']')?.0.parse().ok();
    }
    let (ip, port) = hop.rsplit_once(':')?;
    port.parse::<u16>().ok()?;
    ip.parse::<std::net::Ipv4Addr>().ok().map(IpAddr::V4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&str, &str)]) -> HeaderMap {
        let mut headers = HeaderMap::new();
        for (name, value) in pairs {
            headers.append(
                axum::http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                value.parse().unwrap(),
            );
        }
        headers
    }

    fn ip(text: &str) -> IpAddr {
        text.parse().unwrap()
    }

    #[test]
    fn an_untrusted_peer_is_the_client_whatever_it_says() {
        let trusted: TrustedProxies = "10.0.0.0/8".parse().unwrap();
        let spoofed = headers(&[("x-forwarded-for", "1.2.3.4")]);
        assert_eq!(
            trusted.client(ip("192.0.2.7"), &spoofed),
            ClientAddr(ip("192.0.2.7"))
        );
        let none = TrustedProxies::default();
        assert_eq!(
            none.client(ip("10.0.0.1"), &spoofed),
            ClientAddr(ip("10.0.0.1"))
        );
    }

    #[test]
    fn behind_trusted_proxies_the_right_most_untrusted_hop_is_the_client() {
        let trusted: TrustedProxies = "10.0.0.0/8, 127.0.0.1".parse().unwrap();
        // The client put 6.6.6.6 there itself; nginx appended the address it saw.
        let forwarded = headers(&[("x-forwarded-for", "6.6.6.6, 198.51.100.9, 10.1.1.1")]);
        assert_eq!(
            trusted.client(ip("127.0.0.1"), &forwarded),
            ClientAddr(ip("198.51.100.9"))
        );
        let split = headers(&[
            ("x-forwarded-for", "6.6.6.6"),
            ("x-forwarded-for", "198.51.100.9:5555"),
        ]);
        assert_eq!(
            trusted.client(ip("10.0.0.2"), &split),
            ClientAddr(ip("198.51.100.9"))
        );
        let standard = headers(&[(
            "forwarded",
            "for=6.6.6.6, for=\"[2001:db8:cafe::17]:4711\";proto=https",
        )]);
        assert_eq!(
            trusted.client(ip("10.0.0.2"), &standard),
            ClientAddr(ip("2001:db8:cafe::"))
        );
        // Nothing forwarded, or garbage: the nearest address known.
        assert_eq!(
            trusted.client(ip("10.0.0.2"), &HeaderMap::new()),
            ClientAddr(ip("10.0.0.2"))
        );
        let garbage = headers(&[("x-forwarded-for", "unknown, 10.0.0.3")]);
        assert_eq!(
            trusted.client(ip("10.0.0.2"), &garbage),
            ClientAddr(ip("10.0.0.3"))
        );
    }

    #[test]
    fn ipv6_clients_count_by_their_64_and_mapped_ipv4_as_ipv4() {
        assert_eq!(
            ClientAddr::of(ip("2001:db8:1:2:aaaa::1")),
            ClientAddr(ip("2001:db8:1:2::"))
        );
        assert_eq!(
            ClientAddr::of(ip("::ffff:192.0.2.1")),
            ClientAddr(ip("192.0.2.1"))
        );
        assert!("10.0.0.0/33".parse::<TrustedProxies>().is_err());
        assert!("".parse::<TrustedProxies>().unwrap() == TrustedProxies::default());
    }
}
