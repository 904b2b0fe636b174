//! The manager's background workers.

use std::collections::VecDeque;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;

use ash::vk;

use super::rebuild_job::{ComputeRebuild, GraphicsRebuild};
use super::slot::PipelineSlot;
use crate::vulkan::compute::{ComputeJob, ComputeSlot};
use crate::vulkan::lock;

pub(super) enum Job {
    /// Link the libraries optimized and swap the result in.
    Link { slot: Arc<PipelineSlot>, libraries: [vk::Pipeline; 4], request: u64 },
    /// Create a compute pipeline and fill the slot.
    Compute { slot: Arc<ComputeSlot>, job: ComputeJob },
    /// Build a changed graphics pipeline again and swap it in.
    Rebuild(Box<GraphicsRebuild>),
    /// Create a changed compute pipeline again and swap it in.
    RebuildCompute(ComputeRebuild),
    /// A replay's turn.
    Task(Box<dyn FnOnce() + Send>),
}

impl Job {
    /// # Safety
    /// The job's handles are `device`'s, `cache` is null or `device`'s, and its code is valid SPIR-V.
    pub(super) unsafe fn run(self, device: &ash::Device, cache: vk::PipelineCache) {
        match self {
            Self::Link { slot, libraries, request } => {
                // SAFETY: this function's contract; the libraries have the slot's layout.
                unsafe { slot.link_optimized(device, cache, &libraries, request) };
            }
            Self::Compute { slot, job } => {
                // SAFETY: this function's contract.
                let created = unsafe { job.create(device, cache) };
                slot.finish(created.map_err(|e| e.result()));
            }
            // SAFETY: this function's contract.
            Self::Rebuild(job) => unsafe { job.run(device, cache) },
            // SAFETY: this function's contract.
            Self::RebuildCompute(job) => unsafe { job.run(device, cache) },
            Self::Task(task) => task(),
        }
    }
}

/// The jobs waiting: the urgent ones (what a caller may wait for) before the optimized links.
#[derive(Default)]
struct Queue {
    urgent: VecDeque<Job>,
    links: VecDeque<Job>,
    /// Set by [`Workers::stop`]: the workers return once both queues are empty.
    closed: bool,
    /// Workers running (a thread that panicked counts itself out).
    alive: usize,
}

impl Queue {
    fn pop(&mut self) -> Option<Job> {
        self.urgent.pop_front().or_else(|| self.links.pop_front())
    }
}

#[derive(Default)]
struct Shared {
    queue: Mutex<Queue>,
    queued: Condvar,
}

/// Counts a worker out of [`Queue::alive`] when its thread ends.
struct Alive(Arc<Shared>);

impl Drop for Alive {
    fn drop(&mut self) {
        lock(&self.0.queue).alive -= 1;
    }
}

/// Threads that run [`Job`]s: urgent ones first, then optimized links.
pub(super) struct Workers {
    device: ash::Device,
    cache: vk::PipelineCache,
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl Workers {
    /// Starts `count` workers (at least one).
    ///
    /// # Safety
    /// `cache` is null or `device`'s; every job queued holds valid SPIR-V and handles of `device` valid until
    /// [`stop`](Self::stop) returns.
    pub(super) unsafe fn start(device: &ash::Device, cache: vk::PipelineCache, count: usize) -> Self {
        let shared = Arc::new(Shared::default());
        let threads = (0..count.max(1))
            .filter_map(|_| {
                lock(&shared.queue).alive += 1;
                let alive = Alive(Arc::clone(&shared));
                let device = device.clone();
                // A refused thread is a worker less; with none, `submit` runs jobs on the caller's thread.
                std::thread::Builder::new()
                    .name("smolv-pipelines".to_owned())
                    .spawn(move || {
                        loop {
                            let idle =
                                |queue: &mut Queue| queue.urgent.is_empty() && queue.links.is_empty() && !queue.closed;
                            let queued = alive.0.queued.wait_while(lock(&alive.0.queue), idle);
                            // Empty only once closed.
                            let Some(job) = queued.unwrap_or_else(PoisonError::into_inner).pop() else { return };
                            // SAFETY: `start`'s contract: valid until `stop` has joined this thread.
                            unsafe { job.run(&device, cache) };
                        }
                    })
                    .ok()
            })
            .collect();
        Self { device: device.clone(), cache, shared, threads }
    }

    /// Queues `job`, or runs it on this thread where no worker is left.
    pub(super) fn submit(&self, job: Job) {
        let mut queue = lock(&self.shared.queue);
        if queue.alive == 0 || queue.closed {
            drop(queue);
            // SAFETY: the contract of `start` covers every job queued.
            unsafe { job.run(&self.device, self.cache) };
            return;
        }
        let lane = if matches!(job, Job::Link { .. }) { &mut queue.links } else { &mut queue.urgent };
        lane.push_back(job);
        drop(queue);
        self.shared.queued.notify_one();
    }

    /// How many workers run (0 once stopped).
    pub(super) fn count(&self) -> usize {
        let queue = lock(&self.shared.queue);
        if queue.closed { 0 } else { queue.alive }
    }

    /// Lets the workers finish the jobs already queued, then joins them.
    pub(super) fn stop(&mut self) {
        lock(&self.shared.queue).closed = true;
        self.shared.queued.notify_all();
        for thread in self.threads.drain(..) {
            let _ = thread.join();
        }
        // Jobs no worker took are dropped before the manager destroys what they hold.
        let mut queue = lock(&self.shared.queue);
        let left = (std::mem::take(&mut queue.urgent), std::mem::take(&mut queue.links));
        drop(queue);
        drop(left);
    }
}

impl Drop for Workers {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urgent_jobs_come_before_optimized_links_each_in_order() {
        let order = Arc::new(Mutex::new(Vec::new()));
        let job = |n: u32| {
            let order = Arc::clone(&order);
            Job::Task(Box::new(move || lock(&order).push(n)))
        };
        let mut queue = Queue::default();
        queue.links.push_back(job(1));
        queue.urgent.push_back(job(2));
        queue.links.push_back(job(3));
        queue.urgent.push_back(job(4));
        while let Some(Job::Task(task)) = queue.pop() {
            task();
        }
        assert_eq!(*lock(&order), [2, 4, 1, 3]);
    }
}
