//! A room's broadcast to its connections: a bounded ring, like `tokio::sync::broadcast` (a
//! receiver that falls more than `capacity` frames behind loses the oldest and is told how many,
//! with the same error types), except that it holds only the frames some receiver has not read
//! yet. tokio's allocates all `capacity` slots up front and keeps them; an idle room, which is
//! most rooms, would pay for its whole capacity all its life (docs/PERFORMANCE.md, memory).
//! Here an idle room's ring is empty, so the capacity can be as large as a stale instance's
//! catch-up needs (its missed events then reach watchers as events, not as a fresh state).

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::Notify;
use tokio::sync::broadcast::error::{RecvError, TryRecvError};

/// A ring that keeps at most `capacity` unread frames.
pub fn channel<T: Clone>(capacity: usize) -> Sender<T> {
    Sender {
        shared: Arc::new(Shared {
            state: Mutex::new(State {
                frames: VecDeque::new(),
                first: 0,
                receivers: 0,
                closed: false,
            }),
            sent: Notify::new(),
            capacity: capacity.max(1),
        }),
    }
}

/// The room's end: one per ring. Dropping it closes the ring.
pub struct Sender<T> {
    shared: Arc<Shared<T>>,
}

/// A connection's end: it reads every frame sent after it subscribed, in order.
pub struct Receiver<T> {
    shared: Arc<Shared<T>>,
    /// The position of the next frame to read.
    next: u64,
}

struct Shared<T> {
    state: Mutex<State<T>>,
    /// Wakes the receivers waiting for a frame (or for the close).
    sent: Notify,
    capacity: usize,
}

struct State<T> {
    /// The frames some receiver has not read, oldest first.
    frames: VecDeque<Slot<T>>,
    /// The position of `frames[0]`; positions count every frame ever sent.
    first: u64,
    receivers: usize,
    closed: bool,
}

struct Slot<T> {
    frame: T,
    /// Receivers that have not read it; at 0 it is let go.
    unread: usize,
}

/// Slots kept allocated by an empty ring: an idle room holds this few at most.
const KEEP_WHEN_EMPTY: usize = 4;

impl<T> Shared<T> {
    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl<T> State<T> {
    fn end(&self) -> u64 {
        self.first + self.frames.len() as u64
    }

    /// Lets go of the oldest frames once every receiver has read them.
    fn release_read(&mut self) {
        while self.frames.front().is_some_and(|slot| slot.unread == 0) {
            self.frames.pop_front();
            self.first += 1;
        }
        if self.frames.is_empty() && self.frames.capacity() > KEEP_WHEN_EMPTY {
            self.frames = VecDeque::new();
        }
    }
}

impl<T: Clone> Sender<T> {
    /// Sends a frame to every receiver; without receivers it is dropped. A receiver that would
    /// then be more than `capacity` frames behind loses its oldest unread frame.
    pub fn send(&self, frame: T) {
        {
            let mut state = self.shared.lock();
            if state.receivers == 0 {
                return;
            }
            let unread = state.receivers;
            state.frames.push_back(Slot { frame, unread });
            if state.frames.len() > self.shared.capacity {
                state.frames.pop_front();
                state.first += 1;
            }
        }
        self.shared.sent.notify_waiters();
    }

    /// A receiver of every frame sent from now on.
    pub fn subscribe(&self) -> Receiver<T> {
        let mut state = self.shared.lock();
        state.receivers += 1;
        Receiver {
            shared: self.shared.clone(),
            next: state.end(),
        }
    }
}

impl<T> Drop for Sender<T> {
    fn drop(&mut self) {
        self.shared.lock().closed = true;
        self.shared.sent.notify_waiters();
    }
}

impl<T: Clone> Receiver<T> {
    /// The next frame, waiting for it if need be; `Lagged` if frames were lost since the last.
    pub async fn recv(&mut self) -> Result<T, RecvError> {
        loop {
            // Registered before looking, so that a frame sent in between still wakes it.
            let sent = self.shared.sent.notified();
            tokio::pin!(sent);
            sent.as_mut().enable();
            match take(&self.shared, &mut self.next) {
                Ok(frame) => return Ok(frame),
                Err(TryRecvError::Lagged(missed)) => return Err(RecvError::Lagged(missed)),
                Err(TryRecvError::Closed) => return Err(RecvError::Closed),
                Err(TryRecvError::Empty) => sent.await,
            }
        }
    }

