#!/usr/bin/env python3
"""Live games under one fault, and the check of their history (run by scripts/faults.sh).

  faults.py run --url HOST:PORT --fault NAME --seed N --bin SENET [--games G]
                [--inject CMD --heal CMD]
  faults.py table < RESULTS.jsonl        the Markdown table of docs/RELIABILITY.md
  faults.py publish PAGE TABLE            puts the table between the page's markers
  faults.py proxy PORT HOST:PORT          a TCP proxy to HOST:PORT that signals break (Proxy)

plays G timed online games (two players each, then their rematch) through the server at
--url, strikes the fault once at a moment the seed decides, lets the games finish, checks the
history and prints one JSON line: the fault, the seed, the violations found, the recovery time
(from the fault's end until an action succeeds again) and the actions refused meanwhile.

Faults: `cut` (a player's socket cut in the middle of a frame; the player reconnects and
resends the action with the same id) and any fault the driver strikes with --inject and ends
with --heal (shell commands; scripts/faults.sh passes its own functions), e.g. `kill`.

The check, over what every client saw and what the store holds (the records):
  - every acknowledged action is in the log once: one version per (player, id), one action per
    version, of the action's kind, and a side's throws and moves in the log number its
    acknowledged ones plus at most those whose answer was lost;
  - every client's stream is the log's (same event at the same version), so no throw was shown
    that was not committed;
  - every finished game passes `senet verify` (throws, moves and clocks recounted); no clock is
    negative or charged more than the time between two events;
  - no seat was taken without its token (a stranger's hello gets a spectator, whose actions
    are refused); every `rematch` names a room that exists;
  - every request is answered within 2 s (an error, or a closed socket), never left hanging;
    but with `pause`, a request the stopped instance holds (its socket's upstream, from the
    handshake's X-Senet-Upstream header, is the struck instance) or a connection made while it
    is stopped can only be answered by the client's own deadline, as the page does: the player
    must then be back, answered again, within BACK_WITHIN of sending it;
  - with a database fault (pg-*, disk-full), `/readyz` says 503 from the first request refused
    `unavailable` (half a second later) until the fault's end, answers within 2 s, and says
    200 again within 5 s of the end;
  - with `cut`, where the server lives on, a resend is answered as the first send was (an
    `ack`), or applied then: never refused for what its own first send did.
Standard library only.
"""
import argparse
import asyncio
import collections
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile import Closed, ws_frame, ws_next, ws_open  # noqa: E402

# Every request gets an answer within this (an error or a close counts), or it hangs.
ANSWER_WITHIN = 2.0
# A player whose request a paused instance held is back in the game within this of sending it
# (issue 31's recovery goal).
BACK_WITHIN = 5.0
# The kinds of event an acknowledged action may end at.
ENDS = {
    "roll": {"rolled", "passed", "draw-cancelled", "game-over"},
    "move": {"moved", "game-over"},
    "resign": {"game-over"},
    "rematch": {"rematch", "rematch-offered"},
}
# Whose event is counted against whose actions: a side's throws and moves.
COUNTED = {"roll": "rolled", "move": "moved"}
CLOCK = {"initial": 600, "increment": 0}
# How many sockets the `cut` fault cuts in one run, one after the other.
CUTS = 6
# A player thinks this long before each action, so that a game lasts a few seconds.
THINK = 0.08
# Errors that leave an action's outcome unknown (docs/PROTOCOL.md): resent, with the same id,
# after RESEND_AFTER seconds.
UNKNOWN_OUTCOME = {"unavailable", "internal"}
RESEND_AFTER = 0.1
# Faults of the database: `/readyz` is asked during them (Run.check_ready).
DATABASE_FAULTS = {"pg-restart", "pg-kill", "pg-hang", "pg-slow", "disk-full"}
# Those during which the instances cannot write: `/readyz` must say so. A slow database
# (pg-slow) commits all along, only late: a request answered `unavailable` at its deadline
# there is no sign that the instance cannot write, and taking it out of service would help
# nobody (every instance shares the database).
UNWRITABLE = DATABASE_FAULTS - {"pg-slow"}
# Faults during which some actions still succeed (a WAL with room left on the full disk; the
# other instance's players while one is paused): recovery counts from the fault's end.
SUCCEED_DURING = {"disk-full", "pause"}
# How often `/readyz` is asked during a fault, how long it may take to notice that writes fail,
# and how soon after the fault it must say ready again.
READY_EVERY, READY_NOTICES, READY_AGAIN = 0.1, 0.5, 5.0


