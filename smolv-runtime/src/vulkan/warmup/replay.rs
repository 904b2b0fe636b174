//! Replay: a recording's pipelines built ahead on the manager's workers,
//! within a budget, in the order the game will want them.

use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Condvar, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use ash::vk;

use super::recording::{RecordedKind, Recording};
use super::stage::{RecordedStage, ShaderChange};
use crate::reflect::Reflection;
use crate::vulkan::pipelines::{GraphicsProgram, PipelineManager, Stage};
use crate::vulkan::state::GraphicsState;
use crate::vulkan::{lock, wait_for};
use smolv_codec::specialize::Value;

/// A shader as the game has it now, for a recorded name.
#[derive(Clone, Debug)]
pub struct ReplayShader {
    /// Its SPIR-V words.
    pub spirv: Vec<u32>,
    /// Its reflection, made from those words.
    pub reflection: Reflection,
}

/// How much of the machine and of the clock a replay may take.
///
/// ```
/// use std::time::Duration;
/// use smolv_runtime::vulkan::warmup::ReplayBudget;
/// let budget = ReplayBudget::new().threads(2).time(Duration::from_secs(5)).scopes_first(["menu"]);
/// assert_eq!(budget.threads, 2);
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ReplayBudget {
    /// How many of the manager's [`workers`](crate::vulkan::PipelineOptions#structfield.workers) build the
    /// replay's pipelines (at least 1; default 1).
    pub threads: usize,
    /// After this long, no new pipeline is started (default: no limit).
    pub time: Option<Duration>,
    /// These scopes first, in this order, then the rest in first-use order.
    pub scopes_first: Vec<String>,
}

impl Default for ReplayBudget {
    fn default() -> Self {
        Self::new()
    }
}

impl ReplayBudget {
    /// One worker, no time limit, no scope first.
    pub fn new() -> Self {
        Self { threads: 1, time: None, scopes_first: Vec::new() }
    }

    /// Sets how many of the manager's workers the replay takes.
    #[must_use]
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }

    /// Sets the time limit.
    #[must_use]
    pub fn time(mut self, time: Duration) -> Self {
        self.time = Some(time);
        self
    }

    /// Sets the scopes to build first.
    #[must_use]
    pub fn scopes_first<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes_first = scopes.into_iter().map(Into::into).collect();
        self
    }
}

/// Where a replay stands, for a loading screen.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReplayProgress {
    /// Pipelines built (or found built).
    pub done: usize,
    /// Pipelines the replay is to build (entries dropped up front excluded).
    pub total: usize,
    /// Entries built with a changed shader whose interface still matched.
    pub rebuilt: usize,
    /// Entries dropped up front: a shader the game no longer has, or whose interface changed.
    pub dropped: usize,
    /// Entries whose build failed (the game builds them when it asks).
    pub failed: usize,
    /// Entries not started: cancelled, or past the time budget.
    pub abandoned: usize,
    /// Per scope (`None`: entries without one), `(scope, finished, total)`; finished: built, failed or abandoned.
    pub scopes: Vec<(Option<String>, usize, usize)>,
}

impl ReplayProgress {
    /// Whether nothing is left to run.
    pub fn finished(&self) -> bool {
        self.done + self.failed + self.abandoned >= self.total
    }
}

/// A stage to build with: its Vulkan stage, the index of its shader, its values.
type BuildStage = (vk::ShaderStageFlags, usize, Vec<(u32, Value)>);

struct Job {
    scope: Option<String>,
    stages: Vec<BuildStage>,
    /// `None`: a compute pipeline.
    state: Option<Box<GraphicsState>>,
}

/// What the replay's share of the workers works through.
struct Shared {
    /// Weak: a worker must never drop the manager, which joins its workers ([`Replay`] holds a strong one).
    manager: Weak<PipelineManager>,
    shaders: Vec<ReplayShader>,
    queue: Mutex<VecDeque<Job>>,
    progress: Mutex<ReplayProgress>,
    changed: Condvar,
    deadline: Option<Instant>,
    /// The pumps running on workers, and whether the replay was cancelled.
    pumps: Mutex<Pumps>,
    pumps_changed: Condvar,
}

/// One lock, so that no pump starts once [`Replay`]'s drop saw none running.
#[derive(Default)]
struct Pumps {
    running: usize,
    cancelled: bool,
}

/// A replay in progress: see [`start`](Self::start). Dropping it cancels what has not started and waits for what has.
pub struct Replay {
    shared: Arc<Shared>,
    /// Keeps the manager, and so its workers, alive while pumps run.
    _manager: Arc<PipelineManager>,
}

impl std::fmt::Debug for Replay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Replay").field("progress", &self.progress()).finish()
    }
}

