//! The puzzle trainer (issue 30) in real headless Chromium against the real server on 127.0.0.1
//! (the harness of tests/support/browser.rs), on a store that holds three puzzles made by hand
//! (imported before the server starts): a signed-in player solves one by clicking its two
//! sub-moves and sees "Solved!" and the rating change, fails the other with a wrong sub-move and
//! is shown the right one, then finds both on the profile's dashboard; an anonymous visitor
//! finds the themes page and the lobby's puzzle of the day, solves a puzzle unrated and is told
//! so when it comes back, and solves one of two turns, the opponent's reply played between.
//! Waits poll what the page shows, with a deadline; nothing is timed.

use crate::support::browser;

use std::sync::Arc;

use browser::{
    BrowserRig as Rig, Driver, SERIAL, Session, browser_available, click, click_move, js, square,
    text, wait_for, wait_text,
};
use marseillais::server::config::PuzzleSetChoice;
use marseillais::server::domain::rating::Rating;
use marseillais::server::store::{MemoryStore, PuzzleRecord, Store};
use serde_json::json;

/// Black's last turn (Nc6, d6) leaves f7 to White's queen and a bishop that is not out yet:
/// White's turn is two sub-moves, Bc4 then Qxf7 mate.
const TWO_SUBMOVE_MATE: (&str, &str, &str) = (
    "bcQf7m",
    "rnbqkbnr/pppp1ppp/8/4p2Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2",
    "b8c6,d7d6 f1c4,h5f7",
);

/// After 1. e4 Black opens its king with f6, g5: Qh5 mates at once (the check ends the turn).
const QUEEN_MATE: (&str, &str, &str) = (
    "qh5mat",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    "f7f6,g7g5 d1h5",
);

/// A line of two turns of the solver with the opponent's reply between (not a real puzzle: the
/// judge only asks each turn to reach the line's position): Nf3, Nc3; h6, h5; d4, Bg5.
const TWO_TURNS: (&str, &str, &str) = (
    "quiet2",
    "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
    "a7a6,a6a5 g1f3,b1c3 h7h6,h6h5 d2d4,c1g5",
);

fn record((id, fen, moves): (&str, &str, &str), themes: &[&str]) -> PuzzleRecord {
    PuzzleRecord {
        id: id.to_owned(),
        fen: fen.to_owned(),
        moves: moves.to_owned(),
        rating: Rating::INITIAL,
        plays: 0,
        themes: themes.iter().map(|t| (*t).to_owned()).collect(),
        source: String::new(),
        created_ms: 0,
    }
}

/// A server on a store holding the three puzzles (and not the shipped set), and a chromedriver.
async fn start() -> Rig {
    let store = Arc::new(MemoryStore::new());
    let imported = store
        .import_puzzles(vec![
            record(TWO_SUBMOVE_MATE, &["mateIn1", "middlegame", "short"]),
            record(QUEEN_MATE, &["mateIn1", "opening", "short"]),
            record(TWO_TURNS, &["advantage"]),
        ])
        .await
        .expect("import the puzzles");
    assert_eq!(imported, 3);
    let server = crate::support::rig::Rig::builder()
        .config(|c| c.puzzle_set = PuzzleSetChoice::Off)
        .store(store as Arc<dyn Store>)
        .start()
        .await;
    let base = format!("http://{}", server.addr());
    Rig {
        server,
        driver: Driver::start(),
        base,
    }
}

/// Opens a puzzle's page and waits until its opponent's turn is played and the board is the
/// player's (`movable` pieces).
async fn open_puzzle(s: &Session, rig: &Rig, id: &str) {
    s.goto(&rig.url(&format!("/puzzles/{id}"))).await;
    wait_text(s, "#puzzle-status", "find the best turn").await;
    wait_for(
        s,
        "document.querySelectorAll('.board .sq.movable').length > 0",
        "the player's pieces movable",
    )
    .await;
}

