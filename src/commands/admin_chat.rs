//! `senet admin reports | hide | timeout`: the operators' side of the chat (issue 33). Reports
//! list what players and spectators reported, with the room's last messages; `hide` takes a
//! message out of a room's chat (an event of its log, so every instance and the record follow);
//! `timeout` keeps a player out of chat for a while (the instances check it on every message).
//! `hide` and `timeout` are written to the audit log with who did them and why.

use std::time::Duration;

use super::UsageError;
use super::operator::{OperatorArgs, parse_duration};
use crate::store::bans::BanStore;

#[derive(Debug, clap::Subcommand)]
pub(super) enum ChatCommand {
    /// The last chat reports, newest first, each with the room's last messages.
    Reports {
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
    /// Hide a chat message: the room and the version of its `said` event.
    Hide {
        room: String,
        v: u64,
        #[command(flatten)]
        operator: OperatorArgs,
    },
    /// Keep a player (by id) out of chat for a while.
    Timeout {
        player: String,
        /// How long: `90s`, `30m`, `24h`, `7d` (a bare number is seconds).
        #[arg(long = "for", value_parser = parse_duration)]
        duration: Duration,
        #[command(flatten)]
        operator: OperatorArgs,
    },
}

pub(super) async fn answer(
    store: &BanStore,
    command: ChatCommand,
) -> Result<serde_json::Value, UsageError> {
    Ok(match command {
        ChatCommand::Reports { limit } => {
            let mut reports = serde_json::to_value(store.reports(limit).await?)?;
            // The lines are stored as JSON text: shown as JSON.
            for report in reports.as_array_mut().into_iter().flatten() {
                let lines = report["lines"].as_str().unwrap_or("[]");
                report["lines"] = serde_json::from_str(lines).unwrap_or_default();
            }
            reports
        }
        ChatCommand::Hide { room, v, operator } => {
            let logged = store.hide(&room, v, &operator.operator()).await?;
            serde_json::json!({"hidden": v, "room": room, "v": logged})
        }
        ChatCommand::Timeout {
            player,
            duration,
            operator,
        } => {
            let operator = operator.operator();
            let until = operator.at + duration.as_millis() as i64;
            let id = store.time_out(&player, until, &operator).await?;
            serde_json::json!({"timeout": id, "player": player, "until_ms": until})
        }
    })
}
