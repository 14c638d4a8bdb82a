//! The edge: every TCP connection from the moment it is accepted, before axum sees a request.
//!
//! [`listener`] is our own accept loop (in place of `axum::serve`): it counts each connection
//! against the caps overall and per address from accept (a silent connection holds a file as
//! much as a WebSocket does), refuses those past a cap with a bare 503/429 without reading
//! anything, and runs the others with hyper's HTTP/1 server under a header-read timeout and a
//! keep-alive idle timeout. The request timeout is a layer of the router (`server::app`).

pub mod listener;

pub use listener::{Edge, serve};
