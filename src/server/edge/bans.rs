//! Operator bans at the edge: a request from a banned address or network (`senet admin ban`)
//! is answered 403 with a page that says so, why and until when, before any handler runs; a
//! WebSocket handshake is a request, so it is refused too. `/healthz` and `/readyz` are not,
//! so that a ban can never make an orchestrator restart or drain the instance.
//!
//! Each instance reads the bans in force from the database every [`REFRESH`] (an indexed
//! query of a few rows, on SQLite and PostgreSQL alike), so a ban made on any instance, or by
//! `senet admin` from anywhere, is enforced by all of them within seconds. Between two reads
//! the last list holds; a failed read keeps it and is logged.
//!
//! A ban also ends what the banned client has open (issue 44): when a read finds the list
//! changed, every WebSocket's [`BanWatch`] looks its client up in it, and a banned one closes
//! with [`crate::server::socket::CLOSE_BANNED`], which the page explains. So an open socket
//! stops within a read of the ban, on every instance, like a new request.

use std::net::IpAddr;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::CONTENT_TYPE;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use ipnet::IpNet;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::ClientAddr;
use crate::protocol::UnixMs;
use crate::store::bans::{BanRow, BanStore};

/// How often the bans in force are read again.
pub const REFRESH: Duration = Duration::from_secs(2);

/// A ban as the edge applies it.
#[derive(Clone, Debug, PartialEq)]
struct Ban {
    network: IpNet,
    until: UnixMs,
    reason: String,
}

/// The bans in force, as last read.
#[derive(Debug)]
pub struct BanList {
    bans: RwLock<Arc<Vec<Ban>>>,
    /// Told whenever a read changes the list.
    changes: watch::Sender<()>,
}

impl Default for BanList {
    fn default() -> Self {
        BanList {
            bans: RwLock::default(),
            changes: watch::channel(()).0,
        }
    }
}

impl BanList {
    /// Reads the bans of the database at `url` now and every [`REFRESH`] until `shutdown`.
    pub async fn start(url: &str, shutdown: CancellationToken) -> anyhow::Result<Arc<BanList>> {
        let store = BanStore::open(url).await?;
        let list = Arc::new(BanList::default());
        list.refresh(&store).await?;
        let kept = list.clone();
        tokio::spawn(async move {
            let mut every = tokio::time::interval(REFRESH);
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = every.tick() => {}
                }
                if let Err(error) = kept.refresh(&store).await {
                    tracing::warn!(%error, "could not read the bans; keeping the last list");
                }
            }
        });
        Ok(list)
    }

    async fn refresh(&self, store: &BanStore) -> anyhow::Result<()> {
        let rows = store.active(crate::room::now_ms()).await?;
        let bans: Vec<Ban> = rows.into_iter().filter_map(parse).collect();
        let changed = {
            let mut kept = self.bans.write().expect("not poisoned");
            let changed = **kept != bans;
            *kept = Arc::new(bans);
            changed
        };
        if changed {
            self.changes.send_replace(());
        }
        Ok(())
    }

    /// A watch on the bans for a socket of `client`'s.
    pub fn watch(self: &Arc<Self>, client: ClientAddr) -> BanWatch {
        BanWatch {
            list: self.clone(),
            changes: self.changes.subscribe(),
            client,
        }
    }

    /// The ban that covers `ip` at `now`, if any.
    fn find(&self, ip: IpAddr, now: UnixMs) -> Option<Ban> {
        let bans = self.bans.read().expect("not poisoned").clone();
        bans.iter()
            .find(|ban| ban.until > now && ban.network.contains(&ip))
            .cloned()
    }
}

/// What an open socket knows of the bans: the list, and when it changed.
pub struct BanWatch {
    list: Arc<BanList>,
    changes: watch::Receiver<()>,
    client: ClientAddr,
}

impl BanWatch {
    /// Resolves once a change of the list bans this socket's client. Cancel safe.
    pub async fn banned(&mut self) {
        loop {
            if self.changes.changed().await.is_err() {
                // The list is gone with the server: its shutdown ends the socket.
                return std::future::pending().await;
            }
            if self
                .list
                .find(self.client.0, crate::room::now_ms())
                .is_some()
            {
                return;
            }
        }
    }
}

/// A stored ban whose network this build can read (the admin command wrote it, so it can).
fn parse(row: BanRow) -> Option<Ban> {
    let network = row.network.parse().ok()?;
    Some(Ban {
        network,
        until: row.until_ms,
        reason: row.reason,
    })
}

/// The middleware: 403 and the page for a banned client, else the request goes on.
pub async fn refuse_banned(
    State(list): State<Arc<BanList>>,
    client: Option<axum::Extension<ClientAddr>>,
    request: Request,
    next: Next,
) -> Response {
    let exempt = matches!(request.uri().path(), "/healthz" | "/readyz");
    let ban = match client {
        Some(axum::Extension(ClientAddr(ip))) if !exempt => list.find(ip, crate::room::now_ms()),
        _ => None,
    };
    match ban {
        Some(ban) => refused_page(&ban),
        None => next.run(request).await,
    }
}

/// The page a banned client gets, in the three languages of the site.
fn refused_page(ban: &Ban) -> Response {
    let until = format_utc(ban.until);
    let reason = escape(&ban.reason);
    let body = format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <title>Access refused</title></head><body><main>\
         <h1>Access refused</h1>\
         <p>Your address is barred from this server until {until}.</p>\
         <p>Reason: {reason}</p>\
         <p lang=\"zh-Hant\">您的位址已被本伺服器禁止存取，直至 {until}。原因：{reason}</p>\
         <p lang=\"ru\">Ваш адрес заблокирован на этом сервере до {until}. Причина: {reason}</p>\
         </main></body></html>\n"
    );
    (
        StatusCode::FORBIDDEN,
        [(CONTENT_TYPE, "text/html; charset=utf-8")],
        body,
    )
        .into_response()
}

/// `Thu, 03 Dec 2026 11:15:00 GMT` for a unix time in milliseconds (the HTTP date format).
fn format_utc(ms: UnixMs) -> String {
    let at = std::time::UNIX_EPOCH + Duration::from_millis(ms.max(0) as u64);
    httpdate::fmt_http_date(at)
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_are_written_in_utc() {
        assert_eq!(
            format_utc(1_796_296_500_000),
            "Thu, 03 Dec 2026 11:15:00 GMT"
        );
    }

    #[test]
    fn a_ban_covers_its_network_until_its_end() {
        let list = BanList::default();
        *list.bans.write().unwrap() = Arc::new(vec![Ban {
            network: "203.0.113.0/24".parse().unwrap(),
            until: 1_000,
            reason: "<spam>".into(),
        }]);
        assert!(list.find("203.0.113.9".parse().unwrap(), 999).is_some());
        assert!(list.find("203.0.113.9".parse().unwrap(), 1_000).is_none());
        assert!(list.find("198.51.100.1".parse().unwrap(), 0).is_none());
        let page = refused_page(&list.find("203.0.113.1".parse().unwrap(), 0).unwrap());
        assert_eq!(page.status(), StatusCode::FORBIDDEN);
    }
}
