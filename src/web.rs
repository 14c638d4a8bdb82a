//! The web client: the files of `web/` (the pages, each filled into `web/shell.html`; the stylesheet; the ES modules)
//! embedded in the binary, served with cache and security headers.
//!
//! Pages are served at `/` (home), `/r/{id}` (room), `/classes`, `/classes/{id}` and `/class` (issue 50), `/play` (open games to take, quick pairing,
//! games to watch), `/p/{name}` (a player), `/top` (the leaderboard), `/settings` (this browser's
//! identity), `/puzzles` (issue 49), `/tournaments` and `/t/{id}` (issue 45), `/following` and
//! `/c/{id}` (issue 46), `/kiosk` (the museum kiosk, `/` under `--kiosk`) and `/learn`
//! (the rule lessons, their data with the engine's answers `GET /api/lessons`, from
//! [`crate::lessons`]). Assets are served at `/assets/{version}/{path}`, where the version is a
//! hash over every embedded file: a new build gets new asset URLs, so assets can be cached for a
//! year while the pages, which name the current version, are revalidated on every load. The
//! modules import each other by relative paths, so they stay under the same version. Any other
//! address (and `/p/` without a name) is answered 404 with a page of ours that leads home, not the
//! browser's blank error; only machine paths (`/api/`, `/ws/`, `/assets/`) keep a bare 404.

use axum::{
    Router,
    extract::Path,
    http::{HeaderMap, HeaderValue, StatusCode, Uri, header},
    response::{IntoResponse, Response},
    routing::{MethodRouter, get},
};
use rust_embed::Embed;
use sha2::{Digest, Sha256};
use tower_http::compression::CompressionLayer;

mod lessons;
mod worker;

#[derive(Embed)]
#[folder = "web/"]
struct Assets;

/// No inline scripts or styles, nothing from elsewhere. `connect-src 'self'` also allows the
/// room WebSocket on the same host and port (CSP Level 3 maps ws:/wss: to 'self').
const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; style-src 'self'; \
     img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; \
     form-action 'self'; frame-ancestors 'none'";
const CACHE_IMMUTABLE: &str = "public, max-age=31536000, immutable";
const CACHE_REVALIDATE: &str = "no-cache";
/// Written in the pages where the versioned asset prefix goes.
const ASSET_PLACEHOLDER: &str = "{{assets}}";

/// The routes of the web client. Generic over the state so the server can merge it into its
/// own router whatever state that carries. With `kiosk` (`senet serve --kiosk`) the home page
/// `/` is the kiosk; every other page still answers at its own address.
pub fn router<S>(kiosk: bool) -> Router<S>
where
    S: Clone + Send + Sync + 'static,
{
    Router::new()
        .route("/", page_at(if kiosk { KIOSK } else { HOME }))
        .route("/kiosk", page_at(KIOSK))
        // The same page for every room, player, tournament: it reads which from its URL.
        .route("/r/{id}", page_at("room.html"))
        .route("/learn", page_at("learn.html"))
        // The puzzles (issue 49): the questions and verdicts are `/api/puzzles/...`.
        .route("/puzzles", page_at("puzzles.html"))
        // The lobby of open games: seeks, quick pairing, games to watch.
        .route("/play", page_at("play.html"))
        .route("/p/{name}", page_at("player.html"))
        .route("/p/", get(not_found))
        .route("/top", page_at("top.html"))
        // Tournaments (issue 45): the lists and the creation form, and each one's page.
        .route("/tournaments", page_at("tournaments.html"))
        .route("/t/{id}", page_at("tournament.html"))
        // This browser's identity: create, rename, move to another device, delete.
        .route("/settings", page_at("settings.html"))
        // Issue 46: the players one follows, a link challenge, the Web Push service worker.
        .route("/following", page_at("following.html"))
        .route("/c/{id}", page_at("challenge.html"))
        .route("/sw.js", get(worker::service_worker))
        // Classes (issue 50): the teacher's list, a class's projector page, the pupils' join.
        .route("/classes", page_at("classes.html"))
        .route("/classes/{id}", page_at("class-teacher.html"))
        .route("/class", page_at("class.html"))
        .route("/api/lessons", get(lessons::lessons))
        .route("/assets/{version}/{*path}", get(asset))
        .fallback(not_found)
        // The pages, modules and stylesheet are text (~300 kB of modules, mostly the three
        // languages' tables): gzip takes them to about a quarter, seconds on a phone's network.
        .layer(CompressionLayer::new())
}