/// The piece letter on a square of the page's board ("" when empty).
async fn piece_on(s: &Session, sq: &str) -> String {
    js(
        s,
        &format!(
            "return document.querySelector(\"{}\").dataset.piece",
            square(sq)
        ),
    )
    .await
    .as_str()
    .unwrap_or_default()
    .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_solves_a_puzzle_by_clicking_its_two_submoves_sees_the_rating_change_then_fails_one_and_is_shown_the_right_submove()
 {
    if !browser_available("a_player_solves_a_puzzle...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = start().await;
    let s = rig.driver.session().await;
    rig.register(&s, "ann").await;

    // The board is White's, Black's last turn shaded (b8-c6, then d7-d6), the puzzle rated.
    open_puzzle(&s, &rig, TWO_SUBMOVE_MATE.0).await;
    assert_eq!(
        js(&s, "return document.querySelector('.board .sq').dataset.sq").await,
        json!("a8"),
        "White's side: a8 at the top left"
    );
    for (sq, class) in [("c6", "last1"), ("d6", "last2")] {
        wait_for(
            &s,
            &format!(
                "document.querySelector(\"{}\").classList.contains('{class}')",
                square(sq)
            ),
            &format!("{sq} shaded as {class}"),
        )
        .await;
    }
    let player = text(&s, "#puzzle-player").await;
    assert!(!player.contains("Not rated"), "a rated puzzle: {player:?}");

    // Bc4: right, and the turn goes on; Qxf7: mate, solved, rated.
    click_move(&s, "f1", "c4").await;
    wait_text(&s, "#puzzle-feedback", "now your second sub-move").await;
    click_move(&s, "h5", "f7").await;
    wait_text(&s, "#puzzle-status", "Solved!").await;
    wait_text(&s, "#puzzle-round", "Your puzzle rating").await;
    let change = text(&s, "#puzzle-change").await;
    assert!(change.starts_with('+'), "a rating gain: {change:?}");
    assert_eq!(piece_on(&s, "f7").await, "Q");
    let solution = text(&s, "#puzzle-solution").await;
    assert!(
        solution.contains("Nc6,d6") && solution.contains("Bc4,Qxf7"),
        "the line in SAN: {solution:?}"
    );
    assert!(text(&s, "#puzzle-themes").await.contains("Mate in 1"));
    let analyse = js(
        &s,
        "return document.querySelector('#puzzle-analyse').getAttribute('href')",
    )
    .await;
    assert!(
        analyse
            .as_str()
            .is_some_and(|href| href.starts_with("/analysis?import=1")),
        "Analyse opens the analysis board with the line: {analyse}"
    );

    // The other puzzle: g4 is legal but wrong (it blocks the queen's way to h5, and no second
    // sub-move mates; a quiet first one such as Qf3 would still be right, Qh5 mating after it).
    // The page fails it at once, takes g4 back, puts Qh5 (the right sub-move) on the board and
    // says so, and the rating drops.
    open_puzzle(&s, &rig, QUEEN_MATE.0).await;
    click_move(&s, "g2", "g4").await;
    wait_text(&s, "#puzzle-status", "Failed").await;
    wait_text(&s, "#puzzle-feedback", "g4 is not the move").await;
    wait_text(&s, "#puzzle-feedback", "the right sub-move was Qh5").await;
    assert_eq!(piece_on(&s, "h5").await, "Q");
    assert_eq!(
        piece_on(&s, "g2").await,
        "P",
        "the wrong sub-move taken back"
    );
    assert_eq!(piece_on(&s, "g4").await, "");
    wait_for(
        &s,
        &format!(
            "document.querySelector(\"{}\").classList.contains('last1')",
            square("h5")
        ),
        "the right sub-move shaded",
    )
    .await;
    let change = text(&s, "#puzzle-change").await;
    assert!(change.starts_with('-'), "a rating loss: {change:?}");
    assert!(text(&s, "#puzzle-solution").await.contains("Qh5"));

    // The profile's dashboard counts both.
    s.goto(&rig.url("/@/ann")).await;
    wait_text(&s, "#puzzle-summary", "1 solved").await;
    wait_text(&s, "#puzzle-summary", "1 failed").await;
    wait_text(&s, "#puzzle-summary", "Puzzle rating").await;
    wait_text(
        &s,
        "#puzzle-theme-table tr[data-theme='mateIn1'] .solved",
        "1",
    )
    .await;
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_visitor_finds_a_theme_and_the_puzzle_of_the_day_solves_unrated_is_told_what_it_solved_and_sees_the_opponents_reply_played()
 {
    if !browser_available("a_visitor_finds_a_theme...") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = start().await;
    let s = rig.driver.session().await;

    // The themes page: each theme with its count, a link to its puzzles.
    s.goto(&rig.url("/puzzles/themes")).await;
    wait_text(&s, "#theme-list li[data-theme='mateIn1']", "2 puzzles").await;
    wait_text(&s, "#theme-list li[data-theme='opening']", "1 puzzle").await;
    wait_text(&s, "#themes-total", "3 puzzles").await;
    click(&s, "#theme-list li[data-theme='opening'] a").await;
    wait_text(&s, "#puzzle-title", "Opening").await;
    wait_text(&s, "#puzzle-status", "find the best turn").await;
    assert!(text(&s, "#puzzle-player").await.contains("sign in"));
    let seen = js(&s, "return localStorage.getItem('marseillais.puzzle.last')").await;
    assert_eq!(
        seen,
        json!(QUEEN_MATE.0),
        "the only opening puzzle, kept as seen"
    );

    // Qh5 mates: solved, unrated.
    click_move(&s, "d1", "h5").await;
    wait_text(&s, "#puzzle-status", "Solved!").await;
    assert!(
        text(&s, "#puzzle-round").await.is_empty(),
        "no rating change"
    );

    // The lobby shows a puzzle of the day; a puzzle solved here is said so when it comes back.
    s.goto(&rig.url("/")).await;
    wait_for(
        &s,
        "(document.querySelector('#daily-link')?.getAttribute('href') || '').startsWith('/puzzles/')",
        "the puzzle of the day's link",
    )
    .await;
    open_puzzle(&s, &rig, QUEEN_MATE.0).await;
    wait_text(&s, "#puzzle-before", "already solved").await;

    // Two turns: the first right turn brings the opponent's reply onto the board, then the
    // second solves it.
    open_puzzle(&s, &rig, TWO_TURNS.0).await;
    click_move(&s, "g1", "f3").await;
    wait_text(&s, "#puzzle-feedback", "now your second sub-move").await;
    click_move(&s, "b1", "c3").await;
    wait_text(&s, "#puzzle-feedback", "Best move! Keep going").await;
    wait_for(
        &s,
        &format!(
            "document.querySelector(\"{}\").dataset.piece === 'p' && document.querySelector(\"{}\").classList.contains('last2')",
            square("h5"),
            square("h5")
        ),
        "Black's reply h6, h5 played and shaded",
    )
    .await;
    click_move(&s, "d2", "d4").await;
    click_move(&s, "c1", "g5").await;
    wait_text(&s, "#puzzle-status", "Solved!").await;
    assert!(
        text(&s, "#puzzle-solution")
            .await
            .contains("Nf3,Nc3Black: h6,h5White: d4,Bg5"),
        "the line, turn by turn"
    );
    rig.stop(vec![s]).await;
}
