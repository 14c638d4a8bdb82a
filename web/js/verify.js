// "Verify the throws": recompute every throw of a finished game in the browser with Web Crypto,
// from the revealed seed, exactly as docs/PROTOCOL.md ("Verifying the throws") defines them.

import { el } from './dom.js';
import { t } from './i18n.js';
import { Event } from './protocol.js';

function hexToBytes(hex) {
  if (!/^([0-9a-f]{2})+$/i.test(hex)) throw new Error('seed is not hex');
  return Uint8Array.from(hex.match(/../g), (pair) => parseInt(pair, 16));
}

function bytesToHex(bytes) {
  return Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The sticks of one throw from the first byte of its HMAC: bit i = stick i marked. */
function sticksFromByte(byte) {
  const sticks = [0, 1, 2, 3].map((i) => ((byte >> i) & 1) === 1);
  const marked = sticks.filter(Boolean).length;
  return { sticks, value: marked === 0 ? 5 : marked };
}

/**
 * Check a record (`GET /api/rooms/{id}/record`): the seed against its hash, that the hash was
 * logged (in `started`) before every client seed and no client seed came after the first throw,
 * and each `rolled` event against HMAC-SHA256(seed, "<room>:<black seed>:<white seed>:<n>") with
 * the client seeds the log set. A game stored before client seeds came after `started` carries
 * them in `started`: its throws are checked with those, and `legacy` says the order cannot be shown.
 */
export async function verifyRecord(record) {
  if (!crypto.subtle) throw new Error('no-subtle-crypto');
  const seed = hexToBytes(record.seed ?? '');
  const hashOk = bytesToHex(await crypto.subtle.digest('SHA-256', seed)) === String(record.seed_hash).toLowerCase();
  const key = await crypto.subtle.importKey('raw', seed, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const seeds = { black: '', white: '' };
  let hashLogged = false;
  let thrown = false;
  let orderOk = true;
  let legacy = false;
  const encoder = new TextEncoder();
  const throws = [];
  for (const event of record.events ?? []) {
    if (event.t === Event.Started) {
      hashLogged = true;
      const logged = event.d?.client_seeds;
      if (logged) {
        legacy = true;
        seeds.black = logged.black ?? '';
        seeds.white = logged.white ?? '';
      }
    }
    if (event.t === Event.ClientSeed) {
      orderOk &&= hashLogged && !thrown;
      seeds[event.d.side] = event.d.client_seed;
    }
    if (event.t !== Event.Rolled) continue;
    thrown = true;
    const message = `${record.room}:${seeds.black}:${seeds.white}:${event.d.n}`;
    const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(message)));
    const computed = sticksFromByte(mac[0] & 0x0f);
    const recorded = { sticks: event.d.sticks, value: event.d.value };
    const ok = computed.value === recorded.value && computed.sticks.every((s, i) => s === recorded.sticks?.[i]);
    throws.push({ n: event.d.n, side: event.d.side, recorded, computed, ok });
  }
  return { hashOk, orderOk, legacy, throws, allOk: hashOk && orderOk && throws.every((row) => row.ok) };
}

/** Whether the seed's hash came before the players' seeds; an old game's log cannot say. */
function orderLine(result) {
  const [kind, key] = result.legacy
    ? ['legacy', 'verify.orderLegacy']
    : result.orderOk
      ? ['ok', 'verify.orderOk']
      : ['bad', 'verify.orderBad'];
  return el('p', { class: kind, 'data-testid': 'verify-order', text: t(key) });
}

const faces = (sticks) => sticks.map((marked) => (marked ? '■' : '□')).join('');

/**
 * The "verify the throws" button: fetch the record with `loadRecord()`, check it, show the result
 * in `out`. `relabel()` redraws the result in the current language.
 */
export function mountVerification(button, out, loadRecord) {
  let shown = null; // a result, or the key of a status sentence
  const draw = () => {
    if (shown === null) return;
    if (typeof shown === 'string') out.replaceChildren(el('p', { text: t(shown) }));
    else showVerification(out, shown);
  };
  button.addEventListener('click', async () => {
    shown = 'verify.running';
    draw();
    try {
      shown = await verifyRecord(await loadRecord());
    } catch (err) {
      shown = err.message === 'no-subtle-crypto' ? 'verify.noCrypto' : 'verify.failed';
    }
    draw();
  });
  return { relabel: draw };
}

/** Render a verification result into `root`. */
function showVerification(root, result) {
  const bad = result.throws.filter((row) => !row.ok).length;
  const summary = [
    el('p', { class: result.hashOk ? 'ok' : 'bad', 'data-testid': 'verify-hash', text: t(result.hashOk ? 'verify.hashOk' : 'verify.hashBad') }),
    orderLine(result),
    el('p', {
      class: bad === 0 ? 'ok' : 'bad',
      'data-testid': 'verify-summary',
      'data-ok': String(result.allOk),
      text: bad === 0 ? t('verify.allOk', { n: result.throws.length }) : t('verify.someBad', { bad, n: result.throws.length }),
    }),
  ];
  const table = el(
    'table',
    { class: 'verify-table' },
    el('caption', { text: t('verify.caption') }),
    el(
      'thead',
      {},
      el('tr', {}, ...['verify.n', 'verify.recorded', 'verify.computed', 'verify.match'].map((key) => el('th', { scope: 'col', text: t(key) }))),
    ),
    el(
      'tbody',
      {},
      ...result.throws.map((row) =>
        el(
          'tr',
          { class: row.ok ? 'ok' : 'bad' },
          el('td', { text: row.n }),
          el('td', { text: `${row.recorded.value} ${faces(row.recorded.sticks ?? [])}` }),
          el('td', { text: `${row.computed.value} ${faces(row.computed.sticks)}` }),
          el('td', { text: t(row.ok ? 'verify.yes' : 'verify.no') }),
        ),
      ),
    ),
  );
  root.replaceChildren(...summary, el('details', {}, el('summary', { text: t('verify.details') }), table));
}
