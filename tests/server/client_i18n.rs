//! The client's catalogues (client/i18n/{en,fr,es}.json) are complete: every
//! key of one language is in the others, no text is empty, the `{name}`
//! placeholders agree between languages, a plural has its `.other` form, and
//! every key the client uses (`t('...')` literals in client/*.js, the
//! `data-i18n*` attributes of the HTML pages) is in English. The checks are
//! functions returning the problems found, so that the tests below also prove
//! each check reports what it should on small made-up catalogues.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use serde_json::Value;

const LANGUAGES: &[&str] = &["en", "fr", "es"];

type Catalogue = BTreeMap<String, String>;

fn client_dir() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/client"))
}

/// A catalogue from its JSON text: a flat object of non-empty strings.
fn parse(lang: &str, text: &str) -> Result<Catalogue, Vec<String>> {
    let value: Value = serde_json::from_str(text).map_err(|e| vec![format!("{lang}: {e}")])?;
    let Value::Object(map) = value else {
        return Err(vec![format!("{lang}: not a JSON object")]);
    };
    let mut out = Catalogue::new();
    let mut problems = Vec::new();
    for (key, value) in map {
        match value {
            Value::String(s) if !s.trim().is_empty() => {
                out.insert(key, s);
            }
            Value::String(_) => problems.push(format!("{lang}: {key} is empty")),
            _ => problems.push(format!("{lang}: {key} is not a string")),
        }
    }
    if problems.is_empty() {
        Ok(out)
    } else {
        Err(problems)
    }
}

fn catalogue(lang: &str) -> Catalogue {
    let path = client_dir().join("i18n").join(format!("{lang}.json"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    parse(lang, &text).unwrap_or_else(|problems| panic!("{}", problems.join("\n")))
}

/// The `{name}` placeholders of a text.
fn placeholders(text: &str) -> BTreeSet<&str> {
    let mut out = BTreeSet::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        let after = &rest[open + 1..];
        match after.find('}') {
            Some(close)
                if close > 0
                    && after[..close]
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_') =>
            {
                out.insert(&after[..close]);
                rest = &after[close + 1..];
            }
            _ => rest = after,
        }
    }
    out
}

/// Keys missing from one language that another has, and placeholders that differ.
fn compare(catalogues: &[(&str, &Catalogue)]) -> Vec<String> {
    let mut problems = Vec::new();
    let Some((base_lang, base)) = catalogues.first() else {
        return problems;
    };
    for (lang, other) in &catalogues[1..] {
        for key in base.keys().filter(|k| !other.contains_key(*k)) {
            problems.push(format!("{lang} lacks {key} (in {base_lang})"));
        }
        for key in other.keys().filter(|k| !base.contains_key(*k)) {
            problems.push(format!("{base_lang} lacks {key} (in {lang})"));
        }
        for (key, text) in base.iter() {
            if let Some(theirs) = other.get(key)
                && placeholders(text) != placeholders(theirs)
            {
                problems.push(format!(
                    "{key}: placeholders {:?} in {base_lang}, {:?} in {lang}",
                    placeholders(text),
                    placeholders(theirs)
                ));
            }
        }
    }
    problems
}

/// Plural forms (`key.one`, `key.few`...) without the `key.other` that
/// every language falls back on.
fn plurals_without_other(lang: &str, catalogue: &Catalogue) -> Vec<String> {
    let mut problems = Vec::new();
    for key in catalogue.keys() {
        for form in [".zero", ".one", ".two", ".few", ".many"] {
            if let Some(stem) = key.strip_suffix(form)
                && !catalogue.contains_key(&format!("{stem}.other"))
            {
                problems.push(format!("{lang}: {key} without {stem}.other"));
            }
        }
    }
    problems
}

/// The string literals passed to `t(`: `t('game.resign')`, `t("a.b", {...})`.
/// A call with a computed key (`t(`error.${code}`)`) is not a literal and
/// is not listed; those keys are checked by their own tests.
fn keys_in_js(source: &str) -> Vec<String> {
    let bytes = source.as_bytes();
    let mut out = Vec::new();
    let mut at = 0;
    while let Some(found) = source[at..].find("t(") {
        let start = at + found;
        at = start + 2;
        let before = start.checked_sub(1).map(|i| bytes[i]);
        if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b == b'.')
        {
            continue;
        }
        let Some(&quote) = bytes.get(at) else { break };
        if quote != b'\'' && quote != b'"' {
            continue;
        }
        if let Some(len) = source[at + 1..].find(quote as char) {
            out.push(source[at + 1..at + 1 + len].to_string());
        }
    }
    out
}

