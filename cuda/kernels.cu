/* The CUDA side of sudoku-gpu: the three kernels of seeds/gpu-backtracking-
 * dlx.txt §3, and CP's and CPW's (cuda/cp_tree.h, cuda/cpw_team.h), around
 * the per-tree code they share with the emulator, and the host code of
 * Algorithm 4 lines 3-7: allocate, transfer, launch, wait (stopping the
 * kernel when the driver says so), transfer back.
 *
 * The context and the device buffers are made once and kept (grown when a
 * launch needs more), so that a worker in protocol mode pays CUDA's start
 * once, not per puzzle. A stop reaches running kernels through a flag in
 * device memory that every tree polls (gpu_should_stop), written by a copy
 * on a second stream while the kernel runs: polls of host memory would
 * cross the bus, from every thread, every slice. */
#include "config.h"

#include <cuda_runtime.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "bf_tree.h"
#include "cp_tree.h"
#include "cpw_team.h"
#include "dlx_tree.h"
#include "gpu_run.h"
#include "lib/clock.h"
#include "opbf_team.h"

/* --- the kernels: each thread or block runs the shared per-tree code --- */

/* SPBF: thread i of the grid searches tree i; its board and stack are its
 * slice of the block's shared memory. */
__global__ void spbf_kernel(struct gpu_launch L)
{
	extern __shared__ uint8_t shared[];
	int tree = blockIdx.x * blockDim.x + threadIdx.x;
	if (tree >= L.ntrees)
		return;
	struct bf_tree t;
	spbf_begin(&t, shared + (size_t)threadIdx.x * (size_t)spbf_thread_bytes(L.cells), &L, tree);
	while (spbf_slice(&t, &L)) {
	}
}

/* OPBF: block i searches tree i with one thread per cell; a barrier after
 * every phase (Algorithm 5's __syncthreads). Every thread leaves the loop
 * at the same phase, so no barrier waits for a thread that has left. */
__global__ void __launch_bounds__(1024) opbf_kernel(struct gpu_launch L)
{
	__shared__ struct opbf_shared sh;
	struct opbf_thread me;
	opbf_start(&sh, &me, &L, blockIdx.x, threadIdx.x);
	__syncthreads();
	for (int phase = 0; opbf_phase(&sh, &me, &L, phase); phase = (phase + 1) % OPBF_PHASES)
		__syncthreads();
}

/* PDLX: worker thread w owns Dancing Links workspace w and searches trees
 * w, w + W, ... (W workspaces fit the device memory set aside). */
__global__ void pdlx_kernel(struct gpu_launch L)
{
	int worker = blockIdx.x * blockDim.x + threadIdx.x;
	if (worker >= L.workers)
		return;
	struct dlx_tree x;
	dlx_bind(&x, (int32_t *)((char *)L.work + (size_t)worker * (size_t)L.work_bytes), L.box);
	for (int tree = worker; tree < L.ntrees; tree += L.workers)
		if (pdlx_begin(&x, &L, tree))
			while (pdlx_slice(&x, &L)) {
			}
}

/* CP: thread i of the grid searches tree i; its levels are in local
 * memory (each thread's own, cached in L1). */
__global__ void cpt_kernel(struct gpu_launch L)
{
	int tree = blockIdx.x * blockDim.x + threadIdx.x;
	if (tree >= L.ntrees)
		return;
	struct cpt_tree t;
	cpt_begin(&t, &L, tree);
	while (cpt_slice(&t, &L)) {
	}
}

/* CPW: each warp of the grid searches one tree after another, the next
 * tree from a counter (a warp that drew a hard puzzle does not hold up the
 * trees behind it), with the stack at its slice of the work area. */
__global__ void cpw_kernel(struct gpu_launch L)
{
	extern __shared__ struct cpw_shared warp_shared[];
	const int lane = (int)threadIdx.x % CPW_LANES, w = (int)threadIdx.x / CPW_LANES;
	const int warp = (int)blockIdx.x * ((int)blockDim.x / CPW_LANES) + w;
	if (warp >= L.workers)
		return;
	struct cpw_shared *sh = &warp_shared[w];
	uint16_t *stack = (uint16_t *)((char *)L.work + (size_t)warp * (size_t)L.work_bytes);
	struct cpw_lane me;
	for (;;) {
		int tree = 0;
		if (lane == 0)
			tree = atomicAdd(L.next_tree, 1);
		tree = __shfl_sync(0xffffffffu, tree, 0);
		if (tree >= L.ntrees)
			return;
		int phase = cpw_start(sh, &me, &L, tree, lane, stack);
		__syncwarp();
		while (phase != CPW_END) {
			phase = cpw_phase(sh, &me, &L, phase);
			__syncwarp();
		}
	}
}

