//! The Web Push service worker (issue 46; `web/sw.js`), served at `/sw.js`: a worker's scope is
//! its script's folder at most (without a `Service-Worker-Allowed` header), so the site root
//! lets it open any room's page. It is served like a page, not like an asset: revalidated on
//! every update check, with the versioned asset prefix filled in where it imports the string
//! tables. The CSP every answer carries lets it be (`script-src 'self'` is also the workers'
//! source list) and import from the site only.

use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};

use super::{ASSET_PLACEHOLDER, Assets, CACHE_REVALIDATE, assets_version, respond};

/// The worker's file in `web/`.
const WORKER: &str = "sw.js";

/// `GET /sw.js`.
pub(super) async fn service_worker(headers: HeaderMap) -> Response {
    let Some(file) = Assets::get(WORKER) else {
        return super::with_security_headers(StatusCode::NOT_FOUND.into_response());
    };
    let version = assets_version();
    let source = String::from_utf8_lossy(&file.data)
        .replace(ASSET_PLACEHOLDER, &format!("/assets/{version}"));
    respond(
        source.into_bytes(),
        "text/javascript; charset=utf-8".to_owned(),
        CACHE_REVALIDATE,
        &format!("\"{version}\""),
        &headers,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::to_bytes;
    use axum::http::header;

    #[tokio::test]
    async fn the_worker_is_javascript_from_the_root_importing_embedded_tables() {
        let response = service_worker(HeaderMap::new()).await;
        assert_eq!(response.status(), StatusCode::OK);
        let header = |name| response.headers().get(name).unwrap().to_str().unwrap();
        assert_eq!(
            header(header::CONTENT_TYPE),
            "text/javascript; charset=utf-8"
        );
        assert_eq!(header(header::CACHE_CONTROL), CACHE_REVALIDATE);
        assert!(header(header::CONTENT_SECURITY_POLICY).contains("script-src 'self'"));
        let bytes = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        let source = String::from_utf8(bytes.to_vec()).unwrap();
        assert!(!source.contains(ASSET_PLACEHOLDER));
        let prefix = format!("from '/assets/{}/", assets_version());
        let imports: Vec<_> = source.split(&prefix).skip(1).collect();
        assert_eq!(imports.len(), 3);
        for import in imports {
            let path = import.split('\'').next().unwrap();
            assert!(Assets::get(path).is_some(), "{path} is not embedded");
        }
    }
}
