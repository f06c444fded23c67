// The lobby (`/`): the create form, "Play the computer", the open games to join, the games in
// progress to watch and the recently finished games (polled every few
// seconds).

import { request, saveSeat, hasSeat, h, clockLabel, cap, outcomeText } from './api.js';

const PRESETS = [
  ['3+2', 180, 2], ['5+3', 300, 3], ['10+5', 600, 5], ['15+10', 900, 10],
];
const POLL_MS = 3000;
/** The server's clock limits (docs/protocol.md), checked here to say them in words. */
const MAX_BASE_MINUTES = 180;
const MAX_INCREMENT_SECS = 180;

/** The computer's levels in words (docs/engine.md: level 8 is full strength). */
export const LEVELS = [
  [1, 'beginner'], [2, 'novice'], [3, 'casual'], [4, 'intermediate'],
  [5, 'club player'], [6, 'strong'], [7, 'expert'], [8, 'full strength'],
];

export function lobbyPage(main) {
  const error = h('p', { class: 'error', role: 'alert', id: 'create-error' });
  const clock = clockChoice('clock', '', '5+3');
  // novalidate: the form's own checks say what is wrong in words, in the alert below.
  const form = h('form', { id: 'create-form', class: 'panel create', novalidate: true },
    h('h2', {}, 'New game'),
    clock.fieldset,
    h('fieldset', {}, h('legend', {}, 'Your colour'), h('div', { class: 'choices' },
      radio('color', 'white', 'White'), radio('color', 'random', 'Random', true), radio('color', 'black', 'Black'))),
    h('fieldset', {}, h('legend', {}, 'Variant'), h('div', { class: 'choices' },
      radio('variant', 'balanced', 'Balanced (White opens with one move)', true),
      radio('variant', 'marseillais', 'Marseillais (two moves from the start)'))),
    h('details', { class: 'fen-start' }, h('summary', {}, 'Start from a position (FEN)'),
      h('label', { for: 'fen-input', class: 'visually-hidden' }, 'Starting position (extended FEN)'),
      h('input', { type: 'text', id: 'fen-input', name: 'fen', placeholder: 'extended FEN, e.g. rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1', autocomplete: 'off', spellcheck: false })),
    h('p', { class: 'listed' }, h('label', { for: 'listed' },
      h('input', { type: 'checkbox', id: 'listed', name: 'listed', checked: true }),
      ' Listed in the lobby'), h('span', { class: 'hint' }, ' (untick to play only with whoever has the link)')),
    h('button', { type: 'submit', id: 'create-btn', class: 'primary' }, 'Create game'),
    error);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const body = { color: form.elements.color.value, variant: form.elements.variant.value };
    // Sent only when off: listed is the server's default.
    if (!form.querySelector('#listed').checked) body.listed = false;
    const chosen = clock.read();
    if (chosen.problem) { error.textContent = chosen.problem; return; }
    body.clock = chosen.clock;
    const fen = form.querySelector('#fen-input').value.trim();
    if (fen) body.fen = fen;
    await createAndOpen(body, error);
  });

  const computerForm = computerPanel();

  const openList = h('ul', { class: 'games', id: 'open-games' });
  const playingList = h('ul', { class: 'games', id: 'playing-games' });
  const recentList = h('ul', { class: 'games recent', id: 'recent-games' });
  const listError = h('p', { class: 'error', role: 'status' });
  main.replaceChildren(h('div', { class: 'lobby' },
    h('div', { class: 'lobby-forms' }, form, computerForm),
    h('section', { class: 'panel' }, h('h2', {}, 'Open games'), openList, listError,
      h('h2', {}, 'Games in progress'), playingList,
      h('h2', {}, 'Recent games'), recentList)));

  async function refresh() {
    try {
      const [open, playing, finished] = await Promise.all([
        request('GET', '/api/games?status=open&limit=30'),
        request('GET', '/api/games?status=playing&limit=30'),
        request('GET', '/api/games?status=finished&limit=10'),
      ]);
      listError.textContent = '';
      fill(openList, open.games, 'No open game. Create one!', (g) => {
        const mine = hasSeat(g.id);
        const free = g.seats && !g.seats.white ? 'white' : 'black';
        return h('button', {
          type: 'button', class: 'join', 'data-id': g.id,
          onclick: () => (mine ? location.assign(`/game/${g.id}`) : join(g.id)),
        }, mine ? 'Open (yours)' : `Join as ${free}`);
      });
      fill(playingList, playing.games, 'No game in progress.', (g) =>
        h('a', { href: `/game/${g.id}`, class: 'button watch' }, hasSeat(g.id) ? 'Play' : 'Watch'));
      fillRecent(recentList, finished.games);
    } catch (err) {
      listError.textContent = `The game list could not be loaded: ${err.message}`;
    }
  }

  async function join(id) {
    try {
      const grant = await request('POST', `/api/games/${id}/join`);
      saveSeat(grant.id, grant.token);
      location.assign(grant.url);
    } catch (err) {
      listError.textContent = err.code === 'seat_taken' ? 'Someone else took that seat first.' : `Could not join: ${err.message}`;
      refresh();
    }
  }

  refresh();
  const timer = setInterval(() => { if (!document.hidden) refresh(); }, POLL_MS);
  return () => clearInterval(timer);
}

