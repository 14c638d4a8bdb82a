//! Frames that break the protocol, on both sockets (a room's and the lobby's, one skeleton):
//! text that is not UTF-8 closes with 1007, a frame or a fragmented message over 64 KiB with
//! 1009 (docs/PROTOCOL.md), and a binary frame gets a `bad_json` error on either, the socket
//! staying open.

mod common;

use common::{Closed, PATIENCE, TestServer, create_room};
use futures_util::{SinkExt, StreamExt};
use serde_json::Value;
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::tungstenite::protocol::frame::Frame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::{Data, OpCode};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

type Socket = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// A room's socket and the lobby's, on one server.
async fn both_sockets(server: &TestServer) -> [Socket; 2] {
    let created = create_room(server.addr, "local", "black").await;
    let room = created["room"].as_str().unwrap();
    let mut sockets = Vec::new();
    for path in [format!("/ws/rooms/{room}"), "/ws/lobby".to_string()] {
        let url = format!("ws://{}{path}", server.addr);
        let (socket, _) = tokio_tungstenite::connect_async(url).await.unwrap();
        sockets.push(socket);
    }
    sockets.try_into().map_err(|_| ()).unwrap()
}

/// A raw frame of `data` with these bytes, final or not.
fn raw(data: Data, payload: Vec<u8>, fin: bool) -> Message {
    Message::Frame(Frame::message(payload, OpCode::Data(data), fin))
}

/// How the server ended the socket.
async fn closed(socket: &mut Socket) -> Closed {
    loop {
        let message = tokio::time::timeout(PATIENCE, socket.next())
            .await
            .expect("timed out waiting for close");
        match message {
            Some(Ok(Message::Close(Some(frame)))) => return Closed::Code(frame.code.into()),
            Some(Ok(Message::Close(None))) | None | Some(Err(_)) => return Closed::NoCloseFrame,
            Some(Ok(_)) => {}
        }
    }
}

/// The next error frame the server sends.
async fn error_frame(socket: &mut Socket) -> Value {
    loop {
        let message = tokio::time::timeout(PATIENCE, socket.next())
            .await
            .expect("timed out waiting for an error")
            .expect("socket closed")
            .expect("socket error");
        if let Message::Text(text) = message {
            let frame: Value = serde_json::from_str(&text).unwrap();
            if frame["t"] == "error" {
                return frame;
            }
        }
    }
}

#[tokio::test]
async fn text_that_is_not_utf8_closes_with_1007() {
    let server = TestServer::start().await;
    for mut socket in both_sockets(&server).await {
        let not_utf8 = vec![b'{', 0xff, 0xfe, b'}'];
        socket.send(raw(Data::Text, not_utf8, true)).await.unwrap();
        assert_eq!(closed(&mut socket).await, Closed::Code(1007));
    }
}

#[tokio::test]
async fn a_frame_over_64_kib_closes_with_1009() {
    let server = TestServer::start().await;
    for mut socket in both_sockets(&server).await {
        let huge = vec![b' '; 65 * 1024];
        socket.send(raw(Data::Text, huge, true)).await.unwrap();
        assert_eq!(closed(&mut socket).await, Closed::Code(1009));
    }
}

#[tokio::test]
async fn a_fragmented_message_over_64_kib_closes_with_1009() {
    let server = TestServer::start().await;
    for mut socket in both_sockets(&server).await {
        // Each fragment within the frame limit, the message over it.
        let part = || vec![b' '; 40 * 1024];
        socket.send(raw(Data::Text, part(), false)).await.unwrap();
        socket
            .send(raw(Data::Continue, part(), true))
            .await
            .unwrap();
        assert_eq!(closed(&mut socket).await, Closed::Code(1009));
    }
}

#[tokio::test]
async fn a_binary_frame_gets_bad_json_on_both_sockets() {
    let server = TestServer::start().await;
    for mut socket in both_sockets(&server).await {
        socket.send(Message::binary(b"{}".to_vec())).await.unwrap();
        let error = error_frame(&mut socket).await;
        assert_eq!(error["d"]["code"], "bad_json", "{error}");
        // Still open: a ping is answered.
        socket.send(Message::text(r#"{"t":"ping"}"#)).await.unwrap();
        let pong = loop {
            let message = tokio::time::timeout(PATIENCE, socket.next()).await.unwrap();
            if let Some(Ok(Message::Text(text))) = message {
                let frame: Value = serde_json::from_str(&text).unwrap();
                if frame["t"] == "pong" {
                    break frame;
                }
            }
        };
        assert_eq!(pong["t"], "pong");
    }
}
