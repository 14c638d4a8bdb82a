#!/usr/bin/env python3
"""Fills a running release's database with what an upgrade must keep (scripts/make-fixture.sh).

  fixture.py fill     --url http://127.0.0.1:PORT --bin SENET --database-url URL --out manifest.json
  fixture.py describe --url http://127.0.0.1:PORT --bin SENET --database-url URL --out manifest.json

Plays, over the server's own HTTP and WebSocket API, what players and operators leave in a
database: named players, rated games won by bearing off, by resignation and drawn by agreement,
an unrated anonymous game, a game against the computer, chat between the players (presets and
free text) and from an identified spectator, a report, a hidden message, an analysis; games left
in progress (online rated and unrated, one screen, against the computer, timed); and with the
release's own `senet admin`, a ban in force, a lifted one, a time-out and a game ended by the
operator. Then, served again after a restart (so that what the first server was still writing,
such as its players' departures, is in), `describe` completes the manifest: what the database holds (every room's last version, every finished
game's winner, every player's rating) and keeps what a test needs to act in it later: the seat
tokens and player cookies of the games in progress. Those are test data, made for the fixture:
no real player's secret is in it.

Deterministic in what it does (moves are chosen by a seeded generator); the throws are the
server's, so two runs differ in their games but hold the same kinds of rows.
"""
import argparse
import json
import random
import subprocess
import sys
import time
import urllib.error
import urllib.request

from websockets.sync.client import connect

FOREVER = "36500d"  # a ban or time-out still in force when a later release opens the fixture


