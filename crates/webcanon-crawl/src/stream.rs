//! [`crawl_stream`]: a crawl run as a stream of records, for the faces
//! that run it as a job.

use std::io;
use std::path::PathBuf;

use futures_util::stream::{self, Stream, StreamExt};
use tokio::sync::mpsc::UnboundedSender;
use url::Url;
use webcanon_client::PageRecord;

use crate::frontier::Frontier;
use crate::run::{CrawlError, Crawler};
use crate::sink::RecordSink;

/// The records of [`Crawler::run`] from `starts` as a stream, then `Err`
/// if the crawl could not go on. The frontier is a new file at `frontier`
/// (on disk, so that memory does not grow with the site); the caller
/// removes it once the stream is dropped. Dropping the stream stops the
/// crawl. Records wait in the stream's queue only while the reader is
/// behind: at most the records of one finished page (the page and the
/// links it led to that are recorded without a fetch).
pub fn crawl_stream(
    crawler: Crawler,
    starts: Vec<Url>,
    frontier: PathBuf,
) -> impl Stream<Item = Result<PageRecord, CrawlError>> + Send {
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
    let run = async move {
        let mut frontier = match Frontier::open(&frontier) {
            Ok(frontier) => frontier,
            Err(error) => return Some(CrawlError::from(error)),
        };
        let mut sink = ChannelSink { sender, written: 0 };
        crawler.run(&starts, &mut frontier, &mut sink, &mut ()).await.err()
    };
    let records =
        stream::unfold(
            receiver,
            |mut receiver| async move { receiver.recv().await.map(|record| (Ok(record), receiver)) },
        );
    let failure = stream::once(run).filter_map(|error| async move { error.map(Err) });
    stream::select(records, failure)
}

/// Records handed to the stream's reader. A crawl to it cannot resume:
/// the reader has the records already.
struct ChannelSink {
    sender: UnboundedSender<PageRecord>,
    /// Records written, the sink's position.
    written: u64,
}

impl RecordSink for ChannelSink {
    fn write(&mut self, record: &PageRecord) -> io::Result<()> {
        self.sender
            .send(record.clone())
            .map_err(|_| io::Error::new(io::ErrorKind::BrokenPipe, "the crawl's reader has stopped"))?;
        self.written += 1;
        Ok(())
    }

    fn commit(&mut self) -> io::Result<u64> {
        Ok(self.written)
    }

    fn resume_at(&mut self, position: u64) -> io::Result<()> {
        match position {
            0 => Ok(()),
            _ => Err(io::Error::other("a crawl streamed to a reader cannot resume")),
        }
    }
}
