// Entry point of every page (index.html and profile.html): the account in
// the header, the live channel (players online, challenges), then the page
// chosen from the address (`/`, `/game/{id}`, `/replay`, `/@/{name}`).

import { lobbyPage } from './lobby.js';
import { gamePage } from './game.js';
import { replayPage } from './replay.js';
import { profilePage } from './profile.js';
import { accountHeader } from './account.js';
import { startLive } from './live.js';

const main = document.getElementById('app');
const path = location.pathname;
const game = path.match(/^\/game\/([0-9A-Za-z]{1,32})\/?$/);
const profile = path.match(/^\/@\/([^/]{1,200})\/?$/);
for (const link of document.querySelectorAll('nav a')) {
  link.classList.toggle('active', link.getAttribute('href') === path);
}
const me = accountHeader();
me.then(startLive);
if (game) gamePage(main, game[1], me);
else if (path === '/replay' || path === '/replay/') replayPage(main);
else if (profile) profilePage(main, safeDecode(profile[1]), me);
else lobbyPage(main, me);

function safeDecode(s) {
  try { return decodeURIComponent(s); } catch (_) { return s; }
}
