//! A private PostgreSQL schema per test, on the server named by
//! `SENET_TEST_POSTGRES_URL`, so tests can run in parallel on one database.
//!
//! When that variable is not set at build time, build.rs sets the cfg
//! `senet_no_test_postgres` and every PostgreSQL test carries
//! `#[cfg_attr(senet_no_test_postgres, ignore = "...")]`: cargo reports it as
//! ignored with the reason, never as passed.

use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use sqlx::{Connection, PgConnection};

fn server_url() -> String {
    std::env::var("SENET_TEST_POSTGRES_URL")
        .ok()
        .filter(|url| !url.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "SENET_TEST_POSTGRES_URL is not set now but was when the tests were built; \
                 set it (e.g. postgres://postgres@127.0.0.1:5432/test) or rebuild"
            )
        })
}

/// `url` with its `search_path` set to `schema` (sqlx passes `options` to
/// the server as `-c search_path=...` at connection start).
pub fn with_search_path(url: &str, schema: &str) -> String {
    let separator = if url.contains('?') { '&' } else { '?' };
    format!("{url}{separator}options=-c%20search_path%3D{schema}")
}

/// A fresh, empty schema on the test server; [`TestSchema::drop_schema`]
/// removes it.
pub struct TestSchema {
    admin: PgConnection,
    name: String,
    /// The server's URL with this schema as its search path.
    pub url: String,
}

impl TestSchema {
    pub async fn create() -> TestSchema {
        let server = server_url();
        let name = format!("senet_test_{}", senet::secrets::new_room_id());
        let mut admin = PgConnection::connect(&server)
            .await
            .expect("cannot connect to SENET_TEST_POSTGRES_URL");
        // The name is ours (hex digits after a fixed prefix): safe to splice in.
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE SCHEMA {name}")))
            .execute(&mut admin)
            .await
            .unwrap();
        TestSchema {
            admin,
            url: with_search_path(&server, &name),
            name,
        }
    }

    /// Drops the schema, trying again a few times: the drop locks every table of the schema at
    /// once, and beside other tests on a shared server it can find the lock table full or lose a
    /// deadlock (it failed once so, the test itself having passed).
    pub async fn drop_schema(mut self) {
        let drop = format!("DROP SCHEMA {} CASCADE", self.name);
        let mut tries = 0;
        while let Err(error) = sqlx::raw_sql(sqlx::AssertSqlSafe(drop.clone()))
            .execute(&mut self.admin)
            .await
        {
            tries += 1;
            assert!(tries < 5, "{drop}: {error}");
            tokio::time::sleep(std::time::Duration::from_millis(200 * tries)).await;
        }
    }
}

/// Runs `test` with the URL of a fresh, empty schema, and drops the schema
/// afterwards, whether the test passed or panicked.
pub async fn in_fresh_schema<F, Fut>(test: F)
where
    F: FnOnce(String) -> Fut,
    Fut: Future<Output = ()>,
{
    let schema = TestSchema::create().await;
    let outcome = AssertUnwindSafe(test(schema.url.clone()))
        .catch_unwind()
        .await;
    schema.drop_schema().await;
    if let Err(panic) = outcome {
        std::panic::resume_unwind(panic);
    }
}

/// Makes each named `async fn(url: String)` a test that runs on a fresh schema
/// ([`in_fresh_schema`]), reported as ignored when `SENET_TEST_POSTGRES_URL` was not set at
/// build time. The tests are named `postgres::<fn>`. (tests/store.rs runs its contract through
/// its own macro, hence the allowances.)
#[allow(unused_macros)]
macro_rules! postgres_tests {
    ($($name:ident),+ $(,)?) => {
        mod postgres {
            $(
                #[tokio::test]
                #[cfg_attr(
                    senet_no_test_postgres,
                    ignore = "skipped: SENET_TEST_POSTGRES_URL not set"
                )]
                async fn $name() {
                    super::postgres_support::in_fresh_schema(super::$name).await
                }
            )+
        }
    };
}
#[allow(unused_imports)]
pub(crate) use postgres_tests;
