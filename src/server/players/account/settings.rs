//! Personal settings kept in the account (issue 14): the typed [`Settings`] object, its checks,
//! and `GET` / `PUT /api/account/settings` (docs/protocol.md, "Accounts").
//!
//! The client keeps the same settings in the browser (client/settings.js); signed in, the
//! account's copy wins on page load and every change is saved back, so a player finds their
//! board and sounds on any device. The store keeps the object as opaque JSON
//! ([`crate::server::store::Store::account_settings`]); it is checked here on the way in (a
//! refusal names the setting) and read back leniently on the way out (a value this program no
//! longer knows falls back to its default rather than making the account unreadable).

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::de::IgnoredAny;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

use super::error::{self, AccountCode};
use super::extract::RequireAccount;
use super::state::AccountState;
use crate::server::game::now_ms;
use crate::server::web::{ApiError, read_json_body};

/// Largest `PUT /api/account/settings` body. The whole object is under 200 bytes; this leaves
/// room for whitespace and is far below what could cost anything.
pub const MAX_SETTINGS_BYTES: usize = 4 * 1024;

/// When a sub-move is confirmed before it is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConfirmMoves {
    Off,
    On,
    /// Only in correspondence games (where a slip costs days).
    #[default]
    Correspondence,
}

/// The board colour themes (client/style.css has one block of colours per theme).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Theme {
    #[default]
    Brown,
    Blue,
    Green,
    Grey,
}

/// The client's language: `auto` follows the browser's languages.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    #[default]
    Auto,
    En,
    Fr,
    Es,
}

/// The sound volume, 0 to 100.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "u64", into = "u8")]
pub struct Volume(u8);

impl Volume {
    pub const MAX: u8 = 100;

    pub fn get(self) -> u8 {
        self.0
    }
}

impl Default for Volume {
    fn default() -> Self {
        Volume(70)
    }
}

/// A volume over [`Volume::MAX`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("a volume is an integer from 0 to 100, not {0}")]
pub struct VolumeError(u64);

impl TryFrom<u64> for Volume {
    type Error = VolumeError;

    fn try_from(v: u64) -> Result<Self, VolumeError> {
        u8::try_from(v)
            .ok()
            .filter(|v| *v <= Volume::MAX)
            .map(Volume)
            .ok_or(VolumeError(v))
    }
}

impl From<Volume> for u8 {
    fn from(v: Volume) -> u8 {
        v.0
    }
}

/// Every personal setting, with the client's defaults (client/settings.js has the same table).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct Settings {
    pub confirm_moves: ConfirmMoves,
    pub premoves: bool,
    pub sound: bool,
    pub volume: Volume,
    pub theme: Theme,
    pub legal_dots: bool,
    pub coordinates: bool,
    pub language: Language,
    /// Chat shown at all (issue 32): `false` turns every chat panel off for good, lines and
    /// input, until turned on again.
    pub chat: bool,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            confirm_moves: ConfirmMoves::default(),
            premoves: true,
            sound: true,
            volume: Volume::default(),
            theme: Theme::default(),
            legal_dots: true,
            coordinates: true,
            language: Language::default(),
            chat: true,
        }
    }
}

/// Why a settings object was refused; the message names the setting.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SettingsError {
    #[error("the body must be a JSON object of settings")]
    NotAnObject,
    /// A name that is not a setting (cut to 64 characters in the message).
    #[error("unknown setting `{0}`")]
    UnknownField(String),
    #[error("setting `{field}`: {reason}")]
    BadValue { field: &'static str, reason: String },
    /// A setting given twice, as serde's derive says it (`duplicate field `volume` at line 1
    /// column 25`).
    #[error("each setting at most once: {0}")]
    Twice(String),
}

/// The wire names, in the order of [`Settings`].
pub const FIELDS: [&str; 9] = [
    "confirmMoves",
    "premoves",
    "sound",
    "volume",
    "theme",
    "legalDots",
    "coordinates",
    "language",
    "chat",
];

fn value_of<T: serde::de::DeserializeOwned>(
    field: &'static str,
    value: Value,
) -> Result<T, SettingsError> {
    serde_json::from_value(value).map_err(|e| SettingsError::BadValue {
        field,
        reason: e.to_string(),
    })
}

/// The settings' names, each at most once. A JSON object read as a [`Map`] keeps the last of a
/// key given twice; read by serde's derive it is refused (`duplicate field`), as register's
/// body is ([`super::routes`]). The values are left to [`Settings::set`], which names the setting
/// it refuses; so is a name that is no setting.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct EachOnce {
    confirm_moves: Option<IgnoredAny>,
    premoves: Option<IgnoredAny>,
    sound: Option<IgnoredAny>,
    volume: Option<IgnoredAny>,
    theme: Option<IgnoredAny>,
    legal_dots: Option<IgnoredAny>,
    coordinates: Option<IgnoredAny>,
    language: Option<IgnoredAny>,
    chat: Option<IgnoredAny>,
}

impl Settings {
    /// Parses a settings object strictly: a setting given twice is refused whatever its values,
    /// then every field is checked, the first bad one or unknown one refused by name; a missing
    /// field takes its default (the whole object is replaced).
    pub fn parse(body: &[u8]) -> Result<Settings, SettingsError> {
        let object: Map<String, Value> =
            serde_json::from_slice(body).map_err(|_| SettingsError::NotAnObject)?;
        serde_json::from_slice::<EachOnce>(body)
            .map_err(|e| SettingsError::Twice(e.to_string()))?;
        let mut settings = Settings::default();
        for (name, value) in object {
            settings.set(&name, value)?;
        }
        Ok(settings)
    }

