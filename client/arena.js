// Arena tournaments: the arena page (`/arena/{id}`), then the line of an arena in a list (the
// lobby's, a profile's "Tournaments") and the lobby's "Arenas" panel with its form.
//
// The page reads `GET /api/arenas/{id}` (the `ArenaView` of src/server/arena/view.rs) when it
// opens, then every 2 s while it is in view, until a reading says the arena is finished. It
// shows the terms, a countdown (to the start, then to the end), Join / Withdraw for a
// signed-in user, the standings (each player's sheet of scores, the fire streak, who is
// playing, who withdrew), the podium once finished and the arena's games. When a reading
// names the player's game (`me.game`: they were paired), the page goes to it, once per game: a
// player who comes back to the arena page during that game stays there, with a link to it.
//
// Everything the server sends (the arena's name, players' names) goes in as text.

import { request, h, clockLabel, timeLeftText } from './api.js';
import { profileUrl } from './account.js';
import { setTitle } from './notify.js';
import { t, language } from './i18n.js';

const POLL_MS = 2000;
const LISTS_MS = 30000;
/** The last game an arena page sent this browser to (each game once, whatever the tab). */
const SENT_KEY = 'marseillais.arena.sent';
/** What the server accepts (src/server/arena/tournament.rs), checked here to say it in words. */
const NAME_CHARS = [2, 30];
const MAX_BASE_MINUTES = 60;
const MAX_INCREMENT_SECS = 60;
const DURATION_MINUTES = [20, 720];
const MAX_LEAD_MINUTES = 30 * 24 * 60;

export function arenaPage(main, id) {
  const status = h('p', { class: 'status', id: 'arena-status', role: 'status' }, t('page.loading'));
  main.replaceChildren(status);
  /** The last reading; `stopped` once there is nothing more to read (finished, or no such arena). */
  let view = null;
  let stopped = false;
  let busy = false;
  let timer = null;
  const countdown = h('p', { class: 'arena-countdown', id: 'arena-countdown' });
  const actions = h('div', { class: 'row', id: 'arena-actions' });
  const error = h('p', { class: 'error', id: 'arena-error', role: 'alert' });
  const readError = h('p', { class: 'error', id: 'arena-read-error', role: 'status' });
  const myGame = h('p', { class: 'arena-my-game', id: 'arena-my-game', hidden: true });
  const head = h('div', { class: 'arena-head' });
  const podium = h('section', { class: 'panel arena-podium', id: 'arena-podium', hidden: true });
  const standings = h('div', { id: 'arena-standings' });
  const games = h('ul', { class: 'games', id: 'arena-games' });

  /** One reading (the first one even out of view), then the next. */
  async function poll() {
    timer = null;
    if (busy || stopped || (view && document.visibilityState !== 'visible')) return;
    busy = true;
    try {
      show(await request('GET', `/api/arenas/${encodeURIComponent(id)}`));
      readError.textContent = '';
    } catch (err) {
      const words = t('arena.load_failed', { error: err.message });
      if (view) readError.textContent = words;
      else if (err.status === 404) {
        stopped = true;
        status.textContent = t('arena.no_such_arena');
      } else status.textContent = words;
    } finally {
      busy = false;
    }
    stopped = stopped || (!!view && view.phase === 'finished');
    if (!stopped && document.visibilityState === 'visible') timer = setTimeout(poll, POLL_MS);
  }
  // Out of view the readings pause (the pending one finds the page hidden); in view they resume.
  document.addEventListener('visibilitychange', () => { if (!timer) poll(); });

  function show(reply) {
    const first = !view;
    view = reply;
    if (first) {
      main.replaceChildren(h('div', { class: 'arena' },
        h('section', { class: 'panel' }, head, countdown, actions, error, myGame, readError),
        podium,
        h('section', { class: 'panel' }, h('h2', {}, t('arena.standings')), standings),
        h('section', { class: 'panel' }, h('h2', {}, t('arena.games')), games)));
      setTitle(t('arena.page_title', { name: view.name }));
    }
    drawHead();
    drawActions();
    drawPodium(podium, view.podium);
    drawStandings(standings, view.standings);
    drawGames(games, view.games);
    tick();
    const game = view.me && view.me.game;
    myGame.hidden = !game;
    if (game) {
      if (myGame.dataset.id !== game.id) {
        myGame.dataset.id = game.id;
        myGame.replaceChildren(`${t('arena.your_game')} `, h('a', { href: game.url, class: 'button primary', id: 'arena-my-game-link' }, t('arena.go_to_game')));
      }
      follow(game);
    }
  }

  function drawHead() {
    const parts = [clockLabel(view.clock), view.rated ? t('lobby.rated') : t('profile.casual')];
    if (view.creator) parts.push(t('arena.by', { name: view.creator }));
    else if (view.scheduled) parts.push(t('arena.scheduled'));
    if (view.min_rated_games) parts.push(t('arena.min_rated_games', { n: view.min_rated_games }));
    parts.push(t('arena.players', { n: view.players }));
    redraw(head, [view.name, parts], () => [
      h('h2', { id: 'arena-name' }, view.name),
      h('p', { class: 'summary', id: 'arena-info' }, parts.join(' · ')),
    ]);
  }

  /**
   * Join or Withdraw while the arena is not over; "Sign in to join" for a visitor (the server
   * says `me` only to a signed-in asker).
   */
  function drawActions() {
    const mine = view.me;
    const playing = !!mine && mine.joined && !mine.withdrawn;
    redraw(actions, [!!mine, playing, view.phase], () => {
      if (view.phase === 'finished') return [];
      if (!mine) return [h('p', { class: 'hint', id: 'arena-sign-in' }, t('arena.sign_in_to_join'))];
      return [playing
        ? h('button', { type: 'button', id: 'arena-withdraw', onclick: (e) => act('withdraw', e.currentTarget) }, t('arena.withdraw'))
        : h('button', { type: 'button', id: 'arena-join', class: 'primary', onclick: (e) => act('join', e.currentTarget) }, t('arena.join'))];
    });
  }

  /** `POST /api/arenas/{id}/join` or `/withdraw`: both answer the arena as the player now sees it. */
  async function act(what, button) {
    button.disabled = true;
    error.textContent = '';
    try {
      show(await request('POST', `/api/arenas/${encodeURIComponent(id)}/${what}`));
    } catch (err) {
      error.textContent = err.message;
      button.disabled = false;
    }
  }

  /** The countdown, every second: to the start, to the end, then "Finished". */
  function tick() {
    const now = Date.now();
    let text = t('arena.finished');
    if (view.phase === 'upcoming') {
      text = view.starts_ms > now ? t('arena.starts_in', { time: timeLeftText(view.starts_ms - now) }) : t('arena.starting');
    } else if (view.phase === 'running') {
      text = view.ends_ms > now ? t('arena.ends_in', { time: timeLeftText(view.ends_ms - now) }) : t('arena.ending');
    }
    if (countdown.textContent !== text) countdown.textContent = text;
  }
  const clock = setInterval(() => {
    if (stopped) clearInterval(clock);
    if (view) tick();
  }, 1000);

  poll();
}

