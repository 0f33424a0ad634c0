//! [`map_stream`]: a map run as a stream of records, for the faces that
//! run it as a job or page through it.

use std::ops::ControlFlow;

use futures_util::stream::{self, Stream, StreamExt};
use url::Url;
use webcanon_client::Client;

use super::{MapConfig, MapError, MapRecord, map_site};

/// The records of [`map_site`] as a stream, then `Err` if the run could
/// not start. Dropping the stream stops the run. Records wait in the
/// stream's queue only while the reader is behind: at most one sitemap's
/// URLs (50,000), since each sitemap's URLs are decided before the next
/// sitemap is fetched.
pub fn map_stream(client: Client, start: Url, config: MapConfig) -> impl Stream<Item = Result<MapRecord, MapError>> {
    let (sender, receiver) = tokio::sync::mpsc::unbounded_channel();
    let run = async move {
        let outcome = map_site(&client, &start, &config, |record| match sender.send(record) {
            Ok(()) => ControlFlow::Continue(()),
            Err(_) => ControlFlow::Break(()),
        })
        .await;
        outcome.err()
    };
    let records =
        stream::unfold(
            receiver,
            |mut receiver| async move { receiver.recv().await.map(|record| (Ok(record), receiver)) },
        );
    let failure = stream::once(run).filter_map(|error| async move { error.map(Err) });
    stream::select(records, failure)
}
