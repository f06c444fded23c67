//! The auditor's view of a data directory: every stored game read with the
//! store itself (the server must not be running), and each checked by
//! replaying it independently and round-tripping its PGN export.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

use super::s;

/// Every stored game of a data directory, read with the store directly
/// (the server must not be running): (id, events as JSON).
pub async fn stored_games(data_dir: &Path) -> Vec<(String, Vec<String>)> {
    use marseillais::server::store::{GameStatus, SqliteStore, Store};
    let store = SqliteStore::open(data_dir).expect("open the data directory");
    let mut games = Vec::new();
    for status in [GameStatus::Open, GameStatus::Playing, GameStatus::Finished] {
        let mut offset = 0;
        loop {
            let page = store.list(status, 100, offset).await.expect("list");
            if page.is_empty() {
                break;
            }
            offset += page.len() as u32;
            for listing in page {
                let (_, events) = store
                    .load_game(&listing.id)
                    .await
                    .expect("load")
                    .expect("listed game exists");
                games.push((listing.id, events));
            }
        }
    }
    store.close().await;
    games
}

/// Checks one stored game the way an auditor would: it replays through the
/// server's state machine (which plays every sub-move through the rules
/// engine), every move event is legal when replayed independently with
/// [`marseillais::rules::Game`], and its comma PGN export reads back as the
/// same sub-moves and passes the strict check. Returns the sub-move count.
pub fn audit_game(id: &str, events: &[String]) -> Result<usize, String> {
    use marseillais::rules::pgn::{check_games, read_game};
    use marseillais::rules::{Game, Position, Rules, SubMove};
    use marseillais::server::game::GameState;
    use marseillais::server::play::export::pgn;
    use marseillais::server::store::codec;

    let typed = events
        .iter()
        .map(|text| codec::decode(text))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| format!("{id}: does not decode: {e}"))?;
    let state = GameState::replay(
        id,
        &typed,
        Duration::from_secs(30),
        std::time::Instant::now(),
        |_, _, _| {},
    )
    .map_err(|e| format!("{id}: does not replay: {e}"))?;
    // Independent replay of the sub-moves and takebacks.
    let created: Value = serde_json::from_str(events.first().ok_or("no events")?)
        .map_err(|e| format!("{id}: event 0: {e}"))?;
    let start = Position::from_fen(&s(&created["start_fen"]), Rules::Marseillais)
        .map_err(|e| format!("{id}: start fen: {e}"))?;
    let mut game = Game::new(start);
    for (seq, text) in events.iter().enumerate().skip(1) {
        let event: Value =
            serde_json::from_str(text).map_err(|e| format!("{id}: event {seq}: {e}"))?;
        match event["k"].as_str() {
            Some("move") => {
                let mv: SubMove = s(&event["uci"])
                    .parse()
                    .map_err(|e| format!("{id}: event {seq}: {e}"))?;
                game.play(mv)
                    .map_err(|e| format!("{id}: event {seq} {mv} is illegal: {e}"))?;
            }
            Some("takeback") => {
                game.takeback_first_submove()
                    .map_err(|e| format!("{id}: event {seq} takeback: {e}"))?;
            }
            Some(_) => {}
            None => return Err(format!("{id}: event {seq} has no kind: {text}")),
        }
    }
    if game.submoves() != state.game().submoves() {
        return Err(format!("{id}: independent replay differs"));
    }
    let text = pgn(&state);
    let imported = match read_game(&text) {
        Some(Ok(imported)) => imported,
        other => return Err(format!("{id}: PGN does not re-import: {other:?}\n{text}")),
    };
    if imported.game.submoves() != state.game().submoves() {
        return Err(format!("{id}: PGN re-imports as other sub-moves\n{text}"));
    }
    let reports = check_games(&text);
    if !reports.iter().all(|r| r.is_good()) {
        return Err(format!(
            "{id}: PGN fails the strict check: {reports:?}\n{text}"
        ));
    }
    Ok(state.game().submove_count())
}