/* --- the host side --- */

/* A device buffer kept from launch to launch, grown on demand. */
struct dev_buffer {
	void *p;
	size_t size;
};

/* What a lane's jobs have to themselves: --lanes host threads run jobs at
 * once, each in its lane, and their copies and kernels overlap on the
 * device. */
struct cuda_lane {
	cudaStream_t run, monitor;
	int32_t *stop_host;       /* pinned: the value copied to stop_dev */
	int32_t *stop_dev;        /* device memory: the kernels' stop flag */
	uint64_t *status_host;    /* pinned: trees done, read during a run */
	struct dev_buffer trees, tree_puzzle, ctl, solutions, trees_done, work, next_tree;
	struct dev_buffer tree_masks, spill, spill_puzzle, spill_count; /* CPW's split */
	/* a launch's phases on the stream's clock: before the copies in,
	 * the kernel's start, its end, the last copy out */
	cudaEvent_t phase[4];
};

static struct {
	bool open;
	int device;
	struct gpu_limits lim;
	struct cuda_lane lane[GPU_LANES_MAX];
	int lanes;
	bool cpt_stack_set;
} cu;
/* CP's stack size is the device's, set once, by the first lane to need it */
static pthread_mutex_t cpt_lock = PTHREAD_MUTEX_INITIALIZER;

static int fail(char *err, size_t errsz, const char *what, cudaError_t e)
{
	snprintf(err, errsz, "%s: %s", what, cudaGetErrorString(e));
	return -1;
}

static cudaError_t reserve(struct dev_buffer *b, size_t size)
{
	if (size <= b->size)
		return cudaSuccess;
	if (b->p)
		cudaFree(b->p);
	b->p = NULL;
	b->size = 0;
	cudaError_t e = cudaMalloc(&b->p, size);
	if (e == cudaSuccess)
		b->size = size;
	return e;
}

extern "C" int gpu_cuda_open(struct gpu_limits *lim, int lanes, char *detail, size_t detailsz)
{
	int n = 0;
	cudaError_t e = cudaGetDeviceCount(&n);
	if (e != cudaSuccess || n == 0) {
		snprintf(detail, detailsz, "no CUDA device (%s); --emulate runs the kernels on the CPU",
			 e != cudaSuccess ? cudaGetErrorString(e) : "none found");
		return -1;
	}
	cudaDeviceProp prop;
	cu.device = 0;
	if ((e = cudaGetDeviceProperties(&prop, cu.device)) != cudaSuccess ||
	    (e = cudaSetDevice(cu.device)) != cudaSuccess || (e = cudaFree(0)) != cudaSuccess) {
		snprintf(detail, detailsz, "CUDA device 0 unusable: %s", cudaGetErrorString(e));
		return -1;
	}
	cu.lanes = lanes; /* --lanes's range: 1 to GPU_LANES_MAX */
	for (int k = 0; k < cu.lanes; k++) {
		struct cuda_lane *ln = &cu.lane[k];
		if ((e = cudaStreamCreateWithFlags(&ln->run, cudaStreamNonBlocking)) != cudaSuccess ||
		    (e = cudaStreamCreateWithFlags(&ln->monitor, cudaStreamNonBlocking)) != cudaSuccess ||
		    (e = cudaMallocHost((void **)&ln->stop_host, sizeof *ln->stop_host)) != cudaSuccess ||
		    (e = cudaMalloc((void **)&ln->stop_dev, sizeof *ln->stop_dev)) != cudaSuccess ||
		    (e = cudaMallocHost((void **)&ln->status_host, sizeof *ln->status_host)) != cudaSuccess ||
		    (e = cudaEventCreate(&ln->phase[0])) != cudaSuccess ||
		    (e = cudaEventCreate(&ln->phase[1])) != cudaSuccess ||
		    (e = cudaEventCreate(&ln->phase[2])) != cudaSuccess ||
		    (e = cudaEventCreate(&ln->phase[3])) != cudaSuccess) {
			snprintf(detail, detailsz, "CUDA device 0 unusable: %s", cudaGetErrorString(e));
			return -1;
		}
	}
	/* a device older than the code built (--with-cuda-arch) has no kernel
	 * image: say so now, so that hello says device=none */
	cudaFuncAttributes fa;
	if ((e = cudaFuncGetAttributes(&fa, opbf_kernel)) != cudaSuccess) {
		snprintf(detail, detailsz, "%.60s sm_%d%d: %s (configure --with-cuda-arch)", prop.name,
			 prop.major, prop.minor, cudaGetErrorString(e));
		return -1;
	}
	memset(lim, 0, sizeof *lim);
	lim->max_threads_per_block = prop.maxThreadsPerBlock;
	lim->shared_per_block = (long)prop.sharedMemPerBlockOptin;
	lim->global_mem = (long long)prop.totalGlobalMem;
	lim->multiprocessors = prop.multiProcessorCount;
	lim->cc_major = prop.major;
	lim->cc_minor = prop.minor;
	snprintf(lim->name, sizeof lim->name, "%.95s", prop.name);
	cu.lim = *lim;
	cu.open = true;
	snprintf(detail, detailsz, "%s sm_%d%d, %d SMs, %.0f GB", prop.name, prop.major, prop.minor,
		 prop.multiProcessorCount, (double)prop.totalGlobalMem / 1e9);
	return 0;
}