/// Paths answered for programs, where a page would only be in the way.
const MACHINE_PATHS: [&str; 3] = ["/api/", "/ws/", "/assets/"];

/// An address we do not serve: our page with the ways home, with status 404 (never 304: it is
/// not the page the address names).
async fn not_found(uri: Uri) -> Response {
    if MACHINE_PATHS
        .iter()
        .any(|prefix| uri.path().starts_with(prefix))
    {
        return with_security_headers((StatusCode::NOT_FOUND, "not found").into_response());
    }
    let mut response = page("404.html", &HeaderMap::new());
    *response.status_mut() = StatusCode::NOT_FOUND;
    response
}

/// The home page (a game with a friend or the computer) and the museum kiosk (a game on a touch
/// table that resets itself, with no way out).
const HOME: &str = "index.html";
const KIOSK: &str = "kiosk.html";

/// The page `name`, the same at every visit of its address.
fn page_at<S: Clone + Send + Sync + 'static>(name: &'static str) -> MethodRouter<S> {
    get(move |headers: HeaderMap| async move { page(name, &headers) })
}

async fn asset(Path((version, path)): Path<(String, String)>, headers: HeaderMap) -> Response {
    // Pages are only served by their own routes, which fill in the asset prefix.
    let file = match Assets::get(&path) {
        Some(file) if !path.ends_with(".html") => file,
        _ => return with_security_headers((StatusCode::NOT_FOUND, "not found").into_response()),
    };
    // An old version (a page loaded before a deploy) still gets today's file, but not for long.
    let cache = if version == assets_version() {
        CACHE_IMMUTABLE
    } else {
        CACHE_REVALIDATE
    };
    let etag = format!("\"{}\"", hex::encode(file.metadata.sha256_hash()));
    respond(
        file.data.into_owned(),
        content_type(file.metadata.mimetype()),
        cache,
        &etag,
        &headers,
    )
}

fn page(name: &str, headers: &HeaderMap) -> Response {
    let Some(source) = page_source(name) else {
        return with_security_headers(StatusCode::INTERNAL_SERVER_ERROR.into_response());
    };
    let version = assets_version();
    let html =
        with_module_preloads(&source).replace(ASSET_PLACEHOLDER, &format!("/assets/{version}"));
    let etag = format!("\"{version}\"");
    respond(
        html.into_bytes(),
        "text/html; charset=utf-8".to_owned(),
        CACHE_REVALIDATE,
        &etag,
        headers,
    )
}

/// What every page shares (the head's metadata and stylesheet, the header's frame and language
/// switch), written once; each page file holds only its own three parts, in this order.
const SHELL: &str = "shell.html";
/// Where a page file's header part begins (its head part comes first).
const HEADER_MARK: &str = "<!-- header -->\n";
/// Where a page file's body part begins.
const BODY_MARK: &str = "<!-- body -->\n";

/// Where a page's body takes the room page's body (the kiosk's game is the room's, not a copy).
const ROOM_MARK: &str = "{{room}}";

/// A page file's head, header and body (without its first line, a comment on what the page is).
fn page_parts(name: &str) -> Option<(String, String, String)> {
    let file = Assets::get(name)?;
    let source = String::from_utf8_lossy(&file.data);
    let (head, rest) = source.split_once(HEADER_MARK)?;
    let (header, body) = rest.split_once(BODY_MARK)?;
    let head = head.split_once("-->\n").map_or(head, |(_, head)| head);
    Some((head.to_owned(), header.to_owned(), body.to_owned()))
}

/// A page's whole HTML: the shell filled with the page file's parts, a `{{room}}` with the room
/// page's body. `None` for a missing page or one without its marks (the unit tests rule it out).
fn page_source(name: &str) -> Option<String> {
    let shell = Assets::get(SHELL)?;
    let (head, header, mut body) = page_parts(name)?;
    if body.contains(ROOM_MARK) {
        let (_, _, room) = page_parts("room.html")?;
        body = body.replacen(ROOM_MARK, room.trim_end(), 1);
    }
    Some(
        String::from_utf8_lossy(&shell.data)
            .replacen("{{head}}", head.trim_end(), 1)
            .replacen("{{header}}", header.trim_end(), 1)
            .replacen("{{body}}", body.trim_end(), 1),
    )
}

/// Where a page names its entry module.
const ENTRY_PREFIX: &str = "<script type=\"module\" src=\"{{assets}}/";