    /// Reads a stored object leniently: unknown names and bad values are skipped (defaults),
    /// so a value an older or newer program wrote never locks a user out of their settings.
    pub fn from_stored(json: &str) -> Settings {
        let mut settings = Settings::default();
        if let Ok(object) = serde_json::from_str::<Map<String, Value>>(json) {
            for (name, value) in object {
                let _ = settings.set(&name, value);
            }
        }
        settings
    }

    fn set(&mut self, name: &str, value: Value) -> Result<(), SettingsError> {
        match name {
            "confirmMoves" => self.confirm_moves = value_of("confirmMoves", value)?,
            "premoves" => self.premoves = value_of("premoves", value)?,
            "sound" => self.sound = value_of("sound", value)?,
            "volume" => self.volume = value_of("volume", value)?,
            "theme" => self.theme = value_of("theme", value)?,
            "legalDots" => self.legal_dots = value_of("legalDots", value)?,
            "coordinates" => self.coordinates = value_of("coordinates", value)?,
            "language" => self.language = value_of("language", value)?,
            "chat" => self.chat = value_of("chat", value)?,
            other => {
                return Err(SettingsError::UnknownField(
                    other.chars().take(64).collect(),
                ));
            }
        }
        Ok(())
    }

    /// The stored and wire form.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_else(|_| "{}".to_owned())
    }
}

/// 400 `bad_setting`, its message naming the setting.
fn bad_setting(e: &SettingsError) -> ApiError {
    ApiError::new(
        StatusCode::BAD_REQUEST,
        AccountCode::BadSetting,
        e.to_string(),
    )
}

/// `GET /api/account/settings`: `{"settings": {...}}`, or `{"settings": null}` when the account
/// never saved any (the client then saves this browser's).
pub async fn get_settings(
    State(app): State<AccountState>,
    RequireAccount(account): RequireAccount,
) -> Result<Response, ApiError> {
    let stored = app
        .accounts
        .store()
        .account_settings(account.id)
        .await
        .map_err(error::store_failure)?;
    let settings = stored.map(|json| Settings::from_stored(&json));
    Ok(axum::Json(json!({ "settings": settings })).into_response())
}

/// `PUT /api/account/settings`: replaces the account's settings with the body (checked);
/// answers the settings as saved.
pub async fn put_settings(
    State(app): State<AccountState>,
    RequireAccount(account): RequireAccount,
    request: Request,
) -> Result<Response, ApiError> {
    let body = read_json_body(
        request,
        MAX_SETTINGS_BYTES,
        app.deps.config.body_read_timeout,
    )
    .await?;
    let settings = Settings::parse(&body).map_err(|e| bad_setting(&e))?;
    app.accounts
        .store()
        .set_account_settings(account.id, settings.to_json(), now_ms())
        .await
        .map_err(error::store_failure)?;
    Ok(axum::Json(json!({ "settings": settings })).into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_defaults_are_the_clients() {
        assert_eq!(
            serde_json::to_value(Settings::default()).unwrap(),
            json!({"confirmMoves": "correspondence", "premoves": true, "sound": true,
                   "volume": 70, "theme": "brown", "legalDots": true, "coordinates": true,
                   "language": "auto", "chat": true})
        );
    }

    #[test]
    fn a_bad_value_is_refused_by_the_name_of_its_setting() {
        let e = Settings::parse(br#"{"theme": "pink"}"#).unwrap_err();
        assert!(e.to_string().starts_with("setting `theme`:"), "{e}");
        let e = Settings::parse(br#"{"volume": 101}"#).unwrap_err();
        assert!(e.to_string().starts_with("setting `volume`:"), "{e}");
        let e = Settings::parse(br#"{"sound": "yes"}"#).unwrap_err();
        assert!(e.to_string().starts_with("setting `sound`:"), "{e}");
        assert_eq!(
            Settings::parse(br#"{"colour": 1}"#).unwrap_err(),
            SettingsError::UnknownField("colour".into())
        );
        assert_eq!(
            Settings::parse(b"[1]").unwrap_err(),
            SettingsError::NotAnObject
        );
    }

    #[test]
    fn a_setting_given_twice_is_refused_whatever_its_values() {
        let refused = Settings::parse(br#"{"volume":200,"volume":5}"#).unwrap_err();
        assert_eq!(
            refused.to_string(),
            "each setting at most once: duplicate field `volume` at line 1 column 22"
        );
        for field in FIELDS {
            let body = format!(r#"{{"{field}": null, "sound": true, "{field}": null}}"#);
            let refused = Settings::parse(body.as_bytes()).unwrap_err();
            assert!(
                refused.to_string().starts_with(&format!(
                    "each setting at most once: duplicate field `{field}`"
                )),
                "{body}: {refused}"
            );
        }
        // An unknown name given twice is refused as unknown.
        assert_eq!(
            Settings::parse(br#"{"x":1,"x":2}"#),
            Err(SettingsError::UnknownField("x".into()))
        );
    }

    #[test]
    fn a_stored_object_with_a_value_no_longer_known_reads_as_its_default() {
        let s = Settings::from_stored(r#"{"theme": "purple", "volume": 20, "gone": true}"#);
        assert_eq!(s.theme, Theme::Brown);
        assert_eq!(s.volume.get(), 20);
        assert_eq!(Settings::from_stored("not json"), Settings::default());
    }

    #[test]
    fn every_field_name_is_a_setting() {
        let wire = serde_json::to_value(Settings::default()).unwrap();
        let names: Vec<&str> = wire
            .as_object()
            .unwrap()
            .keys()
            .map(String::as_str)
            .collect();
        let mut fields = FIELDS.to_vec();
        fields.sort_unstable();
        let mut names = names;
        names.sort_unstable();
        assert_eq!(names, fields);
    }
}