extern "C" void *gpu_cuda_host_alloc(size_t size)
{
	void *p = NULL;
	return cudaMallocHost(&p, size) == cudaSuccess ? p : NULL;
}

extern "C" void gpu_cuda_host_free(void *p)
{
	if (p)
		cudaFreeHost(p);
}

static void pause_us(long us)
{
	struct timespec ts = {0, us * 1000};
	nanosleep(&ts, NULL);
}

/* How long the wait for a kernel spins before it sleeps: most of a split's
 * relaunches take less, and each sleep adds its 100 us and the timer's
 * slack to the launch. */
#define SPIN_US 1000

/* Sums the puzzles' node counts and reads the trees done, while the kernel
 * runs (copies on the monitor stream, beside the kernel's stream). */
static void report_progress(struct cuda_lane *ln, struct gpu_job *job, const struct gpu_hooks *hooks,
			    struct gpu_ctl *ctl_now)
{
	size_t bytes = (size_t)job->npuzzles * sizeof(struct gpu_ctl);
	if (cudaMemcpyAsync(ctl_now, ln->ctl.p, bytes, cudaMemcpyDeviceToHost, ln->monitor) != cudaSuccess ||
	    cudaMemcpyAsync(ln->status_host, ln->trees_done.p, sizeof(uint64_t), cudaMemcpyDeviceToHost,
			    ln->monitor) != cudaSuccess ||
	    cudaStreamSynchronize(ln->monitor) != cudaSuccess)
		return;
	uint64_t nodes = 0;
	for (int p = 0; p < job->npuzzles; p++)
		nodes += ctl_now[p].nodes;
	hooks->progress(hooks->arg, nodes, *ln->status_host, (uint64_t)job->ntrees);
}

/* The shape of a launch: threads per block, blocks, dynamic shared memory
 * per block. */
struct launch_shape {
	int threads;
	long blocks;
	size_t shared;
};

/* Algorithm 4 line 3: the buffers every method needs (kept from earlier
 * launches when big enough), and the launch's description over them. */
static int reserve_common(struct cuda_lane *ln, const struct gpu_job *job, struct gpu_launch *L, char *err,
			  size_t errsz)
{
	const size_t cells = (size_t)job->cells;
	const size_t ntrees = (size_t)job->ntrees, npuzzles = (size_t)job->npuzzles;
	cudaError_t e;
	if ((e = reserve(&ln->trees, ntrees * cells)) != cudaSuccess ||
	    (e = reserve(&ln->tree_puzzle, ntrees * sizeof(int32_t))) != cudaSuccess ||
	    (e = reserve(&ln->ctl, npuzzles * sizeof(struct gpu_ctl))) != cudaSuccess ||
	    (e = reserve(&ln->solutions, npuzzles * cells)) != cudaSuccess ||
	    (e = reserve(&ln->trees_done, sizeof(uint64_t))) != cudaSuccess)
		return fail(err, errsz, "cudaMalloc", e);
	memset(L, 0, sizeof *L);
	L->box = job->box;
	L->side = job->side;
	L->cells = job->cells;
	L->ntrees = job->ntrees;
	L->trees = (const uint8_t *)ln->trees.p;
	L->tree_puzzle = (const int32_t *)ln->tree_puzzle.p;
	L->ctl = (struct gpu_ctl *)ln->ctl.p;
	L->solutions = (uint8_t *)ln->solutions.p;
	L->count_limit = job->count_limit;
	L->stop = ln->stop_dev;
	L->trees_done = (uint64_t *)ln->trees_done.p;
	L->poll_steps = GPU_POLL_STEPS;
	L->order = job->order;
	return 0;
}

