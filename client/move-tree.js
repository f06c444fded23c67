// The analysis board's move tree (no DOM): the TREE / NODE shape of the
// analysis API (docs/protocol.md, "Analysis board"): `{start_fen, tags,
// result, root}`, each node `{uci, san, fen, comment, children}` with
// `children[0]` the main line. A node is one SUB-MOVE: the tree branches at
// the sub-move where two lines differ, and the turns (one or two sub-moves of
// one colour) are read from the FENs, never decided here.
//
// A node is addressed by its PATH: the UCI sub-moves from the root (an array;
// `pathKey` writes it as one string). Siblings never share a UCI (a position
// has each legal sub-move once), so a path stays valid when a variation is
// promoted or a sibling deleted, which indices would not.
//
// The functions change the tree in place and return what the page needs
// next (the path to show); they know no rule of the game: a sub-move enters
// the tree with the SAN and FEN the server gave it.

/** A tree of one position: `fen`, no sub-move yet. */
export function newTree(fen, tags = [], result = '*') {
  return { start_fen: fen, tags, result, root: makeNode(null, null, fen) };
}

function makeNode(uci, san, fen, comment = null) {
  return { uci, san, fen, comment, children: [] };
}

/** A tree as the server sent it, checked for its shape (a bad node is dropped with what hangs below). */
export function fromServer(tree) {
  const node = (n) => {
    if (!n || typeof n.fen !== 'string') return null;
    const out = makeNode(typeof n.uci === 'string' ? n.uci : null, typeof n.san === 'string' ? n.san : null, n.fen,
      typeof n.comment === 'string' && n.comment ? n.comment : null);
    const seen = new Set();
    for (const c of Array.isArray(n.children) ? n.children : []) {
      const child = node(c);
      if (child && child.uci && !seen.has(child.uci)) { seen.add(child.uci); out.children.push(child); }
    }
    return out;
  };
  const root = node(tree && tree.root);
  if (!root) return null;
  root.uci = null;
  root.san = null;
  const tags = Array.isArray(tree.tags) ? tree.tags.filter((p) => Array.isArray(p) && p.length === 2).map(([k, v]) => [String(k), String(v)]) : [];
  return { start_fen: tree.start_fen || root.fen, tags, result: tree.result || '*', root };
}

/** A path as one string (`e2e4 e7e5`; the root is ``). */
export function pathKey(path) {
  return path.join(' ');
}

/** The path a `pathKey` wrote. */
export function parseKey(key) {
  return key ? key.split(' ') : [];
}

/** The nodes from the root to the end of `path` (shorter when the path leaves the tree). */
export function nodesAlong(tree, path) {
  const out = [tree.root];
  let node = tree.root;
  for (const uci of path) {
    node = node.children.find((c) => c.uci === uci);
    if (!node) break;
    out.push(node);
  }
  return out;
}

/** The node at `path`, or null. */
export function nodeAt(tree, path) {
  const along = nodesAlong(tree, path);
  return along.length === path.length + 1 ? along[along.length - 1] : null;
}

/** The longest part of `path` that is in the tree. */
export function validPath(tree, path) {
  return path.slice(0, nodesAlong(tree, path).length - 1);
}

/**
 * Plays `move` (`{uci, san, fen}`) after the node at `path`: the existing child when there is
 * one (the tree is unchanged), else a new child (the main line if the node had none, else a
 * variation). Returns the path of that child, or null when `path` is not in the tree.
 */
export function addMove(tree, path, move) {
  const node = nodeAt(tree, path);
  if (!node || !move || !move.uci) return null;
  if (!node.children.some((c) => c.uci === move.uci)) node.children.push(makeNode(move.uci, move.san, move.fen));
  return [...path, move.uci];
}

/**
 * Moves the variation holding `path` one step toward the main line: the deepest node of the
 * path that is not its parent's first child becomes the first (its former first child, the
 * old main line there, becomes its first variation). Returns whether anything moved.
 */
export function promote(tree, path) {
  const along = nodesAlong(tree, path);
  for (let i = along.length - 1; i >= 1; i -= 1) {
    const parent = along[i - 1];
    const k = parent.children.indexOf(along[i]);
    if (k > 0) {
      parent.children.splice(k, 1);
      parent.children.unshift(along[i]);
      return true;
    }
  }
  return false;
}

/** Promotes until the node at `path` is on the main line. Returns whether anything moved. */
export function makeMainLine(tree, path) {
  let moved = false;
  while (promote(tree, path)) moved = true;
  return moved;
}

/** Whether the node at `path` is on the main line (the root is). */
export function onMainLine(tree, path) {
  const along = nodesAlong(tree, path);
  return along.every((n, i) => i === 0 || along[i - 1].children[0] === n);
}

/**
 * Deletes the node at `path` and everything below it. Returns the parent's path (what the
 * page shows next), or null for the root (which stays) or a path not in the tree.
 */
export function deleteAt(tree, path) {
  if (!path.length) return null;
  const parent = nodeAt(tree, path.slice(0, -1));
  if (!parent) return null;
  const k = parent.children.findIndex((c) => c.uci === path[path.length - 1]);
  if (k < 0) return null;
  parent.children.splice(k, 1);
  return path.slice(0, -1);
}

/** Sets (or, with an empty text, removes) the comment of the node at `path`. Returns whether it exists. */
export function setComment(tree, path, text) {
  const node = nodeAt(tree, path);
  if (!node) return false;
  const clean = String(text || '').trim();
  node.comment = clean ? clean : null;
  return true;
}

