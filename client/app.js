// Entry point of every page (index.html and profile.html): the account in
// the header, the live channel (players online, challenges, your turn), then
// the page chosen from the address (`/`, `/game/{id}`, `/games/mine`,
// `/replay`, `/@/{name}`, `/arena/{id}`, `/puzzles`, `/puzzles/{id}`, `/puzzles/themes`,
// `/learn`, `/learn/{lesson}`, `/analysis`, `/account`, `/mod`, `/leaderboard`).

// First: its top-level await loads the catalogue before any page draws.
import { t } from './i18n.js';
import { lobbyPage } from './lobby.js';
import { gamePage } from './game.js';
import { replayPage } from './replay.js';
import { profilePage } from './profile.js';
import { minePage } from './mine.js';
import { arenaPage } from './arena.js';
import { puzzlePage } from './puzzles.js';
import { themesPage } from './puzzle-themes.js';
import { learnPage } from './learn.js';
import { boardPage } from './board-page.js';
import { modPage, leaderboardPage } from './mod.js';
import { gameReport } from './report.js';
import { accountHeader } from './account.js';
import { accountPage } from './account-page.js';
import { startLive } from './live.js';
import { startNotify, alertsButton } from './notify.js';
import { h, heldSeats } from './api.js';
import { applyLook, settingsButton, syncSettings } from './settings-panel.js';

const main = document.getElementById('app');
const path = location.pathname;
const game = path.match(/^\/game\/([0-9A-Za-z]{1,32})\/?$/);
const profile = path.match(/^\/@\/([^/]{1,200})\/?$/);
const arena = path.match(/^\/arena\/([0-9A-Za-z]{1,32})\/?$/);
const puzzle = path.match(/^\/puzzles(?:\/([0-9A-Za-z_-]{1,40}))?\/?$/);
const learn = path.match(/^\/learn(?:\/([a-z0-9-]{1,40}))?\/?$/);
applyLook();
settingsButton();
const me = accountHeader();
syncSettings(me);
startNotify();
me.then((account) => {
  startLive(account);
  // "My games" and the turn alerts, for whoever has games here: an account, or seats in this browser.
  if ((account && account.username) || heldSeats().length) {
    const nav = document.querySelector('header.top nav');
    if (nav && !nav.querySelector('#nav-mine')) {
      nav.append(h('a', { href: '/games/mine', id: 'nav-mine' }, t('nav.mine')));
    }
    const alerts = alertsButton();
    const box = document.getElementById('account');
    if (alerts && box) box.prepend(alerts);
  }
  // The account page (issue 32), for a signed-in user.
  if (account && account.username) {
    const nav = document.querySelector('header.top nav');
    if (nav && !nav.querySelector('#nav-account')) {
      nav.append(h('a', { href: '/account', id: 'nav-account' }, t('acct.nav')));
    }
  }
  markActive();
});
markActive();
if (game) { gamePage(main, game[1], me); gameReport(main, game[1], me); }
else if (path === '/replay' || path === '/replay/') replayPage(main);
else if (path === '/games/mine' || path === '/games/mine/') minePage(main, me);
else if (profile) profilePage(main, safeDecode(profile[1]), me);
else if (arena) arenaPage(main, arena[1]);
else if (path === '/puzzles/themes' || path === '/puzzles/themes/') themesPage(main);
else if (puzzle) puzzlePage(main, puzzle[1] || null, me);
else if (learn) learnPage(main, learn[1] || null);
else if (path === '/analysis' || path === '/analysis/') boardPage(main);
else if (path === '/account' || path === '/account/') accountPage(main, me);
else if (path === '/mod' || path === '/mod/') modPage(main);
else if (path === '/leaderboard' || path === '/leaderboard/') leaderboardPage(main);
else lobbyPage(main, me);

function markActive() {
  for (const link of document.querySelectorAll('nav a')) {
    const href = link.getAttribute('href');
    // A section's link stays marked on its pages (`/puzzles` on `/puzzles/themes`).
    link.classList.toggle('active', href === path || (href !== '/' && path.startsWith(`${href}/`)));
  }
}

function safeDecode(s) {
  try { return decodeURIComponent(s); } catch (_) { return s; }
}
