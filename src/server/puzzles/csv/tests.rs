use super::*;

const DOUBLE: &str = "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 0 20";
const DOUBLE_MOVES: &str = "b6a4,e5d4 a1a4,d1d4";
/// Rules, worked case 11: two double steps, both taken en passant.
const EN_PASSANT: &str = "4k3/3p1p2/8/4P1P1/8/8/8/4K3 b - - 0 5";

const HEADER_LINE: &str =
    "PuzzleId,FEN,Moves,Rating,RatingDeviation,Popularity,NbPlays,Themes,GameUrl,OpeningTags";

fn rows() -> Vec<CsvPuzzle> {
    vec![
        CsvPuzzle {
            id: puzzle_id(DOUBLE, DOUBLE_MOVES),
            fen: DOUBLE.to_string(),
            moves: DOUBLE_MOVES.to_string(),
            rating: 1612,
            deviation: 75,
            popularity: 93,
            plays: 1204,
            themes: vec![Theme::DoubleCapture, Theme::Advantage, Theme::Short],
            source: "/game/AbCd1234".to_string(),
        },
        CsvPuzzle {
            id: "x9".to_string(),
            // After Black's d5 and f5: the FEN lists two targets, a comma inside a field.
            fen: "4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6".to_string(),
            moves: "e1e2,e2e1 e8e7,e7e8".to_string(),
            rating: -20,
            deviation: 500,
            popularity: -100,
            plays: 0,
            themes: Vec::new(),
            source: "selfplay:42:7".to_string(),
        },
    ]
}

fn written(rows: &[CsvPuzzle]) -> String {
    let mut out = Vec::new();
    write(&mut out, rows).unwrap();
    String::from_utf8(out).unwrap()
}

/// The text of one data row after the header, with `row` as its fields.
fn with_row(row: &str) -> String {
    format!("{HEADER_LINE}\n{row}\n")
}

#[test]
fn a_written_set_reads_back_equal() {
    let rows = rows();
    let text = written(&rows);
    assert_eq!(read(&text), Ok(rows));
}

#[test]
fn the_header_is_lichesss_and_the_moves_are_quoted() {
    let text = written(&rows());
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some(HEADER_LINE));
    let first = lines.next().unwrap();
    assert!(first.contains(",\"b6a4,e5d4 a1a4,d1d4\","), "{first}");
    assert!(
        first.ends_with(",doubleCapture advantage short,/game/AbCd1234,"),
        "{first}"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .contains("\"4k3/8/8/3pPpP1/8/8/8/4K3 w - d6,f6 0 6\"")
    );
}

#[test]
fn an_empty_set_is_the_header_alone() {
    assert_eq!(written(&[]), format!("{HEADER_LINE}\n"));
    assert_eq!(read(&written(&[])), Ok(Vec::new()));
}

#[test]
fn an_unknown_theme_is_refused_with_its_line() {
    let mut text = written(&rows());
    text.push_str(&format!(
        "abc,{DOUBLE},\"{DOUBLE_MOVES}\",1500,75,0,0,fork pin,,\n"
    ));
    assert_eq!(
        read(&text),
        Err(CsvError::Theme {
            line: 4,
            key: "pin".to_string()
        })
    );
}

#[test]
fn an_illegal_line_is_refused_with_its_line_and_the_rules_reason() {
    let text = with_row(&format!(
        "abc,{DOUBLE},\"b6a4,e5d4 a1a5,d1d4\",1500,75,0,0,,,"
    ));
    assert!(
        matches!(
            read(&text),
            Err(CsvError::Line {
                line: 2,
                error: LineError::Illegal { turn: 2, .. }
            })
        ),
        "{:?}",
        read(&text)
    );
    let text = with_row("abc,not a fen,\"e2e4\",1500,75,0,0,,,");
    assert!(matches!(
        read(&text),
        Err(CsvError::Line {
            line: 2,
            error: LineError::Fen(_)
        })
    ));
}

#[test]
fn a_bad_header_a_short_row_a_bad_number_or_id_are_refused() {
    assert!(matches!(
        read("PuzzleId,FEN,Moves\n"),
        Err(CsvError::Header { .. })
    ));
    assert!(matches!(read(""), Err(CsvError::Header { .. })));
    assert!(matches!(
        read(&with_row("abc,x,y")),
        Err(CsvError::Format { line: 2, .. })
    ));
    let good = format!("abc,{DOUBLE},\"{DOUBLE_MOVES}\"");
    assert_eq!(
        read(&with_row(&format!("{good},15x0,75,0,0,,,"))),
        Err(CsvError::Number {
            line: 2,
            column: "Rating",
            text: "15x0".to_string()
        })
    );
    assert_eq!(
        read(&with_row(&format!("{good},1500,75,0,-1,,,"))),
        Err(CsvError::Number {
            line: 2,
            column: "NbPlays",
            text: "-1".to_string()
        })
    );
    assert_eq!(
        read(&with_row(&format!("{good},1500,3000000000,0,1,,,"))),
        Err(CsvError::Number {
            line: 2,
            column: "RatingDeviation",
            text: "3000000000".to_string()
        })
    );
    let bad_id = format!("a/b,{DOUBLE},\"{DOUBLE_MOVES}\",1500,75,0,0,,,");
    assert_eq!(
        read(&with_row(&bad_id)),
        Err(CsvError::Id {
            line: 2,
            id: "a/b".to_string()
        })
    );
}

#[test]
fn a_puzzle_id_is_six_letters_and_digits_and_stable() {
    let id = puzzle_id(DOUBLE, DOUBLE_MOVES);
    assert_eq!(id.len(), ID_LENGTH);
    assert!(id.bytes().all(|b| b.is_ascii_alphanumeric()), "{id}");
    // Pinned: the ids are stored, so the hash must never change.
    // FNV-1a of "6k1/5pp1/7p/8/n2b4/8/4QPPP/R2R2K1 w - -" in base 62, computed apart.
    assert_eq!(id, "CuOIr9");
    assert_eq!(puzzle_id(DOUBLE, DOUBLE_MOVES), id);
}

#[test]
fn the_same_solver_position_is_the_same_id_and_another_is_another() {
    let id = puzzle_id(DOUBLE, DOUBLE_MOVES);
    // The opponent's turn in the other order, other counters: the same solver position.
    let counters = "6k1/5pp1/1n5p/4b3/8/8/4QPPP/R2R2K1 b - - 7 31";
    assert_eq!(puzzle_id(counters, "e5d4,b6a4 a1a4,d1d4"), id);
    // The same start, another solution: the same position to solve, so the same id.
    assert_eq!(puzzle_id(DOUBLE, "b6a4,e5d4 d1d4,a1a4"), id);
    // Another opponent's turn: another position.
    assert_ne!(puzzle_id(DOUBLE, "b6a4,e5f4 a1a4,e2e4"), id);
    // En-passant targets are part of the position.
    assert_ne!(
        puzzle_id(EN_PASSANT, "d7d5,f7f5 e5d6,g5f6"),
        puzzle_id(EN_PASSANT, "d7d6,f7f6 e5d6,g5f6")
    );
    // A text that is no line still gets an id.
    assert_eq!(puzzle_id("junk", "").len(), ID_LENGTH);
}
