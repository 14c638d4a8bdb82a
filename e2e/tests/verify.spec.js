// The browser's throw verification against known answers (the server's fairness test vector,
// computed independently with Python), and that a changed throw is caught.
import { test, expect } from '../support/fixtures.js';

const SEED = Array.from({ length: 32 }, (_, i) => i.toString(16).padStart(2, '0')).join('');
const SEED_HASH = '630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd';
const KNOWN_BITS = [9, 8, 7, 2, 7, 11];

function recordWith(bits) {
  return {
    room: 'r',
    seed: SEED,
    seed_hash: SEED_HASH,
    client_seeds: { black: 'b', white: 'w' },
    events: bits.map((b, n) => {
      const sticks = [0, 1, 2, 3].map((i) => ((b >> i) & 1) === 1);
      const marked = sticks.filter(Boolean).length;
      return { v: n + 2, t: 'rolled', d: { side: 'black', n, sticks, value: marked || 5, legal: [] } };
    }),
  };
}

test('verify the throws: known answers pass, a changed throw fails', async ({ open }) => {
  const page = await open('/');
  const results = await page.evaluate(async (records) => {
    const src = document.querySelector('script[type="module"]').src;
    const { verifyRecord } = await import(new URL('verify.js', src).href);
    return Promise.all(records.map(verifyRecord));
  }, [recordWith(KNOWN_BITS), recordWith([9, 8, 7, 3, 7, 11]), { ...recordWith(KNOWN_BITS), seed_hash: '00'.repeat(32) }]);
  const [honest, changed, badHash] = results;
  expect(honest).toMatchObject({ hashOk: true, allOk: true });
  expect(honest.throws).toHaveLength(6);
  expect(changed.allOk).toBe(false);
  expect(changed.throws.map((row) => row.ok)).toEqual([true, true, true, false, true, true]);
  expect(badHash).toMatchObject({ hashOk: false, allOk: false });
});
