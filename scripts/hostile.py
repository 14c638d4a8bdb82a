#!/usr/bin/env python3
"""Hostile clients for scripts/hostile.sh (standard library only).

  hostile.py seed   --url 127.0.0.1:PORT --rooms N            prints N new room ids, one a line
  hostile.py attack --url 127.0.0.1:PORT --rooms FILE --seconds S
      for S seconds holds --silent TCP connections that never send a byte (spread over
      --sources loopback addresses, reopened as the server closes them), floods room creation
      from 127.0.0.2, and asks --summaries room summaries (ids from FILE) from 127.0.0.3;
      prints what each got as JSON.
  hostile.py summaries --url 127.0.0.1:PORT --rooms FILE    asks each room's summary, 20 at a time
  hostile.py joins     --url 127.0.0.1:PORT --rooms FILE    joins each room's free seat, 20 at a time
      (a join loads the room into the server's memory); both print the statuses as JSON.
"""
import argparse
import asyncio
import collections
import json
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
    parser.add_argument("mode", choices=["seed", "attack", "summaries", "joins"])
    parser.add_argument("--url", required=True, help="host:port")
    parser.add_argument("--rooms", required=True)
    parser.add_argument("--seconds", type=float, default=40)
    parser.add_argument("--silent", type=int, default=5000)
    parser.add_argument("--sources", type=int, default=50)
    parser.add_argument("--summaries", type=int, default=2000)
    args = parser.parse_args()
    host, port = args.url.rsplit(":", 1)
    port = int(port)
    if args.mode == "seed":
        for room in asyncio.run(create_rooms(host, port, int(args.rooms))):
            print(room)
    elif args.mode == "attack":
        asyncio.run(attack(args, host, port))
    else:
        ids = open(args.rooms).read().split()
        method, suffix, body = ("GET", "", b"") if args.mode == "summaries" else ("POST", "/join", b"{}")
        print(json.dumps(asyncio.run(each_room(host, port, ids, method, suffix, body))))


if __name__ == "__main__":
    main()
