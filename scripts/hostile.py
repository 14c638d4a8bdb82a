#!/usr/bin/env python3
"""Hostile clients for scripts/hostile.sh (standard library only).

  hostile.py seed   --url 127.0.0.1:PORT --rooms N            prints N new room ids, one a line
  hostile.py attack --url 127.0.0.1:PORT --rooms FILE --seconds S
      for S seconds holds --silent TCP connections that never send a byte (spread over
      --sources loopback addresses, reopened as the server closes them), floods room creation
      from 127.0.0.2, and asks --summaries room summaries (ids from FILE) from 127.0.0.3;
      prints what each got as JSON.
  hostile.py all    --url 127.0.0.1:PORT --rooms FILE --seconds S
      the attack above and, at the same time, the ones against a room's log and the memory:
      reconnect churn (connect, hello with the seat's token, close, in a loop, on --churn-rooms
      local rooms of its own, from 127.0.0.4), seed spam (new and repeated client seeds on one
      socket per such room, at 15 a second, reconnecting when closed), rematch chains (resign and
      rematch in a local room, then again in the rematch, from 127.0.0.5) and big headers
      (--big-headers connections, each sending 400 KB of one unfinished header, from 127.0.0.6;
      reopened once answered); prints what each got as JSON, with the rooms it made.
  hostile.py summaries --url 127.0.0.1:PORT --rooms FILE    asks each room's summary, 20 at a time
  hostile.py joins     --url 127.0.0.1:PORT --rooms FILE    joins each room's free seat, 20 at a time
      (a join loads the room into the server's memory); both print the statuses as JSON.
"""
import argparse
import asyncio
import base64
import collections
import json
import os
import time

NEW_ROOM = b'{"mode":"online","side":"black"}'


async def request(host, port, method, path, body=b"", source=None):
    """One request on its own connection; the status code, or the error's name."""
    try:
        reader, writer = await asyncio.open_connection(
            host, port, local_addr=(source, 0) if source else None
        )
    except OSError as error:
        return type(error).__name__
    try:
        head = (
            f"{method} {path} HTTP/1.1\r\nhost: {host}:{port}\r\nconnection: close\r\n"
            f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
        )
        writer.write(head.encode() + body)
        await writer.drain()
        status = await asyncio.wait_for(reader.readline(), 30)
        parts = status.split()
        return int(parts[1]) if len(parts) > 1 else "closed"
    except (OSError, asyncio.TimeoutError) as error:
        return type(error).__name__
    finally:
        writer.close()


async def create_rooms(host, port, count, concurrency=16):
    ids = []

    async def worker():
        while len(ids) < count:
            reader, writer = await asyncio.open_connection(host, port)
            head = (
                f"POST /api/rooms HTTP/1.1\r\nhost: {host}:{port}\r\nconnection: close\r\n"
                f"content-type: application/json\r\ncontent-length: {len(NEW_ROOM)}\r\n\r\n"
            )
            writer.write(head.encode() + NEW_ROOM)
            answer = await reader.read()
            writer.close()
            body = answer.split(b"\r\n\r\n", 1)[1]
            ids.append(json.loads(body)["room"])

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return ids[:count]


async def hold_silent(host, port, sources, per_source, until, tally):
    """Keeps per_source silent connections from each source address until `until`."""

    async def one(source):
        while time.monotonic() < until:
            try:
                reader, writer = await asyncio.open_connection(
                    host, port, local_addr=(source, 0)
                )
            except OSError as error:
                tally["connect " + type(error).__name__] += 1
                await asyncio.sleep(0.5)
                continue
            tally["opened"] += 1
            opened = time.monotonic()
            try:
                left = until - time.monotonic()
                await asyncio.wait_for(reader.read(), max(left, 0.01))
                tally["closed by the server"] += 1
                tally["held seconds"] += time.monotonic() - opened
            except asyncio.TimeoutError:
                tally["still open at the end"] += 1
            except OSError:
                tally["reset by the server"] += 1
            finally:
                writer.close()

    await asyncio.gather(
        *(one(source) for source in sources for _ in range(per_source))
    )


async def flood(host, port, until, tally):
    while time.monotonic() < until:
        tally[str(await request(host, port, "POST", "/api/rooms", NEW_ROOM, "127.0.0.2"))] += 1


async def summaries(host, port, ids, count, tally, concurrency=20):
    queue = collections.deque(ids[i % len(ids)] for i in range(count))

    async def worker():
        while queue:
            room = queue.popleft()
            tally[str(await request(host, port, "GET", f"/api/rooms/{room}", b"", "127.0.0.3"))] += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))


async def each_room(host, port, ids, method, suffix, body=b"", concurrency=20):
    """One request per room id: `method /api/rooms/{id}{suffix}`; the statuses counted."""
    tally = collections.Counter()
    queue = collections.deque(ids)

    async def worker():
        while queue:
            room = queue.popleft()
            tally[str(await request(host, port, method, f"/api/rooms/{room}{suffix}", body))] += 1

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return dict(tally)


