// Sounds made with WebAudio oscillators (no audio files): move, capture,
// check, low time and game end. On or off and how loud are the `sound` and
// `volume` settings (settings.js, which also carries over the mute switch
// this file kept before, `marseillais.muted`, so a muted player stays muted).

import { setting, setSetting, onSetting } from './settings.js';

let ctx = null;

export function isMuted() {
  return !setting('sound');
}

export function setMuted(muted) {
  setSetting('sound', !muted);
}

/** Calls fn() when sounds are switched on or off (here, in the settings panel or another tab). */
export function onMuteChange(fn) {
  return onSetting('sound', () => fn());
}

/** The settings' volume as a gain factor: 70 (the default) plays as loud as before volumes existed. */
function loudness() {
  return setting('volume') / 70;
}

function context() {
  if (ctx) return ctx;
  const Ctor = window.AudioContext || window.webkitAudioContext;
  if (!Ctor) return null;
  try { ctx = new Ctor(); } catch (_) { ctx = null; }
  return ctx;
}

// Browsers only start audio after a user gesture: unlock on the first one.
for (const type of ['pointerdown', 'keydown']) {
  window.addEventListener(type, () => {
    const c = context();
    if (c && c.state === 'suspended') c.resume().catch(() => {});
  }, { once: true, capture: true });
}

/** One note: frequency in Hz, start offset and length in seconds; `scale` the volume's factor. */
function tone(c, scale, { freq, at = 0, len = 0.08, type = 'triangle', gain = 0.18, slide = null }) {
  const t0 = c.currentTime + at;
  const osc = c.createOscillator();
  const g = c.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(freq, t0);
  if (slide) osc.frequency.exponentialRampToValueAtTime(slide, t0 + len);
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.exponentialRampToValueAtTime(gain * scale, t0 + 0.008);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + len);
  osc.connect(g).connect(c.destination);
  osc.start(t0);
  osc.stop(t0 + len + 0.02);
}

const SOUNDS = {
  move: [{ freq: 520, len: 0.07, slide: 380 }],
  capture: [{ freq: 300, len: 0.1, type: 'square', gain: 0.09, slide: 160 }, { freq: 620, at: 0.02, len: 0.06 }],
  check: [{ freq: 880, len: 0.09, type: 'sawtooth', gain: 0.08 }, { freq: 1175, at: 0.1, len: 0.12, type: 'sawtooth', gain: 0.08 }],
  lowtime: [{ freq: 990, len: 0.06, type: 'sine', gain: 0.15 }, { freq: 990, at: 0.14, len: 0.06, type: 'sine', gain: 0.15 }],
  // A dropped premove queue: one short low blip.
  drop: [{ freq: 260, len: 0.06, type: 'sine', gain: 0.12, slide: 200 }],
  end: [{ freq: 523, len: 0.18 }, { freq: 659, at: 0.16, len: 0.18 }, { freq: 784, at: 0.32, len: 0.34 }],
};

/** Plays a named sound unless muted, at volume 0, or audio is unavailable. */
export function play(name) {
  const scale = loudness();
  if (isMuted() || !(scale > 0)) return;
  const c = context();
  if (!c || c.state !== 'running') return;
  for (const note of SOUNDS[name] || []) tone(c, scale, note);
}