/**
 * Whether `list` already shows these games: the lists are polled, and
 * rebuilding an unchanged list would take the keyboard focus (and a screen
 * reader's place) away from a link or button in it every few seconds.
 */
function unchanged(list, games) {
  const key = JSON.stringify((games || []).map((g) => [g, hasSeat(g.id)]));
  if (list.dataset.key === key) return true;
  list.dataset.key = key;
  return false;
}

function fill(list, games, empty, action) {
  if (unchanged(list, games)) return;
  if (!games || !games.length) {
    list.replaceChildren(h('li', { class: 'empty' }, empty));
    return;
  }
  list.replaceChildren(...games.map((g) => h('li', { 'data-id': g.id },
    h('span', { class: 'game-desc' },
      h('strong', {}, clockLabel(g.clock)), ' · ', cap(g.variant), computerText(g),
      g.sub_moves ? ` · ${g.sub_moves} sub-moves` : ''),
    action(g))));
}

/** Finished games: the outcome in words and links to the game, its PGN and its replay. */
function fillRecent(list, games) {
  if (unchanged(list, games)) return;
  if (!games || !games.length) {
    list.replaceChildren(h('li', { class: 'empty' }, 'No finished game yet.'));
    return;
  }
  list.replaceChildren(...games.map((g) => {
    const outcome = outcomeText({ result: g.result, reason: g.reason, winner: winnerOf(g.result) }) || 'Finished';
    return h('li', { 'data-id': g.id },
      h('span', { class: 'game-desc' },
        h('strong', {}, g.result && g.result !== '*' ? g.result : '—'), ' ',
        h('a', { href: `/game/${g.id}`, class: 'outcome' }, outcome),
        ` · ${clockLabel(g.clock)} · ${cap(g.variant)}${computerText(g)}${g.sub_moves ? ` · ${g.sub_moves} sub-moves` : ''}`),
      h('span', { class: 'links' },
        h('a', { href: `/game/${g.id}.pgn`, class: 'button', 'aria-label': `PGN of game ${g.id}` }, 'PGN'),
        h('a', { href: `/replay?game=${encodeURIComponent(g.id)}`, class: 'button', 'aria-label': `Replay game ${g.id}` }, 'Replay')));
  }));
}

/** " · vs the computer (level 3)" for a game against the computer, else "". */
function computerText(g) {
  return g.computer ? ` · vs the computer (level ${g.computer.level})` : '';
}

function winnerOf(result) {
  if (result === '1-0') return 'white';
  if (result === '0-1') return 'black';
  return null;
}

/**
 * The "Play the computer" panel: level, colour, time control. One click
 * creates the game (the computer holds the other seat, so it is already
 * playing) and opens it as the seat holder, like "Create game".
 */
function computerPanel() {
  const error = h('p', { class: 'error', role: 'alert', id: 'computer-error' });
  const clock = clockChoice('computer-clock', 'computer-', 'none');
  const level = h('select', { id: 'computer-level', name: 'level' },
    LEVELS.map(([n, words]) => h('option', { value: String(n), selected: n === 1 }, `${n}: ${words}`)));
  const form = h('form', { id: 'computer-form', class: 'panel create computer', novalidate: true },
    h('h2', {}, 'Play the computer'),
    h('p', { class: 'field' }, h('label', { for: 'computer-level' }, 'Level '), level,
      h('span', { class: 'hint', id: 'computer-level-hint' }, ' 1 is for beginners, 8 is the engine at full strength')),
    h('fieldset', {}, h('legend', {}, 'Your colour'), h('div', { class: 'choices' },
      radio('computer-color', 'white', 'White'), radio('computer-color', 'random', 'Random', true),
      radio('computer-color', 'black', 'Black'))),
    clock.fieldset,
    h('button', { type: 'submit', id: 'computer-btn', class: 'primary' }, 'Play the computer'),
    error);
  level.setAttribute('aria-describedby', 'computer-level-hint');
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const chosen = clock.read();
    if (chosen.problem) { error.textContent = chosen.problem; return; }
    const body = {
      color: form.elements['computer-color'].value,
      clock: chosen.clock,
      computer: { level: Number(level.value) },
    };
    await createAndOpen(body, error);
  });
  return form;
}

