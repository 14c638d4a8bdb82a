//! Which schema a binary may run on, and migrating to it (docs/UPGRADES.md).
//!
//! A database may be ahead of the binary: during a rolling update the first new instance
//! migrates it while the old ones still serve, and an old one that restarts meets migrations it
//! does not know. Migrations only expand the schema, so that is safe, and this binary starts
//! anyway, ignoring them — unless a migration it does not know contracted the schema: such a
//! migration writes the oldest release that still works into `schema_contracts`, and an older
//! binary refuses to start, saying which release it needs ([`StoreError::SchemaTooNew`]).
//! (0.1.0 predates this and refuses any migration it does not know.)
//!
//! [`Plan`] is what a start would do, for `senet migrate --check`, without doing it.

use std::collections::BTreeSet;

use serde::Serialize;
use sqlx::migrate::{Migrate, Migrator};
use sqlx::{ColumnIndex, Database, Decode, Executor, IntoArguments, Pool, Row, Type};

use super::StoreError;

/// This binary's release (Cargo.toml's version).
pub const RELEASE: &str = env!("CARGO_PKG_VERSION");

/// What a start of this binary would do to a database, found without changing it.
#[derive(Debug, Serialize)]
pub struct Plan {
    /// The migrations this binary would apply, in order: `(version, description)`.
    pub pending: Vec<(i64, String)>,
    /// Migrations applied by a newer release, which this binary does not know.
    pub newer: Vec<i64>,
    /// The oldest release the database's contracts allow, when they name one.
    pub oldest_release: Option<String>,
    /// Why this binary would refuse to start, if it would.
    pub refused: Option<String>,
}

impl Plan {
    /// A database that does not exist yet: a start creates it and applies every migration.
    pub(super) fn new_database(migrator: &Migrator) -> Plan {
        Plan {
            pending: migrator
                .iter()
                .map(|m| (m.version, m.description.to_string()))
                .collect(),
            newer: Vec::new(),
            oldest_release: None,
            refused: None,
        }
    }
}

/// Migrates the database to this binary's schema, or says why this binary cannot run on it.
pub(super) async fn migrate<DB>(pool: &Pool<DB>, migrator: &Migrator) -> Result<(), StoreError>
where
    DB: Database,
    DB::Connection: Migrate,
    DB::Arguments: IntoArguments<DB> + Default,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'r> &'r str: ColumnIndex<DB::Row>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
    String: for<'r> Decode<'r, DB> + Type<DB>,
{
    let plan = plan(pool, migrator).await?;
    if let Some(refused) = plan.refused {
        return Err(StoreError::SchemaTooNew(refused));
    }
    let mut lenient = Migrator::with_migrations(migrator.iter().cloned().collect());
    lenient.set_ignore_missing(!plan.newer.is_empty());
    lenient.run(pool).await?;
    Ok(())
}

/// What [`migrate`] would do.
pub(super) async fn plan<DB>(pool: &Pool<DB>, migrator: &Migrator) -> Result<Plan, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB> + Default,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'r> &'r str: ColumnIndex<DB::Row>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
    String: for<'r> Decode<'r, DB> + Type<DB>,
{
    let applied = applied_versions(pool).await?;
    let known: BTreeSet<i64> = migrator.iter().map(|m| m.version).collect();
    let mut plan = Plan::new_database(migrator);
    plan.pending
        .retain(|(version, _)| !applied.contains(version));
    let newer: Vec<i64> = applied.difference(&known).copied().collect();
    let oldest_release = oldest_release(pool).await?;
    plan.refused = oldest_release
        .as_deref()
        .and_then(|oldest| too_old(RELEASE, oldest, &newer));
    plan.oldest_release = oldest_release;
    plan.newer = newer;
    Ok(plan)
}

/// The migrations recorded as applied (none in a new database).
pub(super) async fn applied_versions<DB>(pool: &Pool<DB>) -> Result<BTreeSet<i64>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB> + Default,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'r> &'r str: ColumnIndex<DB::Row>,
    i64: for<'r> Decode<'r, DB> + Type<DB>,
{
    let rows = query_if_table(pool, "SELECT version FROM _sqlx_migrations WHERE success").await?;
    let versions = rows.iter().map(|row| row.try_get::<i64, _>("version"));
    Ok(versions.collect::<Result<_, _>>()?)
}

/// The newest `oldest_release` the database's contracts name.
async fn oldest_release<DB>(pool: &Pool<DB>) -> Result<Option<String>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB> + Default,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'r> &'r str: ColumnIndex<DB::Row>,
    String: for<'r> Decode<'r, DB> + Type<DB>,
{
    let rows = query_if_table(pool, "SELECT oldest_release FROM schema_contracts").await?;
    let mut releases = Vec::new();
    for row in &rows {
        let text: String = row.try_get("oldest_release")?;
        let release = semver::Version::parse(&text)
            .map_err(|e| StoreError::Corrupt(format!("schema_contracts: {text}: {e}")))?;
        releases.push(release);
    }
    Ok(releases.into_iter().max().map(|v| v.to_string()))
}

/// Why release `this` may not run where `oldest` is the oldest release allowed, if it may not.
fn too_old(this: &str, oldest: &str, newer: &[i64]) -> Option<String> {
    let parse = |v: &str| semver::Version::parse(v).ok();
    (parse(this)? < parse(oldest)?).then(|| {
        format!(
            "this database was migrated by a newer release (migrations {newer:?}) that senet \
             {this} cannot run on: it needs senet {oldest} or later. Start a newer binary, or \
             restore the backup taken before the upgrade (docs/UPGRADES.md)"
        )
    })
}

/// The rows of `sql`, or none when the table it reads does not exist yet (a new database; one
/// from before `schema_contracts`).
async fn query_if_table<DB>(pool: &Pool<DB>, sql: &'static str) -> Result<Vec<DB::Row>, StoreError>
where
    DB: Database,
    DB::Arguments: IntoArguments<DB> + Default,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
{
    let mut conn = pool.acquire().await?;
    match sqlx::query(sql).fetch_all(&mut *conn).await {
        Ok(rows) => Ok(rows),
        Err(sqlx::Error::Database(error)) if is_missing_table(&*error) => Ok(Vec::new()),
        Err(error) => Err(error.into()),
    }
}

/// SQLite's "no such table", PostgreSQL's `undefined_table`.
fn is_missing_table(error: &dyn sqlx::error::DatabaseError) -> bool {
    error.code().as_deref() == Some("42P01") || error.message().starts_with("no such table")
}

#[cfg(test)]
mod tests {
    use super::too_old;

    #[test]
    fn a_release_older_than_the_contracts_allow_is_refused() {
        assert!(too_old("0.1.0", "0.2.0", &[500]).is_some());
        assert!(too_old("0.2.0", "0.2.0", &[500]).is_none());
        assert!(too_old("0.10.0", "0.9.0", &[500]).is_none());
        let why = too_old("0.2.3", "1.0.0", &[500, 510]).unwrap();
        assert!(
            why.contains("senet 1.0.0 or later") && why.contains("[500, 510]"),
            "{why}"
        );
    }
}
