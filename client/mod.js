// The moderators' page (`/mod`, issue 32): the open reports, newest first,
// each with the reported player's recent games and chat lines, and the
// actions (dismiss, chat ban 15 min / 24 h / permanent, mark engine or
// booster, close the account), each asking why; then the moderation log.
// Anyone else is told the page is for moderators (the API answers 403).

import { request, h } from './api.js';
import { t } from './i18n.js';
import { setTitle } from './notify.js';

export async function modPage(main) {
  setTitle(t('mod.title'));
  const status = h('p', { class: 'status', id: 'mod-status', role: 'status' }, t('page.loading'));
  const reports = h('div', { id: 'mod-reports' });
  const log = h('ol', { id: 'mod-log', class: 'mod-log' });
  main.replaceChildren(h('div', { class: 'mod' },
    h('section', { class: 'panel' }, h('h2', {}, t('mod.reports')), status, reports),
    h('section', { class: 'panel' }, h('h2', {}, t('mod.log')), log)));
  const refresh = async () => {
    let open;
    try {
      open = await request('GET', '/api/mod/reports');
    } catch (err) {
      status.textContent = err.status === 403 || err.status === 401 ? t('mod.not_moderator') : t('mod.failed', { error: err.message });
      return;
    }
    status.textContent = open.reports.length ? '' : t('mod.no_reports');
    reports.replaceChildren(...open.reports.map((r) => reportCard(r, act)));
    try {
      const rows = await request('GET', '/api/mod/log');
      log.replaceChildren(...rows.log.map(logRow));
    } catch (_) { /* the reports are shown; the log comes at the next refresh */ }
  };
  const act = async (path, body) => {
    const reason = window.prompt(t('mod.why'));
    if (!reason || !reason.trim()) return;
    try {
      await request('POST', path, { ...body, reason });
      status.textContent = t('mod.done');
    } catch (err) {
      status.textContent = t('mod.failed', { error: err.message });
    }
    await refresh();
  };
  await refresh();
}

function when(ms) {
  return new Date(ms).toLocaleString();
}

function reportCard(r, act) {
  const user = encodeURIComponent(r.reported);
  const games = (r.context.games || []).map((g) => h('li', {}, h('a', { href: `/game/${g.id}` }, g.id), ` ${g.status} · ${when(g.updated_ms)}`));
  const chat = (r.context.chat || []).map((l) => h('li', { class: 'mod-chat-line' }, `${when(l.at_ms)} `, l.text));
  const button = (id, label, path, body = {}) => h('button', { type: 'button', class: `mod-action mod-${id}`, 'data-action': id, onclick: () => act(path, body) }, label);
  return h('article', { class: 'mod-report', id: `mod-report-${r.id}`, 'data-reported': r.reported },
    h('h3', {}, h('a', { href: `/@/${user}` }, r.reported), ' · ', t(`report.reason_${r.reason}`)),
    h('p', {}, t('mod.reported_by', { name: r.reporter, date: when(r.created_ms) }), r.game ? [' · ', h('a', { href: `/game/${r.game}` }, t('mod.the_game'))] : null),
    r.text ? h('blockquote', {}, r.text) : null,
    h('details', {}, h('summary', {}, t('mod.context')),
      h('h4', {}, t('mod.recent_games')), h('ul', {}, ...games),
      h('h4', {}, t('mod.recent_chat')), h('ul', {}, ...chat)),
    h('div', { class: 'mod-actions' },
      button('dismiss', t('mod.dismiss'), `/api/mod/reports/${r.id}/dismiss`),
      button('ban-15m', t('mod.ban_15m'), `/api/mod/users/${user}/chat-ban`, { duration: '15m' }),
      button('ban-24h', t('mod.ban_24h'), `/api/mod/users/${user}/chat-ban`, { duration: '24h' }),
      button('ban-permanent', t('mod.ban_permanent'), `/api/mod/users/${user}/chat-ban`, { duration: 'permanent' }),
      button('mark-engine', t('mod.mark_engine'), `/api/mod/users/${user}/mark`, { mark: 'engine' }),
      button('mark-booster', t('mod.mark_booster'), `/api/mod/users/${user}/mark`, { mark: 'booster' }),
      button('close', t('mod.close'), `/api/mod/users/${user}/close`)));
}

function logRow(e) {
  return h('li', { class: 'mod-log-row' },
    `${when(e.at_ms)} · ${e.moderator} · ${e.action}${e.details ? ` (${e.details})` : ''} · ${e.username} · `, e.reason);
}

/** The leaderboard of a speed (`/leaderboard`): the best rated players, marked ones left out. */
export async function leaderboardPage(main) {
  setTitle(t('leaderboard.title'));
  const list = h('ol', { id: 'leaderboard', class: 'leaderboard' });
  const status = h('p', { class: 'status', role: 'status' }, t('page.loading'));
  const speeds = ['bullet', 'blitz', 'rapid', 'classical', 'correspondence'];
  const pick = h('select', { id: 'leaderboard-speed', 'aria-label': t('leaderboard.speed') },
    ...speeds.map((s) => h('option', { value: s, selected: s === 'blitz' }, s)));
  const load = async () => {
    try {
      const board = await request('GET', `/api/leaderboard?speed=${pick.value}`);
      status.textContent = board.players.length ? '' : t('leaderboard.empty');
      list.replaceChildren(...board.players.map((p) => h('li', {},
        h('a', { href: `/@/${encodeURIComponent(p.username)}` }, p.username),
        ` ${p.rating.rating}${p.rating.provisional ? '?' : ''}`)));
    } catch (err) {
      status.textContent = err.message;
    }
  };
  pick.addEventListener('change', load);
  main.replaceChildren(h('section', { class: 'panel' }, h('h2', {}, t('leaderboard.title')), pick, status, list));
  await load();
}