/* SPBF: as many threads a block as their boards and stacks leave room for
 * in shared memory. */
static int shape_spbf(const struct gpu_job *job, struct launch_shape *sh, char *err, size_t errsz)
{
	sh->threads = gpu_spbf_threads(job->threads, job->cells, &cu.lim);
	sh->shared = (size_t)sh->threads * (size_t)spbf_thread_bytes(job->cells);
	sh->blocks = (long)(((size_t)job->ntrees + (size_t)sh->threads - 1) / (size_t)sh->threads);
	cudaError_t e = cudaFuncSetAttribute(spbf_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh->shared);
	return e == cudaSuccess ? 0 : fail(err, errsz, "SPBF shared memory", e);
}

/* PDLX: as many workspaces as a quarter of the free memory holds, at most
 * one per tree. */
static int shape_pdlx(struct cuda_lane *ln, const struct gpu_job *job, struct gpu_launch *L, struct launch_shape *sh,
		      char *err, size_t errsz)
{
	const size_t ntrees = (size_t)job->ntrees;
	size_t free_mem = 0, total = 0;
	cudaError_t e;
	if ((e = cudaMemGetInfo(&free_mem, &total)) != cudaSuccess)
		return fail(err, errsz, "cudaMemGetInfo", e);
	size_t words = (size_t)dlx_workspace_words(job->box);
	size_t fit = (free_mem + ln->work.size) / 4 / (words * sizeof(int32_t));
	size_t workers = fit < ntrees ? fit : ntrees;
	if (workers < 1) {
		snprintf(err, errsz, "not enough device memory for one Dancing Links");
		return -1;
	}
	if ((e = reserve(&ln->work, workers * words * sizeof(int32_t))) != cudaSuccess)
		return fail(err, errsz, "cudaMalloc", e);
	L->work = ln->work.p;
	L->work_bytes = (long)(words * sizeof(int32_t));
	L->workers = (int)workers;
	sh->threads = job->threads;
	sh->blocks = (long)((workers + (size_t)sh->threads - 1) / (size_t)sh->threads);
	return 0;
}

/* CP: a thread a tree; its levels are the kernel's frame, so the device's
 * stack must hold them (set once: a change of the limit reallocates it). */
static int shape_cpt(const struct gpu_job *job, struct launch_shape *sh, char *err, size_t errsz)
{
	sh->threads = job->threads;
	sh->blocks = (long)(((size_t)job->ntrees + (size_t)sh->threads - 1) / (size_t)sh->threads);
	pthread_mutex_lock(&cpt_lock);
	cudaError_t e = cu.cpt_stack_set ? cudaSuccess
					 : cudaDeviceSetLimit(cudaLimitStackSize, sizeof(struct cpt_tree) + 1024);
	cu.cpt_stack_set = e == cudaSuccess;
	pthread_mutex_unlock(&cpt_lock);
	return e == cudaSuccess ? 0 : fail(err, errsz, "CP local memory", e);
}

/* CPW's split: the trees given as masks, and room for the pieces that
 * trees past their passes leave. */