/// A recorded stage to build with its shader now, and whether its code changed; `None`: gone, or another interface.
fn resolve(
    stage: &RecordedStage,
    shaders: &mut Vec<ReplayShader>,
    names: &mut BTreeMap<String, Option<usize>>,
    find: &mut impl FnMut(&str) -> Option<ReplayShader>,
) -> Option<(BuildStage, bool)> {
    let index = *names.entry(stage.name.clone()).or_insert_with(|| {
        let shader = if stage.name.is_empty() { None } else { find(&stage.name) }?;
        shaders.push(shader);
        Some(shaders.len() - 1)
    });
    let shader = &shaders[index?];
    let change = stage.compare(&shader.spirv, &shader.reflection);
    let build = (stage.stage, index?, stage.specialization.clone());
    (change != ShaderChange::InterfaceChanged).then_some((build, change == ShaderChange::CodeChanged))
}

impl Replay {
    /// Starts building the pipelines of `recording` on `budget.threads` of `manager`'s workers, `budget.scopes_first`
    /// first, then in first-use order, and returns at once (without workers, once all are built). `find` gives the
    /// game's shader for each recorded name, once per name: an entry whose shader is gone or changed its interface
    /// is dropped.
    ///
    /// # Safety
    /// As [`PipelineManager::get_program_pipeline`] for every entry:
    /// - the shaders `find` gives are valid SPIR-V described by their reflections;
    /// - the recording's states are valid for the device (one from elsewhere can name formats it lacks).
    pub unsafe fn start(
        manager: Arc<PipelineManager>,
        recording: &Recording,
        budget: &ReplayBudget,
        mut find: impl FnMut(&str) -> Option<ReplayShader>,
    ) -> Self {
        let mut shaders = Vec::new();
        let mut names = BTreeMap::new();
        let mut progress = ReplayProgress::default();
        let mut jobs = Vec::new();
        let mut scopes: BTreeMap<Option<String>, usize> = BTreeMap::new();
        for entry in &recording.entries {
            let resolved = entry.stages().iter().map(|stage| resolve(stage, &mut shaders, &mut names, &mut find));
            let Some((stages, changed)) = resolved.collect::<Option<(Vec<_>, Vec<bool>)>>() else {
                progress.dropped += 1;
                continue;
            };
            progress.rebuilt += usize::from(changed.contains(&true));
            let state = match &entry.kind {
                RecordedKind::Graphics { state, .. } => Some(Box::new(state.clone())),
                RecordedKind::Compute { .. } => None,
            };
            let first = &budget.scopes_first;
            let rank = entry.scope.as_ref().and_then(|s| first.iter().position(|f| f == s)).unwrap_or(first.len());
            *scopes.entry(entry.scope.clone()).or_default() += 1;
            jobs.push((rank, entry.order, Job { scope: entry.scope.clone(), stages, state }));
        }
        jobs.sort_by_key(|&(rank, order, _)| (rank, order));
        progress.total = jobs.len();
        progress.scopes = scopes.into_iter().map(|(scope, total)| (scope, 0, total)).collect();
        let pumps = budget.threads.clamp(1, manager.worker_count().max(1));
        let shared = Arc::new(Shared {
            manager: Arc::downgrade(&manager),
            shaders,
            queue: Mutex::new(jobs.into_iter().map(|(_, _, job)| job).collect()),
            progress: Mutex::new(progress),
            changed: Condvar::new(),
            deadline: budget.time.and_then(|time| Instant::now().checked_add(time)),
            pumps: Mutex::new(Pumps::default()),
            pumps_changed: Condvar::new(),
        });
        for _ in 0..pumps {
            // SAFETY: the caller's contract covers every entry.
            unsafe { queue_pump(&manager, &shared) };
        }
        Self { shared, _manager: manager }
    }

    /// Where the replay stands now.
    pub fn progress(&self) -> ReplayProgress {
        lock(&self.shared.progress).clone()
    }

    /// Waits at most `timeout` for every pipeline of `scope` (`None`: those without one); whether they finished.
    pub fn wait_scope(&self, scope: Option<&str>, timeout: Duration) -> bool {
        self.wait_until(timeout, |p| {
            p.finished()
                || p.scopes.iter().filter(|(s, ..)| s.as_deref() == scope).all(|&(_, done, total)| done >= total)
        })
    }

    /// Waits at most `timeout` for the whole replay; whether it finished.
    pub fn wait(&self, timeout: Duration) -> bool {
        self.wait_until(timeout, ReplayProgress::finished)
    }

    fn wait_until(&self, timeout: Duration, done: impl Fn(&ReplayProgress) -> bool) -> bool {
        wait_for(&self.shared.changed, lock(&self.shared.progress), timeout, |p| done(p).then_some(())).is_some()
    }

    /// Starts nothing more: what is building finishes, the rest is abandoned.
    pub fn cancel(&self) {
        lock(&self.shared.pumps).cancelled = true;
        self.shared.abandon_rest();
    }
}

