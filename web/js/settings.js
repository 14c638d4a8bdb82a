// Settings, /settings: this browser's identity (issue 29) — create one, choose a name, move it
// to another device with a one-time code (show one here, or type one from there), delete it.
// Each result is said in the status line (a live region); each refusal in words, from its code.
// With an identity, the per-device "your turn" switch (push-switch.js).

import { part, show } from './dom.js';
import { hasText, mountLanguageSwitch, onLanguageChange, t } from './i18n.js';
import { createMe, deleteMe, me, redeemCode, rename, transferCode } from './api.js';
import { nameOf, playerHref } from './players-view.js';
import { ErrorCode } from './protocol.js';
import { mountPushSwitch } from './push-switch.js';

const root = part('settings');
const problem = part('settings-error');
/** This browser's player, or null; `undefined` while loading. */
let player;
/** The last result, re-worded on a language switch: `[key, params]`. */
let said = null;
let code = null;
let pushMounted = false;

function say(key, params = {}) {
  said = [key, params];
  show(problem, false);
  part('settings-status').textContent = t(key, params);
}

function refuse(err) {
  // The last success no longer stands above the refusal ("Your name is now …", then an error).
  said = null;
  part('settings-status').textContent = '';
  const key = `settings.error.${err.code}`;
  problem.textContent = err.status === 0 ? t('lobby.unreachable') : hasText(key) ? t(key) : t('settings.error.other', { code: err.code });
  show(problem, true);
}

function draw() {
  root.dataset.state = player === undefined ? 'loading' : player ? 'identified' : 'none';
  show(part('no-identity'), player === null);
  show(part('identity'), Boolean(player));
  show(part('redeem-section'), player !== undefined);
  if (said) part('settings-status').textContent = t(...said);
  if (player && !pushMounted) {
    pushMounted = true;
    mountPushSwitch();
  }
  if (player) {
    part('you-are').textContent = t('settings.you', { name: nameOf(player) });
    part('your-page').href = playerHref(player);
  }
  const shown = part('transfer-code');
  show(shown, Boolean(code && player));
  if (code) shown.textContent = t('settings.codeShown', { code: code.code, time: new Date(code.expires_at).toLocaleTimeString(document.documentElement.lang) });
}

/** Runs a request from `button`, disabled meanwhile; a refusal is shown in words. */
async function act(button, work) {
  button.disabled = true;
  show(problem, false);
  try {
    await work();
  } catch (err) {
    refuse(err);
  }
  button.disabled = false;
  draw();
}

function wire() {
  part('create-identity').addEventListener('click', (event) => act(event.target, async () => {
    player = await createMe();
    say('settings.created', { name: nameOf(player) });
  }));
  part('rename-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = part('new-name');
    act(part('rename'), async () => {
      player = await rename(input.value);
      input.value = '';
      say('settings.renamed', { name: player.name });
    });
  });
  part('show-code').addEventListener('click', (event) => act(event.target, async () => {
    code = await transferCode();
  }));
  part('redeem-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const input = part('code');
    act(part('redeem'), async () => {
      player = await redeemCode(input.value);
      input.value = '';
      code = null;
      say('settings.redeemed', { name: nameOf(player) });
    });
  });
  const confirm = part('confirm-delete');
  part('delete-identity').addEventListener('click', () => {
    show(confirm, true);
    part('confirm-delete-no').focus();
  });
  part('confirm-delete-no').addEventListener('click', () => {
    show(confirm, false);
    part('delete-identity').focus();
  });
  part('confirm-delete-yes').addEventListener('click', (event) => act(event.target, async () => {
    await deleteMe();
    player = null;
    code = null;
    show(confirm, false);
    say('settings.deleted');
    part('create-identity').focus();
  }));
}

async function start() {
  mountLanguageSwitch(part('language'));
  onLanguageChange(draw);
  wire();
  part('settings-status').textContent = t('settings.loading');
  draw();
  try {
    player = await me();
    part('settings-status').textContent = '';
  } catch (err) {
    player = null;
    if (err.code === ErrorCode.NoPlayer) part('settings-status').textContent = '';
    else refuse(err);
  }
  draw();
}

start();
