//! The client speaks the browser's language (client/i18n.js): a Chromium
//! whose language is French gets the lobby, a game page, a refusal of the
//! server and the words of the announcer in French; the `language` setting
//! wins over the browser's; plural forms follow each language's rule.
//! Real headless Chromium, one scenario at a time (see tests/browser/game/mod.rs).

use crate::support::browser;

use browser::{
    SERIAL, Session, api_seat, browser_available, click, js, js_async, text, type_into, wait_for,
    wait_text,
};
use serde_json::{Value, json};

use browser::BrowserRig as Rig;

/// Imports a client module in the page and returns what `body` (which sees
/// the module as `m`) evaluates to.
async fn with_module(s: &Session, module: &str, body: &str) -> Value {
    js_async(
        s,
        &format!(
            "const done = arguments[arguments.length - 1];
             import({module:?}).then((m) => Promise.resolve({body}))
               .then((v) => done(v), (e) => done('failed: ' + e));"
        ),
        vec![],
    )
    .await
}

/// Chooses `value` in the settings dialog's language select, as a user would.
async fn choose_language(s: &Session, value: &str) {
    click(s, "#btn-settings").await;
    wait_for(
        s,
        "!!document.querySelector('#set-language')",
        "the language select",
    )
    .await;
    let select = s
        .client
        .find(fantoccini::Locator::Css("#set-language"))
        .await
        .expect("the language select");
    select
        .select_by_value(value)
        .await
        .unwrap_or_else(|e| panic!("choose {value}: {e}"));
}

