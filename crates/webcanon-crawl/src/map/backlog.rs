//! The hand-over of sitemap URLs from the reader to the decider, bounded.
//!
//! The client's sitemap reader reports URLs through a plain callback, a
//! whole parsed sitemap at a time (at most
//! [`MAX_ENTRIES`](webcanon_core::sitemap::limits::MAX_ENTRIES), 50,000),
//! and cannot wait inside it. So the bound is kept on the reader's own
//! future: [`HeldBack`] does not poll it, and so no further sitemap is
//! fetched, while [`MAX_WAITING`] URLs or more wait for the decider. At
//! most `MAX_WAITING` plus one sitemap's URLs wait at once, however many
//! sitemaps a site lists and however slowly their URLs are decided.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::task::{Context, Poll};

use futures_util::task::AtomicWaker;
use tokio::sync::mpsc;

/// The URLs that may wait for the decider before the reader is held back.
pub(super) const MAX_WAITING: usize = 10_000;

/// What the two ends share: how many items wait, whether the receiving
/// end is gone, and the reader to wake when there is room again.
#[derive(Debug, Default)]
struct Shared {
    waiting: AtomicUsize,
    closed: AtomicBool,
    reader: AtomicWaker,
}

impl Shared {
    fn has_room(&self) -> bool {
        self.closed.load(Ordering::Acquire) || self.waiting.load(Ordering::Acquire) < MAX_WAITING
    }
}

/// The reader's end.
#[derive(Debug)]
pub(super) struct Sender<T> {
    items: mpsc::UnboundedSender<T>,
    shared: Arc<Shared>,
}

/// The decider's end.
#[derive(Debug)]
pub(super) struct Receiver<T> {
    items: mpsc::UnboundedReceiver<T>,
    shared: Arc<Shared>,
}

/// A hand-over whose reader is held back past [`MAX_WAITING`] items.
pub(super) fn handoff<T>() -> (Sender<T>, Receiver<T>) {
    let (sender, receiver) = mpsc::unbounded_channel();
    let shared = Arc::new(Shared::default());
    (Sender { items: sender, shared: shared.clone() }, Receiver { items: receiver, shared })
}

impl<T> Sender<T> {
    /// Hands `item` over; `Err` when the decider is gone.
    pub(super) fn send(&self, item: T) -> Result<(), T> {
        self.shared.waiting.fetch_add(1, Ordering::AcqRel);
        self.items.send(item).map_err(|refused| {
            self.shared.waiting.fetch_sub(1, Ordering::AcqRel);
            refused.0
        })
    }

    /// What holds the reader back, taken before the sender moves into it.
    pub(super) fn gate(&self) -> Gate {
        Gate { shared: self.shared.clone() }
    }
}

/// Holds a reader back while its hand-over is full.
#[derive(Debug)]
pub(super) struct Gate {
    shared: Arc<Shared>,
}

impl Gate {
    /// `reader`, polled only while the hand-over has room.
    pub(super) fn hold_back<F: Future>(self, reader: F) -> HeldBack<F> {
        HeldBack { reader: Box::pin(reader), shared: self.shared }
    }
}

impl<T> Receiver<T> {
    /// The next item; `None` once the reader is done and all were taken.
    pub(super) async fn recv(&mut self) -> Option<T> {
        let item = self.items.recv().await?;
        let before = self.shared.waiting.fetch_sub(1, Ordering::AcqRel);
        if before <= MAX_WAITING {
            self.shared.reader.wake();
        }
        Some(item)
    }
}

impl<T> Drop for Receiver<T> {
    /// A decider that stops lets the reader run on to see that it is gone.
    fn drop(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.reader.wake();
    }
}

/// The reader's future, held back while the hand-over is full.
#[derive(Debug)]
pub(super) struct HeldBack<F> {
    reader: Pin<Box<F>>,
    shared: Arc<Shared>,
}

impl<F: Future> Future for HeldBack<F> {
    type Output = F::Output;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<F::Output> {
        if !self.shared.has_room() {
            self.shared.reader.register(cx.waker());
            // Checked again once registered: the decider may have made room
            // in between, and its wake-up would then be lost.
            if !self.shared.has_room() {
                return Poll::Pending;
            }
        }
        self.reader.as_mut().poll(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A reader that hands over `sitemaps` sitemaps of `per_sitemap` URLs,
    /// each in one go, yielding between them as a fetch would.
    async fn read(sender: Sender<usize>, sitemaps: usize, per_sitemap: usize) {
        for sitemap in 0..sitemaps {
            for entry in 0..per_sitemap {
                if sender.send(sitemap * per_sitemap + entry).is_err() {
                    return;
                }
            }
            tokio::task::yield_now().await;
        }
    }

    #[tokio::test]
    async fn a_slow_decider_holds_the_reader_back() {
        let per_sitemap = 50_000;
        let (sender, mut receiver) = handoff::<usize>();
        let shared = sender.shared.clone();
        let reader = sender.gate().hold_back(read(sender, 6, per_sitemap));
        let decider = async {
            let (mut taken, mut most_waiting) = (0, 0);
            while receiver.recv().await.is_some() {
                taken += 1;
                most_waiting = most_waiting.max(shared.waiting.load(Ordering::Acquire) + 1);
                if taken % 1_000 == 0 {
                    tokio::task::yield_now().await;
                }
            }
            (taken, most_waiting)
        };
        let ((), (taken, most_waiting)) = tokio::join!(reader, decider);
        assert_eq!(taken, 6 * per_sitemap);
        assert!(most_waiting <= MAX_WAITING + per_sitemap, "{most_waiting} URLs waited at once");
    }

    #[tokio::test]
    async fn a_decider_that_stops_lets_the_reader_end() {
        let (sender, mut receiver) = handoff::<usize>();
        let reader = sender.gate().hold_back(read(sender, 1_000, 50_000));
        let decider = async move {
            receiver.recv().await;
        };
        tokio::time::timeout(std::time::Duration::from_secs(30), async { tokio::join!(reader, decider) })
            .await
            .expect("the reader saw that the decider is gone");
    }
}
