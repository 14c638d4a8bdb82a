//! Senet online: an authoritative server for Kendall-style Senet.
//!
//! # Layout
//!
//! Modules by layer, from the outside in. A module may import from its own layer and from the
//! layers below it, never from above, and the modules import one another without cycles:
//! commands → server / web → lobby / tournament / class → room → store / players → analysis / lessons / loadgen / puzzles →
//! protocol → ai → engine; the leaf helpers `fairness`, `secrets`, `telemetry`, `os` may be imported from
//! anywhere and import only each other and the protocol, ai and engine. `tests/layout.rs` reads
//! `src/` and fails on any `crate::` path against this order (and on a pure file of the game
//! that names the store).
//!
//! - [`commands`]: the `senet` command line, one file per subcommand; `senet serve`'s flags and
//!   environment variables are `server::config` (each default a `DEFAULT_*` constant of the
//!   layer that owns the setting); [`loadgen`] is `senet loadgen`, scripted players measuring a
//!   running server (a client: it imports the protocol and the engine, never the server).
//! - [`server`]: HTTP + WebSocket front (axum): the edge (`server::edge`: our accept loop with
//!   TCP caps and timeouts, the client's address behind trusted proxies, the quotas as a route
//!   layer), router, handlers, one socket skeleton (`server::socket`) with the room's and the
//!   lobby's sockets as its handlers, the connection gate, shutdown; `server::error` words every
//!   error for the wire, once; `server::player_pages` answers the read-only player routes
//!   (`/api/players`, `/api/top`); [`web`] serves the browser client (`web/` embedded) at `/`,
//!   `/play`, `/r/{id}`, `/learn`, `/p/{name}`, `/top`, `/settings`, `/assets/`.
//! - [`room`]: live rooms: the registry, one task per room, the pure game it folds
//!   (`room::game`), the seats in the game's terms, the computer's seat, the room's errors.
//! - [`lobby`]: open games listed for strangers (seeks), quick pairing and the games started
//!   from them, live for `/ws/lobby`; beside the rooms, on top of them: a seek is a room plus a
//!   listing, taking it is joining the room (server → lobby → room / store).
//! - [`tournament`]: Arena and Swiss tournaments (docs/TOURNAMENTS.md), beside the lobby: a
//!   tournament starts its games as rooms. Its pairing (`tournament::pairing`) is pure: a
//!   maximum-weight matching (`rustworkx-core`) over costs that encode each format's rules.
//! - [`class`]: a teacher's class without accounts (issue 50): pupils join by a code and a first
//!   name, the teacher pairs them (the tournaments' Swiss pairing), starts games against the
//!   computer or a lesson, pauses and ends every game; its games are rooms made with both seats
//!   taken; a store of its own on both backends, deleted at the class's retention.
//! - [`players`]: who comes back — identities without passwords (a public id and a hashed
//!   secret), display names, Glicko-2 ratings on `skillratings` and their replay from the log
//!   (`senet ratings verify`), with a store of their own on both backends.
//! - [`store`]: one trait per concern — the log of rooms (rooms, seats, event log), the seeks,
//!   and what only a cluster needs (presence, clocks, spectator counts) — on SQLite and
//!   PostgreSQL, and the PostgreSQL listener that tells instances of each other's appends.
//! - [`protocol`]: the wire format, one file per concern; `web/js/protocol.js` is generated from
//!   it. [`lessons`]: the `/learn` page's rule lessons, each answer derived by the engine.
//! - [`analysis`]: the verdict on a played game's record, throw by throw (win probability
//!   before and after, best move, label); pure, on the protocol's level, used by `senet analyse`
//!   and the server.
//! - [`puzzles`]: puzzles with exact answers — mined from finished games (`senet puzzles
//!   mine`), each answer checked by the endgame table or two searches; the shipped set is
//!   `puzzles/shipped.jsonl`, compiled in. Pure, beside the analysis it reads games with.
//! - [`engine`]: the rules as pure values (position, sticks, notation, perft); [`ai`]: the
//!   computer opponent (evaluation, trained network, search, levels, endgame tablebase).
//! - Helpers: [`fairness`] (seeds, `seed_hash`, the throw formula), [`secrets`] (room ids,
//!   tokens and their hashes), [`telemetry`] (logs and every metric name), [`os`] (open-file
//!   limit, resident memory).
//!
//! One action, from the socket to the broadcast:
//!
//! 1. `server/socket.rs` reads a frame for the room's handler (`server/ws.rs`), `protocol/client.rs` parses it into an `Action`, and the
//!    socket's loop sends `room::Command::Act` to the room's task (`room/registry.rs` finds or loads it);
//! 2. `room/task.rs` asks `room/game/` to decide: `Game::decide` answers a `Decision` (the
//!    events and the next game) or a `Refusal`;
//! 3. the task appends the events (`store::RoomLog::append`: one commit) and only then keeps the next game;
//! 4. it broadcasts each event's frame (serialized once, `protocol/event.rs`) to every socket of
//!    the room, and answers the actor's command with the last version;
//! 5. each socket's loop forwards the frames in version order, then the actor's socket sends the
//!    `ack` (or, for a client that said `"acks": false`, puts the action's `id` in its last
//!    event); a refusal goes back as an `error` reply worded by `server/error.rs`.
pub mod ai;
pub mod analysis;
pub mod class;
pub mod commands;
pub mod engine;
pub mod fairness;
pub mod lessons;
pub mod loadgen;
pub mod lobby;
pub mod os;
pub mod players;
pub mod protocol;
pub mod puzzles;
pub mod room;
pub mod secrets;
pub mod server;
pub mod store;
pub mod telemetry;
pub mod tournament;
pub mod web;
