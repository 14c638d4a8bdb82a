//! `senet puzzles mine|verify`: finds puzzles in self-play games and game records and writes
//! them as JSON lines, or checks a set's every answer again (`puzzles`; docs/AI.md, "Puzzles",
//! has the command that built the shipped set and its figures).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Instant;

use serde_json::{Value, json};

use super::UsageError;
use crate::ai::tablebase;
use crate::analysis;
use crate::protocol::Record;
use crate::puzzles::{self, Difficulty, Puzzle, Theme, mine};

/// Mine puzzles from games, or check a puzzle set's answers.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// Judge every throw of self-play games and game records; write the puzzles as JSON lines.
    Mine {
        /// Self-play games to play and read (easy and medium in turn).
        #[arg(long, default_value_t = 100)]
        games: usize,
        /// Seed of the self-play games' throws.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Finished games' records (`GET /api/rooms/{id}/record`), read after the self-play games.
        #[arg(long)]
        records: Vec<PathBuf>,
        #[arg(long, default_value_t = 2)]
        threads: usize,
        /// Where to write the puzzles (atomically replaced).
        #[arg(long)]
        out: PathBuf,
    },
    /// Judge every puzzle of a set again (the shipped one by default); exit 2 at the first that
    /// does not hold. Exact puzzles need the tablebase they were mined with (`--tablebase`).
    Verify {
        /// A set of JSON lines instead of the shipped one.
        #[arg(long)]
        file: Option<PathBuf>,
        #[arg(long, default_value_t = 2)]
        threads: usize,
    },
}

pub fn run(args: Args) -> Result<(), UsageError> {
    let report = match args.action {
        Action::Mine {
            games,
            seed,
            records,
            threads,
            out,
        } => mine_to(games, seed, &records, threads.max(1), &out)?,
        Action::Verify { file, threads } => verify(file, threads.max(1))?,
    };
    println!("{}", serde_json::to_string_pretty(&report).expect("JSON"));
    Ok(())
}

fn mine_to(
    games: usize,
    seed: u64,
    records: &[PathBuf],
    threads: usize,
    out: &std::path::Path,
) -> Result<Value, UsageError> {
    let started = Instant::now();
    let mut sources = mine::self_play(games, seed);
    for path in records {
        sources.push(read_record(path)?);
    }
    let table = tablebase::installed();
    let mined = mine::mine(&sources, table, threads);
    let lines = puzzles::to_lines(&mined.puzzles);
    write_atomically(out, &lines)?;
    Ok(json!({
        "games": games,
        "seed": seed,
        "records": records.len(),
        "tablebase_pieces": table.map(|t| t.pieces()),
        "candidates": mined.candidates,
        "candidates_in_table": mined.covered,
        "margin": puzzles::MARGIN,
        "searches": [mine::DEEP, mine::DEEPER],
        "summary": summary(&mined.puzzles),
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
        "max_resident_bytes": max_resident_bytes(),
        "file": out,
        "sha256": puzzles::checksum(&lines),
    }))
}

fn read_record(path: &std::path::Path) -> Result<Vec<mine::Throw>, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
    let record: Record = serde_json::from_str(&text)
        .map_err(|e| UsageError(format!("{}: not a game record: {e}", path.display())))?;
    let played =
        analysis::replay(&record).map_err(|e| UsageError(format!("{}: {e}", path.display())))?;
    Ok(played.iter().map(|p| (p.position, p.roll)).collect())
}

fn write_atomically(path: &std::path::Path, text: &str) -> Result<(), UsageError> {
    let mut temporary = path.as_os_str().to_owned();
    temporary.push(format!(".tmp-{}", std::process::id()));
    let temporary = PathBuf::from(temporary);
    std::fs::write(&temporary, text)
        .and_then(|()| std::fs::rename(&temporary, path))
        .map_err(|e| UsageError(format!("cannot write {}: {e}", path.display())))
}

fn verify(file: Option<PathBuf>, threads: usize) -> Result<Value, UsageError> {
    let started = Instant::now();
    let owned;
    let set: &[Puzzle] = match &file {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("cannot read {}: {e}", path.display())))?;
            owned = puzzles::parse_lines(&text)?;
            &owned
        }
        None => puzzles::shipped(),
    };
    let table = tablebase::installed();
    let failures: Vec<String> = mine::in_parallel(set, threads, |p| mine::check(p, table))
        .into_iter()
        .filter_map(|result| result.err().map(|e| e.to_string()))
        .collect();
    if let Some(first) = failures.first() {
        return Err(UsageError(format!(
            "{} of {} puzzles do not hold; the first: {first}",
            failures.len(),
            set.len()
        )));
    }
    Ok(json!({
        "puzzles": set.len(),
        "verified": set.len(),
        "summary": summary(set),
        "seconds": (started.elapsed().as_secs_f64() * 10.0).round() / 10.0,
    }))
}

/// Counts, the exact share, themes, difficulties and each level's hit rate.
fn summary(set: &[Puzzle]) -> Value {
    let count = set.len().max(1) as f64;
    let exact = set.iter().filter(|p| p.exact).count();
    let themes: BTreeMap<&str, usize> = Theme::ALL
        .iter()
        .map(|t| (t.name(), set.iter().filter(|p| p.theme == *t).count()))
        .collect();
    let difficulties: BTreeMap<&str, usize> = Difficulty::ALL
        .iter()
        .map(|d| (d.name(), set.iter().filter(|p| p.difficulty == *d).count()))
        .collect();
    let rate =
        |hits: fn(&Puzzle) -> f64| (set.iter().map(hits).sum::<f64>() / count * 1e4).round() / 1e4;
    json!({
        "puzzles": set.len(),
        "exact": exact,
        "exact_share": (exact as f64 / count * 1e4).round() / 1e4,
        "themes": themes,
        "difficulties": difficulties,
        "level_hit_rate": {
            "easy": rate(|p| p.hits.easy),
            "medium": rate(|p| p.hits.medium),
            "hard_without_table": rate(|p| p.hits.hard),
        },
    })
}

/// The process's peak resident memory (`VmHWM`), if the system says.
fn max_resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}