class Closed(Exception):
    """The server refused the handshake or closed the socket."""


async def ws_open(host, port, room, source, headers=None):
    """A WebSocket to the room (RFC 6455, by hand: the standard library has no client); the
    handshake's response headers go into `headers` (a dict, names in lower case) when given."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    key = base64.b64encode(os.urandom(16)).decode()
    writer.write((
        f"GET /ws/rooms/{room} HTTP/1.1\r\nhost: {host}:{port}\r\nupgrade: websocket\r\n"
        f"connection: Upgrade\r\nsec-websocket-key: {key}\r\nsec-websocket-version: 13\r\n\r\n"
    ).encode())
    status = (await reader.readline()).split()
    if len(status) < 2 or status[1] != b"101":
        writer.close()
        raise Closed(status[1].decode() if len(status) > 1 else "closed")
    while (line := await reader.readline()) not in (b"\r\n", b""):
        if headers is not None and b":" in line:
            name, value = line.decode("latin-1").split(":", 1)
            headers[name.strip().lower()] = value.strip()
    return reader, writer


def ws_frame(message):
    """A client's (masked) text frame of the message as JSON."""
    payload, mask = json.dumps(message).encode(), os.urandom(4)
    n = len(payload)
    length = bytes([0x80 | n]) if n < 126 else bytes([0x80 | 126]) + n.to_bytes(2, "big")
    return bytes([0x81]) + length + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def ws_send(writer, message):
    writer.write(ws_frame(message))


async def ws_next(reader):
    """The next text frame as JSON (pings and other control frames skipped)."""
    while True:
        b0, b1 = await reader.readexactly(2)
        n = b1 & 0x7F
        if n >= 126:
            n = int.from_bytes(await reader.readexactly(2 if n == 126 else 8), "big")
        payload = await reader.readexactly(n)
        if b0 & 0x0F == 8:
            raise Closed(str(int.from_bytes(payload[:2], "big")) if payload else "1005")
        if b0 & 0x0F == 1:
            return json.loads(payload)


async def ws_reply(reader, want):
    """Frames until one whose `t` is in `want`."""
    while True:
        frame = await ws_next(reader)
        if frame["t"] in want:
            return frame


async def hello(host, port, room, token, source):
    reader, writer = await ws_open(host, port, room, source)
    ws_send(writer, {"t": "hello", "d": {"token": token}})
    await asyncio.wait_for(ws_reply(reader, {"welcome", "error"}), 30)
    return reader, writer


async def local_room(host, port, source):
    """A new local room: (room, token), or None when refused."""
    reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    body = b'{"mode":"local","side":"black"}'
    writer.write((
        f"POST /api/rooms HTTP/1.1\r\nhost: {host}:{port}\r\nconnection: close\r\n"
        f"content-type: application/json\r\ncontent-length: {len(body)}\r\n\r\n"
    ).encode() + body)
    answer = await reader.read()
    writer.close()
    if not answer.startswith(b"HTTP/1.1 201"):
        return None
    made = json.loads(answer.split(b"\r\n\r\n", 1)[1])
    return made["room"], made["token"]