/// The page with a `<link rel="modulepreload">` for every module its entry module imports,
/// directly or not: the browser fetches them all at once instead of one import level per round
/// trip (on a phone's network, seconds before the page is drawn; measured by Lighthouse, see
/// docs/UI.md). Found from the modules themselves, so the list never drifts from the code.
fn with_module_preloads(page: &str) -> String {
    let Some(entry) = page
        .split_once(ENTRY_PREFIX)
        .and_then(|(_, rest)| rest.split_once('"'))
        .map(|(entry, _)| entry)
    else {
        return page.to_owned();
    };
    let links: String = module_closure(entry)
        .iter()
        .skip(1)
        .map(|module| {
            format!("  <link rel=\"modulepreload\" href=\"{ASSET_PLACEHOLDER}/{module}\">\n")
        })
        .collect();
    page.replacen("</head>", &format!("{links}</head>"), 1)
}

/// `entry` (a path under web/, like "js/room-page.js") and every module it imports, directly or
/// not, entry first, each once. The client imports by relative path ("./board.js") only.
fn module_closure(entry: &str) -> Vec<String> {
    let mut modules = vec![entry.to_owned()];
    let mut next = 0;
    while let Some(module) = modules.get(next).cloned() {
        next += 1;
        let Some(file) = Assets::get(&module) else {
            continue;
        };
        let folder = module.rsplit_once('/').map_or("", |(folder, _)| folder);
        for import in relative_imports(&String::from_utf8_lossy(&file.data)) {
            let path = format!("{folder}/{import}");
            if !modules.contains(&path) {
                modules.push(path);
            }
        }
    }
    modules
}

/// The modules a module's source imports: every `'./name.js'` literal after `from` or `import`.
fn relative_imports(source: &str) -> Vec<String> {
    source
        .split("'./")
        .skip(1)
        .filter_map(|rest| rest.split_once('\''))
        .map(|(name, _)| name)
        .filter(|name| name.ends_with(".js") && !name.contains(['/', ' ']))
        .map(str::to_owned)
        .collect()
}

/// A body with its validators, or 304 when the browser already holds this version.
fn respond(
    body: Vec<u8>,
    content_type: String,
    cache: &'static str,
    etag: &str,
    request: &HeaderMap,
) -> Response {
    let fresh = request
        .get(header::IF_NONE_MATCH)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|tags| tags.split(',').any(|tag| tag.trim() == etag));
    let mut response = if fresh {
        StatusCode::NOT_MODIFIED.into_response()
    } else {
        body.into_response()
    };
    let headers = response.headers_mut();
    if !fresh && let Ok(value) = HeaderValue::from_str(&content_type) {
        headers.insert(header::CONTENT_TYPE, value);
    }
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache));
    if let Ok(value) = HeaderValue::from_str(etag) {
        headers.insert(header::ETAG, value);
    }
    with_security_headers(response)
}

fn with_security_headers(mut response: Response) -> Response {
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    // A room URL lets anyone watch the game: do not hand it to other sites.
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    response
}

/// Text types get an explicit charset (the modules and pages contain Chinese and Russian).
fn content_type(mime: &str) -> String {
    if mime.starts_with("text/") || mime == "image/svg+xml" {
        format!("{mime}; charset=utf-8")
    } else {
        mime.to_owned()
    }
}

