//! `senet migrate`: applies the migrations a start would apply, so an operator can migrate
//! before replacing instances; with `--check`, says what a start would do and changes nothing:
//! the migrations it would apply, those a newer release applied that this binary does not know,
//! and whether it would refuse to run (`store::schema`). Prints JSON; exit status 1 when this
//! binary cannot run on the database.

use std::process::ExitCode;

use serde_json::json;

use super::UsageError;
use crate::server::config::DEFAULT_DATABASE_URL;
use crate::store::schema::{Plan, RELEASE};

/// Apply the migrations a start would, or (`--check`) say what they are.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The database the servers use.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL)]
    database_url: String,
    /// Only say what a start would migrate; change nothing.
    #[arg(long)]
    check: bool,
}

pub fn run(args: Args) -> ExitCode {
    match answer(args) {
        Ok((report, refused)) => {
            println!("{report}");
            if refused {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            }
        }
        Err(UsageError(message)) => {
            eprintln!("senet: {message}");
            ExitCode::from(2)
        }
    }
}

fn answer(args: Args) -> Result<(serde_json::Value, bool), UsageError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let plan = crate::store::migration_plan(&args.database_url).await?;
        let refused = plan.refused.is_some();
        if !args.check && !refused {
            crate::store::open(&args.database_url).await?;
        }
        Ok((report(&plan, args.check), refused))
    })
}

fn report(plan: &Plan, check: bool) -> serde_json::Value {
    let pending: Vec<_> = plan
        .pending
        .iter()
        .map(|(version, description)| json!({"version": version, "description": description}))
        .collect();
    let start = match (&plan.refused, pending.is_empty(), check) {
        (Some(_), _, _) => "refused",
        (None, true, _) => "up_to_date",
        (None, false, true) => "would_migrate",
        (None, false, false) => "migrated",
    };
    json!({
        "release": RELEASE,
        "start": start,
        "pending": pending,
        "newer": plan.newer,
        "oldest_release": plan.oldest_release,
        "refused": plan.refused,
    })
}
