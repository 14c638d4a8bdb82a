//! Build script: tells cargo what it cannot see by itself.

fn main() {
    // `sqlx::migrate!` embeds migrations/ at compile time: a new or changed
    // migration must rebuild the crate.
    println!("cargo::rerun-if-changed=migrations");

    // The PostgreSQL tests need a server, named by SENET_TEST_POSTGRES_URL.
    // Without one they are compiled with `#[ignore]`, so `cargo test` counts
    // them as ignored (with the reason) instead of passing them silently.
    println!("cargo::rustc-check-cfg=cfg(senet_no_test_postgres)");
    println!("cargo::rerun-if-env-changed=SENET_TEST_POSTGRES_URL");
    let url = std::env::var("SENET_TEST_POSTGRES_URL").unwrap_or_default();
    if url.is_empty() {
        println!("cargo::rustc-cfg=senet_no_test_postgres");
    }
}