class History:
    """What the clients did and saw, and what went wrong while they did."""

    def __init__(self):
        self.actions = []  # one dict per action sent, with its final answer
        self.streams = {}  # (player, room) -> [(v, t, d)] as received
        self.violations = []
        self.rooms = set()
        self.fault_start = self.fault_end = None
        self.affected = set()  # the players the fault struck
        self.cuts = []  # (player, when) of each socket the `cut` fault cut
        self.held = []  # (player, when) of each request or connection the paused instance held
        self.served = []  # (player, when) of each welcome and each request answered
        # (player, when, why) of each connection that failed at once (refused, closed, an error
        # instead of the welcome): what a player met while it could not get back.
        self.failed_connections = []
        # (player, started, what, upstream) of each request or connection left unanswered for
        # ANSWER_WITHIN; upstream: the instance behind the socket, if known.
        self.hangs = []
        self.answer_ms = []
        self.refused = 0  # requests answered by a closed socket, a hang, `unavailable` or `internal`
        self.ready = []  # (asked, answered, status) of each `/readyz` during a database fault
        self.unavailable = []  # when each request was answered `unavailable`

    def hang(self, player, started, what, upstream=None):
        self.hangs.append((player, started, f"{player}: {what} for {ANSWER_WITHIN} s", upstream))

    def violation(self, text):
        if text not in self.violations:
            self.violations.append(text)


def http(base, method, path, body=None):
    """(status, JSON body or None); status 0 when nothing answered within ANSWER_WITHIN."""
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        f"http://{base}{path}", data=data, method=method,
        headers={"content-type": "application/json"},
    )
    try:
        with urllib.request.urlopen(request, timeout=ANSWER_WITHIN) as answer:
            return answer.status, json.loads(answer.read() or b"null")
    except urllib.error.HTTPError as error:
        return error.code, None
    except (OSError, ValueError):
        return 0, None


