// The browser's throw verification against known answers (the server's fairness test vector,
// computed independently with Python), and that a changed throw is caught.
import { test, expect } from '../support/fixtures.js';

const SEED = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0')).join('');
const SEED_HASH = '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd';
const KNOWN_BITS = [9, 8, 7, 2, 7, 11];

/** A record whose log holds `started`, both client seeds, then throws with `bits`. */
function recordWith(bits) {
  const throws = bits.map((b, n) => {
    const sticks = [0, 1, 2, 3].map((i) => ((b >> i) & 1) === 1);
    const marked = sticks.filter(Boolean).length;
    return { t: 'rolled', d: { side: 'black', n, sticks, value: marked || 5, legal: [] } };
  });
  const events = [
    { t: 'started', d: { position: 'WBWBWBWBWB.................... b', turn: 'black', seed_hash: SEED_HASH } },
    { t: 'client-seed', d: { side: 'black', client_seed: 'b' } },
    { t: 'client-seed', d: { side: 'white', client_seed: 'w' } },
    ...throws,
  ];
  return { room: 'r', seed: SEED, seed_hash: SEED_HASH, client_seeds: { black: 'b', white: 'w' }, events: numbered(events) };
}

const numbered = (events) => events.map((event, i) => ({ ...event, v: i + 1 }));

/** The record as a server stored it before client seeds came after `started`: inside it. */
function legacyRecordWith(bits, clientSeeds) {
  const record = recordWith(bits);
  const [started, , , ...throws] = record.events;
  const oldStarted = { ...started, d: { ...started.d, client_seeds: clientSeeds } };
  return { ...record, events: numbered([oldStarted, ...throws]) };
}

/** The same record with the event at `from` moved to `to`. */
function moved(record, from, to) {
  const events = [...record.events];
  events.splice(to, 0, ...events.splice(from, 1));
  return { ...record, events: numbered(events) };
}

test('verify the throws: known answers pass, a changed throw or a seed logged out of order fails, an old game checks with the seeds in its start', async ({ open }) => {
  const page = await open('/');
  const honestRecord = recordWith(KNOWN_BITS);
  const results = await page.evaluate(async (records) => {
    const src = document.querySelector('script[type="module"]').src;
    const { verifyRecord } = await import(new URL('verify.js', src).href);
    return Promise.all(records.map(verifyRecord));
  }, [
    honestRecord,
    recordWith([9, 8, 7, 3, 7, 11]),
    { ...honestRecord, seed_hash: '00'.repeat(32) },
    moved(honestRecord, 1, 0), // black's seed before the seed hash
    moved(honestRecord, 2, 3), // white's seed after the first throw
    legacyRecordWith(KNOWN_BITS, { black: 'b', white: 'w' }),
    legacyRecordWith(KNOWN_BITS, { black: 'b', white: 'other' }),
  ]);
  const [honest, changed, badHash, early, late, legacy, legacyOtherSeed] = results;
  expect(honest).toMatchObject({ hashOk: true, orderOk: true, allOk: true });
  expect(honest.throws).toHaveLength(6);
  expect(changed.allOk).toBe(false);
  expect(changed.throws.map((row) => row.ok)).toEqual([true, true, true, false, true, true]);
  expect(badHash).toMatchObject({ hashOk: false, allOk: false });
  for (const outOfOrder of [early, late]) expect(outOfOrder).toMatchObject({ hashOk: true, orderOk: false, allOk: false });
  expect(honest.legacy).toBe(false);
  expect(legacy).toMatchObject({ hashOk: true, legacy: true, allOk: true });
  expect(legacyOtherSeed).toMatchObject({ legacy: true, allOk: false });
});