/** Goes to the player's arena game, unless this browser was sent to that game already. */
function follow(game) {
  try {
    if (localStorage.getItem(SENT_KEY) === game.id) return;
    localStorage.setItem(SENT_KEY, game.id);
  } catch (_) { /* private mode: the link stays */ }
  location.href = game.url;
}

/**
 * Replaces `box`'s children with `build()` only when `key` changed: the page is read every
 * 2 s, and rebuilding what did not change would take the keyboard focus (and a screen
 * reader's place) away from a link or button in it.
 */
function redraw(box, key, build) {
  const text = JSON.stringify(key);
  if (box.dataset.key === text) return;
  box.dataset.key = text;
  box.replaceChildren(...build());
}

/** A player's name, a link to the profile. */
function playerLink(name) {
  return h('a', { href: profileUrl(name), class: 'player-name' }, name);
}

function drawPodium(box, lines) {
  box.hidden = !lines.length;
  redraw(box, lines, () => [
    h('h2', {}, t('arena.podium')),
    h('ol', { class: 'podium' }, lines.map((line) => h('li', { 'data-name': line.name },
      playerLink(line.name), ` · ${t('arena.points', { n: line.points })}`))),
  ]);
}

/** The standings: rank, player (on fire, playing, withdrawn), rating, the sheet, points. */
function drawStandings(box, lines) {
  redraw(box, lines, () => {
    if (!lines.length) return [h('p', { class: 'summary' }, t('arena.nobody_yet'))];
    const columns = ['rank', 'player', 'rating', 'sheet', 'points'];
    return [h('table', { class: 'standings' },
      h('caption', { class: 'visually-hidden' }, t('arena.standings')),
      h('thead', {}, h('tr', {}, columns.map((c) => h('th', { scope: 'col', class: c }, t(`arena.col_${c}`))))),
      h('tbody', {}, lines.map(standingRow)))];
  });
}