async fn wait_lang(s: &Session, lang: &str) {
    wait_for(
        s,
        &format!("document.documentElement.lang === {lang:?} && document.documentElement.dataset.lang === {lang:?}"),
        &format!("<html lang=\"{lang}\">"),
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_french_browser_gets_the_lobby_a_game_page_a_server_refusal_and_the_announcer_in_french()
{
    if !browser_available(
        "a_french_browser_gets_the_lobby_a_game_page_a_server_refusal_and_the_announcer_in_french",
    ) {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session_in("fr-FR,fr").await;
    let languages = {
        s.goto(&rig.url("/")).await;
        js(&s, "return navigator.languages.join(',');").await
    };
    assert!(
        languages.as_str().unwrap_or_default().starts_with("fr"),
        "the browser says French first: {languages:?}"
    );

    // The lobby: the static shell and what lobby.js draws.
    wait_lang(&s, "fr").await;
    wait_text(&s, "#create-btn", "Créer la partie").await;
    assert_eq!(text(&s, "#create-form h2").await, "Nouvelle partie");
    assert_eq!(text(&s, "header nav a[href='/']").await, "Salon");
    assert_eq!(text(&s, "h1.brand").await, "Marseillais (échecs)");
    assert_eq!(
        js(&s, "return document.title;").await,
        json!("Échecs marseillais")
    );
    assert!(
        text(&s, "#computer-form")
            .await
            .contains("Jouer contre l'ordinateur"),
        "{}",
        text(&s, "#computer-form").await
    );

    // A refusal of the server (401 bad_credentials) in French, from its code.
    click(&s, "#btn-login").await;
    wait_text(&s, "#account-title", "Se connecter").await;
    type_into(&s, "#account-username", "personne").await;
    type_into(&s, "#account-password", "pas le bon mot de passe").await;
    click(&s, "#account-submit").await;
    wait_text(
        &s,
        "#account-error",
        "Nom d'utilisateur ou mot de passe incorrect.",
    )
    .await;
    // Any code the catalogue knows is said in French; an unknown one keeps the server's words.
    let said = with_module(
        &s,
        "/static/api.js",
        "[new m.ApiError(409, 'seat_taken', 'no free seat').message,
          new m.ApiError(400, 'not_yet_invented', 'the server words').message,
          m.errorText('not_your_turn', 'not your turn')]",
    )
    .await;
    assert_eq!(
        said,
        json!([
            "Cette place est déjà prise.",
            "the server words",
            "Ce n'est pas votre tour."
        ])
    );

    // A game page: the status, the controls, the game's description.
    api_seat(&s, &rig.base, "/api/games", json!({"color": "white"})).await;
    wait_lang(&s, "fr").await;
    wait_text(&s, "#status", "En attente d'un adversaire").await;
    assert_eq!(text(&s, "#btn-flip").await, "Retourner l'échiquier");
    wait_text(&s, "#game-info", "vous avez les Blancs").await;
    wait_text(&s, "#seat-white", "(vous)").await;
    let label = js(
        &s,
        "return document.querySelector(\".board .sq[data-sq='g1']\").getAttribute('aria-label');",
    )
    .await;
    assert_eq!(label, json!("g1, cavalier blanc"));

    // The announcer's words: moves with French piece names, SAN unchanged on the wire.
    let words = with_module(
        &s,
        "/static/announce.js",
        "[m.describeSubMove('g8f6', 'Nf6'), m.describeSubMove('e4d5', 'exd5'),
          m.describeSubMove('e1g1', 'O-O'), m.describeSubMove('e7e8q', 'e8=Q+')]",
    )
    .await;
    assert_eq!(
        words,
        json!([
            "le cavalier en f6",
            "le pion prend en d5",
            "petit roque",
            "le pion en e8, promu en dame, échec"
        ])
    );
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn choosing_spanish_in_the_language_setting_wins_over_a_french_browser() {
    if !browser_available("choosing_spanish_in_the_language_setting_wins_over_a_french_browser") {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session_in("fr-FR,fr").await;
    s.goto(&rig.url("/")).await;
    wait_lang(&s, "fr").await;
    wait_text(&s, "#create-btn", "Créer la partie").await;

    // The settings dialog's language (settings-panel.js): the page reloads in it.
    choose_language(&s, "es").await;
    wait_lang(&s, "es").await;
    wait_text(&s, "#create-btn", "Crear partida").await;
    assert_eq!(text(&s, "header nav a[href='/']").await, "Sala");
    assert_eq!(
        js(&s, "return document.title;").await,
        json!("Ajedrez marsellés")
    );
    // It stays chosen on the next page.
    s.goto(&rig.url("/replay")).await;
    wait_lang(&s, "es").await;
    wait_text(&s, "#replay-load", "Cargar").await;

    // 'auto' gives the page back to the browser's language.
    choose_language(&s, "auto").await;
    wait_lang(&s, "fr").await;
    s.goto(&rig.url("/")).await;
    wait_lang(&s, "fr").await;
    wait_text(&s, "#create-btn", "Créer la partie").await;
    rig.stop(vec![s]).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plural_forms_follow_each_language_french_saying_zero_and_one_in_the_singular() {
    if !browser_available(
        "plural_forms_follow_each_language_french_saying_zero_and_one_in_the_singular",
    ) {
        return;
    }
    let _serial = SERIAL.lock().await;
    let rig = Rig::start().await;
    let s = rig.driver.session_in("fr-FR,fr").await;
    s.goto(&rig.url("/")).await;
    wait_lang(&s, "fr").await;
    let days = "[0, 1, 2].map((n) => m.t('time.days', { n }))";
    assert_eq!(
        with_module(&s, "/static/i18n.js", days).await,
        json!(["0 jour", "1 jour", "2 jours"])
    );
    // setLanguage swaps the catalogue in place (and says whether it changed).
    let switched = with_module(&s, "/static/i18n.js", "m.setLanguage('en')").await;
    assert_eq!(switched, json!(true));
    assert_eq!(
        with_module(&s, "/static/i18n.js", days).await,
        json!(["0 days", "1 day", "2 days"])
    );
    with_module(&s, "/static/i18n.js", "m.setLanguage('es')").await;
    assert_eq!(
        with_module(&s, "/static/i18n.js", days).await,
        json!(["0 días", "1 día", "2 días"])
    );
    wait_lang(&s, "es").await;
    // The correspondence texts are built from the same forms.
    assert_eq!(
        with_module(
            &s,
            "/static/api.js",
            "m.timeLeftText((2 * 86400 + 5 * 3600) * 1000)"
        )
        .await,
        json!("2 días 5 h")
    );
    rig.stop(vec![s]).await;
}