impl Drop for Replay {
    fn drop(&mut self) {
        self.cancel();
        // Running pumps finish before `_manager` may drop the manager; queued ones see the cancel.
        let running = self.shared.pumps_changed.wait_while(lock(&self.shared.pumps), |pumps| pumps.running > 0);
        drop(running.unwrap_or_else(PoisonError::into_inner));
    }
}

/// Queues one turn of the replay on `manager`'s workers.
///
/// # Safety
/// The contract of [`Replay::start`].
unsafe fn queue_pump(manager: &PipelineManager, shared: &Arc<Shared>) {
    let pump = Arc::clone(shared);
    // SAFETY: this function's contract.
    manager.run_on_worker(Box::new(move || unsafe { pump.pump() }));
}

/// Counts a pump out of [`Pumps::running`] when dropped, panics included.
struct Running<'a>(&'a Shared);

impl Drop for Running<'_> {
    fn drop(&mut self) {
        lock(&self.0.pumps).running -= 1;
        self.0.pumps_changed.notify_all();
    }
}

impl Shared {
    fn abandon_rest(&self) {
        let left = std::mem::take(&mut *lock(&self.queue));
        self.finished(&left, |p| p.abandoned += left.len());
    }

    /// Counts `jobs` finished, in their scopes and as `count` says, and tells the waiters.
    fn finished<'j>(&self, jobs: impl IntoIterator<Item = &'j Job>, count: impl FnOnce(&mut ReplayProgress)) {
        let mut progress = lock(&self.progress);
        count(&mut progress);
        for job in jobs {
            if let Some(scope) = progress.scopes.iter_mut().find(|(s, ..)| *s == job.scope) {
                scope.1 += 1;
            }
        }
        drop(progress);
        self.changed.notify_all();
    }

    /// One turn of a worker: builds the next entry, then queues the next turn behind what was queued meanwhile, so
    /// that the replay never holds the workers for long. Without workers it builds every entry.
    ///
    /// # Safety
    /// The contract of [`Replay::start`].
    unsafe fn pump(self: Arc<Self>) {
        {
            let mut pumps = lock(&self.pumps);
            if pumps.cancelled {
                return;
            }
            pumps.running += 1;
        }
        let _running = Running(&self);
        // `Replay` keeps a strong reference while pumps run; declared after
        // `_running`, this one goes before the pump is counted out.
        let Some(manager) = self.manager.upgrade() else {
            self.abandon_rest();
            return;
        };
        loop {
            // SAFETY: this function's contract.
            if !unsafe { self.build_next(&manager) } {
                return;
            }
            if manager.worker_count() > 0 {
                // SAFETY: this function's contract.
                unsafe { queue_pump(&manager, &self) };
                return;
            }
        }
    }

    /// Builds the next entry, unless cancelled or past time; whether entries are left.
    ///
    /// # Safety
    /// The contract of [`Replay::start`].
    unsafe fn build_next(&self, manager: &PipelineManager) -> bool {
        if lock(&self.pumps).cancelled || self.deadline.is_some_and(|d| Instant::now() >= d) {
            self.abandon_rest();
            return false;
        }
        let Some(job) = lock(&self.queue).pop_front() else { return false };
        // SAFETY: this function's contract.
        let built = unsafe { self.build(manager, &job) };
        self.finished([&job], |p| if built { p.done += 1 } else { p.failed += 1 });
        !lock(&self.queue).is_empty()
    }

    /// # Safety
    /// The contract of [`Replay::start`].
    unsafe fn build(&self, manager: &PipelineManager, job: &Job) -> bool {
        let find = |flags: vk::ShaderStageFlags| {
            let (_, index, values) = job.stages.iter().find(|(f, ..)| *f == flags)?;
            let shader = &self.shaders[*index];
            Some(Stage { spirv: &shader.spirv, reflection: &shader.reflection, specialization: values })
        };
        let Some(state) = &job.state else {
            let Some(stage) = find(vk::ShaderStageFlags::COMPUTE) else { return false };
            // Built here: queued behind this pump, it would wait for it.
            // SAFETY: this function's contract.
            let slot = unsafe { manager.compute_slot(&stage, false, true) };
            // Not ready: being built for the game, which asked meanwhile.
            return slot.is_ok_and(|slot| !slot.is_ready() || slot.pipeline().is_some());
        };
        let (Some(vertex), Some(fragment)) = (find(vk::ShaderStageFlags::VERTEX), find(vk::ShaderStageFlags::FRAGMENT))
        else {
            return false;
        };
        let tessellation = find(vk::ShaderStageFlags::TESSELLATION_CONTROL)
            .zip(find(vk::ShaderStageFlags::TESSELLATION_EVALUATION))
            .map(|(c, e)| [c, e]);
        let program =
            GraphicsProgram { vertex, tessellation, geometry: find(vk::ShaderStageFlags::GEOMETRY), fragment };
        // SAFETY: this function's contract.
        unsafe { manager.program_pipeline(&program, state) }.is_ok()
    }
}