class Api:
    """HTTP as one browser: its player cookie, if any."""

    def __init__(self, base, cookie=None):
        self.base, self.cookie = base, cookie

    def call(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        if self.cookie:
            request.add_header("cookie", f"senet_player={self.cookie}")
        try:
            with urllib.request.urlopen(request, timeout=30) as answer:
                self.keep_cookie(answer.headers.get_all("set-cookie") or [])
                text = answer.read()
                return answer.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, json.loads(error.read() or b"null")

    def keep_cookie(self, headers):
        for header in headers:
            name, _, rest = header.partition("=")
            if name.strip() == "senet_player":
                self.cookie = rest.split(";", 1)[0]

    def ok(self, method, path, body=None):
        status, answer = self.call(method, path, body)
        if status >= 300:
            sys.exit(f"fixture: {method} {path} answered {status} {answer}")
        return answer


class Seat:
    """One WebSocket on a room, with a seat's token or as a spectator."""

    def __init__(self, base, room, token=None, cookie=None):
        headers = {"cookie": f"senet_player={cookie}"} if cookie else None
        self.ws = connect(
            base.replace("http", "ws", 1) + f"/ws/rooms/{room}",
            additional_headers=headers,
            legacy=True,
        )
        self.next_id = 0
        self.send("hello", {"token": token} if token else {})
        welcome = self.until({"welcome", "error"})
        if welcome["t"] != "welcome":
            sys.exit(f"fixture: hello refused: {welcome}")
        self.seat = welcome["d"]["seat"]

    def send(self, t, d):
        self.ws.send(json.dumps({"t": t, "d": d}))

    def until(self, kinds, id=None):
        while True:
            frame = json.loads(self.ws.recv(timeout=30))
            if frame["t"] in kinds and (id is None or frame["d"].get("id") == id):
                return frame

    def act(self, t, d=None):
        """The action's answer: `ack` or `error` (not fatal: the caller decides)."""
        self.next_id += 1
        self.send(t, dict(d or {}, id=self.next_id))
        return self.until({"ack", "error"}, self.next_id)

    def must(self, t, d=None):
        answer = self.act(t, d)
        if answer["t"] != "ack":
            sys.exit(f"fixture: {t} {d} refused: {answer['d']}")
        return answer

    def state(self):
        self.next_id += 1
        self.send("sync", {"id": self.next_id})
        return self.until({"state"}, self.next_id)["d"]

    def close(self):
        self.ws.close()


class Fixture:
    def __init__(self, args, rooms=(), players=None):
        self.base, self.bin, self.db = args.url.rstrip("/"), args.bin, args.database_url
        self.random = random.Random(47)
        self.rooms, self.players = list(rooms), dict(players or {})

    def admin(self, *words):
        done = subprocess.run(
            [self.bin, "admin", *words, "--database-url", self.db],
            capture_output=True, text=True, check=False,
        )
        if done.returncode != 0:
            sys.exit(f"fixture: senet admin {' '.join(words)}: {done.stderr.strip()}")
        return json.loads(done.stdout)

    def player(self, name):
        api = Api(self.base)
        me = api.ok("POST", "/api/me")
        if name:
            me = api.ok("PUT", "/api/me/name", {"name": name})
        self.players[me["id"]] = {"name": me["name"], "cookie": api.cookie}
        return api, me["id"]

    def table(self, black=None, white=None, rated=False, clock=None, mode="online"):
        """A room with both seats taken: (room, {side: Seat}, {side: token})."""
        creator = black or Api(self.base)
        body = {"mode": mode, "side": "black"}
        if rated:
            body["rated"] = True
        if clock:
            body["clock"] = clock
        if mode == "ai":
            body["level"] = "easy"
        created = creator.ok("POST", "/api/rooms", body)
        room, tokens = created["room"], {"black": created["token"]}
        if mode == "online":
            joiner = white or Api(self.base)
            tokens["white"] = joiner.ok("POST", f"/api/rooms/{room}/join", {})["token"]
            seats = {
                "black": Seat(self.base, room, tokens["black"], creator.cookie),
                "white": Seat(self.base, room, tokens["white"], joiner.cookie),
            }
        else:
            seat = Seat(self.base, room, tokens["black"], creator.cookie)
            seats = {"black": seat, "white": seat}
        return room, seats, tokens

    def turn(self, seats):
        """One action of the side to move: a throw, or a seeded choice of its legal moves
        (after waiting for the computer's turn to pass). False once the game is over."""
        state = seats["black"].state()
        for _ in range(200):
            if state["phase"] == "over" or seats[state["turn"]].seat in (state["turn"], "both"):
                break
            time.sleep(0.05)
            state = seats["black"].state()
        if state["phase"] == "over":
            return False
        seat = seats[state["turn"]]
        if state["phase"] == "roll":
            seat.must("roll")
        else:
            seat.must("move", {"from": self.random.choice(state["legal"])["from"]})
        return True

    def play(self, seats, actions=None):
        done = 0
        while (actions is None or done < actions) and self.turn(seats):
            done += 1

    def keep(self, room, what, seats=None, tokens=None, cookies=None):
        entry = {"room": room, "what": what}
        if tokens:
            entry["tokens"] = tokens
            entry["cookies"] = cookies or {}
        self.rooms.append(entry)
        for seat in {id(s): s for s in (seats or {}).values()}.values():
            seat.close()

    def finished_games(self):
        ankh, _ = self.player("Ankh")
        bes, bes_id = self.player("Bes")
        hathor, _ = self.player("Hathor")
        djed, _ = self.player("Djed")
        watcher, _ = self.player(None)

        # Rated, chatted, reported, one message hidden, watched; played to the end.
        room, seats, _ = self.table(ankh, bes, rated=True)
        seats["black"].must("chat", {"preset": "good-luck"})
        seats["white"].must("chat", {"preset": "have-fun"})
        for side in ("black", "white"):
            seats[side].must("chat-settings", {"free_text": True, "spectators": True})
        seats["black"].must("chat", {"text": "Nice opening, Bes"})
        said = seats["white"].must("chat", {"text": "You will not pass 26"})
        spectator = Seat(self.base, room, cookie=watcher.cookie)
        spectator.must("chat", {"preset": "hello"})
        spectator.close()
        seats["black"].must("report", {"reason": "fixture: a report to keep"})
        self.admin("hide", room, str(said["d"]["v"]), "--reason", "fixture", "--as", "fixture")
        self.play(seats)
        self.keep(room, "finished")

        room, seats, _ = self.table(hathor, djed, rated=True)
        self.play(seats)
        self.keep(room, "finished")

        room, seats, _ = self.table(bes, hathor, rated=True)
        self.play(seats, 12)
        seats["white"].must("resign")
        self.keep(room, "finished")

        room, seats, _ = self.table(djed, ankh, rated=True)
        self.play(seats, 8)
        state = seats["black"].state()
        offerer, other = (state["turn"], "white" if state["turn"] == "black" else "black")
        seats[offerer].must("draw-offer")
        seats[other].must("draw-accept")
        self.keep(room, "finished")

        room, seats, _ = self.table()
        self.play(seats)
        self.keep(room, "finished")

        room, seats, _ = self.table(mode="ai")
        self.play(seats, 10)
        seats["black"].must("resign")
        self.keep(room, "finished")

        self.admin("timeout", bes_id, "--for", FOREVER, "--reason", "fixture", "--as", "fixture")
        return ankh, djed

    def games_in_progress(self, ankh, djed):
        room, seats, tokens = self.table(ankh, djed, rated=True)
        self.play(seats, 9)
        cookies = {"black": ankh.cookie, "white": djed.cookie}
        self.keep(room, "in-progress", seats, tokens, cookies)
        for mode, actions in (("online", 7), ("local", 11), ("ai", 6)):
            room, seats, tokens = self.table(mode=mode)
            self.play(seats, actions)
            self.keep(room, "in-progress", seats, tokens)
        # A server that stops keeps a running clock where it was: opened again, it runs on.
        room, seats, tokens = self.table(clock={"initial": 600, "increment": 2})
        self.play(seats, 5)
        self.keep(room, "timed-in-progress", seats, tokens)

        room, seats, _ = self.table()
        self.play(seats, 4)
        self.keep(room, "finished", seats)
        self.admin("end", room, "--reason", "fixture: ended by the operator", "--as", "fixture")

    def operators(self):
        self.admin("ban", "203.0.113.0/24", "--for", FOREVER, "--reason", "fixture", "--as", "fixture")
        lifted = self.admin("ban", "198.51.100.7", "--for", "1h", "--reason", "fixture", "--as", "fixture")
        self.admin("lift", str(lifted["ban"]), "--reason", "fixture", "--as", "fixture")

    def describe(self):
        """Every room's last version and result, every player's rating, as the release serves
        them: what the next release must serve the same."""
        api = Api(self.base)
        for entry in self.rooms:
            entry["summary"] = api.ok("GET", f"/api/rooms/{entry['room']}")
            spectator = Seat(self.base, entry["room"])
            state = spectator.state()
            spectator.close()
            entry["last_v"], entry["position"] = state["v"], state["position"]
            entry["clock"] = state["clock"]
            if entry["what"] == "finished":
                record = api.ok("GET", f"/api/rooms/{entry['room']}/record")
                entry["events"] = len(record["events"])
                api.call("GET", f"/api/rooms/{entry['room']}/analysis")
        for id, player in self.players.items():
            player["page"] = api.ok("GET", f"/api/players/{id}")
        return {
            "rooms": self.rooms,
            "players": self.players,
            "bans": self.admin("bans"),
            "audit": self.admin("audit", "--limit", "1000"),
        }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("step", choices=("fill", "describe"))
    parser.add_argument("--url", required=True)
    parser.add_argument("--bin", required=True)
    parser.add_argument("--database-url", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    if args.step == "fill":
        fixture = Fixture(args)
        ankh, djed = fixture.finished_games()
        fixture.games_in_progress(ankh, djed)
        fixture.operators()
        manifest = {"rooms": fixture.rooms, "players": fixture.players}
    else:
        with open(args.out) as filled:
            manifest = Fixture(args, **json.load(filled)).describe()
    with open(args.out, "w") as out:
        json.dump(manifest, out, indent=1, sort_keys=True)
        out.write("\n")


if __name__ == "__main__":
    main()
