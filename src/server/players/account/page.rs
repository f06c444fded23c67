//! The `/account` page (issue 32): the client's shell; `client/account-page.js` draws it from
//! the routes of `controls.rs`.

use axum::response::Response;

use crate::server::web::assets;

pub async fn page() -> Response {
    assets::index_page()
}
