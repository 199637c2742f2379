//! A small key-value store with a write-ahead log.

use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::{self, BufRead, BufReader, Write};
use std::path::{Path, PathBuf};

use crate::codec::Codec as WireCodec;
use crate::error::*;

/// Largest value the store accepts, in bytes.
pub const MAX_VALUE_SIZE: usize = 1 << 20;

static LOG_MAGIC: &str = "SCRYLOG1";

/// One entry of the write-ahead log.
#[derive(Debug, Clone, PartialEq)]
pub enum Entry {
    Put { key: String, value: Vec<u8> },
    Delete { key: String },
    Checkpoint(u64),
}

/// Things that can go wrong while opening or replaying a store.
#[derive(Debug)]
pub enum StoreError {
    Io(io::Error),
    Corrupt { line: usize, reason: String },
    TooLarge(usize),
}

pub type Result<T> = std::result::Result<T, StoreError>;

/// Something that can persist entries.
pub trait Journal {
    /// Appends one entry.
    fn append(&mut self, entry: &Entry) -> Result<()>;

    /// Forces buffered entries to disk.
    fn sync(&mut self) -> Result<()> {
        Ok(())
    }
}

/// The store: an in-memory map rebuilt from the log on open.
pub struct Store {
    path: PathBuf,
    data: BTreeMap<String, Vec<u8>>,
    log: Option<File>,
    version: u64,
}

impl Store {
    /// Opens the store at `path`, replaying its log.
    pub fn open(path: &Path) -> Result<Store> {
        let mut store = Store { path: path.to_path_buf(), data: BTreeMap::new(), log: None, version: 0 };
        if path.exists() {
            store.replay()?;
        }
        store.log = Some(File::options().create(true).append(true).open(path).map_err(StoreError::Io)?);
        Ok(store)
    }

    pub fn get(&self, key: &str) -> Option<&[u8]> {
        self.data.get(key).map(Vec::as_slice)
    }

    pub fn put(&mut self, key: &str, value: Vec<u8>) -> Result<()> {
        if value.len() > MAX_VALUE_SIZE {
            return Err(StoreError::TooLarge(value.len()));
        }
        let entry = Entry::Put { key: key.to_string(), value };
        self.append(&entry)?;
        self.apply(entry);
        Ok(())
    }

    fn apply(&mut self, entry: Entry) {
        match entry {
            Entry::Put { key, value } => {
                self.data.insert(key, value);
            }
            Entry::Delete { key } => {
                self.data.remove(&key);
            }
            Entry::Checkpoint(v) => self.version = v,
        }
    }

    /// Replays the log line by line. A torn last line (a crash mid-write) is dropped; any other
    /// malformed line is corruption and stops the replay with its line number.
    fn replay(&mut self) -> Result<()> {
        let file = File::open(&self.path).map_err(StoreError::Io)?;
        let reader = BufReader::new(file);
        let mut lines: Vec<String> = Vec::new();
        for line in reader.lines() {
            lines.push(line.map_err(StoreError::Io)?);
        }
        if lines.is_empty() {
            return Ok(());
        }
        if lines[0] != LOG_MAGIC {
            return Err(StoreError::Corrupt { line: 1, reason: format!("bad magic {:?}", lines[0]) });
        }

        let mut pending: HashMap<String, Option<Vec<u8>>> = HashMap::new();
        let last = lines.len() - 1;
        for (index, raw) in lines.iter().enumerate().skip(1) {
            let number = index + 1;
            let mut parts = raw.splitn(3, '\t');
            let op = parts.next().unwrap_or_default();
            let key = parts.next();
            let payload = parts.next();
            let entry = match (op, key, payload) {
                ("P", Some(key), Some(payload)) => {
                    let value = match WireCodec::decode(payload) {
                        Ok(value) => value,
                        Err(err) if index == last => {
                            eprintln!("dropping torn last line {number}: {err}");
                            break;
                        }
                        Err(err) => {
                            return Err(StoreError::Corrupt { line: number, reason: err.to_string() });
                        }
                    };
                    if value.len() > MAX_VALUE_SIZE {
                        return Err(StoreError::TooLarge(value.len()));
                    }
                    pending.insert(key.to_string(), Some(value.clone()));
                    Entry::Put { key: key.to_string(), value }
                }
                ("D", Some(key), None) => {
                    pending.insert(key.to_string(), None);
                    Entry::Delete { key: key.to_string() }
                }
                ("C", Some(version), None) => {
                    let version: u64 = version.parse().map_err(|_| StoreError::Corrupt {
                        line: number,
                        reason: format!("bad checkpoint {version:?}"),
                    })?;
                    if version < self.version {
                        return Err(StoreError::Corrupt { line: number, reason: "checkpoint goes backwards".into() });
                    }
                    pending.clear();
                    Entry::Checkpoint(version)
                }
                _ if index == last => {
                    eprintln!("dropping torn last line {number}");
                    break;
                }
                _ => {
                    return Err(StoreError::Corrupt { line: number, reason: format!("unknown entry {raw:?}") });
                }
            };
            self.apply(entry);
        }

        if !pending.is_empty() {
            let deleted = pending.values().filter(|v| v.is_none()).count();
            eprintln!("{} entries after the last checkpoint ({} deletes)", pending.len(), deleted);
        }

        let mut largest: Option<(&String, usize)> = None;
        let mut total = 0usize;
        for (key, value) in &self.data {
            total += key.len() + value.len();
            match largest {
                Some((_, size)) if size >= value.len() => {}
                _ => largest = Some((key, value.len())),
            }
        }
        if let Some((key, size)) = largest {
            if size > MAX_VALUE_SIZE / 2 {
                eprintln!("warning: {key} holds {size} bytes, half the limit");
            }
        }
        if total > MAX_VALUE_SIZE * 64 {
            eprintln!("warning: the store holds {total} bytes; consider compacting {}", self.path.display());
        }
        Ok(())
    }
}

impl Journal for Store {
    fn append(&mut self, entry: &Entry) -> Result<()> {
        let Some(log) = self.log.as_mut() else { return Ok(()) };
        let line = match entry {
            Entry::Put { key, value } => format!("P\t{key}\t{}\n", WireCodec::encode(value)),
            Entry::Delete { key } => format!("D\t{key}\n"),
            Entry::Checkpoint(v) => format!("C\t{v}\n"),
        };
        log.write_all(line.as_bytes()).map_err(StoreError::Io)
    }
}

impl From<io::Error> for StoreError {
    fn from(err: io::Error) -> Self {
        StoreError::Io(err)
    }
}

/// Test helpers.
mod tests {
    pub fn temp_path(name: &str) -> std::path::PathBuf {
        std::env::temp_dir().join(name)
    }
}

pub fn is_valid_key(key: &str) -> bool {
    !key.is_empty() && !key.contains('\t') && !key.contains('\n')
}

fn checksum(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0u32, |acc, b| acc.rotate_left(5) ^ u32::from(*b))
}

macro_rules! entry {
    ($key:expr => $value:expr) => {
        Entry::Put { key: $key.to_string(), value: $value.into() }
    };
}
