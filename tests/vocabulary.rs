//! The browser client's copy of the server's names (`web/js/protocol.js`) is the one the server
//! generates from its types: error codes, illegal-move reasons, message and event types, modes,
//! levels. Run with `SENET_BLESS=1` to rewrite the file after changing one of those types.

use std::path::Path;

#[test]
fn web_protocol_js_is_generated_from_the_rust_types() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("web/js/protocol.js");
    let generated = senet::protocol::vocabulary::javascript();
    if std::env::var_os("SENET_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("write web/js/protocol.js");
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "web/js/protocol.js differs from the server's vocabulary: run \
         `SENET_BLESS=1 cargo test --test vocabulary` and review the diff\n--- generated:\n{generated}"
    );
}
