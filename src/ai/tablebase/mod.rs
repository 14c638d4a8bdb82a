//! The endgame tablebase: the exact chance of winning, with best play by
//! both sides over the random throws, of every position in which each side
//! has at most K pieces left on the board. The set is closed (no move puts a
//! piece back on the board), so it can be solved on its own ([`solve`]).
//!
//! The file (`senet tablebase build`) is a 56-byte header — magic
//! `SENETTB\x01`, K, seven zero bytes, the number of values (u64 LE), the
//! SHA-256 of the values — then one f32 LE per position in [`index`] order:
//! the solution rounded to single precision (at most 3e-8 from the double
//! the iteration converged to). K = 3 is 12,230,750 values, 48.9 MB; the
//! values are too varied to gain much from compression, so there is none.
//!
//! A process loads one table at start ([`install`], from `--tablebase` /
//! `SENET_TABLEBASE`) and [`installed`] hands it to the AI and the analysis,
//! which work as before when there is none. It is process-wide rather than
//! passed along because every layer from the room to the search would
//! otherwise carry it for a value that never changes while the process runs.

pub mod index;
pub mod solve;

use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use crate::engine::{Move, Position, Roll};

use index::Index;
pub use index::MAX_PIECES;

const MAGIC: &[u8; 8] = b"SENETTB\x01";
const HEADER: usize = 56;

#[derive(Debug, thiserror::Error)]
pub enum TablebaseError {
    #[error("{path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{0}: not a Senet tablebase (wrong magic or too short)")]
    NotATable(String),
    #[error("{0}: K = {1} is not supported (1 to {MAX_PIECES})")]
    Pieces(String, u8),
    #[error("{0}: the file's size does not match its header")]
    Truncated(String),
    #[error("{0}: the checksum does not match the values (a damaged file)")]
    Checksum(String),
    #[error("a tablebase is already installed")]
    AlreadyInstalled,
}

/// A solved table in memory.
#[derive(Clone, Debug, PartialEq)]
pub struct Tablebase {
    index: Index,
    values: Vec<f32>,
}

/// How a build went, for the command line and docs/AI.md.
pub struct Built {
    pub table: Tablebase,
    pub sweeps: u32,
    pub last_change: f64,
}

impl Tablebase {
    /// Solves the table for K = `pieces` (1..=[`MAX_PIECES`]).
    pub fn build(pieces: u8) -> Built {
        let index = Index::new(pieces);
        let solution = solve::solve(&index);
        Built {
            table: Tablebase::rounded(index, &solution.values),
            sweeps: solution.sweeps,
            last_change: solution.last_change,
        }
    }

    /// The table of solved values, rounded to what the file holds.
    fn rounded(index: Index, values: &[f64]) -> Tablebase {
        Tablebase {
            values: values.iter().map(|&v| v as f32).collect(),
            index,
        }
    }

    /// K: the most pieces a side may have on the board for a position to be covered.
    pub fn pieces(&self) -> u8 {
        self.index.pieces()
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Whether the game is not over and neither side has more than K pieces on the board.
    pub fn covers(&self, position: &Position) -> bool {
        let mover = position.bitboard(position.turn());
        let other = position.bitboard(position.turn().other());
        self.index.covers(mover, other)
    }

    /// The side to move's exact chance before its throw; `None` if not covered.
    pub fn value(&self, position: &Position) -> Option<f64> {
        self.covers(position)
            .then(|| solve::chance_to_move(&self.index, position, &self.lookup()))
    }

    /// The mover's exact chance after `mv`, a legal move in a covered position.
    pub fn after(&self, position: &Position, mv: &Move) -> f64 {
        solve::chance_after(&self.index, position, mv, &self.lookup())
    }

    /// The mover's chance after the best move with `roll` (or the pass).
    pub fn after_throw(&self, position: &Position, roll: Roll) -> f64 {
        solve::best_after_throw(&self.index, position, roll, &self.lookup())
    }

    /// How far `estimate` (a chance for the side to move) is from the exact
    /// values, over every covered position, by pieces on the board (mover, other).
    pub fn errors(&self, estimate: impl Fn(&Position) -> f64) -> Vec<ErrorByPieces> {
        let mut rows: Vec<ErrorByPieces> = Vec::new();
        for (i, &exact) in self.values.iter().enumerate() {
            let (mover, other) = self.index.position(i);
            let position = Position::from_bitboards(mover, other, crate::engine::Side::Black)
                .expect("the index only holds valid positions");
            let pieces = (mover.count_ones() as u8, other.count_ones() as u8);
            let error = (estimate(&position) - f64::from(exact)).abs();
            match rows.last_mut() {
                Some(row) if row.pieces == pieces => row.add(error),
                _ => rows.push(ErrorByPieces::first(pieces, error)),
            }
        }
        rows
    }

    fn lookup(&self) -> impl Fn(usize) -> f64 + '_ {
        |i| f64::from(self.values[i])
    }

