//! The set of puzzles a server adds to its store when it starts (`--puzzle-set`): the one
//! shipped in the binary (`assets/puzzles.csv`, made by `marseillais puzzles generate`, see
//! docs/puzzles.md), a file, or none. Every row is checked by the rules core before it is
//! stored; a puzzle already stored is left as it is, so a restart (or another node starting)
//! keeps the ratings and plays players gave it.

use crate::server::config::PuzzleSetChoice;

use super::csv::{self, CsvPuzzle};

/// The shipped set.
pub const SHIPPED: &str = include_str!("../../../assets/puzzles.csv");

/// The rows of the chosen set, checked; the error names the file and the line.
pub fn read(choice: &PuzzleSetChoice) -> Result<Vec<CsvPuzzle>, String> {
    match choice {
        PuzzleSetChoice::Off => Ok(Vec::new()),
        PuzzleSetChoice::BuiltIn => {
            csv::read(SHIPPED).map_err(|e| format!("assets/puzzles.csv: {e}"))
        }
        PuzzleSetChoice::File(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            csv::read(&text).map_err(|e| format!("{}: {e}", path.display()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_set_reads_whole() {
        let rows = read(&PuzzleSetChoice::BuiltIn).unwrap();
        let mut ids: Vec<_> = rows.iter().map(|row| row.id.as_str()).collect();
        ids.sort();
        ids.dedup();
        assert_eq!(ids.len(), rows.len(), "ids are unique");
    }

    #[test]
    fn no_set_is_no_rows() {
        assert!(read(&PuzzleSetChoice::Off).unwrap().is_empty());
    }

    #[test]
    fn a_missing_file_is_an_error_naming_it() {
        let error = read(&PuzzleSetChoice::File("/nonexistent/p.csv".into())).unwrap_err();
        assert!(error.contains("/nonexistent/p.csv"), "{error}");
    }
}
