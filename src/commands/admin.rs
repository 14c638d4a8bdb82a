//! `senet admin …`: operator commands that talk to the database directly, not over the network
//! (whoever can reach the database is the operator). The games in progress, and ending one;
//! bans of an address or a network for a while, lifting them, and the audit log where every
//! such action is recorded with who did it (`--as`), when and why; cancelling a tournament
//! (`cancel-tournament`, its `cancelled` event and audit row in one commit). The instances read the bans
//! every few seconds ([`crate::server::edge::bans`]), and hear of an ended game as of any other
//! writer's append ([`crate::room::end_by_operator`]). Each command prints JSON.

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use ipnet::IpNet;

use super::UsageError;
use super::operator::{OperatorArgs, parse_duration};
use crate::server::config::DEFAULT_DATABASE_URL;
use crate::store::bans::{AuditOnCommit, BanStore};

/// Operator commands on the database: bans and the audit log.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The database the servers use.
    #[arg(long, env = "DATABASE_URL", default_value = DEFAULT_DATABASE_URL, global = true)]
    database_url: String,
    #[command(subcommand)]
    command: AdminCommand,
}

#[derive(Debug, clap::Subcommand)]
enum AdminCommand {
    /// Refuse an address or a network (CIDR) at every instance for a while.
    Ban {
        /// `203.0.113.7`, `203.0.113.0/24` or an IPv6 network.
        #[arg(value_parser = parse_network)]
        network: IpNet,
        /// How long: `90s`, `30m`, `24h`, `7d` (a bare number is seconds).
        #[arg(long = "for", value_parser = parse_duration)]
        duration: Duration,
        #[command(flatten)]
        operator: OperatorArgs,
    },
    /// Lift a ban in force, by its id (`senet admin bans` lists them).
    Lift {
        id: i64,
        #[command(flatten)]
        operator: OperatorArgs,
    },
    /// The bans in force.
    Bans,
    /// End a game in progress, without a winner: its players are told, with the reason, and
    /// it is in the room's record.
    End {
        room: String,
        #[command(flatten)]
        operator: OperatorArgs,
    },
    /// Cancel a tournament that has not finished: it is paired no more, and says why.
    CancelTournament {
        id: String,
        #[command(flatten)]
        operator: OperatorArgs,
    },
    /// Games in progress (started, not over), the most recently active first.
    Rooms {
        #[arg(long, default_value_t = 100)]
        limit: i64,
    },
    /// The last operator actions, newest first.
    Audit {
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
    /// Chat moderation: `reports`, `hide`, `timeout` (`admin_chat.rs`).
    #[command(flatten)]
    Chat(super::admin_chat::ChatCommand),
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let answer = runtime.block_on(answer(args))?;
    println!("{answer}");
    Ok(())
}

async fn answer(args: Args) -> Result<serde_json::Value, UsageError> {
    let store = BanStore::open(&args.database_url).await?;
    Ok(match args.command {
        AdminCommand::Ban {
            network,
            duration,
            operator,
        } => {
            let operator = operator.operator();
            let until = operator.at + duration.as_millis() as i64;
            let id = store.ban(network, until, &operator).await?;
            serde_json::json!({"ban": id, "network": network.trunc().to_string(), "until_ms": until})
        }
        AdminCommand::Lift { id, operator } => {
            store.lift(id, &operator.operator()).await?;
            serde_json::json!({"lifted": id})
        }
        AdminCommand::End { room, operator } => {
            let log = crate::store::open(&args.database_url).await?;
            let by = operator.operator();
            let note = by.reason.clone();
            let target = room.clone();
            let work = Arc::new(AuditOnCommit {
                by,
                action: "end",
                target,
            });
            let v = crate::room::end_by_operator(&log, &room, &note, work)
                .await
                .map_err(|error| UsageError(format!("room {room}: {error}")))?;
            serde_json::json!({"ended": room, "v": v})
        }
        AdminCommand::CancelTournament { id, operator } => {
            let log = crate::store::open(&args.database_url).await?;
            let by = operator.operator();
            let reason = by.reason.clone();
            let work = Arc::new(AuditOnCommit {
                by,
                action: "cancel-tournament",
                target: id.clone(),
            });
            let v = crate::tournament::stored::cancel_by_operator(&log, &id, &reason, work)
                .await
                .map_err(|error| UsageError(format!("tournament {id}: {error}")))?;
            serde_json::json!({"cancelled": id, "v": v})
        }
        AdminCommand::Bans => serde_json::to_value(store.active(crate::room::now_ms()).await?)?,
        AdminCommand::Rooms { limit } => serde_json::to_value(store.live_rooms(limit).await?)?,
        AdminCommand::Audit { limit } => serde_json::to_value(store.audit_log(limit).await?)?,
        AdminCommand::Chat(command) => super::admin_chat::answer(&store, command).await?,
    })
}

/// A network, or an address as the network of that one address.
fn parse_network(text: &str) -> Result<IpNet, String> {
    text.parse::<IpNet>()
        .or_else(|_| text.parse::<IpAddr>().map(IpNet::from))
        .map_err(|_| format!("{text:?} is not an address or a network (203.0.113.0/24)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn networks_are_read() {
        assert_eq!(
            parse_network("203.0.113.7").unwrap().to_string(),
            "203.0.113.7/32"
        );
        assert_eq!(
            parse_network("2001:db8::/32").unwrap().to_string(),
            "2001:db8::/32"
        );
        assert!(parse_network("example.org").is_err());
    }
}
