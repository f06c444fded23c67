//! Fuzz target `pgn`: reading and strictly checking arbitrary PGN text
//! never panics, and every game the tolerant reader accepts, written back
//! canonically, reads again as the same game and passes the strict check.
#![no_main]

use libfuzzer_sys::fuzz_target;
use marseillais_fuzz::rules::pgn::{check_games, read_game, read_games, write_game};

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let _ = check_games(&text);
    for imported in read_games(&text).into_iter().flatten() {
        let written = write_game(&imported.game, &imported.header());
        let again = match read_game(&written) {
            Some(Ok(again)) => again,
            other => panic!("canonical PGN does not read back: {other:?}\n{written}"),
        };
        assert_eq!(again.game.submoves(), imported.game.submoves(), "{written}");
        assert_eq!(
            again.game.positions(),
            imported.game.positions(),
            "{written}"
        );
        assert_eq!(again.game.outcome(), imported.game.outcome(), "{written}");
        let reports = check_games(&written);
        assert!(
            reports.iter().all(|r| r.is_good()),
            "{reports:?}\n{written}"
        );
    }
});