/// The keys of the `data-i18n`, `data-i18n-title`, `data-i18n-aria-label`
/// and `data-i18n-placeholder` attributes of an HTML page (also in JS that
/// builds such elements).
fn keys_in_html(source: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = source;
    while let Some(found) = rest.find("data-i18n") {
        rest = &rest[found + "data-i18n".len()..];
        let name_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        let after = &rest[name_end..];
        if let Some(value) = after.strip_prefix("=\"")
            && let Some(end) = value.find('"')
        {
            out.push(value[..end].to_string());
        }
    }
    out
}

/// Used keys that English lacks (a plural key is there when its `.other` is).
fn missing_in(english: &Catalogue, used: &[(String, String)]) -> Vec<String> {
    used.iter()
        .filter(|(_, key)| {
            !english.contains_key(key) && !english.contains_key(&format!("{key}.other"))
        })
        .map(|(file, key)| format!("{file} uses {key}, which en.json lacks"))
        .collect()
}

/// Every key the client's files use, with the file's name.
fn used_keys() -> Vec<(String, String)> {
    let mut used = Vec::new();
    for entry in std::fs::read_dir(client_dir()).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let keys = match path.extension().and_then(|e| e.to_str()) {
            Some("js") => {
                let text = std::fs::read_to_string(&path).unwrap();
                let mut keys = keys_in_js(&text);
                keys.extend(keys_in_html(&text));
                keys
            }
            Some("html") => keys_in_html(&std::fs::read_to_string(&path).unwrap()),
            _ => continue,
        };
        used.extend(keys.into_iter().map(|k| (name.clone(), k)));
    }
    used
}

