//! The edge: every TCP connection from the moment it is accepted, before axum sees a request.
//!
//! [`listener`] is our own accept loop (in place of `axum::serve`): it counts each connection
//! against the caps overall and per address from accept (a silent connection holds a file as
//! much as a WebSocket does), refuses those past a cap with a bare 503/429 without reading
//! anything, and runs the others with hyper's HTTP/1 server under a header-read timeout and a
//! keep-alive idle timeout. The request timeout is a layer of the router (`server::app`).
//!
//! [`client`] says which address a request comes from ([`ClientAddr`], the socket's peer or,
//! behind a trusted reverse proxy, the client it names): every per-address limit counts it,
//! the [`quota`]s on creating and joining rooms included, and the operators' [`bans`].

pub mod bans;
pub mod client;
pub mod listener;
pub mod quota;
pub mod settings;

pub use bans::BanList;
pub use client::{ClientAddr, TrustedProxies};
pub use listener::{Edge, serve};
pub use quota::{Quota, Quotas};
pub use settings::EdgeSettings;
