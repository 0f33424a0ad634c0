//! [`BatchError`]: what can go wrong in a batch run, said plainly.

use std::path::PathBuf;

/// A batch run could not go on. Every message names the file, column or
/// setting at fault.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BatchError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A Parquet file could not be read or written.
    #[error("{path}: Parquet: {source}")]
    Parquet {
        /// The file.
        path: PathBuf,
        /// The Parquet error.
        source: parquet::errors::ParquetError,
    },
    /// Arrow data could not be read, built or written.
    #[error("{context}: {source}")]
    Arrow {
        /// What was being done (usually a file name).
        context: String,
        /// The Arrow error.
        source: arrow::error::ArrowError,
    },
    /// The input has no column of the requested name.
    #[error("{path}: no column `{column}`; the columns are: {}", available.join(", "))]
    MissingColumn {
        /// The input file.
        path: PathBuf,
        /// The column asked for.
        column: String,
        /// The columns the file has.
        available: Vec<String>,
    },
    /// The URL column does not hold text.
    #[error("{path}: column `{column}` holds {found}, not text")]
    ColumnType {
        /// The input file.
        path: PathBuf,
        /// The column.
        column: String,
        /// Its data type.
        found: String,
    },
    /// A file name whose extension says no known format.
    #[error("{path}: unknown {role} format; use a name ending in {expected}")]
    UnknownFormat {
        /// The file.
        path: PathBuf,
        /// `input` or `output`.
        role: &'static str,
        /// The extensions understood.
        expected: &'static str,
    },
    /// A record batch or Parquet file is not a robots snapshot.
    #[error("not a robots snapshot: {0}")]
    SnapshotSchema(String),
    /// A `--shard` value that is not `I/N` with `I < N`.
    #[error("bad shard `{value}`: {reason}")]
    BadShard {
        /// The value given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The state left by an interrupted run does not fit this run.
    #[error("{path}: {reason}")]
    Resume {
        /// The state file.
        path: PathBuf,
        /// Why it cannot be resumed.
        reason: String,
    },
    /// The HTTP client could not be built.
    #[error("cannot build the HTTP client: {0}")]
    Client(String),
    /// The input (URLs, or a `--snapshot` made earlier) could not be read:
    /// a file that is not what its name says, or a broken one.
    #[error(transparent)]
    Input(Box<BatchError>),
}

/// What kind of failure a [`BatchError`] is: the CLI's exit status.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FailureKind {
    /// Bad usage or input: fix the command or the file (exit status 2).
    Usage,
    /// The state of an interrupted run does not fit this run: run it with
    /// the settings it had, or remove the state (exit status 3).
    Resume,
    /// The run itself failed (writing the output, the snapshot or the
    /// state; the HTTP client): run the same command again to resume
    /// (exit status 1).
    Run,
}

impl BatchError {
    /// An I/O error on `path`.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> BatchError {
        BatchError::Io { path: path.into(), source }
    }

    /// A Parquet error on `path`.
    pub fn parquet(path: impl Into<PathBuf>, source: parquet::errors::ParquetError) -> BatchError {
        BatchError::Parquet { path: path.into(), source }
    }

    /// `err`, met while reading the input: a usage error whatever its cause.
    pub fn input(err: BatchError) -> BatchError {
        match err {
            already @ BatchError::Input(_) => already,
            other => BatchError::Input(Box::new(other)),
        }
    }

    /// What kind of failure this is.
    pub fn kind(&self) -> FailureKind {
        match self {
            BatchError::MissingColumn { .. }
            | BatchError::ColumnType { .. }
            | BatchError::UnknownFormat { .. }
            | BatchError::SnapshotSchema(_)
            | BatchError::BadShard { .. }
            | BatchError::Input(_) => FailureKind::Usage,
            BatchError::Resume { .. } => FailureKind::Resume,
            BatchError::Io { .. } | BatchError::Parquet { .. } | BatchError::Arrow { .. } | BatchError::Client(_) => {
                FailureKind::Run
            }
        }
    }

    /// Whether a write failed because the file would grow past the
    /// process's file-size limit (`ulimit -f`; EFBIG).
    pub fn is_file_too_large(&self) -> bool {
        match self {
            BatchError::Io { source, .. } => source.kind() == std::io::ErrorKind::FileTooLarge,
            BatchError::Parquet { source: parquet::errors::ParquetError::External(e), .. } => {
                e.downcast_ref::<std::io::Error>().is_some_and(|e| e.kind() == std::io::ErrorKind::FileTooLarge)
            }
            BatchError::Arrow { source: arrow::error::ArrowError::IoError(_, e), .. } => {
                e.kind() == std::io::ErrorKind::FileTooLarge
            }
            BatchError::Input(inner) => inner.is_file_too_large(),
            _ => false,
        }
    }

    /// An Arrow error while doing `context`.
    pub fn arrow(context: impl Into<String>, source: arrow::error::ArrowError) -> BatchError {
        BatchError::Arrow { context: context.into(), source }
    }
}