fn fail_on(problems: Vec<String>) {
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn every_catalogue_has_the_same_keys_and_placeholders_as_every_other() {
    let all: Vec<(&str, Catalogue)> = LANGUAGES.iter().map(|l| (*l, catalogue(l))).collect();
    let refs: Vec<(&str, &Catalogue)> = all.iter().map(|(l, c)| (*l, c)).collect();
    fail_on(compare(&refs));
    for (lang, c) in &all {
        fail_on(plurals_without_other(lang, c));
    }
}

#[test]
fn every_key_the_client_uses_is_in_the_english_catalogue() {
    let used = used_keys();
    assert!(used.len() > 5, "the scan finds the client's keys: {used:?}");
    fail_on(missing_in(&catalogue("en"), &used));
}

/// The error codes docs/protocol.md lists: the HTTP table (`| 409 | \`seat_taken\` |`), the
/// account routes' sentence under it, and the game socket's table (section 3.6).
fn documented_error_codes(doc: &str) -> BTreeSet<String> {
    let mut codes = BTreeSet::new();
    let mut in_socket_table = false;
    let mut in_account_sentence = false;
    for line in doc.lines() {
        if line.starts_with("### ") || line.starts_with("## ") {
            in_socket_table = line.starts_with("### 3.6");
        }
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let code_cell = if cells.len() > 2
            && cells[1].len() == 3
            && cells[1].bytes().all(|b| b.is_ascii_digit())
        {
            Some(cells[2])
        } else if in_socket_table && cells.len() > 2 {
            Some(cells[1])
        } else {
            None
        };
        if let Some(code) = code_cell
            .and_then(|c| c.strip_prefix('`'))
            .and_then(|c| c.strip_suffix('`'))
        {
            codes.insert(code.to_string());
        }
        // The sentence runs on until the paragraph ends.
        if line.starts_with("The account routes add ") {
            in_account_sentence = true;
        } else if line.trim().is_empty() {
            in_account_sentence = false;
        }
        if in_account_sentence {
            for (i, part) in line.split('`').enumerate() {
                if i % 2 == 1 {
                    codes.insert(part.to_string());
                }
            }
        }
    }
    codes
}

#[test]
fn every_error_code_of_the_protocol_has_its_words_in_the_catalogue() {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/protocol.md"))
        .expect("docs/protocol.md");
    let codes = documented_error_codes(&doc);
    for code in ["seat_taken", "bad_credentials", "not_your_turn", "too_long"] {
        assert!(codes.contains(code), "the scan finds {code}: {codes:?}");
    }
    let english = catalogue("en");
    let missing: Vec<String> = codes
        .iter()
        .filter(|code| !english.contains_key(&format!("error.{code}")))
        .map(|code| format!("en.json lacks error.{code}"))
        .collect();
    fail_on(missing);
}

fn made_up(pairs: &[(&str, &str)]) -> Catalogue {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

#[test]
fn a_key_missing_from_one_language_is_reported_both_ways() {
    let en = made_up(&[("game.resign", "Resign"), ("game.draw", "Draw")]);
    let fr = made_up(&[("game.resign", "Abandonner"), ("game.extra", "En trop")]);
    let problems = compare(&[("en", &en), ("fr", &fr)]);
    assert_eq!(
        problems,
        ["fr lacks game.draw (in en)", "en lacks game.extra (in fr)"]
    );
}

#[test]
fn a_placeholder_that_differs_between_languages_is_reported() {
    let en = made_up(&[("x", "{name} wins"), ("y", "{n} days")]);
    let es = made_up(&[("x", "Gana {nombre}"), ("y", "{n} días")]);
    let problems = compare(&[("en", &en), ("es", &es)]);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].starts_with("x: placeholders"), "{problems:?}");
}

#[test]
fn an_empty_text_or_a_nested_value_is_refused() {
    assert!(parse("fr", r#"{"a": ""}"#).is_err());
    assert!(parse("fr", r#"{"a": {"one": "x"}}"#).is_err());
    assert!(parse("fr", r#"["a"]"#).is_err());
    assert_eq!(parse("fr", r#"{"a": "b"}"#).unwrap().len(), 1);
}

#[test]
fn a_plural_without_its_other_form_is_reported() {
    let c = made_up(&[("time.days.one", "{n} day")]);
    assert_eq!(plurals_without_other("en", &c).len(), 1);
    let c = made_up(&[
        ("time.days.one", "{n} day"),
        ("time.days.other", "{n} days"),
    ]);
    assert!(plurals_without_other("en", &c).is_empty());
}

#[test]
fn the_scan_finds_literal_keys_and_attributes_and_skips_other_calls() {
    let js =
        r#"h('p', {}, t('game.resign')); x.t('no'); at('no'); t("a.b", { n }); t(`error.${c}`)"#;
    assert_eq!(keys_in_js(js), ["game.resign", "a.b"]);
    let html = r#"<a data-i18n="nav.lobby">Lobby</a><b data-i18n-aria-label="x.y"></b>"#;
    assert_eq!(keys_in_html(html), ["nav.lobby", "x.y"]);
    let en = made_up(&[("nav.lobby", "Lobby"), ("time.days.other", "{n} days")]);
    let used = [
        ("a.js".to_string(), "nav.lobby".to_string()),
        ("a.js".to_string(), "time.days".to_string()),
        ("b.js".to_string(), "nav.gone".to_string()),
    ];
    assert_eq!(
        missing_in(&en, &used),
        ["b.js uses nav.gone, which en.json lacks"]
    );
}
