// "Learn Marseillais" (`/learn`, `/learn/{lesson}`): lessons for a newcomer, each a few
// positions with a goal for one turn. The page has no rules: the server gives each step's
// legal sub-moves, judges every sub-move played (`POST /api/learn/{lesson}/{step}/moves`
// with all the step's sub-moves so far) and says `continue` (the second sub-move is to
// come, with the new legal list), `right` or `wrong`, each with its reason
// (`learn.reason.*`). A wrong turn is shown, then the step starts again.
//
// Progress: a signed-in player's right steps are kept by the server (the list comes with
// them); an anonymous player's are kept in this browser (`localStorage`).

import { request, h } from './api.js';
import { t } from './i18n.js';
import { Board } from './board.js';
import { setTitle } from './notify.js';

/** `{lesson: [step numbers done]}` of an anonymous player, in this browser. */
const DONE_KEY = 'marseillais.learn.done';

function localDone() {
  try {
    const map = JSON.parse(localStorage.getItem(DONE_KEY) || '{}');
    return map && typeof map === 'object' && !Array.isArray(map) ? map : {};
  } catch (_) {
    return {};
  }
}

function rememberStep(lesson, step) {
  const map = localDone();
  const steps = Array.isArray(map[lesson]) ? map[lesson] : [];
  if (!steps.includes(step)) steps.push(step);
  map[lesson] = steps.sort((a, b) => a - b);
  try { localStorage.setItem(DONE_KEY, JSON.stringify(map)); } catch (_) { /* private mode */ }
}

/** The steps done: the server's for an account, this browser's otherwise. */
function doneOf(reply, lesson) {
  if (reply.signed_in) return reply.done || [];
  const steps = localDone()[lesson];
  return Array.isArray(steps) ? steps : [];
}

export function learnPage(main, lesson) {
  if (lesson) lessonPage(main, lesson);
  else listPage(main);
}

/** The lessons, rules then strategy, each with its progress. */
async function listPage(main) {
  setTitle(t('learn.title'));
  const status = h('p', { class: 'status', id: 'learn-status', role: 'status' }, t('page.loading'));
  main.replaceChildren(h('div', { class: 'learn' }, h('h2', {}, t('learn.title')), h('p', { class: 'learn-lead' }, t('learn.lead')), status));
  let reply;
  try {
    reply = await request('GET', '/api/learn');
  } catch (err) {
    status.textContent = t('learn.load_failed', { error: err.message });
    return;
  }
  const local = localDone();
  const card = (lesson, n) => {
    const done = reply.signed_in ? lesson.done : (Array.isArray(local[lesson.id]) ? local[lesson.id] : []);
    const finished = done.length >= lesson.steps;
    const progress = finished ? t('learn.done') : t('learn.progress', { done: done.length, total: lesson.steps });
    return h('li', { class: `learn-card${finished ? ' done' : ''}`, 'data-lesson': lesson.id },
      h('a', { href: `/learn/${lesson.id}`, class: 'learn-card-link' },
        h('span', { class: 'learn-number', 'aria-hidden': 'true' }, finished ? '✓' : String(n)),
        h('span', { class: 'learn-card-text' },
          h('span', { class: 'learn-card-title' }, t(`learn.lesson.${lesson.id}.title`)),
          h('span', { class: 'learn-card-intro' }, t(`learn.lesson.${lesson.id}.intro`)),
          h('span', { class: 'learn-card-progress' }, progress))));
  };
  const rules = reply.lessons.filter((l) => l.kind === 'rules');
  const strategy = reply.lessons.filter((l) => l.kind === 'strategy');
  status.replaceWith(
    h('h3', {}, t('learn.rules')),
    h('ol', { class: 'learn-list', id: 'learn-rules' }, ...rules.map((l, i) => card(l, i + 1))),
    h('h3', {}, t('learn.strategy')),
    h('ol', { class: 'learn-list', id: 'learn-strategy' }, ...strategy.map((l, i) => card(l, rules.length + i + 1))),
    h('p', { class: 'learn-note', id: 'learn-kept' }, t(reply.signed_in ? 'learn.kept_account' : 'learn.kept_browser')));
}

/** One lesson: its steps played on the board, one after the other. */
async function lessonPage(main, id) {
  const page = new LessonPage(main, id);
  await page.load();
}

class LessonPage {
  constructor(main, id) {
    this.main = main;
    this.id = id;
    this.title = h('h2', { id: 'learn-title' }, t('learn.title'));
    this.stepLine = h('p', { class: 'learn-step-line', id: 'learn-step' });
    this.dots = h('ol', { class: 'learn-dots', id: 'learn-dots', 'aria-hidden': 'true' });
    this.goal = h('p', { class: 'learn-goal', id: 'learn-goal' }, t('page.loading'));
    this.toPlay = h('p', { class: 'learn-to-play', id: 'learn-to-play' });
    this.feedback = h('p', { class: 'learn-feedback', id: 'learn-feedback', 'aria-live': 'polite' });
    this.retryBtn = h('button', { type: 'button', id: 'learn-retry', hidden: true, onclick: () => this.showStep(this.index) }, t('learn.retry'));
    this.nextBtn = h('button', { type: 'button', class: 'primary', id: 'learn-next-step', hidden: true, onclick: () => this.showStep(this.index + 1) }, t('learn.next_step'));
    this.doneBox = h('div', { class: 'learn-finished', id: 'learn-finished', hidden: true });
    const boardWrap = h('div', { class: 'board-wrap', id: 'board' });
    main.replaceChildren(h('div', { class: 'game learn-lesson' },
      h('div', { class: 'board-col' }, boardWrap),
      h('aside', { class: 'side panel' },
        h('a', { href: '/learn', class: 'learn-back', id: 'learn-back' }, `← ${t('learn.all_lessons')}`),
        this.title, this.stepLine, this.dots, this.goal, this.toPlay, this.feedback,
        h('div', { class: 'actions' }, this.retryBtn, this.nextBtn), this.doneBox)));
    this.board = new Board(boardWrap, { onMove: (uci) => this.move(uci) });
  }

