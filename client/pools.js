// Quick pairing (the lobby's first panel): one button per pool clock, with how many wait in
// it (the live `pools` count, asked for with `pools_watch`), rated for a signed-in player who keeps the box ticked, casual
// otherwise. A click sends `pool_in` on the live channel (live.js); the page then shows
// "looking for an opponent" with a cancel button (`pool_out`) until `pool_paired` brings the
// seat, and the page opens the game. Leaving the page leaves the pool (the channel closes).

import { saveSeat, h, errorText } from './api.js';
import { onLive, onLiveOpen, sendLive } from './live.js';
import { t } from './i18n.js';

/** The clocks the server offers (`GET /api/pools` has them too), fastest first. */
const POOLS = ['1+0', '3+0', '3+2', '5+3', '10+5', '15+10'];
/** Tries of a `pool_in` answered `not_available` (the pools' node changing), and their spacing. */
const MAX_RETRIES = 5;
const RETRY_MS = 1500;

/** The panel; `mePromise` resolves to the signed-in account or null. */
export function poolsPanel(mePromise) {
  let me = null;
  let counts = new Map();
  /** The pool asked for and not yet acknowledged, or waited in: `{pool, rated}`. */
  let asked = null;
  let waiting = null;
  let retries = 0;
  const rated = h('input', { type: 'checkbox', id: 'pool-rated', checked: true });
  const ratedRow = h('p', { class: 'listed', id: 'pool-rated-row', hidden: true },
    h('label', { for: 'pool-rated' }, rated, ` ${t('pools.rated')}`));
  const status = h('p', { class: 'pool-status', id: 'pool-status', role: 'status', 'aria-live': 'polite' });
  const buttons = POOLS.map((pool) => h('button', {
    type: 'button', class: 'pool', 'data-pool': pool, 'aria-pressed': 'false',
    onclick: () => choose(pool),
  }, h('span', { class: 'pool-clock' }, pool), h('span', { class: 'pool-waiting' }, '')));
  const panel = h('section', { class: 'panel pools', id: 'pools' },
    h('h2', {}, t('pools.title')),
    h('div', { class: 'pool-grid' }, ...buttons),
    ratedRow, status);

  mePromise.then((account) => { me = account; ratedRow.hidden = !me; show(); });
  rated.addEventListener('change', show);

  function side() { return !!me && rated.checked; }

  function choose(pool) {
    if (waiting && waiting.pool === pool && waiting.rated === side()) {
      sendLive('pool_out');
      return;
    }
    asked = { pool, rated: side() };
    if (!sendLive('pool_in', asked)) {
      asked = null;
      status.replaceChildren(t('pools.offline'));
    }
  }

  function show() {
    buttons.forEach((button, i) => {
      // Empty until the first count: then the channel is open and a click is heard.
      const c = counts.get(POOLS[i]);
      button.querySelector('.pool-waiting').textContent = c ? t('pools.waiting', { n: side() ? c.rated : c.casual }) : '';
      const on = !!waiting && waiting.pool === POOLS[i];
      button.setAttribute('aria-pressed', String(on));
      button.classList.toggle('seeking', on);
    });
    if (!waiting) return;
    const cancel = h('button', { type: 'button', id: 'pool-cancel', onclick: () => sendLive('pool_out') }, t('pools.cancel'));
    status.replaceChildren(
      t(waiting.rated ? 'pools.seeking_rated' : 'pools.seeking', { pool: waiting.pool }), ' ', cancel);
  }

  // The counts come only to a page that asks, on every (re)opened channel.
  onLiveOpen(() => sendLive('pools_watch'));
  onLive((msg) => {
    const d = msg.d || {};
    if (msg.t === 'pools' && Array.isArray(d.pools)) {
      counts = new Map(d.pools.map((p) => [p.id, p]));
      show();
    } else if (msg.t === 'pool_joined') {
      asked = null;
      retries = 0;
      waiting = { pool: d.pool, rated: !!d.rated };
      show();
    } else if (msg.t === 'pool_left') {
      const was = waiting;
      waiting = null;
      status.replaceChildren(d.reason === 'replaced' ? t('pools.replaced') : '');
      show();
      // The server's pools restarted (several nodes): the same seek again.
      if (d.reason === 'interrupted' && was) choose(was.pool);
    } else if (msg.t === 'pool_paired' && d.game && d.token) {
      saveSeat(d.game, d.token, d.color);
      status.replaceChildren(t('pools.found'));
      location.assign(d.url || `/game/${d.game}`);
    } else if (msg.t === 'error' && asked) {
      const again = asked;
      asked = null;
      // Several nodes: the pools' node is changing; a few more tries, a moment apart.
      if (d.code === 'not_available' && retries < MAX_RETRIES) {
        retries += 1;
        setTimeout(() => choose(again.pool), RETRY_MS);
        return;
      }
      status.replaceChildren(errorText(d.code, d.message));
    }
  });
  return panel;
}