class Player:
    """One seat's client: reconnects by itself, resends what it lost, plays the first legal move."""

    def __init__(self, run, name, room, token, side, turns):
        self.run, self.name, self.room, self.token, self.side = run, name, room, token, side
        self.turns = turns  # own actions before resigning, in the first game
        self.n = 0
        self.conn = None
        self.upstream = None  # the instance nginx sent the socket to, if it said
        self.waiting = {}
        self.seat = None
        self.news = asyncio.Event()
        self.rematched = False
        self.done = False

    async def connect(self):
        """Connects and says hello until welcomed; each failed try is refused, never hung."""
        while True:
            started, headers = time.time(), {}
            try:
                reader, writer = await asyncio.wait_for(
                    ws_open(self.run.host, self.run.port, self.room, "127.0.0.1", headers),
                    ANSWER_WITHIN)
                writer.write(ws_frame({"t": "hello", "d": {"token": self.token, "client": self.name}}))
                welcome = await asyncio.wait_for(self.welcome(reader), ANSWER_WITHIN)
                if welcome["t"] == "welcome":
                    self.run.history.served.append((self.name, time.time()))
                    break
                writer.close()
                self.failed(started, f"hello refused {welcome['d'].get('code')}")
            except asyncio.TimeoutError:
                # A handshake that hung told nothing: its upstream is unknown.
                self.run.history.hang(self.name, started, f"connecting to {self.room[:8]} hung")
            except (OSError, Closed, asyncio.IncompleteReadError) as e:
                self.failed(started, f"{type(e).__name__} {e}".strip())
            await asyncio.sleep(max(0.0, 0.1 - (time.time() - started)))
        seat = welcome["d"]["seat"]
        if seat != self.side:
            self.run.history.violation(f"{self.name}'s token gave {seat}, not {self.side}")
        self.conn = (reader, writer)
        # The instance that answered: the last nginx tried.
        self.upstream = headers.get("x-senet-upstream", "").split(",")[-1].strip() or None
        asyncio.get_running_loop().create_task(self.read(reader, writer))

    def failed(self, started, why):
        self.run.history.failed_connections.append((self.name, started, why))

    async def welcome(self, reader):
        while True:
            frame = await ws_next(reader)
            if frame["t"] in ("welcome", "error"):
                return frame

    def stream(self):
        return self.run.history.streams.setdefault((self.name, self.room), [])

    async def read(self, reader, writer):
        """Keeps every event; hands each answer to its waiter; the `seat` after a rematch."""
        try:
            while True:
                frame = await ws_next(reader)
                t, d = frame["t"], frame.get("d", {})
                if t == "seat":
                    self.seat = d
                elif t not in ("ack", "error", "state", "pong", "welcome") and "v" in d:
                    self.stream().append((d["v"], t, {k: v for k, v in d.items() if k != "id"}))
                if "id" in d and d["id"] in self.waiting and t in ("ack", "error", "state"):
                    self.waiting.pop(d["id"]).set_result(frame)
                self.news.set()
        except (OSError, Closed, asyncio.IncompleteReadError, ValueError):
            pass
        if self.conn == (reader, writer):
            self.conn = None
        writer.close()
        for waiter in self.waiting.values():
            if not waiter.done():
                waiter.set_result({"t": "closed"})
        self.waiting.clear()
        self.news.set()

    async def request(self, t, d=None, id=None):
        """Sends t and waits for its answer: the frame, {"t": "closed"} or {"t": "hang"}."""
        if self.conn is None:
            await self.connect()
        if id is None:
            self.n += 1
            id = f"{self.name}-{self.n}"
        reader, writer = self.conn
        waiter = asyncio.get_running_loop().create_future()
        self.waiting[id] = waiter
        frame = ws_frame({"t": t, "d": {**(d or {}), "id": id}})
        sent = time.time()
        if self.run.cut_next and t in ENDS and self.name.startswith(self.run.cut_who):
            how, self.run.cut_next = self.run.cut_next, None
            # The frame cut in two, or whole and a second one cut: then the socket is gone.
            writer.write(frame[: len(frame) // 2] if how == "mid-frame" else frame + frame[:3])
            await writer.drain()
            writer.transport.abort()
            self.run.history.cuts.append((self.name, time.time()))
        else:
            writer.write(frame)
        try:
            answer = await asyncio.wait_for(asyncio.shield(waiter), ANSWER_WITHIN)
        except asyncio.TimeoutError:
            self.run.history.hang(self.name, sent, f"{t} unanswered", self.upstream)
            writer.transport.abort()
            answer = {"t": "hang"}
        self.run.history.answer_ms.append(1000 * (time.time() - sent))
        code = answer.get("d", {}).get("code")
        if answer["t"] in ("closed", "hang") or code in UNKNOWN_OUTCOME:
            self.run.history.refused += 1
        else:
            self.run.history.served.append((self.name, time.time()))
        if code == "unavailable":
            self.run.history.unavailable.append(time.time())
        return id, answer

    async def act(self, t, d=None, side=None):
        """An action (for `side`, when this seat holds both), resent with its id after every
        lost answer until answered."""
        side = side or self.side
        id, entry = None, {"player": self.name, "side": side, "room": self.room, "t": t}
        self.run.history.actions.append(entry)
        await asyncio.sleep(THINK)
        if t == "rematch":
            self.run.rematching.set()
        while True:
            id, answer = await self.request(t, d, id)
            entry.update(id=id, answer=answer["t"], at=time.time())
            if answer["t"] == "ack":
                entry["v"] = answer["d"]["v"]
                return True
            if answer["t"] == "error" and answer["d"]["code"] not in UNKNOWN_OUTCOME:
                entry["code"] = answer["d"]["code"]
                return False
            # Its answer went with the socket, or the server could not tell: resend it.
            entry["lost"] = True
            if answer["t"] == "error":
                await asyncio.sleep(RESEND_AFTER)

    async def state(self):
        while True:
            _, answer = await self.request("sync")
            if answer["t"] == "state":
                return answer["d"]
            await asyncio.sleep(0.05)

    async def play(self):
        await self.connect()
        while True:
            state = await self.state()
            if state["result"]:
                if self.rematched:
                    self.done = True
                    return
                if await self.follow_rematch(state):
                    continue
                await self.act("rematch")
                await self.wait_news(0.5)
            elif self.side in ("both", state["turn"]) and state["phase"] in ("roll", "move"):
                self.turns -= 1
                side = state["turn"]
                if self.turns < 0:
                    await self.act("resign", side=side)
                elif state["phase"] == "roll":
                    await self.act("roll", side=side)
                elif state["legal"]:
                    await self.act("move", {"from": state["legal"][0]["from"]}, side=side)
            else:
                await self.wait_news(0.5)

    async def follow_rematch(self, state):
        """Once the rematch is open and its `seat` came, plays there (a few turns, then resign)."""
        if not state["rematch"] or self.seat is None:
            return False
        self.run.history.rooms.add(self.seat["room"])
        self.room, self.side, self.rematched = self.seat["room"], self.seat["seat"], True
        self.turns = 3
        if self.conn:
            self.conn[1].transport.abort()
            self.conn = None
        return True

    async def wait_news(self, seconds):
        self.news.clear()
        try:
            await asyncio.wait_for(self.news.wait(), seconds)
        except asyncio.TimeoutError:
            pass


class Run:
    def __init__(self, args):
        self.args = args
        self.host, port = args.url.rsplit(":", 1)
        self.port = int(port)
        self.history = History()
        self.rng = random.Random(args.seed)
        self.rematching = asyncio.Event()  # set when a player first asks for a rematch
        self.cut_next = None  # "mid-frame" or "after-frame": the next action's socket is cut
        self.cut_who = ""  # of a player whose name starts so

    async def new_room(self, mode):
        while True:
            status, made = await asyncio.to_thread(
                http, self.args.url, "POST", "/api/rooms",
                {"mode": mode, "side": "black", "clock": CLOCK})
            if status == 201:
                self.history.rooms.add(made["room"])
                return made
            await asyncio.sleep(0.2)

    async def local_game(self):
        """A timed local room: one seat plays both sides, so a resent throw would be played."""
        made = await self.new_room("local")
        tag = f"s{self.args.seed}local"
        return [Player(self, tag, made["room"], made["token"], "both", self.rng.randint(12, 24))]

    async def new_game(self, g):
        """An online timed room, both seats taken; its two players."""
        made = await self.new_room("online")
        while True:
            status, joined = await asyncio.to_thread(
                http, self.args.url, "POST", f"/api/rooms/{made['room']}/join", {})
            if status == 200:
                break
            await asyncio.sleep(0.2)
        room = made["room"]
        tag = f"s{self.args.seed}g{g}"
        return [
            Player(self, f"{tag}b", room, made["token"], "black", self.rng.randint(6, 12)),
            Player(self, f"{tag}w", room, joined["token"], "white", self.rng.randint(6, 12)),
        ]

    async def strike(self, players):
        """Waits for the seed's moment, then strikes the fault (and ends it). Half the seeds
        strike as a rematch is asked (between its commit and its room, before issue 31)."""
        if self.rng.random() < 0.5:
            await self.rematching.wait()
            await asyncio.sleep(self.rng.uniform(0, 0.02))
        else:
            await asyncio.sleep(self.rng.uniform(0.3, 1.5))
        history = self.history
        if self.args.fault == "cut":
            # The next player to act (odd seeds: the local game's) has its socket cut; again
            # after each, CUTS times in all.
            self.cut_who = players[0].name if self.args.seed % 2 else ""
            for _ in range(CUTS):
                self.cut_next = self.rng.choice(["mid-frame", "after-frame"])
                while self.cut_next and not all(p.done for p in players):
                    await asyncio.sleep(0.02)
                await asyncio.sleep(self.rng.uniform(0.1, 0.4))
            return
        history.affected = {p.name for p in players}
        history.fault_start = time.time()
        watch = None
        if self.args.fault in DATABASE_FAULTS:
            watch = asyncio.get_running_loop().create_task(self.watch_ready())
        # Each half prints the moment it took effect (the kill; the restart answering /readyz).
        moments = []
        for command in (self.args.inject, self.args.heal):
            done = await asyncio.to_thread(
                subprocess.run, ["bash", "-c", command], check=True, capture_output=True, text=True)
            moments.append(float((done.stdout.split() or [time.time()])[-1]))
        history.fault_start = moments[0]
        if watch:
            await asyncio.sleep(READY_AGAIN)
            watch.cancel()
        # With a second instance, players go on through it from the kill on.
        survivor = self.args.backend == "postgres" and self.args.fault == "kill"
        history.fault_end = moments[0] if survivor else moments[1]

    async def watch_ready(self):
        """Asks `/readyz` every READY_EVERY until cancelled."""
        while True:
            asked = time.time()
            status, _ = await asyncio.to_thread(http, self.args.url, "GET", "/readyz")
            self.history.ready.append((asked, time.time(), status))
            await asyncio.sleep(max(0.0, READY_EVERY - (time.time() - asked)))

    async def stranger(self, room):
        """A hello without a token, then a throw: a spectator's, refused."""
        reader, writer = await ws_open(self.host, self.port, room, "127.0.0.1")
        try:
            writer.write(ws_frame({"t": "hello"}))
            welcome = await asyncio.wait_for(ws_next(reader), ANSWER_WITHIN)
            if welcome["t"] == "welcome" and welcome["d"]["seat"] != "spectator":
                self.history.violation(f"a stranger took {welcome['d']['seat']} in {room[:8]}")
            writer.write(ws_frame({"t": "roll", "d": {"id": "stranger"}}))
            while True:
                frame = await asyncio.wait_for(ws_next(reader), ANSWER_WITHIN)
                if frame.get("d", {}).get("id") == "stranger":
                    break
            if frame["t"] != "error":
                self.history.violation(f"a stranger's roll in {room[:8]} was answered {frame['t']}")
        finally:
            writer.close()

    async def main(self):
        games = [await self.local_game()] + [await self.new_game(g) for g in range(self.args.games)]
        players = [p for game in games for p in game]
        for game in games:
            await self.stranger(game[0].room)
        fault = asyncio.create_task(self.strike(players))
        try:
            await asyncio.wait_for(asyncio.gather(*(p.play() for p in players)), 120)
        except asyncio.TimeoutError:
            self.history.violation("the games did not finish within 120 s")
        await fault
        for p in players:
            if p.conn:
                p.conn[1].close()
        return await asyncio.to_thread(self.check)

    def check(self):
        history, records = self.history, {}
        for room in sorted(history.rooms):
            status, record = http(self.args.url, "GET", f"/api/rooms/{room}/record")
            if status != 200:
                history.violation(f"record of {room[:8]}: {status}")
                continue
            records[room] = record
        logs = {room: {e["v"]: e for e in r["events"]} for room, r in records.items()}
        for room, log in logs.items():
            if sorted(log) != list(range(1, len(log) + 1)):
                history.violation(f"{room[:8]}: versions not consecutive")
        self.check_streams(logs)
        self.check_actions(logs)
        for room, record in records.items():
            self.check_record(room, record)
        self.check_ready()
        self.check_hangs()
        return self.report()

    def check_hangs(self):
        """Every hang is a violation, but for one the paused instance held (see the module's
        doc): that is an interruption, which the player must get over within BACK_WITHIN."""
        history = self.history
        for player, started, text, upstream in history.hangs:
            held = (self.args.fault == "pause" and history.fault_start is not None
                    and history.fault_end is not None
                    and started < history.fault_end and started + ANSWER_WITHIN > history.fault_start
                    # A handshake that hung names no instance; a socket's nginx named.
                    and upstream in (None, self.args.struck))
            if held:
                history.held.append((player, started))
            else:
                history.violation(text)

    def check_ready(self):
        """`/readyz` answered, said 503 while requests were refused `unavailable` by an instance
        that cannot write, and 200 again after."""
        history = self.history
        if not history.ready or history.fault_end is None:
            return
        start, end = history.fault_start, history.fault_end
        first = min((at for at in history.unavailable if at >= start), default=None)
        for asked, answered, status in history.ready:
            if status == 0:
                history.violation(f"/readyz unanswered for {ANSWER_WITHIN} s")
            elif status == 200 and first is not None and first + READY_NOTICES <= asked \
                    and answered <= end and self.args.fault in UNWRITABLE:
                history.violation(
                    f"/readyz said ready {asked - start:.1f} s into the fault, "
                    f"{asked - first:.1f} s after a request was refused unavailable")
        again = [asked for asked, _, status in history.ready if status == 200 and asked >= end]
        if not again:
            history.violation(f"/readyz not ready {READY_AGAIN} s after the fault")

    def check_streams(self, logs):
        for (player, room), stream in self.history.streams.items():
            log = logs.get(room, {})
            for v, t, d in stream:
                logged = log.get(v)
                if logged is None:
                    what = "a throw" if t == "rolled" else t
                    self.history.violation(f"{player} was shown {what} v{v} the log of {room[:8]} lacks")
                elif logged["t"] != t or {**logged["d"], "v": v} != d:
                    self.history.violation(f"{player} saw v{v} of {room[:8]} unlike the log: {t}")

    def check_actions(self, logs):
        history = self.history
        by_id, by_v = {}, {}
        for a in history.actions:
            if a.get("answer") != "ack":
                continue
            by_id.setdefault((a["player"], a["room"], a["id"]), set()).add(a["v"])
            by_v.setdefault((a["room"], a["v"]), set()).add((a["player"], a["id"]))
            log, v = logs.get(a["room"], {}), a["v"]
            # Presence changes noticed meanwhile are logged with the action's events, after them.
            while v in log and log[v]["t"] == "presence":
                v -= 1
            event = log.get(v)
            if event is None or event["t"] not in ENDS[a["t"]]:
                history.violation(f"{a['player']}'s {a['t']} acknowledged at v{a['v']}, which is {event and event['t']}")
        for key, versions in by_id.items():
            if len(versions) > 1:
                history.violation(f"{key[0]}'s action {key[2]} applied at {sorted(versions)}")
        for (room, v), senders in by_v.items():
            if len(senders) > 1:
                history.violation(f"v{v} of {room[:8]} answers {len(senders)} actions")
        if self.args.fault == "cut":
            # The server lived on: a resend is answered as its first send was, or applied now.
            for a in history.actions:
                if a.get("lost") and a.get("answer") == "error":
                    history.violation(f"{a['player']}'s {a['t']} resent after a cut was refused: {a['code']}")
        for room, log in logs.items():
            for t, kind in COUNTED.items():
                for side in ("black", "white"):
                    mine = [a for a in history.actions
                            if a["room"] == room and a["side"] == side and a["t"] == t]
                    acked = sum(1 for a in mine if a.get("answer") == "ack")
                    lost = sum(1 for a in mine if a.get("lost") and a.get("answer") != "ack")
                    logged = sum(1 for e in log.values() if e["t"] == kind and e["d"]["side"] == side)
                    if not acked <= logged <= acked + lost:
                        history.violation(
                            f"{room[:8]} {side}: {logged} {kind} logged for {acked} acknowledged "
                            f"({lost} unanswered)")

    def check_record(self, room, record):
        history = self.history
        for e in record["events"]:
            clocks = e["d"].get("clocks") or {}
            if any(ms < 0 for ms in clocks.values()):
                history.violation(f"{room[:8]} v{e['v']}: a negative clock {clocks}")
            if e["t"] == "rematch":
                status, _ = http(self.args.url, "GET", f"/api/rooms/{e['d']['room']}")
                if status != 200:
                    history.violation(f"{room[:8]}'s rematch names {e['d']['room'][:8]}: {status}")
        last = None
        for e in record["events"]:
            clocks = e["d"].get("clocks")
            if not clocks:
                continue
            if last is not None:
                spent = sum(last[1][s] - clocks[s] for s in clocks)
                if spent > e["at"] - last[0] + CLOCK["increment"] * 1000 + 5:
                    history.violation(f"{room[:8]} v{e['v']}: {spent} ms charged in {e['at'] - last[0]} ms")
            last = (e["at"], clocks)
        if any(e["t"] == "game-over" for e in record["events"]):
            with tempfile.NamedTemporaryFile("w", suffix=".json") as file:
                json.dump(record, file)
                file.flush()
                verdict = subprocess.run([self.args.bin, "verify", file.name], capture_output=True, text=True)
            if verdict.returncode != 0:
                history.violation(f"senet verify rejects {room[:8]}: {verdict.stdout.strip()[:200]}")
        else:
            history.violation(f"{room[:8]} did not finish")

    def report(self):
        history = self.history
        recovery = None
        if history.cuts or history.held:
            # Each interrupted player's first success after: an acknowledged action after its
            # cut; any answer (a welcome, a state) after a request the paused instance held, whose
            # game may have ended meanwhile. The slowest of the run.
            acks = [(a["player"], a["at"]) for a in history.actions if a.get("answer") == "ack"]
            waits = ([(first_after(acks, *cut), cut) for cut in history.cuts]
                     + [(first_after(history.served, *held), held) for held in history.held])
            if any(wait is None for wait, _ in waits):
                history.violation("an interrupted player never acted again")
            else:
                wait, (player, when) = max(waits)
                recovery = round(1000 * wait)
                if wait > BACK_WITHIN:
                    history.violation(
                        f"an interrupted player was back after {recovery} ms: "
                        + self.meanwhile(player, when, when + wait))
        elif history.fault_start is None:
            history.violation("the fault never struck")
        else:
            end = history.fault_end or history.fault_start
            # Acks between a kill and the restart's end cannot be: a player's first ack after
            # the strike is its recovery.
            since = end if self.args.fault in SUCCEED_DURING else history.fault_start
            after = [a["at"] for a in history.actions if a["player"] in history.affected
                     and a.get("answer") == "ack" and a["at"] >= since]
            recovery = max(0, round(1000 * (min(after) - end))) if after else None
            if recovery is None and since == end and history.refused == 0:
                recovery = 0  # the games went on through the fault (a WAL with room left)
            if recovery is None:
                history.violation("no action succeeded after the fault")
        return {
            "fault": self.args.fault,
            "backend": self.args.backend,
            "seed": self.args.seed,
            "date": time.strftime("%Y-%m-%d", time.gmtime()),
            "actions": len(history.actions),
            "violations": history.violations,
            "recovery_ms": recovery,
            "refused": history.refused,
            # Requests and connections the paused instance held, which the client gave up on.
            "held": len(history.held),
            "answer_max_ms": round(max(history.answer_ms, default=0)),
            # Refusals by code, e.g. to see what a stalled game's players were told.
            "errors": dict(sorted(collections.Counter(
                f"{a['t']}:{a['code']}" for a in history.actions if a.get("code")).items())),
            # How the actions whose answer went with a socket were answered when resent.
            "resent": sorted(f"{a['t']}:{a.get('code', a.get('answer'))}"
                             for a in history.actions if a.get("lost")),
        }

    def meanwhile(self, player, since, until):
        """What a player met between since and until: its hangs and failed connections."""
        history = self.history
        start = history.fault_start or since
        met = [(at, what) for who, at, what, _ in history.hangs if who == player]
        met += [(at, why) for who, at, why in history.failed_connections if who == player]
        seen = collections.Counter(what for at, what in met if since <= at <= until)
        return (f"{player}, from {since - start:+.1f} s of the fault: "
                + (", ".join(f"{n} × {what}" for what, n in seen.most_common()) or "nothing"))


def first_after(events, player, when):
    """Seconds from `when` to the player's first (player, at) in events after it; None if none."""
    return min((at - when for who, at in events if who == player and at >= when), default=None)


class Proxy:
    """A TCP proxy between the instances and PostgreSQL that a signal breaks: SIGUSR1 stops
    forwarding without closing anything (the hanging case: bytes are held, new connections are
    accepted and held), SIGUSR2 adds SLOW_BY to every round trip, SIGHUP forwards again (what
    was held goes on then, as after a network partition heals)."""

    SLOW_BY = 0.2  # added to a round trip: half each way

    def __init__(self, target):
        self.host, port = target.rsplit(":", 1)
        self.port = int(port)
        self.flowing = asyncio.Event()
        self.flowing.set()
        self.delay = 0.0

    def mode(self, mode):
        self.delay = self.SLOW_BY / 2 if mode == "slow" else 0.0
        if mode == "hang":
            self.flowing.clear()
        else:
            self.flowing.set()

    async def serve(self, listen):
        loop = asyncio.get_running_loop()
        for sig, mode in ((signal.SIGUSR1, "hang"), (signal.SIGUSR2, "slow"), (signal.SIGHUP, "ok")):
            loop.add_signal_handler(sig, self.mode, mode)
        server = await asyncio.start_server(self.client, "127.0.0.1", listen)
        async with server:
            await server.serve_forever()

    async def client(self, reader, writer):
        await self.flowing.wait()
        try:
            up_reader, up_writer = await asyncio.open_connection(self.host, self.port)
        except OSError:
            writer.close()
            return
        await asyncio.gather(self.pipe(reader, up_writer), self.pipe(up_reader, writer))

    async def pipe(self, reader, writer):
        """Reads as it comes; writes each chunk once its delay passed and while flowing."""
        chunks = asyncio.Queue()

        async def deliver():
            while True:
                at, data = await chunks.get()
                if data is None:
                    break
                await asyncio.sleep(max(0.0, at + self.delay - time.monotonic()))
                await self.flowing.wait()
                writer.write(data)
                await writer.drain()
            writer.close()

        delivering = asyncio.create_task(deliver())
        try:
            while data := await reader.read(65536):
                chunks.put_nowait((time.monotonic(), data))
        except OSError:
            pass
        chunks.put_nowait((time.monotonic(), None))
        try:
            await delivering
        except OSError:
            pass


def table(lines):
    """fault × runs × violations × recovery (p50/max) × actions refused, from run results."""
    rows = {}
    for line in lines:
        if line.strip():
            result = json.loads(line)
            rows.setdefault((result["fault"], result["backend"]), []).append(result)
    out = [
        "| fault | backend | runs | violations | recovery p50 / max (ms) | requests refused | slowest answer (ms) | run |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for (fault, backend), results in rows.items():
        recoveries = sorted(r["recovery_ms"] for r in results if r["recovery_ms"] is not None)
        p50 = recoveries[len(recoveries) // 2] if recoveries else "–"
        top = recoveries[-1] if recoveries else "–"
        violations = sum(len(r["violations"]) for r in results)
        refused = sum(r["refused"] for r in results)
        slowest = max(r["answer_max_ms"] for r in results)
        day = max(r.get("date", "–") for r in results)
        out.append(f"| {fault} | {backend} | {len(results)} | {violations} | {p50} / {top} | {refused} | {slowest} | {day} |")
    return "\n".join(out)


def rows_of(text):
    """A table's rows by (fault, backend), in order; its header and separator are left out."""
    rows = {}
    for line in text.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) > 2 and cells[0] not in ("fault", "---"):
            rows[(cells[0], cells[1])] = line
    return rows


def publish(path, text):
    """Puts the table between its markers in docs/RELIABILITY.md: its rows replace the page's
    rows of the same fault and backend, and the page's other rows stay, so that a run of some
    faults publishes them alone."""
    begin, end = "<!-- faults table: scripts/faults.sh --publish -->", "<!-- end of the faults table -->"
    page = open(path).read()
    head, rest = page.split(begin, 1)
    old, tail = rest.split(end, 1)
    new = rows_of(text)
    rows = {**rows_of(old), **new}
    header = "\n".join(text.splitlines()[:2])
    faults = ", ".join(f"{fault}/{backend}" for fault, backend in new)
    stamp = (f"Last published {time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC on "
             f"{os.uname().nodename} ({faults}), load average {os.getloadavg()[0]:.1f} then.")
    table = "\n".join([header, *rows.values()])
    open(path, "w").write(f"{head}{begin}\n{table}\n\n{stamp}\n{end}{tail}")


def main():
    if sys.argv[1:2] == ["table"]:
        print(table(sys.stdin))
        return
    if sys.argv[1:2] == ["publish"]:
        publish(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1:2] == ["proxy"]:
        asyncio.run(Proxy(sys.argv[3]).serve(int(sys.argv[2])))
        return
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run")
    run.add_argument("--url", required=True)
    run.add_argument("--fault", required=True)
    run.add_argument("--backend", default="sqlite")
    run.add_argument("--seed", type=int, required=True)
    run.add_argument("--bin", required=True)
    run.add_argument("--games", type=int, default=3)
    run.add_argument("--inject", default="true")
    run.add_argument("--heal", default="true")
    # The instance a fault strikes, as nginx's X-Senet-Upstream names it (`pause`).
    run.add_argument("--struck")
    args = parser.parse_args()
    print(json.dumps(asyncio.run(Run(args).main())), flush=True)


if __name__ == "__main__":
    main()