  async load() {
    try {
      this.L = await request('GET', `/api/learn/${encodeURIComponent(this.id)}`);
    } catch (err) {
      this.goal.textContent = err.status === 404 ? t('learn.no_such_lesson') : t('learn.load_failed', { error: err.message });
      return;
    }
    const name = t(`learn.lesson.${this.L.id}.title`);
    this.title.textContent = name;
    setTitle(name);
    this.done = new Set(doneOf(this.L, this.L.id));
    const first = this.L.steps.findIndex((s) => !this.done.has(s.number));
    this.showStep(first < 0 ? 0 : first);
  }

  drawDots() {
    this.dots.replaceChildren(...this.L.steps.map((s, i) => h('li', {
      class: `${this.done.has(s.number) ? 'done' : ''}${i === this.index ? ' current' : ''}`,
    })));
  }

  showStep(index) {
    if (index >= this.L.steps.length) { this.finish(); return; }
    this.index = index;
    this.S = this.L.steps[index];
    this.played = [];
    this.legalNow = null;
    this.busy = false;
    this.stepLine.textContent = t('learn.step_of', { n: index + 1, total: this.L.steps.length });
    this.goal.textContent = t(`learn.step.${this.L.id}.${this.S.number}`);
    this.toPlay.textContent = t(this.S.side === 'black' ? 'learn.black_to_play' : 'learn.white_to_play');
    this.feedback.textContent = '';
    this.feedback.className = 'learn-feedback';
    this.retryBtn.hidden = true;
    this.nextBtn.hidden = true;
    this.doneBox.hidden = true;
    this.drawDots();
    this.board.setOrientation(this.S.side);
    this.board.setPosition(this.S.fen);
    const last = this.S.last_turn || [];
    this.board.setHighlights({ s1: last[0] || null, s2: last[1] || null, goals: this.S.marks || [] });
    this.board.setLegal(this.S.moves, this.S.side === 'black' ? 'b' : 'w');
  }

  async move(uci) {
    if (this.busy) return;
    this.busy = true;
    const played = [...this.played, uci];
    this.board.setLegal([], null);
    let answer;
    try {
      answer = await request('POST', `/api/learn/${encodeURIComponent(this.L.id)}/${this.S.number}/moves`, { moves: played });
    } catch (err) {
      this.say(t('learn.move_failed', { error: err.message }), 'bad');
      this.busy = false;
      this.board.setLegal(this.legalNow || this.S.moves, this.S.side === 'black' ? 'b' : 'w');
      return;
    }
    this.played = played;
    this.board.setPosition(answer.fen);
    this.board.setHighlights({ s1: played[0], s2: played[1] || null, goals: this.S.marks || [] });
    if (answer.verdict === 'continue') {
      this.legalNow = answer.moves;
      this.say(t('learn.continue'), 'info');
      this.busy = false;
      this.board.setLegal(answer.moves, this.S.side === 'black' ? 'b' : 'w');
    } else if (answer.verdict === 'right') {
      this.legalNow = null;
      this.done.add(this.S.number);
      if (!answer.recorded) rememberStep(this.L.id, this.S.number);
      this.say(`${t('learn.right')} ${t(`learn.reason.${answer.reason}`)}`, 'good');
      this.drawDots();
      this.nextBtn.textContent = this.index + 1 < this.L.steps.length ? t('learn.next_step') : t('learn.finish');
      this.nextBtn.hidden = false;
      this.nextBtn.focus();
    } else {
      this.legalNow = null;
      this.say(`${t('learn.wrong')} ${t(`learn.reason.${answer.reason}`)}`, 'bad');
      this.retryBtn.hidden = false;
      this.retryBtn.focus();
    }
  }

  say(text, kind) {
    this.feedback.textContent = text;
    this.feedback.className = `learn-feedback ${kind}`;
  }

  finish() {
    this.nextBtn.hidden = true;
    this.retryBtn.hidden = true;
    this.board.setLegal([], null);
    const all = this.L.steps.every((s) => this.done.has(s.number));
    const next = this.L.next;
    this.doneBox.replaceChildren(
      h('p', { class: 'learn-done-words', id: 'learn-done' }, t(all ? 'learn.lesson_done' : 'learn.lesson_end')),
      h('div', { class: 'actions' },
        next ? h('a', { class: 'button primary', id: 'learn-next-lesson', href: `/learn/${next}` }, t('learn.next_lesson', { title: t(`learn.lesson.${next}.title`) })) : null,
        h('a', { class: 'button', id: 'learn-to-list', href: '/learn' }, t('learn.all_lessons'))));
    this.doneBox.hidden = false;
    this.stepLine.textContent = '';
    this.goal.textContent = '';
    this.toPlay.textContent = '';
  }
}

/**
 * The lobby's "Learn Marseillais" panel: for everyone, highlighted for a visitor who is not
 * signed in (most likely a newcomer to the double move).
 */
export function learnInvite(mePromise = Promise.resolve(null)) {
  const panel = h('section', { class: 'panel learn-invite', id: 'learn-invite' },
    h('h2', {}, t('learn.invite_title')),
    h('p', {}, t('learn.invite_text')),
    h('a', { class: 'button primary', href: '/learn', id: 'learn-invite-link' }, t('learn.invite_link')));
  mePromise.then((me) => {
    panel.classList.toggle('highlight', !(me && me.username));
  }, () => panel.classList.add('highlight'));
  return panel;
}
