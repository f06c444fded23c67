// The piece set: simple original shapes drawn for this project (see
// client/README.md; same licence as the project). Each piece is one SVG in a
// 45x45 box, coloured by side, so the set scales cleanly at any board size.

import { t } from './i18n.js';

const SIDES = {
  w: { fill: '#fbfaf6', line: '#1d1d1d', detail: '#1d1d1d' },
  b: { fill: '#2b2b2b', line: '#0b0b0b', detail: '#e8e4da' },
};

// Shapes use `F` (body fill), `L` (outline) and `D` (details drawn over the body).
const SHAPES = {
  p: `<circle cx="22.5" cy="13" r="5.2" fill="F" stroke="L" stroke-width="1.6"/>
      <path d="M17.5 19.5h10l-1.6 3.3c3.4 2.7 5.6 7.4 6 13.2H13.1c.4-5.8 2.6-10.5 6-13.2z" fill="F" stroke="L" stroke-width="1.6" stroke-linejoin="round"/>
      <rect x="11" y="36" width="23" height="4.5" rx="1.6" fill="F" stroke="L" stroke-width="1.6"/>`,
  r: `<path d="M12 9h4.4v3.6h3.8V9h4.6v3.6h3.8V9H33v7.4l-3.2 2.8v12.4l3.4 3.4H11.8l3.4-3.4V19.2L12 16.4z" fill="F" stroke="L" stroke-width="1.6" stroke-linejoin="round"/>
      <path d="M15.2 19.2h14.6M15.2 31.6h14.6" stroke="D" stroke-width="1.4"/>
      <rect x="10" y="35" width="25" height="5.5" rx="1.6" fill="F" stroke="L" stroke-width="1.6"/>`,
  n: `<path d="M14 35.5c.6-6.4 3.3-10.2 7.6-13.3-3.4.4-6.2 1.8-8.4 4.3l-3.1-2.6c-1-.9-1.1-2.3-.3-3.3L19 9.3l-.4-3.1 3.4 2.1c6.8.2 11.8 5.5 12.4 13.8.4 5-.6 9.7-1.6 13.4z" fill="F" stroke="L" stroke-width="1.6" stroke-linejoin="round"/>
      <circle cx="20.6" cy="14.6" r="1.5" fill="D"/>
      <path d="M12.6 21.8l1.8.4" stroke="D" stroke-width="1.4" stroke-linecap="round"/>
      <rect x="11" y="35.5" width="23.5" height="5" rx="1.6" fill="F" stroke="L" stroke-width="1.6"/>`,
  b: `<circle cx="22.5" cy="7.8" r="2.6" fill="F" stroke="L" stroke-width="1.5"/>
      <path d="M22.5 10.6c-5.4 4.4-8.2 9.4-7.6 14 .4 3 2.6 5 4.2 5.8h6.8c1.6-.8 3.8-2.8 4.2-5.8.6-4.6-2.2-9.6-7.6-14z" fill="F" stroke="L" stroke-width="1.6" stroke-linejoin="round"/>
      <path d="M24.8 15.6l-4.4 5.6" stroke="D" stroke-width="1.5" stroke-linecap="round"/>
      <path d="M17.4 30.4h10.2l2.6 5H14.8z" fill="F" stroke="L" stroke-width="1.6" stroke-linejoin="round"/>
      <rect x="11" y="35.4" width="23" height="5" rx="1.6" fill="F" stroke="L" stroke-width="1.6"/>`,
  q: `<path d="M10.5 16.5l5.2 13.3 2.2-14.4 4.6 13.4 4.6-13.4 2.2 14.4 5.2-13.3-2.1 18.7H12.6z" fill="F" stroke="L" stroke-width="1.6" stroke-linejoin="round"/>
      <g fill="F" stroke="L" stroke-width="1.5"><circle cx="10.5" cy="14.5" r="2.3"/><circle cx="17.9" cy="13" r="2.3"/><circle cx="22.5" cy="11.6" r="2.3"/><circle cx="27.1" cy="13" r="2.3"/><circle cx="34.5" cy="14.5" r="2.3"/></g>
      <path d="M13.4 30.6h18.2" stroke="D" stroke-width="1.4"/>
      <rect x="10.5" y="35.2" width="24" height="5.3" rx="1.6" fill="F" stroke="L" stroke-width="1.6"/>`,
  k: `<path d="M22.5 4.5v8M18.8 8h7.4" stroke="L" stroke-width="2.2" stroke-linecap="round"/>
      <path d="M22.5 14.2c-2.6 0-4.2 2.2-3.6 5.2l3.6 6.6 3.6-6.6c.6-3-1-5.2-3.6-5.2z" fill="F" stroke="L" stroke-width="1.5" stroke-linejoin="round"/>
      <path d="M12.6 35l-2.4-10.2c-.7-3.4 1.6-6.4 5-6.4 3.3 0 5.4 2.4 7.3 7.6 1.9-5.2 4-7.6 7.3-7.6 3.4 0 5.7 3 5 6.4L32.4 35z" fill="F" stroke="L" stroke-width="1.6" stroke-linejoin="round"/>
      <path d="M13.6 30.2h17.8" stroke="D" stroke-width="1.4"/>
      <rect x="10.5" y="35" width="24" height="5.5" rx="1.6" fill="F" stroke="L" stroke-width="1.6"/>`,
};

const KINDS = ['p', 'n', 'b', 'r', 'q', 'k'];

/** The SVG markup for a FEN piece letter (`P`, `n`, ...). */
export function pieceSvg(letter) {
  const side = letter === letter.toUpperCase() ? 'w' : 'b';
  const kind = letter.toLowerCase();
  const colours = SIDES[side];
  const body = (SHAPES[kind] || '')
    .replaceAll('"F"', `"${colours.fill}"`)
    .replaceAll('"L"', `"${colours.line}"`)
    .replaceAll('"D"', `"${colours.detail}"`);
  return `<svg class="piece" viewBox="0 0 45 45" aria-hidden="true" focusable="false">${body}</svg>`;
}

/** "white knight" ("cavalier blanc", "caballo blanco"), for screen readers: `piece.{w|b}{kind}`. */
export function pieceName(letter) {
  const side = letter === letter.toUpperCase() ? 'w' : 'b';
  const kind = letter.toLowerCase();
  return KINDS.includes(kind) ? t(`piece.${side}${kind}`) : t('piece.unknown');
}