static int reserve_cpw_split(struct cuda_lane *ln, const struct gpu_job *job, struct gpu_launch *L, char *err,
			     size_t errsz)
{
	const size_t cells = (size_t)job->cells, ntrees = (size_t)job->ntrees;
	cudaError_t e;
	if (job->tree_masks) {
		size_t bytes = ntrees * cells * sizeof(uint16_t);
		if ((e = reserve(&ln->tree_masks, bytes)) != cudaSuccess ||
		    (e = cudaMemcpyAsync(ln->tree_masks.p, job->tree_masks, bytes, cudaMemcpyHostToDevice, ln->run)) !=
			    cudaSuccess)
			return fail(err, errsz, "CPW's masks", e);
		L->tree_masks = (const uint16_t *)ln->tree_masks.p;
	}
	if (job->split_passes) {
		size_t cap = (size_t)job->spill_cap;
		if ((e = reserve(&ln->spill, cap * cells * sizeof(uint16_t))) != cudaSuccess ||
		    (e = reserve(&ln->spill_puzzle, cap * sizeof(int32_t))) != cudaSuccess ||
		    (e = reserve(&ln->spill_count, sizeof(int32_t))) != cudaSuccess ||
		    (e = cudaMemsetAsync(ln->spill_count.p, 0, sizeof(int32_t), ln->run)) != cudaSuccess)
			return fail(err, errsz, "CPW's split", e);
		L->split_passes = job->split_passes;
		L->spill = (uint16_t *)ln->spill.p;
		L->spill_puzzle = (int32_t *)ln->spill_puzzle.p;
		L->spill_count = (int32_t *)ln->spill_count.p;
		L->spill_cap = job->spill_cap;
	}
	return 0;
}

/* CPW: whole warps; as many as stay resident (more would only queue), at
 * most one per tree, each with its stack. */
static int shape_cpw(struct cuda_lane *ln, const struct gpu_job *job, struct gpu_launch *L, struct launch_shape *sh,
		     char *err, size_t errsz)
{
	sh->threads = job->threads < CPW_LANES ? CPW_LANES : job->threads / CPW_LANES * CPW_LANES;
	const int warps_per_block = sh->threads / CPW_LANES;
	sh->shared = (size_t)warps_per_block * sizeof(struct cpw_shared);
	cudaError_t e;
	/* past 48 KB (--threads 1024: 32 warps) a block must opt in */
	if ((e = cudaFuncSetAttribute(cpw_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)sh->shared)) !=
	    cudaSuccess)
		return fail(err, errsz, "CPW shared memory", e);
	int per_sm = 0;
	if ((e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, cpw_kernel, sh->threads, sh->shared)) !=
	    cudaSuccess)
		return fail(err, errsz, "CPW occupancy", e);
	size_t warps = (size_t)(per_sm < 1 ? 1 : per_sm) * (size_t)cu.lim.multiprocessors * (size_t)warps_per_block;
	if (warps > (size_t)job->ntrees)
		warps = (size_t)job->ntrees;
	size_t stack = (size_t)cpw_stack_bytes(job->cells);
	if ((e = reserve(&ln->work, warps * stack)) != cudaSuccess ||
	    (e = reserve(&ln->next_tree, sizeof(int32_t))) != cudaSuccess ||
	    (e = cudaMemsetAsync(ln->next_tree.p, 0, sizeof(int32_t), ln->run)) != cudaSuccess)
		return fail(err, errsz, "CPW stacks", e);
	L->work = ln->work.p;
	L->work_bytes = (long)stack;
	L->workers = (int)warps;
	L->next_tree = (int32_t *)ln->next_tree.p;
	if (reserve_cpw_split(ln, job, L, err, errsz) < 0)
		return -1;
	sh->blocks = (long)((warps + (size_t)warps_per_block - 1) / (size_t)warps_per_block);
	return 0;
}

/* The launch's shape for the job's method, and what the method needs
 * beyond the common buffers. */
static int shape_launch(struct cuda_lane *ln, const struct gpu_job *job, struct gpu_launch *L, struct launch_shape *sh,
			char *err, size_t errsz)
{
	memset(sh, 0, sizeof *sh);
	switch (job->method) {
	case GPU_SPBF:
		return shape_spbf(job, sh, err, errsz);
	case GPU_OPBF:
		sh->threads = job->cells; /* a thread a cell, a block a tree */
		sh->blocks = job->ntrees;
		return 0;
	case GPU_PDLX:
		return shape_pdlx(ln, job, L, sh, err, errsz);
	case GPU_CPT:
		return shape_cpt(job, sh, err, errsz);
	case GPU_CPW:
		return shape_cpw(ln, job, L, sh, err, errsz);
	}
	return 0;
}

/* Algorithm 4 line 4: the transfer (of the boards, unless the trees are
 * CPW's masks; of the counts and solutions, unless they stayed on the
 * device from the launch before), and the flags cleared. */
