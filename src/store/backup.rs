//! `senet backup`'s store side: a consistent copy of a SQLite database taken while servers
//! write to it. SQLite's `VACUUM INTO` copies one read transaction's snapshot (in WAL mode,
//! writers go on meanwhile), so the copy holds every event committed before it started and
//! none of a half-written batch; a plain file copy could catch the database file and its WAL
//! at different moments. The copy is written beside the target under a temporary name, checked
//! (`PRAGMA quick_check`), then renamed into place, so a failed backup leaves no file that looks
//! whole. PostgreSQL is backed up with its own tools (docs/OPERATING.md, "Backup and restore": `pg_dump`).

use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::time::Duration;

use serde::Serialize;
use sqlx::sqlite::SqliteConnectOptions;
use sqlx::{ConnectOptions, Connection};

/// What a backup copied.
#[derive(Debug, Serialize)]
pub struct BackupReport {
    pub to: PathBuf,
    pub bytes: u64,
    pub rooms: i64,
    pub events: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum BackupError {
    #[error(
        "senet backup copies SQLite databases; back up PostgreSQL with pg_dump (see docs/OPERATING.md)"
    )]
    Postgres,
    #[error("unsupported database URL: expected sqlite:")]
    UnsupportedUrl,
    #[error("{0} already exists: choose a new file (a backup never overwrites one)")]
    TargetExists(PathBuf),
    #[error("the copy failed its integrity check: {0}")]
    Damaged(String),
    #[error("{0}: {1}")]
    File(PathBuf, std::io::Error),
    #[error("cannot open the database {0} (it must exist): {1}")]
    Open(String, sqlx::Error),
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Copies the SQLite database at `url` into the new file `to`.
pub async fn backup(url: &str, to: &Path) -> Result<BackupReport, BackupError> {
    if super::is_postgres_url(url) {
        return Err(BackupError::Postgres);
    }
    if !url.starts_with("sqlite:") {
        return Err(BackupError::UnsupportedUrl);
    }
    if to.exists() {
        return Err(BackupError::TargetExists(to.to_path_buf()));
    }
    let partial = partial_path(to);
    // Left over from a backup that was killed: never a finished copy.
    let _ = std::fs::remove_file(&partial);
    let copied = copy_into(url, &partial).await;
    let report = match copied {
        Ok(()) => check(&partial).await,
        Err(error) => Err(error),
    };
    match report {
        Ok(counts) => {
            std::fs::rename(&partial, to).map_err(|e| BackupError::File(to.to_path_buf(), e))?;
            let bytes = std::fs::metadata(to)
                .map_err(|e| BackupError::File(to.to_path_buf(), e))?
                .len();
            Ok(BackupReport {
                to: to.to_path_buf(),
                bytes,
                rooms: counts.0,
                events: counts.1,
            })
        }
        Err(error) => {
            let _ = std::fs::remove_file(&partial);
            Err(error)
        }
    }
}

/// `<to>.partial`, in the target's directory (so the rename cannot cross file systems).
fn partial_path(to: &Path) -> PathBuf {
    let mut name = to.file_name().unwrap_or_default().to_os_string();
    name.push(".partial");
    to.with_file_name(name)
}

/// `VACUUM INTO` from a connection of its own: the database must exist (a mistyped path is an
/// error, not a new empty database), and a server's writer holding the lock briefly is waited
/// for.
async fn copy_into(url: &str, partial: &Path) -> Result<(), BackupError> {
    let mut source = SqliteConnectOptions::from_str(url)?
        .create_if_missing(false)
        .busy_timeout(Duration::from_secs(10))
        .connect()
        .await
        .map_err(|error| BackupError::Open(url.to_string(), error))?;
    sqlx::query("VACUUM INTO ?")
        .bind(partial.to_string_lossy().into_owned())
        .execute(&mut source)
        .await?;
    source.close().await?;
    Ok(())
}

/// `PRAGMA quick_check` on the copy, and its rooms and events counted.
async fn check(copy: &Path) -> Result<(i64, i64), BackupError> {
    let mut copy = SqliteConnectOptions::new()
        .filename(copy)
        .read_only(true)
        .connect()
        .await?;
    let verdict: String = sqlx::query_scalar("PRAGMA quick_check")
        .fetch_one(&mut copy)
        .await?;
    if verdict != "ok" {
        return Err(BackupError::Damaged(verdict));
    }
    let rooms = sqlx::query_scalar("SELECT COUNT(*) FROM rooms")
        .fetch_one(&mut copy)
        .await?;
    let events = sqlx::query_scalar("SELECT COUNT(*) FROM events")
        .fetch_one(&mut copy)
        .await?;
    copy.close().await?;
    Ok((rooms, events))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_partial_copy_sits_beside_the_target() {
        let partial = partial_path(Path::new("/var/backups/senet-1.db"));
        assert_eq!(partial, Path::new("/var/backups/senet-1.db.partial"));
    }
}
