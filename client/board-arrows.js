// Arrows over the board (the analysis board's engine lines): an SVG layer in
// the board's frame, one arrow per sub-move of a turn, numbered 1 and 2 like
// the last turn's marks. It draws what it is given and knows no rules; it
// takes no pointer events, so the board under it plays as before.

const SVG = 'http://www.w3.org/2000/svg';

function el(tag, attrs = {}) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

export class BoardArrows {
  /** `board`: the Board widget (its frame holds the layer; its orientation places the squares). */
  constructor(board) {
    this.board = board;
    this.svg = el('svg', { class: 'board-arrows', viewBox: '0 0 8 8', 'aria-hidden': 'true', focusable: 'false' });
    const defs = el('defs');
    for (const kind of ['best', 'threat']) {
      const marker = el('marker', { id: `arrowhead-${kind}`, viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 2.6, markerHeight: 2.6, orient: 'auto' });
      marker.append(el('path', { d: 'M0,0 L10,5 L0,10 z', class: `head ${kind}` }));
      defs.append(marker);
    }
    this.svg.append(defs);
    this.layer = el('g');
    this.svg.append(this.layer);
    board.wrap.append(this.svg);
    this.arrows = [];
    this.kind = 'best';
  }

  /** Centre of a square in the layer's 8x8 units, for the board's orientation. */
  centre(sq) {
    const file = sq.charCodeAt(0) - 97;
    const rank = Number(sq[1]) - 1;
    const white = this.board.orientation !== 'black';
    return { x: (white ? file : 7 - file) + 0.5, y: (white ? 7 - rank : rank) + 0.5 };
  }

  /** Draws one arrow per UCI sub-move (`kind`: `best`, or `threat` in its own colour); none clears. */
  show(ucis, kind = 'best') {
    this.arrows = (ucis || []).filter((u) => /^[a-h][1-8][a-h][1-8]/.test(u));
    this.kind = kind;
    this.draw();
  }

  draw() {
    const parts = [];
    this.arrows.forEach((uci, i) => {
      const a = this.centre(uci.slice(0, 2));
      const b = this.centre(uci.slice(2, 4));
      const len = Math.hypot(b.x - a.x, b.y - a.y) || 1;
      // Stop short of the centre so that the head sits on the square, not past it.
      const end = { x: b.x - ((b.x - a.x) / len) * 0.3, y: b.y - ((b.y - a.y) / len) * 0.3 };
      parts.push(el('line', {
        x1: a.x, y1: a.y, x2: end.x.toFixed(3), y2: end.y.toFixed(3),
        class: `arrow ${this.kind} n${i + 1}`, 'marker-end': `url(#arrowhead-${this.kind})`, 'data-uci': uci,
      }));
      const badge = el('g', { class: `arrow-badge ${this.kind}` });
      badge.append(el('circle', { cx: a.x, cy: a.y, r: 0.17 }));
      const label = el('text', { x: a.x, y: a.y + 0.065, 'text-anchor': 'middle' });
      label.textContent = String(i + 1);
      badge.append(label);
      parts.push(badge);
    });
    this.layer.replaceChildren(...parts);
    this.svg.dataset.arrows = String(this.arrows.length);
  }
}