async def churn(host, port, room, token, until, tally):
    """Reconnects to the room's seat in a loop: each socket's presence could be a log event."""
    while time.monotonic() < until:
        try:
            _, writer = await hello(host, port, room, token, "127.0.0.4")
            writer.close()
            tally["cycles"] += 1
        except (Closed, OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
            tally[type(error).__name__ + " " + str(error)[:20]] += 1
            await asyncio.sleep(0.1)


async def seed_spam(host, port, room, token, until, tally):
    """Client seeds, new and repeated, 15 a second on one socket, reconnecting when closed."""
    n = 0
    while time.monotonic() < until:
        try:
            reader, writer = await hello(host, port, room, token, "127.0.0.4")
            while time.monotonic() < until:
                n += 1
                seed = f"{n:08x}" if n % 2 else "abcd"
                ws_send(writer, {"t": "seed", "d": {"client_seed": seed, "id": n}})
                reply = await asyncio.wait_for(ws_reply(reader, {"ack", "error"}), 30)
                tally[reply["d"].get("code", "ack")] += 1
                await asyncio.sleep(1 / 15)
            writer.close()
        except (Closed, OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
            tally["socket " + type(error).__name__ + " " + str(error)[:20]] += 1
            await asyncio.sleep(0.1)


async def rematch_chain(host, port, until, tally):
    """Resign and rematch, then again in the rematch room, as fast as the server answers."""
    made = await local_room(host, port, "127.0.0.5")
    if made is None:
        tally["first room refused"] += 1
        return
    room, token = made
    while time.monotonic() < until:
        try:
            reader, writer = await hello(host, port, room, token, "127.0.0.5")
            for action in ("resign", "rematch"):
                ws_send(writer, {"t": action, "d": {"id": action}})
            answer = await asyncio.wait_for(ws_reply(reader, {"rematch", "error"}), 30)
            writer.close()
        except (Closed, OSError, asyncio.TimeoutError, asyncio.IncompleteReadError) as error:
            tally["socket " + type(error).__name__] += 1
            await asyncio.sleep(0.1)
            continue
        if answer["t"] == "rematch":
            tally["rematch rooms"] += 1
            room = answer["d"]["room"]
        else:
            tally[answer["d"]["code"]] += 1
            await asyncio.sleep(0.5)


async def big_headers(host, port, count, until, tally):
    """`count` connections each sending 400 KB of one header that never ends, reopened once
    the server answers or closes."""
    line = b"x-big: " + b"a" * (400 * 1024)

    async def one():
        while time.monotonic() < until:
            try:
                reader, writer = await asyncio.open_connection(host, port, local_addr=("127.0.0.6", 0))
                writer.write(b"GET /healthz HTTP/1.1\r\nhost: x\r\n" + line)
                try:
                    await asyncio.wait_for(writer.drain(), 15)
                except (OSError, asyncio.TimeoutError):
                    pass
                status = await asyncio.wait_for(reader.readline(), 15)
                parts = status.split()
                tally[parts[1].decode() if len(parts) > 1 else "closed"] += 1
                writer.close()
            except (OSError, asyncio.TimeoutError) as error:
                tally[type(error).__name__] += 1
                await asyncio.sleep(0.2)

    await asyncio.gather(*(one() for _ in range(count)))


async def everything(args, host, port):
    """The attack, and the log-growth, rematch-chain and big-header attacks, all at once."""
    ids = open(args.rooms).read().split()
    rooms = [r for r in [await local_room(host, port, "127.0.0.4") for _ in range(args.churn_rooms)] if r]
    until = time.monotonic() + args.seconds
    silent, creation, summary, cycles, seeds, chain, headers = (collections.Counter() for _ in range(7))
    sources = [f"127.0.1.{i}" for i in range(1, args.sources + 1)]
    started = time.monotonic()
    await asyncio.gather(
        hold_silent(host, port, sources, args.silent // len(sources), until, silent),
        flood(host, port, until, creation),
        summaries(host, port, ids, args.summaries, summary),
        *(churn(host, port, room, token, until, cycles) for room, token in rooms),
        *(seed_spam(host, port, room, token, until, seeds) for room, token in rooms),
        rematch_chain(host, port, until, chain),
        big_headers(host, port, args.big_headers, until, headers),
    )
    silent.pop("held seconds", None)
    print(json.dumps({
        "seconds": round(time.monotonic() - started, 1),
        "silent_connections": dict(silent),
        "creation_flood": dict(creation),
        "summaries": dict(summary),
        "reconnect_churn": dict(cycles, rooms=[room for room, _ in rooms]),
        "seed_spam": dict(seeds),
        "rematch_chain": dict(chain),
        "big_headers": dict(headers),
    }, indent=2))


async def attack(args, host, port):
    ids = open(args.rooms).read().split()
    until = time.monotonic() + args.seconds
    silent, creation, summary = (collections.Counter() for _ in range(3))
    sources = [f"127.0.1.{i}" for i in range(1, args.sources + 1)]
    started = time.monotonic()
    await asyncio.gather(
        hold_silent(host, port, sources, args.silent // len(sources), until, silent),
        flood(host, port, until, creation),
        summaries(host, port, ids, args.summaries, summary),
    )
    closed = silent.pop("closed by the server", 0)
    held = silent.pop("held seconds", 0.0)
    print(json.dumps({
        "seconds": round(time.monotonic() - started, 1),
        "silent_connections": dict(silent, **{
            "closed by the server": closed,
            "mean seconds held before the server closed": round(held / closed, 1) if closed else None,
        }),
        "creation_flood": dict(creation),
        "summaries": dict(summary),
    }, indent=2))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["seed", "attack", "all", "summaries", "joins"])
    parser.add_argument("--url", required=True, help="host:port")
    parser.add_argument("--rooms", required=True)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--silent", type=int, default=5000)
    parser.add_argument("--sources", type=int, default=50)
    parser.add_argument("--summaries", type=int, default=2000)
    parser.add_argument("--churn-rooms", type=int, default=4)
    parser.add_argument("--big-headers", type=int, default=256)
    args = parser.parse_args()
    host, port = args.url.rsplit(":", 1)
    port = int(port)
    if args.mode == "seed":
        for room in asyncio.run(create_rooms(host, port, int(args.rooms))):
            print(room)
    elif args.mode == "attack":
        asyncio.run(attack(args, host, port))
    elif args.mode == "all":
        asyncio.run(everything(args, host, port))
    else:
        ids = open(args.rooms).read().split()
        method, suffix, body = ("GET", "", b"") if args.mode == "summaries" else ("POST", "/join", b"{}")
        print(json.dumps(asyncio.run(each_room(host, port, ids, method, suffix, body))))


if __name__ == "__main__":
    main()
