//! The opening explorer of [`super::MemoryStore`]: the reference the other backends are tested
//! against, written as plainly as the contract reads (every counted game kept whole, the
//! answer computed by a scan).

use std::collections::HashMap;

use crate::server::store::{
    ClockFamily, EXPLORER_EXAMPLES_PER_BUCKET, ExplorerExample, ExplorerGame, ExplorerPosition,
    ExplorerTurnRow,
};

#[derive(Default)]
pub(super) struct MemoryExplorer {
    /// Every counted game by id.
    games: HashMap<String, ExplorerGame>,
}

impl MemoryExplorer {
    /// Clears the player name `name` from the counted game `game_id` (a deleted account,
    /// issue 32).
    pub(super) fn forget_name(&mut self, game_id: &str, name: &str) {
        if let Some(game) = self.games.get_mut(game_id) {
            for seat in [&mut game.white, &mut game.black] {
                if seat.name.as_deref() == Some(name) {
                    seat.name = None;
                }
            }
        }
    }

    /// Counts the game unless its id is counted; whether it was new.
    pub(super) fn add(&mut self, game: &ExplorerGame) -> bool {
        if self.games.contains_key(&game.game_id) {
            return false;
        }
        self.games.insert(game.game_id.clone(), game.clone());
        true
    }

    pub(super) fn position(&self, key: i64) -> ExplorerPosition {
        let mut rows: HashMap<(String, ClockFamily, bool), ExplorerTurnRow> = HashMap::new();
        let mut buckets: HashMap<(ClockFamily, bool), Vec<&ExplorerGame>> = HashMap::new();
        for game in self.games.values() {
            let Some(turn) = game.turns.iter().find(|t| t.key == key) else {
                continue;
            };
            let row = rows
                .entry((turn.turn.clone(), game.family, game.rated))
                .or_insert_with(|| ExplorerTurnRow {
                    turn: turn.turn.clone(),
                    family: game.family,
                    rated: game.rated,
                    games: 0,
                    white: 0,
                    draws: 0,
                    black: 0,
                    rating_sum: 0.0,
                    rating_count: 0,
                });
            let (white, draws, black) = game.result.counts();
            let (sum, count) = game.rating_sum();
            row.games += 1;
            row.white += white;
            row.draws += draws;
            row.black += black;
            row.rating_sum += sum;
            row.rating_count += count;
            buckets
                .entry((game.family, game.rated))
                .or_default()
                .push(game);
        }
        let mut examples = Vec::new();
        for games in buckets.values_mut() {
            games.sort_by(|a, b| (b.ended_ms, &b.game_id).cmp(&(a.ended_ms, &a.game_id)));
            examples.extend(games.iter().take(EXPLORER_EXAMPLES_PER_BUCKET).map(|g| {
                ExplorerExample {
                    game_id: g.game_id.clone(),
                    family: g.family,
                    rated: g.rated,
                    result: g.result,
                    white: g.white.clone(),
                    black: g.black.clone(),
                    ended_ms: g.ended_ms,
                }
            }));
        }
        ExplorerPosition {
            turns: rows.into_values().collect(),
            examples,
        }
    }
}