/// A short hash over the names and contents of every embedded file. Cheap in release builds,
/// where rust-embed stores each file's SHA-256; recomputed per page so that a debug build,
/// which reads `web/` from disk, never serves stale assets under an unchanged version.
fn assets_version() -> String {
    let mut names: Vec<_> = Assets::iter().collect();
    names.sort();
    let mut hasher = Sha256::new();
    for name in names {
        if let Some(file) = Assets::get(&name) {
            hasher.update(name.as_bytes());
            hasher.update(file.metadata.sha256_hash());
        }
    }
    hex::encode(&hasher.finalize()[..8])
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::to_bytes;

    async fn body_text(response: Response) -> String {
        let bytes = to_bytes(response.into_body(), 1 << 20).await.unwrap();
        String::from_utf8(bytes.to_vec()).unwrap()
    }

    fn header_of(response: &Response, name: header::HeaderName) -> &str {
        response.headers().get(name).unwrap().to_str().unwrap()
    }

    const PAGES: [&str; 17] = [
        "404.html",
        "following.html",
        "challenge.html",
        "classes.html",
        "class-teacher.html",
        "class.html",
        "tournaments.html",
        "tournament.html",
        "index.html",
        "room.html",
        "learn.html",
        "puzzles.html",
        "play.html",
        "player.html",
        "top.html",
        "settings.html",
        "kiosk.html",
    ];

    /// Paths after `{{assets}}/` in a page's source.
    fn asset_references(source: &str) -> Vec<String> {
        source
            .split(ASSET_PLACEHOLDER)
            .skip(1)
            .map(|rest| {
                rest.trim_start_matches('/')
                    .split('"')
                    .next()
                    .unwrap()
                    .to_owned()
            })
            .collect()
    }

    #[tokio::test]
    async fn pages_name_the_current_asset_version_and_are_revalidated() {
        for response in PAGES.map(|name| page(name, &HeaderMap::new())) {
            assert_eq!(response.status(), StatusCode::OK);
            assert_eq!(header_of(&response, header::CACHE_CONTROL), "no-cache");
            assert!(header_of(&response, header::CONTENT_TYPE).starts_with("text/html"));
            let csp = header_of(&response, header::CONTENT_SECURITY_POLICY).to_owned();
            assert!(csp.contains("connect-src 'self'") && !csp.contains("unsafe"));
            let html = body_text(response).await;
            assert!(!html.contains(ASSET_PLACEHOLDER));
            assert!(html.contains(&format!("/assets/{}/js/", assets_version())));
        }
    }

    #[tokio::test]
    async fn an_unknown_address_gets_our_page_with_404_and_a_machine_path_a_bare_404() {
        for path in ["/nowhere", "/p/", "/r/", "/learn/more"] {
            let response = not_found(Uri::from_static(path)).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
            assert!(header_of(&response, header::CONTENT_TYPE).starts_with("text/html"));
            let html = body_text(response).await;
            assert!(html.contains("data-testid=\"not-found-home\" "), "{path}");
            assert!(html.contains(&format!("/assets/{}/js/not-found.js", assets_version())));
        }
        for path in ["/api/nothing", "/ws/nothing", "/assets/x/nothing.js"] {
            let response = not_found(Uri::from_static(path)).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
            assert_eq!(body_text(response).await, "not found");
        }
    }

    #[test]
    fn each_page_preloads_every_module_its_entry_imports() {
        let room = with_module_preloads(&page_source("room.html").unwrap());
        // room-page.js → room-view.js → board.js → state.js: three levels down.
        for module in ["room-view", "board", "state", "i18n", "strings", "dom"] {
            let link =
                format!("<link rel=\"modulepreload\" href=\"{{{{assets}}}}/js/{module}.js\">");
            assert!(room.contains(&link), "room.html lacks {module}");
        }
        // The entry is loaded by its script tag, not preloaded again.
        assert!(!room.contains("href=\"{{assets}}/js/room-page.js\""));
        let closure = module_closure("js/room-page.js");
        assert_eq!(
            closure.len(),
            closure
                .iter()
                .collect::<std::collections::HashSet<_>>()
                .len()
        );
        for module in &closure {
            assert!(
                Assets::get(module).is_some(),
                "{module} is imported but not embedded"
            );
        }
        let not_found = with_module_preloads(&page_source("404.html").unwrap());
        assert!(not_found.contains("/js/i18n.js\">") && !not_found.contains("/js/board.js"));
    }

    #[tokio::test]
    async fn every_referenced_asset_is_embedded_and_served_for_a_year() {
        for page_name in PAGES {
            let source = page_source(page_name).unwrap();
            let references = asset_references(&source);
            assert!(
                references.len() >= 3,
                "{page_name} references {references:?}"
            );
            for path in references {
                let response =
                    asset(Path((assets_version(), path.clone())), HeaderMap::new()).await;
                assert_eq!(response.status(), StatusCode::OK, "{path}");
                assert_eq!(header_of(&response, header::CACHE_CONTROL), CACHE_IMMUTABLE);
            }
        }
    }

    #[tokio::test]
    async fn lessons_are_json_revalidated_by_their_hash() {
        let first = lessons::lessons(HeaderMap::new()).await;
        assert_eq!(first.status(), StatusCode::OK);
        assert_eq!(header_of(&first, header::CONTENT_TYPE), "application/json");
        assert_eq!(header_of(&first, header::CACHE_CONTROL), CACHE_REVALIDATE);
        let etag = first.headers().get(header::ETAG).unwrap().clone();
        let body: serde_json::Value = serde_json::from_str(&body_text(first).await).unwrap();
        assert!(
            body["lessons"]
                .as_array()
                .is_some_and(|list| !list.is_empty())
        );
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, etag);
        assert_eq!(
            lessons::lessons(headers).await.status(),
            StatusCode::NOT_MODIFIED
        );
    }

    #[test]
    fn pages_have_no_inline_scripts_or_styles() {
        for page_name in PAGES {
            let source = page_source(page_name).unwrap();
            assert!(
                !source.contains(" style="),
                "{page_name} has a style attribute"
            );
            assert!(
                !source.contains("<style"),
                "{page_name} has a style element"
            );
            for script in source.split("<script").skip(1) {
                let tag = script.split('>').next().unwrap();
                assert!(tag.contains("src="), "{page_name} has an inline script");
            }
        }
    }

    #[test]
    fn every_page_is_the_shell_filled_once_with_its_own_parts() {
        for page_name in PAGES {
            let html = page_source(page_name).unwrap_or_else(|| panic!("{page_name} lacks a mark"));
            for (part, count) in [
                ("<!doctype html>", 1),
                ("<title data-i18n=", 1),
                ("<script type=\"module\"", 1),
                ("data-testid=\"language\"", 1),
                ("<main", 1),
                ("shell.html", 0),
                ("{{head}}", 0),
                ("{{header}}", 0),
                ("{{body}}", 0),
            ] {
                assert_eq!(html.matches(part).count(), count, "{page_name}: {part}");
            }
            let header = &html[html.find("<header").unwrap()..html.find("</header>").unwrap()];
            assert!(
                header.contains("class=\"home\""),
                "{page_name}: the way home"
            );
        }
        // Every page file is listed, so none escapes these checks.
        let files = Assets::iter().filter(|name| name.ends_with(".html") && *name != SHELL);
        assert_eq!(files.count(), PAGES.len());
    }

    #[test]
    fn every_module_import_is_embedded() {
        for name in Assets::iter().filter(|name| name.ends_with(".js")) {
            let source = String::from_utf8(Assets::get(&name).unwrap().data.into_owned()).unwrap();
            for import in source.split(" from './").skip(1) {
                let target = format!("js/{}", import.split('\'').next().unwrap());
                assert!(
                    Assets::get(&target).is_some(),
                    "{name} imports missing {target}"
                );
            }
        }
    }

    #[tokio::test]
    async fn modules_are_javascript_and_old_versions_are_not_cached_long() {
        let response = asset(Path(("old".into(), "js/room.js".into())), HeaderMap::new()).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(header_of(&response, header::CACHE_CONTROL), "no-cache");
        assert!(header_of(&response, header::CONTENT_TYPE).starts_with("text/javascript"));
        assert_eq!(
            header_of(&response, header::X_CONTENT_TYPE_OPTIONS),
            "nosniff"
        );
    }

    #[tokio::test]
    async fn the_game_sounds_are_small_wav_files_cached_for_a_year() {
        for name in ["throw", "move", "swap", "water", "off"] {
            let path = format!("sounds/{name}.wav");
            let response = asset(Path((assets_version(), path.clone())), HeaderMap::new()).await;
            assert_eq!(response.status(), StatusCode::OK, "{path}");
            assert_eq!(header_of(&response, header::CONTENT_TYPE), "audio/wav");
            assert_eq!(header_of(&response, header::CACHE_CONTROL), CACHE_IMMUTABLE);
            let bytes = to_bytes(response.into_body(), 1 << 20).await.unwrap();
            assert!(bytes.starts_with(b"RIFF") && bytes.len() < 12_000, "{path}");
        }
    }

    #[tokio::test]
    async fn unknown_assets_and_pages_under_assets_are_not_found() {
        for path in ["js/nothing.js", "room.html", "../Cargo.toml"] {
            let response = asset(Path((assets_version(), path.into())), HeaderMap::new()).await;
            assert_eq!(response.status(), StatusCode::NOT_FOUND, "{path}");
        }
    }

    #[tokio::test]
    async fn a_matching_etag_gets_not_modified() {
        let first = asset(
            Path((assets_version(), "css/senet.css".into())),
            HeaderMap::new(),
        )
        .await;
        let etag = first.headers().get(header::ETAG).unwrap().clone();
        let mut headers = HeaderMap::new();
        headers.insert(header::IF_NONE_MATCH, etag);
        let second = asset(Path((assets_version(), "css/senet.css".into())), headers).await;
        assert_eq!(second.status(), StatusCode::NOT_MODIFIED);
        assert_eq!(header_of(&second, header::CACHE_CONTROL), CACHE_IMMUTABLE);
    }
}
