//! `senet backup --to FILE`: a consistent copy of the SQLite database while servers run on it
//! (SQLite's `VACUUM INTO`; see [`crate::store::backup`]). Prints what was copied as JSON.
//! Restoring is starting a server on the copy (`--database-url sqlite:///path/to/copy`).

use crate::server::config::DEFAULT_DATABASE_URL;
use crate::store::backup::backup;

use super::UsageError;

/// Copy a running server's SQLite database into a new file, consistently.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The database to copy (the one `senet serve` uses).
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    database_url: String,
    /// The new file to write; an existing file is never overwritten.
    #[arg(long)]
    to: std::path::PathBuf,
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let report = runtime.block_on(backup(&args.database_url, &args.to))?;
    println!("{}", serde_json::to_string(&report)?);
    Ok(())
}