function standingRow(line) {
  const marks = [];
  if (line.fire) {
    marks.push(h('span', { class: 'fire-mark', title: t('arena.on_fire') },
      h('span', { 'aria-hidden': 'true' }, ' 🔥'), h('span', { class: 'visually-hidden' }, ` ${t('arena.on_fire')}`)));
  }
  if (line.playing) marks.push(h('span', { class: 'playing-mark' }, ` ${t('arena.playing')}`));
  if (line.withdrawn) marks.push(h('span', { class: 'withdrawn-mark' }, ` ${t('arena.withdrawn')}`));
  return h('tr', { 'data-name': line.name, class: line.withdrawn ? 'withdrawn' : null },
    h('td', { class: 'rank' }, String(line.rank)),
    h('th', { scope: 'row', class: 'player' }, playerLink(line.name), marks),
    h('td', { class: 'rating' }, String(line.rating)),
    h('td', { class: 'sheet' }, line.sheet.map(scoreEl)),
    h('td', { class: 'points' }, String(line.points)));
}

/** One game's score on a sheet: doubled (on fire) and the berserk point marked, also in words. */
function scoreEl(score) {
  const words = [score.fire ? t('arena.doubled') : '', score.berserk ? t('arena.berserk_point') : ''].filter(Boolean);
  return h('span', { class: `score${score.fire ? ' fire' : ''}${score.berserk ? ' berserk' : ''}`, title: words.join(', ') || null },
    String(score.points), words.length ? h('span', { class: 'visually-hidden' }, ` (${words.join(', ')})`) : null);
}

/** The arena's games, newest first: White - Black, the result or "playing", a link. */
function drawGames(list, games) {
  redraw(list, games, () => {
    if (!games.length) return [h('li', { class: 'empty' }, t('arena.no_game_yet'))];
    return games.map((g) => h('li', { 'data-id': g.id },
      h('span', { class: 'game-desc' }, `${g.white} - ${g.black} · `,
        h('strong', { class: 'result' }, g.result || t('arena.game_playing'))),
      h('a', { href: g.url, class: 'button' }, g.result ? t('mine.view') : t('lobby.watch'))));
  });
}

/** "starts in 4 min", "ends in 52 min", "finished on 3 Dec" (coarse: lists are redrawn only when it changes). */
function whenText(line) {
  const now = Date.now();
  if (line.phase === 'upcoming') return t('arena.list_starts_in', { time: timeLeftText(line.starts_ms - now, { coarse: true }) });
  if (line.phase === 'running') return t('arena.list_ends_in', { time: timeLeftText(line.ends_ms - now, { coarse: true }) });
  return t('arena.list_finished', { date: new Date(line.ends_ms).toLocaleDateString(language()) });
}

/** An arena in a list (`ArenaLine`): its name as a link to its page, its terms and when. */
export function arenaItem(line) {
  return h('li', { 'data-id': line.id },
    h('span', { class: 'game-desc' }, h('a', { href: line.url, class: 'arena-link' }, line.name),
      ` · ${clockLabel(line.clock)} · ${line.rated ? t('lobby.rated') : t('profile.casual')} · ${whenText(line)}`));
}

/** Fills `list` with arenas (`empty`: the words for none), redrawn only when the words change. */
export function fillArenas(list, lines, empty) {
  redraw(list, lines.map((line) => [line, whenText(line)]), () => (lines.length
    ? lines.map(arenaItem) : [h('li', { class: 'empty' }, empty)]));
}

/**
 * The lobby's "Arenas" panel: the running arenas (with "ends in") and the upcoming ones (with
 * "starts in"), read every 30 s, and for a signed-in user a form that makes an arena and opens
 * its page.
 */
export function arenasPanel(mePromise) {
  const running = h('ul', { class: 'games arenas', id: 'arenas-running' });
  const upcoming = h('ul', { class: 'games arenas', id: 'arenas-upcoming' });
  const error = h('p', { class: 'error', id: 'arenas-error', role: 'status' });
  const create = h('details', { class: 'arena-create', id: 'arena-create', hidden: true },
    h('summary', {}, t('arena.create')), createForm());
  const panel = h('section', { class: 'panel arenas-panel', id: 'arenas' },
    h('h2', {}, t('arena.arenas')),
    h('h3', {}, t('arena.running')), running,
    h('h3', {}, t('arena.upcoming')), upcoming,
    error, create);

  async function refresh() {
    try {
      const lists = await request('GET', '/api/arenas');
      fillArenas(running, lists.running, t('arena.none_running'));
      fillArenas(upcoming, lists.upcoming, t('arena.none_upcoming'));
      error.textContent = '';
    } catch (err) {
      error.textContent = t('arena.lists_failed', { error: err.message });
    }
  }
  mePromise.then((account) => { create.hidden = !(account && account.username); });
  refresh();
  setInterval(() => { if (!document.hidden) refresh(); }, LISTS_MS);
  return panel;
}

