// Fair play by rule (docs/fair-play.md): the lobby's banner that says why a signed-in player
// may not start games, and until when (`GET /api/playban`). Hidden for anyone else.

import { request, h } from './api.js';
import { t } from './i18n.js';

/** The reason of a pause in words (`abort`, `sitting`, `leave`). */
export function playbanReason(reason) {
  const known = ['abort', 'sitting', 'leave'];
  return t(`playban.reason_${known.includes(reason) ? reason : 'abort'}`);
}

/** The sentence of a pause: why, until when (local time) and how long still. */
export function playbanText(ban, now = Date.now()) {
  const until = new Date(ban.until_ms);
  const minutes = Math.max(1, Math.ceil((ban.until_ms - now) / 60000));
  const time = until.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' });
  return t('playban.banner', { reason: playbanReason(ban.reason), time, minutes });
}

/** The banner: empty and hidden until the account is known to be paused. */
export function playbanBanner(mePromise = Promise.resolve(null)) {
  const text = h('p', { id: 'playban-text' });
  const banner = h('section', { class: 'panel playban', id: 'playban', role: 'status', hidden: true },
    h('h2', {}, t('playban.title')), text,
    h('p', { class: 'hint' }, t('playban.hint')));
  mePromise.then(async (me) => {
    if (!(me && me.username)) return;
    let reply;
    try { reply = await request('GET', '/api/playban'); } catch (_) { return; }
    if (!reply || !reply.ban) return;
    text.textContent = playbanText(reply.ban);
    banner.hidden = false;
  }, () => {});
  return banner;
}
