#!/usr/bin/env python3
"""A Senet player for .ci/container.sh, on the standard library alone (no pip in CI's path).

  game.py create URL              make a local room (one token plays both sides); print
                                  {"room": .., "token": ..}
  game.py play URL ROOM TOKEN [--actions N]
                                  say hello with the token, then throw and move (the first legal
                                  move) until the game is over, N actions are done, or the server
                                  closes the socket; print {"v", "position", "phase", "result",
                                  "close", "welcome_v", "welcome_position"}

`close` is the close code the server sent (1012 when it shuts down), or null. Actions are spaced
under the server's limit of 20 messages a second per socket.
"""

import base64
import json
import os
import socket
import struct
import sys
import time
import urllib.request
from urllib.parse import urlsplit

ACTION_GAP = 0.07  # seconds: about 14 messages a second


def create(url):
    request = urllib.request.Request(
        url + "/api/rooms",
        data=json.dumps({"mode": "local"}).encode(),
        headers={"content-type": "application/json"},
    )
    with urllib.request.urlopen(request, timeout=10) as answer:
        room = json.load(answer)
    return {"room": room["room"], "token": room["token"]}


class Closed(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


class Socket:
    """A WebSocket client: text frames out (masked), text, ping and close frames in."""

    def __init__(self, url, path):
        parts = urlsplit(url)
        # Generous: a server's first start on a loaded machine is slow.
        self.sock = socket.create_connection((parts.hostname, parts.port or 80), timeout=60)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall(
            (
                f"GET {path} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(1)
            if not chunk:
                raise OSError("connection closed during the handshake")
            head += chunk
        status = head.split(b"\r\n", 1)[0]
        if b" 101 " not in status:
            raise OSError(f"handshake refused: {status.decode()}")

    def _exact(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise Closed(None)
            data += chunk
        return data

    def _frame(self, opcode, payload):
        mask = os.urandom(4)
        length = len(payload)
        if length < 126:
            head = struct.pack("!BB", 0x80 | opcode, 0x80 | length)
        else:
            head = struct.pack("!BBH", 0x80 | opcode, 0x80 | 126, length)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(head + mask + masked)

    def send(self, kind, data=None):
        message = {"t": kind} if data is None else {"t": kind, "d": data}
        self._frame(0x1, json.dumps(message).encode())

    def receive(self):
        """The next text message, decoded; answers pings; raises Closed on a close frame."""
        while True:
            first, second = self._exact(2)
            opcode, length = first & 0x0F, second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", self._exact(2))
            elif length == 127:
                (length,) = struct.unpack("!Q", self._exact(8))
            payload = self._exact(length)
            if opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                raise Closed(code)
            if opcode == 0x9:
                self._frame(0xA, payload)
            elif opcode == 0x1:
                return json.loads(payload)


def play(url, room, token, actions):
    ws = Socket(url, f"/ws/rooms/{room}")
    ws.send("hello", {"token": token})
    welcome = ws.receive()
    assert welcome["t"] == "welcome", welcome
    state = welcome["d"]["state"]
    report = {
        "welcome_v": state["v"],
        "welcome_position": state["position"],
        "close": None,
    }
    done = 0
    try:
        while state["phase"] != "over" and (actions is None or done < actions):
            time.sleep(ACTION_GAP)
            if state["phase"] == "move":
                ws.send("move", {"from": state["legal"][0]["from"]})
            else:
                ws.send("roll")
            done += 1
            state = follow(ws, state)
    except Closed as closed:
        report["close"] = closed.code
    report.update(v=state["v"], position=state["position"], phase=state["phase"])
    report["result"] = state["result"]
    return report


def follow(ws, state):
    """Applies the events up to the action's `ack` to what the player knows of the room."""
    while True:
        message = ws.receive()
        kind, data = message["t"], message.get("d", {})
        if kind == "ack":
            return state
        if kind == "error":
            raise SystemExit(f"the server refused an action: {data}")
        if kind == "state":
            state = data
        elif "v" in data:
            state = dict(state, v=data["v"])
            if kind == "rolled":
                state.update(phase="move" if data["legal"] else "roll", legal=data["legal"])
            elif kind == "moved":
                state.update(phase="roll", legal=[], position=data["position"])
            elif kind == "passed":
                # The position's last letter is the side to move.
                position = state["position"][:-1] + data["next"][0]
                state.update(phase="roll", legal=[], position=position)
            elif kind == "game-over":
                state.update(phase="over", result={k: data[k] for k in ("winner", "reason")})


def main(args):
    if args[0] == "create":
        print(json.dumps(create(args[1])))
    elif args[0] == "play":
        actions = int(args[5]) if len(args) > 5 and args[4] == "--actions" else None
        print(json.dumps(play(args[1], args[2], args[3], actions)))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
