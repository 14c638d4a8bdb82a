#!/usr/bin/env python3
"""Write the room's sounds, web/sounds/*.wav, from nothing but arithmetic.

Made by this project (no recordings, no samples from elsewhere), so they are ours under the
project's licence. Deterministic: the noise comes from a fixed linear congruential generator, so
running this again writes the same bytes (the committed files are its output; check with
`python3 scripts/make-sounds.py && git diff --exit-code web/sounds`).

Mono, 16-bit, 11025 Hz: short knocks and tones need no more, and each file stays a few KB.
"""

import math
import pathlib
import struct
import wave

RATE = 11025
PEAK = 0.6  # of full scale: the page plays them quietly beside the chime
OUT = pathlib.Path(__file__).resolve().parent.parent / "web" / "sounds"


class Noise:
    """White noise in [-1, 1] from a fixed seed (Numerical Recipes' LCG)."""

    def __init__(self, seed):
        self.state = seed

    def next(self):
        self.state = (1664525 * self.state + 1013904223) % 2**32
        return self.state / 2**31 - 1.0


def silence(seconds):
    return [0.0] * int(RATE * seconds)


def add(into, sound, at):
    """Mix `sound` into `into` starting `at` seconds in."""
    start = int(RATE * at)
    for i, sample in enumerate(sound):
        if start + i < len(into):
            into[start + i] += sample


def knock(pitch, seconds, decay, seed, click=0.5):
    """A piece set down on wood: two damped partials and a short click of noise."""
    noise = Noise(seed)
    out = []
    for i in range(int(RATE * seconds)):
        t = i / RATE
        attack = min(1.0, t / 0.002)
        body = math.sin(2 * math.pi * pitch * t) + 0.4 * math.sin(2 * math.pi * pitch * 2.7 * t)
        tick = click * noise.next() * math.exp(-t / 0.003)
        out.append(attack * body * math.exp(-t / decay) + tick)
    return out


def tone(pitch, seconds, decay):
    """A soft bell-like note: the fundamental and a quiet octave, dying away."""
    out = []
    for i in range(int(RATE * seconds)):
        t = i / RATE
        attack = min(1.0, t / 0.005)
        wave_ = math.sin(2 * math.pi * pitch * t) + 0.25 * math.sin(2 * math.pi * pitch * 2 * t)
        out.append(attack * wave_ * math.exp(-t / decay))
    return out


def throw():
    """Four sticks falling: four wooden clicks, each its own pitch, close together."""
    out = silence(0.26)
    for n, (at, pitch) in enumerate([(0.0, 1250), (0.045, 980), (0.1, 1420), (0.15, 1110)]):
        add(out, knock(pitch, 0.09, 0.012, seed=11 + n, click=0.8), at)
    return out


def move():
    """One piece put down."""
    return knock(420, 0.12, 0.028, seed=3)


def swap():
    """Two pieces put down, the second lower: the one sent back."""
    out = silence(0.24)
    add(out, knock(420, 0.12, 0.028, seed=5), 0.0)
    add(out, knock(315, 0.12, 0.028, seed=7), 0.11)
    return out


def water():
    """A splash, then a bubble falling in pitch: the piece sinks and goes back."""
    noise = Noise(19)
    out = []
    low = 0.0
    phase = 0.0
    for i in range(int(RATE * 0.42)):
        t = i / RATE
        # The splash: noise through a one-pole low-pass, so it hisses less than it rushes.
        low += 0.35 * (noise.next() - low)
        splash = 0.9 * low * math.exp(-t / 0.05)
        pitch = 200 + 550 * math.exp(-t / 0.09)
        phase += 2 * math.pi * pitch / RATE
        bubble = 0.8 * math.sin(phase) * min(1.0, t / 0.01) * math.exp(-t / 0.12)
        out.append(splash + bubble)
    return out


def bear_off():
    """Two rising notes: a piece leaves the board (higher and brighter than the turn chime)."""
    out = silence(0.4)
    add(out, tone(784, 0.2, 0.07), 0.0)
    add(out, tone(1175, 0.28, 0.1), 0.1)
    return out


def write(name, samples):
    peak = max(abs(s) for s in samples) or 1.0
    frames = b"".join(struct.pack("<h", round(32767 * PEAK * s / peak)) for s in samples)
    with wave.open(str(OUT / f"{name}.wav"), "wb") as file:
        file.setnchannels(1)
        file.setsampwidth(2)
        file.setframerate(RATE)
        file.writeframes(frames)


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    for name, make in [("throw", throw), ("move", move), ("swap", swap), ("water", water), ("off", bear_off)]:
        write(name, make())


if __name__ == "__main__":
    main()