static int copy_in(struct cuda_lane *ln, const struct gpu_job *job, char *err, size_t errsz)
{
	const size_t cells = (size_t)job->cells;
	const size_t ntrees = (size_t)job->ntrees, npuzzles = (size_t)job->npuzzles;
	cudaError_t e;
	if ((e = cudaEventRecord(ln->phase[0], ln->run)) != cudaSuccess ||
	    (job->trees && (e = cudaMemcpyAsync(ln->trees.p, job->trees, ntrees * cells, cudaMemcpyHostToDevice,
						 ln->run)) != cudaSuccess) ||
	    (e = cudaMemcpyAsync(ln->tree_puzzle.p, job->tree_puzzle, ntrees * sizeof(int32_t),
				 cudaMemcpyHostToDevice, ln->run)) != cudaSuccess ||
	    (!job->resident && (e = cudaMemcpyAsync(ln->ctl.p, job->ctl, npuzzles * sizeof(struct gpu_ctl),
						     cudaMemcpyHostToDevice, ln->run)) != cudaSuccess) ||
	    (!job->resident && (e = cudaMemcpyAsync(ln->solutions.p, job->solutions, npuzzles * cells,
						     cudaMemcpyHostToDevice, ln->run)) != cudaSuccess) ||
	    (e = cudaMemsetAsync(ln->trees_done.p, 0, sizeof(uint64_t), ln->run)) != cudaSuccess ||
	    (e = cudaMemsetAsync(ln->stop_dev, 0, sizeof *ln->stop_dev, ln->run)) != cudaSuccess ||
	    (e = cudaEventRecord(ln->phase[1], ln->run)) != cudaSuccess)
		return fail(err, errsz, "copy to the device", e);
	return 0;
}

/* Algorithm 4 line 5: the kernel of the job's method, on the lane's run
 * stream. */
static int start_kernel(struct cuda_lane *ln, const struct gpu_job *job, const struct gpu_launch *L,
			const struct launch_shape *sh, char *err, size_t errsz)
{
	const unsigned blocks = (unsigned)sh->blocks;
	switch (job->method) {
	case GPU_SPBF:
		spbf_kernel<<<blocks, sh->threads, sh->shared, ln->run>>>(*L);
		break;
	case GPU_OPBF:
		opbf_kernel<<<blocks, sh->threads, 0, ln->run>>>(*L);
		break;
	case GPU_PDLX:
		pdlx_kernel<<<blocks, sh->threads, 0, ln->run>>>(*L);
		break;
	case GPU_CPT:
		cpt_kernel<<<blocks, sh->threads, 0, ln->run>>>(*L);
		break;
	case GPU_CPW:
		cpw_kernel<<<blocks, sh->threads, sh->shared, ln->run>>>(*L);
		break;
	}
	cudaError_t e;
	if ((e = cudaGetLastError()) != cudaSuccess || (e = cudaEventRecord(ln->phase[2], ln->run)) != cudaSuccess)
		return fail(err, errsz, "kernel launch", e);
	return 0;
}

/* Waits for the kernel: spinning at first, then passing on the driver's
 * stop and reporting progress (copies on the monitor stream, beside the
 * kernel's) between pauses. */
static int wait_kernel(struct cuda_lane *ln, struct gpu_job *job, const struct gpu_hooks *hooks, char *err,
		       size_t errsz)
{
	cudaError_t e;
	const uint64_t spin_until = now_ns() + SPIN_US * 1000ull;
	while ((e = cudaStreamQuery(ln->run)) == cudaErrorNotReady && now_ns() < spin_until)
		;
	struct gpu_ctl *ctl_now = NULL;
	for (; e == cudaErrorNotReady; e = cudaStreamQuery(ln->run)) {
		if (!job->stopped && hooks->stop_now(hooks->arg)) {
			*ln->stop_host = 1;
			if ((e = cudaMemcpyAsync(ln->stop_dev, ln->stop_host, sizeof *ln->stop_dev, cudaMemcpyHostToDevice,
						 ln->monitor)) != cudaSuccess ||
			    (e = cudaStreamSynchronize(ln->monitor)) != cudaSuccess) {
				if (ctl_now)
					cudaFreeHost(ctl_now);
				return fail(err, errsz, "stopping the kernel", e);
			}
			job->stopped = true;
		}
		if (hooks->progress_due(hooks->arg)) {
			if (!ctl_now && cudaMallocHost((void **)&ctl_now, (size_t)job->npuzzles * sizeof *ctl_now) !=
						cudaSuccess)
				ctl_now = NULL;
			if (ctl_now)
				report_progress(ln, job, hooks, ctl_now);
		}
		pause_us(100);
	}
	if (ctl_now)
		cudaFreeHost(ctl_now);
	return e == cudaSuccess ? 0 : fail(err, errsz, "kernel", e);
}

