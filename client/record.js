// The game record as the server sends it, grouped into turns for display.
// A turn is always one side's and turns alternate, so the server's `color`
// on each record entry is all the grouping needs: consecutive sub-moves of
// one colour are one turn (docs/protocol.md 3.3). No rule of the game is
// used here: not how many sub-moves a turn has, not that check ends one,
// not which phase a FEN without a phase field would default to.

/**
 * Where the record starts, from the fields the server wrote in its start
 * FEN: the fullmove number (field 6) and whether the first turn is taken up
 * at its second sub-move (field 7 is `2`; the server writes that field
 * whenever it is `2`, so an absent field is never `2` and needs no default).
 */
export function recordStart(startFen) {
  const f = String(startFen || '').trim().split(/\s+/);
  return { number: Number(f[5]) || 1, atSecond: f[6] === '2' };
}

/**
 * The turns of `moves` (`[{san, color}]`), as comma PGN writes them:
 * `[{number, color, leadingComma, items: [{index, san}]}]`. `start` is
 * `recordStart(...)` (or the replay reply's first turn: its `number` and
 * `starts_at_second`).
 */
export function groupTurns(moves, start) {
  let number = start.number;
  const turns = [];
  moves.forEach((m, index) => {
    const last = turns[turns.length - 1];
    const colour = m.color === 'black' ? 'black' : 'white';
    if (last && last.color === colour) {
      last.items.push({ index, san: m.san });
      return;
    }
    // Move numbers count White+Black pairs: a new one after each Black turn.
    if (last && last.color === 'black') number += 1;
    turns.push({ number, color: colour, leadingComma: index === 0 && start.atSecond, items: [{ index, san: m.san }] });
  });
  return turns;
}

/** The comma-notation text of grouped turns: `1. e4 e5,Nc6`, `1... e5,Nc6`, `1. ,d4`. */
export function commaText(turns) {
  const out = [];
  turns.forEach((t, i) => {
    if (t.color === 'white') out.push(`${t.number}.`);
    else if (i === 0) out.push(`${t.number}...`);
    out.push((t.leadingComma ? ',' : '') + t.items.map((m) => m.san).join(','));
  });
  return out.join(' ');
}

/**
 * The last turn among the first `count` sub-moves: its colour and its
 * sub-moves, with `second` set when they are the S2 of a turn taken up at
 * its second sub-move (the first turn of a record that starts at S2), so
 * that the board marks it "2".
 */
export function lastTurn(moves, count, start) {
  const shown = moves.slice(0, count);
  if (!shown.length) return { color: null, moves: [], second: false };
  const colour = shown[shown.length - 1].color;
  let from = shown.length - 1;
  while (from > 0 && shown[from - 1].color === colour) from -= 1;
  return { color: colour, moves: shown.slice(from), second: from === 0 && start.atSecond };
}

/**
 * How many turns the record shows completed when `turn` is the side to
 * move: every colour run, less the side to move's own run in progress.
 */
export function completedTurns(moves, turn) {
  let runs = 0;
  moves.forEach((m, i) => { if (i === 0 || moves[i - 1].color !== m.color) runs += 1; });
  const inProgress = moves.length && moves[moves.length - 1].color === turn ? 1 : 0;
  return runs - inProgress;
}