    /// The file's bytes: header, then the values.
    pub fn to_bytes(&self) -> Vec<u8> {
        let payload: Vec<u8> = self.values.iter().flat_map(|v| v.to_le_bytes()).collect();
        let mut bytes = Vec::with_capacity(HEADER + payload.len());
        bytes.extend_from_slice(MAGIC);
        bytes.push(self.pieces());
        bytes.extend_from_slice(&[0; 7]);
        bytes.extend_from_slice(&(self.values.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&Sha256::digest(&payload));
        bytes.extend_from_slice(&payload);
        bytes
    }

    /// Reads a table back, checking its header, size and checksum.
    pub fn from_bytes(name: &str, bytes: &[u8]) -> Result<Tablebase, TablebaseError> {
        if bytes.len() < HEADER || &bytes[..8] != MAGIC {
            return Err(TablebaseError::NotATable(name.into()));
        }
        let pieces = bytes[8];
        if !(1..=MAX_PIECES).contains(&pieces) {
            return Err(TablebaseError::Pieces(name.into(), pieces));
        }
        let index = Index::new(pieces);
        let count = u64::from_le_bytes(bytes[16..24].try_into().expect("8 bytes"));
        let payload = &bytes[HEADER..];
        if count != index.len() as u64 || payload.len() != index.len() * 4 {
            return Err(TablebaseError::Truncated(name.into()));
        }
        if Sha256::digest(payload).as_slice() != &bytes[24..HEADER] {
            return Err(TablebaseError::Checksum(name.into()));
        }
        let values = payload
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        Ok(Tablebase { index, values })
    }

    pub fn load(path: &Path) -> Result<Tablebase, TablebaseError> {
        let name = path.display().to_string();
        let bytes = std::fs::read(path).map_err(|source| TablebaseError::Io {
            path: name.clone(),
            source,
        })?;
        Tablebase::from_bytes(&name, &bytes)
    }

    /// Writes the file atomically (a temporary file beside it, synced, then
    /// renamed), so a reader never sees half a table; returns its bytes' SHA-256.
    pub fn save(&self, path: &Path) -> Result<String, TablebaseError> {
        let bytes = self.to_bytes();
        let io = |source| TablebaseError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(format!(".tmp-{}", std::process::id()));
        let temporary = std::path::PathBuf::from(temporary);
        let mut file = std::fs::File::create(&temporary).map_err(io)?;
        file.write_all(&bytes)
            .and_then(|()| file.sync_all())
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(|e| {
                let _ = std::fs::remove_file(&temporary);
                io(e)
            })?;
        Ok(hex(&Sha256::digest(&bytes)))
    }
}

/// Lower-case hexadecimal of a digest.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// An estimate's error against the exact values over one (mover, other) piece count.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ErrorByPieces {
    pub pieces: (u8, u8),
    pub positions: u64,
    pub mean: f64,
    pub max: f64,
}

impl ErrorByPieces {
    fn first(pieces: (u8, u8), error: f64) -> Self {
        ErrorByPieces {
            pieces,
            positions: 1,
            mean: error,
            max: error,
        }
    }

    fn add(&mut self, error: f64) {
        self.positions += 1;
        self.mean += (error - self.mean) / self.positions as f64;
        self.max = self.max.max(error);
    }
}

static INSTALLED: OnceLock<Tablebase> = OnceLock::new();

/// Makes `table` the process's table, once, before the AI is first asked.
pub fn install(table: Tablebase) -> Result<(), TablebaseError> {
    INSTALLED
        .set(table)
        .map_err(|_| TablebaseError::AlreadyInstalled)
}

/// The process's table, if one was installed.
pub fn installed() -> Option<&'static Tablebase> {
    INSTALLED.get()
}

/// The K = 2 solution and its table, shared by every test of the library
/// (a solve takes a minute unoptimised).
#[cfg(test)]
pub(crate) fn k2_for_tests() -> &'static (solve::Solution, Tablebase) {
    static BUILT: OnceLock<(solve::Solution, Tablebase)> = OnceLock::new();
    BUILT.get_or_init(|| {
        let solution = solve::solve(&Index::new(2));
        let table = Tablebase::rounded(Index::new(2), &solution.values);
        (solution, table)
    })
}

#[cfg(test)]
mod tests;
