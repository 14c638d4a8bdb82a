//! `senet tournament verify --database-url URL --id ID`: recomputes a tournament from its own
//! log ([`crate::tournament::verify`]: every event replays, every pairing is made again from
//! the state before it) and checks every `result` against the `game-over` in its room's log;
//! prints the standings as JSON. Exit 0 when all agree, 1 with the first difference, 2 for a
//! database it cannot read or a tournament it does not have.

use std::process::ExitCode;
use std::time::Duration;

use serde_json::json;

use super::UsageError;
use crate::store;
use crate::tournament::stored::{TournamentError, room_end};
use crate::tournament::verify::verify_timed;
use crate::tournament::{Event, Tournament};

/// Tournaments: recompute one from its log.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: TournamentCommand,
}

#[derive(Debug, clap::Subcommand)]
enum TournamentCommand {
    /// Replay a tournament's log and its games' rooms; exit 1 at the first difference.
    Verify {
        /// The server's database (as `senet serve --database-url`).
        #[arg(long, env = "SENET_DATABASE_URL")]
        database_url: String,
        /// The tournament's id.
        #[arg(long)]
        id: String,
    },
}

pub fn run(args: Args) -> ExitCode {
    let TournamentCommand::Verify { database_url, id } = args.command;
    let outcome = tokio::runtime::Runtime::new()
        .map_err(UsageError::from)
        .and_then(|runtime| runtime.block_on(recompute(&database_url, &id)));
    match outcome {
        Ok(Ok((tournament, pairing_cpu))) => {
            println!(
                "{}",
                json!({"consistent": true, "tournament": id,
                       "pairing_cpu_ms": pairing_cpu_ms(pairing_cpu),
                       "standings": standings(&tournament)})
            );
            ExitCode::SUCCESS
        }
        Ok(Err(difference)) => {
            println!(
                "{}",
                json!({"consistent": false, "tournament": id, "difference": difference})
            );
            ExitCode::from(1)
        }
        Err(UsageError(message)) => {
            eprintln!("senet: {message}");
            ExitCode::from(2)
        }
    }
}

/// A tournament that verified, and the CPU time of each of its pairings made again.
type Verified = (Tournament, Vec<Duration>);

/// The CPU time of the pairings made again, in milliseconds: their count, the longest, and each
/// (a Swiss has at most 11; an Arena's hundreds are summed up by the longest and the total).
fn pairing_cpu_ms(cpu: Vec<Duration>) -> serde_json::Value {
    let ms: Vec<f64> = cpu.iter().map(|d| d.as_secs_f64() * 1000.0).collect();
    let longest = ms.iter().copied().fold(0.0, f64::max);
    let each = (ms.len() <= 11).then_some(&ms);
    json!({"pairings": ms.len(), "longest": longest, "total": ms.iter().sum::<f64>(), "each": each})
}

/// How many times the check asks a database that does not answer in time before it gives up,
/// a second apart. The store fails a call past its deadline at once (right for a player's
/// request); a check can wait out a database busy for a while, such as PostgreSQL's checkpoint
/// right after a load run (a 500-bot Arena's verify failed so, docs/PERFORMANCE.md).
const PATIENCE: u32 = 30;

/// `call`'s answer, asked again while the database is unavailable, up to [`PATIENCE`] times.
async fn patiently<T, Fut>(mut call: impl FnMut() -> Fut) -> Result<T, TournamentError>
where
    Fut: Future<Output = Result<T, TournamentError>>,
{
    let mut tries = 1;
    loop {
        match call().await {
            Err(TournamentError::Store(error)) if error.is_unavailable() && tries < PATIENCE => {
                tries += 1;
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
            answer => return answer,
        }
    }
}

/// The tournament, or the first difference between its log, its recomputation and its rooms.
async fn recompute(url: &str, id: &str) -> Result<Result<Verified, String>, UsageError> {
    let store = store::open(url).await?;
    let failed = |e: TournamentError| UsageError(e.to_string());
    let row = patiently(|| async { Ok(store.tournaments.tournament(id).await?) });
    if row.await.map_err(failed)?.is_none() {
        return Err(UsageError(format!("no tournament {id} in this database")));
    }
    let log = patiently(|| async { Ok(store.tournaments.tournament_events(id, 0).await?) });
    let mut events = Vec::new();
    for stored in log.await.map_err(failed)? {
        let event = Event::from_stored(&stored.kind, &stored.data).map_err(|e| {
            UsageError(format!(
                "event {} ({}) does not read: {e}",
                stored.v, stored.kind
            ))
        })?;
        events.push(event);
    }
    let (tournament, pairing_cpu) = match verify_timed(&events) {
        Ok(verified) => verified,
        Err(difference) => return Ok(Err(difference.to_string())),
    };
    for (index, event) in events.iter().enumerate() {
        if let Event::Result { room, outcome } = event {
            let played = patiently(|| room_end(&store, room))
                .await
                .map_err(failed)?
                .map(|end| end.outcome);
            if played != Some(*outcome) {
                let v = index + 1;
                return Ok(Err(format!(
                    "event {v} (result): {outcome:?} in room {room}, whose log says {played:?}"
                )));
            }
        }
    }
    Ok(Ok((tournament, pairing_cpu)))
}

fn standings(tournament: &Tournament) -> Vec<serde_json::Value> {
    tournament
        .standings()
        .iter()
        .map(|s| {
            json!({
                "player": s.player, "name": s.name, "score": s.score, "games": s.games,
                "wins": s.wins, "buchholz": s.buchholz, "sonneborn_berger": s.sonneborn_berger,
                "withdrawn": s.withdrawn,
            })
        })
        .collect()
}
