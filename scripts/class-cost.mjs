// What a class costs the server (issue 50; docs/PERFORMANCE.md "A class"): a teacher opens a
// class, PUPILS pupils join from this one address, a Swiss round pairs them (timed 5+2), every
// pupil connects to their room and plays (a roll or a move every THINK_MS when on turn), and the
// teacher's dashboard watches every board as a spectator. The server's resident memory and CPU
// time are read from /proc before the class, after the joins and pairing, and after PLAY_S
// seconds of play.
//
//   node scripts/class-cost.mjs http://127.0.0.1:8080 <server pid> [pupils] [play seconds]
//
// `ws` comes from e2e/node_modules (cd e2e && npm ci).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

const require = createRequire(new URL('../e2e/package.json', import.meta.url));
const WebSocket = require('ws');

const [base, pid, pupilsArg, playArg] = process.argv.slice(2);
const PUPILS = Number(pupilsArg ?? 30);
const PLAY_S = Number(playArg ?? 60);
const THINK_MS = 1000;
const ticks = 100; // USER_HZ on Linux

function reading() {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rss = Number(/VmRSS:\s+(\d+)/.exec(status)[1]) / 1024;
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  const cpu = (Number(stat[11]) + Number(stat[12])) / ticks;
  return { rss, cpu, at: Date.now() };
}

async function call(method, path, cookie, body) {
  const response = await fetch(base + path, {
    method,
    headers: { 'content-type': 'application/json', ...(cookie ? { cookie } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const set = response.headers.get('set-cookie');
  const text = await response.text();
  if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
  return { body: text ? JSON.parse(text) : null, cookie: set ? set.split(';')[0] : cookie };
}

function socket(room, token, play) {
  const ws = new WebSocket(`${base.replace('http', 'ws')}/ws/rooms/${room}`, { origin: base });
  let seat = null;
  let timer = null;
  ws.on('open', () => ws.send(JSON.stringify({ t: 'hello', d: token ? { token } : {} })));
  ws.on('message', (data) => {
    const frame = JSON.parse(data.toString());
    if (frame.t === 'welcome') {
      seat = frame.d.seat;
      if (play) timer = setInterval(() => ws.send(JSON.stringify({ t: 'sync' })), THINK_MS);
    }
    if (frame.t !== 'state' || !play) return;
    const state = frame.d;
    if (state.result) return clearInterval(timer);
    if (state.turn !== seat) return;
    if (state.phase === 'roll') ws.send(JSON.stringify({ t: 'roll' }));
    else if (state.legal?.length) ws.send(JSON.stringify({ t: 'move', d: { from: state.legal[0].from } }));
  });
  return { close: () => { clearInterval(timer); ws.close(); } };
}

const before = reading();
const teacher = await call('POST', '/api/me');
const klass = await call('POST', '/api/classes', teacher.cookie, { name: 'Cost' });
const pupils = [];
for (let n = 1; n <= PUPILS; n++) {
  const joined = await call('POST', '/api/classes/join', null, { code: klass.body.code, name: `Pupil ${n}` });
  pupils.push(joined.cookie);
}
await call('POST', `/api/classes/${klass.body.id}/pair`, teacher.cookie, {
  how: 'swiss', clock: { initial: 300, increment: 2 },
});
const sockets = [];
const rooms = new Set();
for (const cookie of pupils) {
  const me = await call('GET', '/api/class/me', cookie);
  rooms.add(me.body.game.room);
  sockets.push(socket(me.body.game.room, me.body.game.token, true));
}
for (const room of rooms) sockets.push(socket(room, null, false)); // the dashboard
const joined = reading();
await new Promise((resolve) => setTimeout(resolve, PLAY_S * 1000));
const shown = await call('GET', `/api/classes/${klass.body.id}`, teacher.cookie);
const moves = shown.body.games.reduce((sum, game) => sum + game.moves, 0);
const played = reading();
for (const s of sockets) s.close();
await call('DELETE', `/api/classes/${klass.body.id}`, teacher.cookie);
const mb = (x) => x.toFixed(1);
console.log(JSON.stringify({
  pupils: PUPILS, rooms: rooms.size, sockets: sockets.length, play_seconds: PLAY_S, moves,
  rss_mb: { before: mb(before.rss), joined_and_paired: mb(joined.rss), after_play: mb(played.rss) },
  cpu_seconds: {
    join_and_pair: (joined.cpu - before.cpu).toFixed(2),
    play: (played.cpu - joined.cpu).toFixed(2),
    play_percent_of_one_core: (100 * (played.cpu - joined.cpu) / ((played.at - joined.at) / 1000)).toFixed(1),
  },
}));