/** The main line's nodes, the root excluded. */
export function mainLine(tree) {
  const out = [];
  let node = tree.root;
  while (node.children.length) {
    node = node.children[0];
    out.push(node);
  }
  return out;
}

/** The path of the main line's `ply`-th sub-move (1 = the first), or null past its end. */
export function mainLinePath(tree, ply) {
  const line = mainLine(tree);
  return ply >= 0 && ply <= line.length ? line.slice(0, ply).map((n) => n.uci) : null;
}

/** One sub-move forward (along the main line below the node), or the same path at the end. */
export function next(tree, path) {
  const node = nodeAt(tree, path);
  return node && node.children.length ? [...path, node.children[0].uci] : path;
}

/** One sub-move back, or the root. */
export function previous(path) {
  return path.slice(0, -1);
}

/** The start (the root). */
export function first() {
  return [];
}

/** The end of the line the node is on: its first children down to the last. */
export function last(tree, path) {
  let out = validPath(tree, path);
  let node = nodeAt(tree, out);
  while (node.children.length) {
    node = node.children[0];
    out = [...out, node.uci];
  }
  return out;
}

/**
 * The sibling `delta` places away (-1 the previous variation, +1 the next, in the parent's
 * order, wrapping round), or the same path when the node has none.
 */
export function sibling(tree, path, delta) {
  if (!path.length) return path;
  const parent = nodeAt(tree, path.slice(0, -1));
  if (!parent || parent.children.length < 2) return path;
  const k = parent.children.findIndex((c) => c.uci === path[path.length - 1]);
  if (k < 0) return path;
  const n = parent.children.length;
  return [...path.slice(0, -1), parent.children[(((k + delta) % n) + n) % n].uci];
}

/**
 * Who is to play in a FEN and which sub-move (docs/rules.md section 5): `{side: 'w'|'b',
 * phase: 'single'|'first'|'second', number}`. A missing phase is `single` for White at
 * fullmove 1, `first` elsewhere.
 */
export function fenTurn(fen) {
  const f = String(fen || '').trim().split(/\s+/);
  const side = f[1] === 'b' ? 'b' : 'w';
  const number = Math.max(1, Number.parseInt(f[5], 10) || 1);
  const phase = { 1: 'first', 2: 'second', s: 'single' }[f[6]] || (side === 'w' && number === 1 ? 'single' : 'first');
  return { side, phase, number };
}

/**
 * The line below `parent` starting with its child `start`, grouped into turns for display:
 * `[{number, side, leadingComma, items: [{node, path}], variations: [line...]}]`, where a
 * variation is again such a list. A turn is the sub-moves of one side in a row (read from the
 * FENs: a sub-move played at phase `first` and leaving phase `second` has a second sub-move).
 * Each turn's variations are the alternatives to its sub-moves: to its first, the line from
 * that alternative; to its second, the whole turn again (its first sub-move shared) with the
 * alternative, as a PGN variation is written per turn.
 */
export function turnsFrom(parent, parentPath, start, { withAlternatives = true } = {}) {
  const turns = [];
  let p = parent;
  let pPath = parentPath;
  let node = start;
  let firstTurn = true;
  let alternatives = withAlternatives;
  while (node) {
    const before = fenTurn(p.fen);
    const turn = {
      number: before.number,
      side: before.side,
      leadingComma: firstTurn && before.phase === 'second',
      items: [],
      variations: [],
    };
    const path1 = [...pPath, node.uci];
    turn.items.push({ node, path: path1 });
    if (alternatives) {
      for (const alt of p.children) {
        if (alt !== node) turn.variations.push(turnsFrom(p, pPath, alt, { withAlternatives: false }));
      }
    }
    alternatives = true;
    let endNode = node;
    let endPath = path1;
    if (before.phase !== 'second' && fenTurn(node.fen).phase === 'second' && node.children.length) {
      const second = node.children[0];
      const path2 = [...path1, second.uci];
      turn.items.push({ node: second, path: path2 });
      for (const alt of node.children.slice(1)) {
        const rest = turnsFrom(node, path1, alt, { withAlternatives: false });
        // The whole turn again: its first sub-move shared, then the alternative.
        rest[0].items.unshift({ node, path: path1 });
        rest[0].leadingComma = false;
        turn.variations.push(rest);
      }
      endNode = second;
      endPath = path2;
    }
    turns.push(turn);
    firstTurn = false;
    p = endNode;
    pPath = endPath;
    node = endNode.children[0] || null;
  }
  return turns;
}

/** The whole tree's main line grouped into turns, with its variations (see `turnsFrom`). */
export function treeTurns(tree) {
  const start = tree.root.children[0];
  return start ? turnsFrom(tree.root, [], start) : [];
}

/**
 * The turn the node at `path` belongs to, for the board's marks: `{items: [uci...], complete}`
 * (the sub-moves of that turn up to and including the node; complete when the side to move
 * changed after it). The root gives no items.
 */
export function turnAt(tree, path) {
  const along = nodesAlong(tree, path);
  if (along.length < 2) return { items: [], complete: true };
  const node = along[along.length - 1];
  const parent = along[along.length - 2];
  const items = [node.uci];
  if (fenTurn(parent.fen).phase === 'second' && along.length >= 3) items.unshift(parent.uci);
  return { items, complete: fenTurn(node.fen).phase !== 'second' };
}