/** The "Create an arena" form: name, clock, duration, start, rated; opens the arena made. */
function createForm() {
  const numberField = (id, label, value, min, max) => h('p', { class: 'field' },
    h('label', { for: id }, `${label} `),
    h('input', { type: 'number', id, min: String(min), max: String(max), step: '1', value: String(value), inputmode: 'numeric' }));
  const error = h('p', { class: 'error', role: 'alert', id: 'arena-create-error' });
  const form = h('form', { id: 'arena-form', class: 'create', novalidate: true },
    h('p', { class: 'field' }, h('label', { for: 'arena-new-name' }, `${t('arena.name')} `),
      h('input', { type: 'text', id: 'arena-new-name', maxlength: String(NAME_CHARS[1]), autocomplete: 'off' })),
    numberField('arena-new-minutes', t('lobby.minutes'), 3, 0, MAX_BASE_MINUTES),
    numberField('arena-new-increment', t('lobby.increment'), 2, 0, MAX_INCREMENT_SECS),
    numberField('arena-new-duration', t('arena.duration'), 60, ...DURATION_MINUTES),
    numberField('arena-new-start', t('arena.start_in'), 0, 0, MAX_LEAD_MINUTES),
    h('p', { class: 'listed' }, h('label', { for: 'arena-new-rated' },
      h('input', { type: 'checkbox', id: 'arena-new-rated', checked: true }), ` ${t('lobby.rated')}`)),
    h('button', { type: 'submit', id: 'arena-create-btn', class: 'primary' }, t('arena.create_button')),
    error);
  const value = (id) => Number(form.querySelector(`#${id}`).value);
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    error.textContent = '';
    const name = form.querySelector('#arena-new-name').value.trim();
    const [minutes, increment, duration, start] = ['minutes', 'increment', 'duration', 'start'].map((f) => value(`arena-new-${f}`));
    const problem = arenaProblem(name, minutes, increment, duration, start);
    if (problem) { error.textContent = problem; return; }
    const body = {
      name,
      clock: { base_secs: Math.round(minutes * 60), increment_secs: increment },
      // "Now" is now by this browser's clock: the server takes a start up to a minute past as now.
      starts_ms: Date.now() + start * 60000,
      duration_minutes: duration,
      rated: form.querySelector('#arena-new-rated').checked,
    };
    const button = form.querySelector('#arena-create-btn');
    button.disabled = true;
    try {
      const line = await request('POST', '/api/arenas', body);
      location.assign(line.url);
    } catch (err) {
      error.textContent = createErrorText(err);
      button.disabled = false;
    }
  });
  return form;
}

/** Why these terms would be refused, in words, or null. */
function arenaProblem(name, minutes, increment, duration, start) {
  const whole = (n, lo, hi) => Number.isInteger(n) && n >= lo && n <= hi;
  if (name.length < NAME_CHARS[0] || name.length > NAME_CHARS[1]) return t('arena.bad_name');
  if (!(Number.isFinite(minutes) && minutes >= 0 && minutes <= MAX_BASE_MINUTES)
    || !whole(increment, 0, MAX_INCREMENT_SECS) || Math.round(minutes * 60) + increment === 0) {
    return t('arena.bad_clock', { base: MAX_BASE_MINUTES, inc: MAX_INCREMENT_SECS });
  }
  if (!whole(duration, ...DURATION_MINUTES)) return t('arena.bad_duration');
  if (!whole(start, 0, MAX_LEAD_MINUTES)) return t('arena.bad_start');
  return null;
}

/** A refused arena in words: `bad_request`'s message starts with the field's name. */
function createErrorText(err) {
  if (err.code === 'not_logged_in') return t('arena.create_needs_login');
  if (err.code === 'bad_request') {
    const field = String(err.serverMessage || '').split(':')[0];
    const words = {
      name: t('arena.bad_name'),
      clock: t('arena.bad_clock', { base: MAX_BASE_MINUTES, inc: MAX_INCREMENT_SECS }),
      duration: t('arena.bad_duration'),
      starts_ms: t('arena.bad_start'),
    };
    return words[field] || err.message;
  }
  return err.message;
}
