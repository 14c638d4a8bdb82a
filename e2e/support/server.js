// Start the real `senet serve` binary on 127.0.0.1:0 with a fresh SQLite database, and learn
// its address from the URL it prints.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The binary: $SENET_BIN, else the newer of the release and debug builds. */
export function serverBinary() {
  if (process.env.SENET_BIN) return process.env.SENET_BIN;
  const builds = ['release', 'debug'].map((profile) => path.join(repo, 'target', profile, 'senet')).filter((file) => existsSync(file));
  builds.sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return builds[0] ?? path.join(repo, 'target', 'release', 'senet');
}

/**
 * The browser creates and joins rooms from 127.0.0.1 faster than people: no quotas here. (An
 * earlier release's binary is given the flags it knew: `quotas`.)
 */
export const NO_QUOTAS = ['--create-burst', '0', '--join-burst', '0', '--identify-burst', '0'];

/** A fresh folder for a server's database; `removeDataDir` deletes it. */
export function newDataDir() {
  return mkdtempSync(path.join(tmpdir(), 'senet-e2e-'));
}

export function removeDataDir(dir) {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Start a server; resolves to `{url, dataDir, stop(), logs()}`. By default it gets a free port and a
 * database of its own, deleted when it stops; pass `dataDir` (kept) and `listen` to start it
 * again where it was; `binary` to run another build (an earlier release's). `extraArgs` go after `serve`.
 */
export async function startServer({ extraArgs = [], dataDir = null, listen = '127.0.0.1:0', binary = serverBinary(), quotas = NO_QUOTAS } = {}) {
  if (!existsSync(binary)) throw new Error(`no server binary at ${binary}: build it (cargo build --release) or set SENET_BIN`);
  const dir = dataDir ?? newDataDir();
  // /metrics on a free port of its own: its default (127.0.0.1:8808) is one port for all workers.
  const metrics = ['--metrics-listen', '127.0.0.1:0'];
  const args = ['serve', '--listen', listen, '--database-url', `sqlite://${dir}/senet.db`, ...quotas, ...metrics, ...extraArgs];
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, RUST_LOG: process.env.RUST_LOG ?? 'info' } });
  let output = '';
  const url = await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server printed no URL within 30 s:\n${output}`)), 30_000);
    const look = (chunk) => {
      output += chunk.toString();
      const match = output.match(/http:\/\/(127\.0\.0\.1|localhost):\d+/);
      if (match) {
        clearTimeout(timer);
        resolve(match[0]);
      }
    };
    child.stdout.on('data', look);
    child.stderr.on('data', (chunk) => {
      output += chunk.toString();
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url,
    dataDir: dir,
    logs: () => output,
    /** Stop the process where it is (SIGSTOP): its kernel still accepts and holds connections. */
    pause: () => child.kill('SIGSTOP'),
    resume: () => child.kill('SIGCONT'),
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGCONT');
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(timer);
      }
      if (!dataDir) removeDataDir(dir);
    },
  };
}