/** Creates a game, keeps its seat token and opens it; a refusal is said in `error`. */
async function createAndOpen(body, error) {
  try {
    const grant = await request('POST', '/api/games', body);
    saveSeat(grant.id, grant.token);
    location.assign(grant.url || `/game/${grant.id}`);
  } catch (err) {
    error.textContent = `Could not create the game: ${createErrorText(err)}`;
  }
}

/**
 * The time-control fieldset (presets, custom, none) of a form: radios named
 * `name`, custom inputs `#{prefix}custom-base` / `#{prefix}custom-inc`.
 * `read()` gives `{clock}` (null: untimed) or `{problem}` in words.
 */
function clockChoice(name, prefix, initial) {
  const custom = h('div', { class: 'custom-clock', hidden: true },
    h('label', {}, 'Minutes ', h('input', { type: 'number', id: `${prefix}custom-base`, min: '0', max: '180', step: '1', value: '5' })),
    h('label', {}, 'Increment (s) ', h('input', { type: 'number', id: `${prefix}custom-inc`, min: '0', max: '180', step: '1', value: '3' })));
  const choices = [
    ...PRESETS.map(([label]) => radio(name, label, label, label === initial)),
    radio(name, 'custom', 'Custom', initial === 'custom'),
    radio(name, 'none', 'No clock', initial === 'none'),
  ];
  const fieldset = h('fieldset', {}, h('legend', {}, 'Time control'), h('div', { class: 'choices' }, choices), custom);
  const value = () => (fieldset.querySelector(`input[name="${name}"]:checked`) || { value: 'none' }).value;
  fieldset.addEventListener('change', () => { custom.hidden = value() !== 'custom'; });
  const read = () => {
    const choice = value();
    if (choice === 'custom') {
      const base = Number(custom.querySelector(`#${prefix}custom-base`).value);
      const inc = Number(custom.querySelector(`#${prefix}custom-inc`).value);
      const problem = clockProblem(base, inc);
      if (problem) return { problem };
      return { clock: { base_secs: Math.round(base * 60), increment_secs: Math.round(inc) } };
    }
    if (choice === 'none') return { clock: null };
    const [, base, inc] = PRESETS.find(([l]) => l === choice);
    return { clock: { base_secs: base, increment_secs: inc } };
  };
  return { fieldset, read };
}

/** Why a custom clock cannot be used, in the form's words, or null. */
function clockProblem(minutes, increment) {
  if (!Number.isFinite(minutes) || minutes < 0 || minutes > MAX_BASE_MINUTES) {
    return `Base time must be between 0 and ${MAX_BASE_MINUTES} minutes.`;
  }
  if (!Number.isFinite(increment) || increment < 0 || increment > MAX_INCREMENT_SECS) {
    return `Increment must be between 0 and ${MAX_INCREMENT_SECS} seconds.`;
  }
  if (Math.round(minutes * 60) === 0 && Math.round(increment) === 0) {
    return 'Base time and increment cannot both be zero: choose "No clock" for an untimed game.';
  }
  return null;
}

/** A refused creation in words: the server names fields (`clock: base_secs ...`, `fen: ...`). */
function createErrorText(err) {
  const message = String(err.message || '');
  if (err.code === 'bad_request') {
    if (message.startsWith('fen:')) return `the starting position (FEN) cannot be used: ${message.slice(4).trim()}.`;
    if (message.startsWith('clock:')) {
      return `the clock is out of range (base time at most ${MAX_BASE_MINUTES} minutes, increment at most ${MAX_INCREMENT_SECS} seconds, not both zero).`;
    }
    if (message.startsWith('computer')) return 'the computer\'s level must be a whole number from 1 to 8.';
    return 'the server did not understand the request.';
  }
  return message;
}

let radioSeq = 0;
function radio(name, value, label, checked = false) {
  radioSeq += 1;
  const id = `r-${name}-${radioSeq}`;
  return h('label', { class: 'choice', for: id },
    h('input', { type: 'radio', name, value, id, checked }), h('span', {}, label));
}