    /// The next frame if one is waiting.
    pub fn try_recv(&mut self) -> Result<T, TryRecvError> {
        take(&self.shared, &mut self.next)
    }
}

/// The frame at position `next` for a receiver, if it is there yet.
fn take<T: Clone>(shared: &Shared<T>, next: &mut u64) -> Result<T, TryRecvError> {
    let mut state = shared.lock();
    if *next < state.first {
        let missed = state.first - *next;
        *next = state.first;
        return Err(TryRecvError::Lagged(missed));
    }
    let index = (*next - state.first) as usize;
    let Some(slot) = state.frames.get_mut(index) else {
        return Err(if state.closed {
            TryRecvError::Closed
        } else {
            TryRecvError::Empty
        });
    };
    slot.unread -= 1;
    let frame = slot.frame.clone();
    *next += 1;
    state.release_read();
    Ok(frame)
}

impl<T> Drop for Receiver<T> {
    fn drop(&mut self) {
        let mut state = self.shared.lock();
        state.receivers -= 1;
        let unread = self.next.saturating_sub(state.first) as usize;
        for slot in state.frames.iter_mut().skip(unread) {
            slot.unread -= 1;
        }
        state.release_read();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drain(receiver: &mut Receiver<u32>) -> Vec<Result<u32, TryRecvError>> {
        let mut got = Vec::new();
        loop {
            match receiver.try_recv() {
                Err(TryRecvError::Empty) => return got,
                other => got.push(other),
            }
        }
    }

    #[test]
    fn every_receiver_reads_what_was_sent_after_it_subscribed() {
        let sender = channel(8);
        sender.send(0);
        let mut early = sender.subscribe();
        sender.send(1);
        let mut late = sender.subscribe();
        sender.send(2);
        assert_eq!(drain(&mut early), [Ok(1), Ok(2)]);
        assert_eq!(drain(&mut late), [Ok(2)]);
    }

    #[test]
    fn a_receiver_too_far_behind_is_told_how_many_it_lost() {
        let sender = channel(3);
        let mut slow = sender.subscribe();
        let mut fast = sender.subscribe();
        for n in 0..5 {
            sender.send(n);
            assert_eq!(fast.try_recv(), Ok(n));
        }
        assert_eq!(
            drain(&mut slow),
            [Err(TryRecvError::Lagged(2)), Ok(2), Ok(3), Ok(4)]
        );
    }

    #[test]
    fn frames_are_let_go_once_read_by_all_or_by_the_receivers_left() {
        let sender = channel(64);
        let mut first = sender.subscribe();
        let mut second = sender.subscribe();
        let frame = Arc::new("event");
        sender.send(frame.clone());
        drop(first.try_recv());
        assert_eq!(Arc::strong_count(&frame), 2, "the second has not read it");
        drop(second.try_recv());
        assert_eq!(Arc::strong_count(&frame), 1, "read by both: let go");
        sender.send(frame.clone());
        drop(first.try_recv());
        drop(second);
        assert_eq!(Arc::strong_count(&frame), 1, "its last reader left");
        drop(first);
        sender.send(frame.clone());
        assert_eq!(Arc::strong_count(&frame), 1, "nobody to read it: not kept");
    }

    #[tokio::test]
    async fn a_waiting_receiver_wakes_for_a_frame_and_for_the_close() {
        let sender = channel(4);
        let mut receiver = sender.subscribe();
        let reader = tokio::spawn(async move {
            let first = receiver.recv().await;
            let second = receiver.recv().await;
            (first, second)
        });
        tokio::task::yield_now().await;
        sender.send(7u32);
        drop(sender);
        assert_eq!(reader.await.unwrap(), (Ok(7), Err(RecvError::Closed)));
    }
}