/* Algorithm 4 line 6: the results back, copied once the kernel is done
 * (the caller's arrays may be pageable, and a copy into those would block
 * the wait). With pieces left for a relaunch, the solutions stay on the
 * device until the last launch: the copies cost more than the later
 * kernels. */
static int copy_out(struct cuda_lane *ln, struct gpu_job *job, const struct gpu_launch *L, char *err, size_t errsz)
{
	const size_t cells = (size_t)job->cells, npuzzles = (size_t)job->npuzzles;
	cudaError_t e;
	if ((e = cudaMemcpyAsync(job->ctl, ln->ctl.p, npuzzles * sizeof(struct gpu_ctl), cudaMemcpyDeviceToHost,
				 ln->run)) != cudaSuccess)
		return fail(err, errsz, "copy from the device", e);
	job->nspill = 0;
	if (L->split_passes && !job->stopped) {
		int32_t n = 0;
		if ((e = cudaMemcpyAsync(&n, ln->spill_count.p, sizeof n, cudaMemcpyDeviceToHost, ln->run)) !=
			    cudaSuccess ||
		    (e = cudaStreamSynchronize(ln->run)) != cudaSuccess ||
		    (e = cudaMemcpyAsync(job->spill, ln->spill.p, (size_t)n * cells * sizeof(uint16_t),
					 cudaMemcpyDeviceToHost, ln->run)) != cudaSuccess ||
		    (e = cudaMemcpyAsync(job->spill_puzzle, ln->spill_puzzle.p, (size_t)n * sizeof(int32_t),
					 cudaMemcpyDeviceToHost, ln->run)) != cudaSuccess ||
		    (e = cudaStreamSynchronize(ln->run)) != cudaSuccess)
			return fail(err, errsz, "copy of CPW's split from the device", e);
		job->nspill = gpu_keep_open_pieces(job, n);
	}
	if ((job->nspill == 0 && (e = cudaMemcpyAsync(job->solutions, ln->solutions.p, npuzzles * cells,
						      cudaMemcpyDeviceToHost, ln->run)) != cudaSuccess) ||
	    (e = cudaEventRecord(ln->phase[3], ln->run)) != cudaSuccess ||
	    (e = cudaStreamSynchronize(ln->run)) != cudaSuccess)
		return fail(err, errsz, "copy from the device", e);
	return 0;
}

/* The phases' times, on the stream's clock; the copy out's includes the
 * wait's last poll. */
static void phase_times(struct cuda_lane *ln, struct gpu_job *job)
{
	float ms[3] = {0, 0, 0};
	for (int k = 0; k < 3; k++)
		if (cudaEventElapsedTime(&ms[k], ln->phase[k], ln->phase[k + 1]) != cudaSuccess)
			ms[k] = 0;
	job->copy_in_ms = ms[0];
	job->kernel_ms = ms[1];
	job->copy_out_ms = ms[2];
}

/* Algorithm 4 lines 3-6 for one job; line 7 (checking the results) is the
 * caller's. */
extern "C" int gpu_cuda_run(struct gpu_job *job, const struct gpu_hooks *hooks, char *err, size_t errsz)
{
	if (!cu.open || job->lane < 0 || job->lane >= cu.lanes) {
		snprintf(err, errsz, "no device");
		return -1;
	}
	struct cuda_lane *ln = &cu.lane[job->lane];
	struct gpu_launch L;
	struct launch_shape sh;
	job->stopped = false;
	if (reserve_common(ln, job, &L, err, errsz) < 0 || shape_launch(ln, job, &L, &sh, err, errsz) < 0)
		return -1;
	job->threads_used = sh.threads;
	if (copy_in(ln, job, err, errsz) < 0 || start_kernel(ln, job, &L, &sh, err, errsz) < 0 ||
	    wait_kernel(ln, job, hooks, err, errsz) < 0 || copy_out(ln, job, &L, err, errsz) < 0)
		return -1;
	phase_times(ln, job);
	return 0;
}
