// Entry point: picks the page from the address (`/`, `/game/{id}`, `/replay`).

import { lobbyPage } from './lobby.js';
import { gamePage } from './game.js';
import { replayPage } from './replay.js';

const main = document.getElementById('app');
const path = location.pathname;
const game = path.match(/^\/game\/([0-9A-Za-z]{1,32})\/?$/);
for (const link of document.querySelectorAll('nav a')) {
  link.classList.toggle('active', link.getAttribute('href') === path);
}
if (game) gamePage(main, game[1]);
else if (path === '/replay' || path === '/replay/') replayPage(main);
else lobbyPage(main);
