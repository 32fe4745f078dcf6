/* sudoku-gpu: the GPU paper's parallel methods (seeds/gpu-backtracking-
 * dlx.txt §3): Algorithm 4's CPU-GPU search. For each launch: expand each
 * puzzle breadth first on the CPU to an expand size s (cuda/expand.c), one
 * transfer of the trees, the kernel (--method: SPBF §3.1, OPBF §3.2 /
 * Algorithm 5, PDLX §3.3; not the paper's, CP, propagation per thread, and
 * CPW, the same by a warp), the results back; the first answer of a puzzle
 * wins (a flag set atomically, §3.1). A batch of puzzles shares launches:
 * their trees form one frontier. --emulate runs the kernels' own per-tree
 * code on the CPU (cuda/emulate.c). Complete: all trees exhausted without
 * an answer proves there is none; counting adds up the trees' solutions.
 * The driver solves --lanes batches at once (2): each takes a lane of its
 * own (host arrays here; streams and device buffers in kernels.cu), so one
 * batch's expansion overlaps the others' launches.
 * --method=auto, the default, takes CPW up to 16x16 and PDLX by the
 * smallest column beyond; a search in brute force's order that runs long
 * says so (SLOW_NOTICE_MS). */
#include "config.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "gpu_run.h"
#include "lib/clock.h"
#include "workers/worker.h"

/* --method's last choice: the method that fits each grid size */
#define METHOD_AUTO (GPU_CPW + 1)
static int method = METHOD_AUTO;
static int expand_size;       /* 0: the method's default */
static int threads_per_block; /* 0: the default */
static bool emulate;
static int dlx_column = ORDER_ROWS;
/* CPW's split: the passes a tree runs before it hands its open work on to
 * warps left idle. Most puzzles need far fewer; a smaller split cuts a hard
 * set's trees into long chains of relaunches of a few trees, a larger one
 * leaves warps idle behind the long trees. 1000: the best end-to-end time
 * on both of contrib/bench/gpu-h100.md's sets ("The split"). */
#define DEFAULT_SPLIT 1000
static int split_passes = DEFAULT_SPLIT;
/* batches at once: two keep the device busy while one is on the CPU */
static int nlanes = 2;

/* The driver wraps each option's help; a '\n' starts a line of a list. */
static const struct worker_option gpu_options[] = {
	{"method", OPT_CHOICE, &method, 0, 0, "spbf|opbf|pdlx|cp|cpw|auto",
	 "the search on the GPU (§3's three, and two not the paper's; cpw is the one for "
	 "batches):\n"
	 "spbf: a thread per tree, boxes 2x2 to 8x8;\n"
	 "opbf: a thread per cell of a tree, boxes 2x2 to 5x5;\n"
	 "pdlx: Dancing Links per thread, boxes 2x2 to 8x8;\n"
	 "cp: sudoku-cp's search by a thread, boxes 2x2, 3x3;\n"
	 "cpw: cp's search by a warp per tree, boxes 2x2 to 4x4;\n"
	 "auto: cpw up to 16x16, pdlx --column=smallest beyond\n"
	 "spbf, opbf and pdlx search in brute force's order: hours on some hard puzzles\n"},
	{"expand", OPT_INT, &expand_size, 0, 1 << 22, NULL,
	 "expand size s: search trees per puzzle from the CPU's breadth-first expansion; 0: the "
	 "launch's total shared by its puzzles (SPBF 32768, OPBF 2048, PDLX 8192; at least 1; CP "
	 "and CPW 1)"},
	{"threads", OPT_INT, &threads_per_block, 0, 1024, NULL,
	 "threads per block of SPBF, PDLX, CP and CPW; 0: 64 (SPBF takes fewer when the shared "
	 "memory holds fewer boards; CPW whole warps of 32)"},
	{"column", OPT_CHOICE, &dlx_column, 0, 0, "first|smallest",
	 "PDLX's column to branch on: first (Algorithm 3, the brute force's order) or smallest "
	 "(the one with the fewest rows, Knuth's heuristic)"},
	{"split", OPT_INT, &split_passes, 0, 1 << 30, NULL,
	 "CPW: a tree that has run N propagation passes in a launch hands its open work (its "
	 "node, the digits left on its stack) to the next launch, where idle warps share it; 0: "
	 "never"},
	{"lanes", OPT_INT, &nlanes, 1, GPU_LANES_MAX, NULL,
	 "batches solved at once, each by a CPU thread of its own with its own CUDA streams and "
	 "page-locked arrays: one's expansion and answers on the CPU beside the others' launches"},
	{"emulate", OPT_FLAG, &emulate, 0, 0, NULL, "run the kernels' code on the CPU (no GPU needed)"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* Table 2's best parameters, the most frequent per method: trees per
 * launch, and threads per block. */
static const long default_trees[] = {[GPU_SPBF] = 32768, [GPU_OPBF] = 2048, [GPU_PDLX] = 8192,
				     /* propagation leaves little to share out: a tree per puzzle */
				     [GPU_CPT] = 1, [GPU_CPW] = 1};
#define DEFAULT_THREADS 64
/* The most a launch's trees take on the host (and, copied, on the device). */
#define FRONTIER_BYTES (256L << 20)
/* The most CPW's split pieces of one launch take, on each side. */
#define SPILL_BYTES (64L << 20)

static struct gpu_limits limits;
static bool usable;

/* --- host memory for the launches --- */

/* The runner's memory: page-locked for CUDA (the copies run at the bus's
 * speed), malloc's emulated. */
static void *host_alloc(size_t size)
{
	return emulate ? malloc(size) : gpu_cuda_host_alloc(size);
}

static void host_release(void *p)
{
	if (emulate)
		free(p);
	else
		gpu_cuda_host_free(p);
}

/* An array kept from launch to launch and batch to batch, grown on demand:
 * page-locked memory costs more to get than to keep. */
struct host_array {
	void *p;
	size_t size;
};

static void *host_reserve(struct host_array *a, size_t size)
{
	if (size > a->size) {
		host_release(a->p);
		a->p = host_alloc(size);
		a->size = a->p ? size : 0;
	}
	return a->p;
}

/* A lane runs one batch at a time, with its own host arrays and, on the
 * device, its own streams and buffers. */
struct lane {
	bool busy;
	struct frontier frontier;                        /* the trees of a launch */
	struct host_array ctl_memory, solutions_memory; /* a launch's puzzles' */
	struct host_array spill_memory[2], spill_puzzle_memory[2]; /* CPW's pieces, in and out */
};
static struct lane lanes[GPU_LANES_MAX];
static pthread_mutex_t lane_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t lane_free = PTHREAD_COND_INITIALIZER;

static int lane_take(void)
{
	pthread_mutex_lock(&lane_lock);
	int k;
	for (;;) {
		for (k = 0; k < nlanes && lanes[k].busy; k++)
			;
		if (k < nlanes)
			break;
		pthread_cond_wait(&lane_free, &lane_lock);
	}
	lanes[k].busy = true;
	pthread_mutex_unlock(&lane_lock);
	return k;
}

static void lane_give_back(int k)
{
	pthread_mutex_lock(&lane_lock);
	lanes[k].busy = false;
	pthread_cond_signal(&lane_free);
	pthread_mutex_unlock(&lane_lock);
}

/* The method for puzzles of box size box: --method's, or auto's choice. */
static enum gpu_method method_for(int box)
{
	if (method != METHOD_AUTO)
		return (enum gpu_method)method;
	return box <= gpu_method_max_box(GPU_CPW, &limits) ? GPU_CPW : GPU_PDLX;
}

static int order_for(enum gpu_method m)
{
	return method == METHOD_AUTO && m == GPU_PDLX ? ORDER_MIN : dlx_column;
}

static int gpu_init(struct worker_init *wi, char *msg, size_t msgsz)
{
	if (threads_per_block && method == GPU_OPBF) {
		snprintf(msg, msgsz, "--threads: OPBF's blocks are N×N threads, one per cell (§3.2)");
		return -1;
	}
	if (dlx_column != ORDER_ROWS && method != GPU_PDLX) {
		snprintf(msg, msgsz, "--column is for --method=pdlx");
		return -1;
	}
	if (split_passes != DEFAULT_SPLIT && method != GPU_CPW && method != METHOD_AUTO) {
		snprintf(msg, msgsz, "--split is for --method=cpw (or auto)");
		return -1;
	}
	if (emulate) {
		gpu_emulated_limits(&limits);
		wi->device = "cpu";
		snprintf(wi->detail, sizeof wi->detail, "emulated: the kernels' code on the CPU, %s limits",
			 limits.name + strlen("emulated "));
	} else if (gpu_cuda_open(&limits, nlanes, wi->detail, sizeof wi->detail) == 0) {
		wi->device = "gpu";
	} else {
		wi->device = "none";
		return 0;
	}
	int max_box = method == METHOD_AUTO ? gpu_method_max_box(GPU_PDLX, &limits)
					    : gpu_method_max_box((enum gpu_method)method, &limits);
	if (max_box < 2) {
		wi->device = "none";
		snprintf(wi->detail, sizeof wi->detail, "%s: too small for any grid with this method",
			 limits.name);
		return 0;
	}
	wi->max_box = max_box;
	wi->batches = nlanes;
	for (int k = 0; k < nlanes; k++) {
		struct frontier *f = &lanes[k].frontier;
		frontier_init(f, 0); /* its grid size is set by each batch */
		f->alloc = host_alloc;
		f->release = host_release;
	}
	usable = true;
	return 0;
}

/* --- the runner's hooks: the driver's stop and progress --- */

/* What the hooks of a group's launches know. */
struct hook_arg {
	struct worker_ctx *ctx;
	enum gpu_method method;
	int order;
	int npuzzles;
};

/* A search in brute force's order that has run this long, plus a little
 * for each puzzle of its batch, may run for hours (emulated, far longer):
 * the user hears so, once. A batch of easy puzzles takes well under the
 * allowance, emulated too (contrib/bench/code-notes.md). */
#define SLOW_NOTICE_MS 5000
#define SLOW_NOTICE_PER_PUZZLE_MS 5
static atomic_bool slow_noticed;

static const char *const method_names[] = {[GPU_SPBF] = "SPBF", [GPU_OPBF] = "OPBF", [GPU_PDLX] = "PDLX",
					   [GPU_CPT] = "CP", [GPU_CPW] = "CPW"};

static bool hook_stop(void *arg)
{
	const struct hook_arg *h = arg;
	const bool brute_force = h->method == GPU_SPBF || h->method == GPU_OPBF ||
				 (h->method == GPU_PDLX && h->order == ORDER_ROWS);
	if (brute_force && !atomic_load_explicit(&slow_noticed, memory_order_relaxed)) {
		const double ms = worker_elapsed_ms(h->ctx);
		if (ms > SLOW_NOTICE_MS + SLOW_NOTICE_PER_PUZZLE_MS * (double)h->npuzzles &&
		    !atomic_exchange(&slow_noticed, true))
			worker_notice(h->ctx,
				      "%s%s has searched for %.0f s: it branches in brute force's order, "
				      "which can take hours on a hard puzzle; --method=cpw (or auto) "
				      "propagates, and --time-limit bounds the wait",
				      method_names[h->method], emulate ? " emulated" : "", ms / 1e3);
	}
	return worker_should_stop(h->ctx);
}

static bool hook_progress_due(void *arg)
{
	const struct hook_arg *h = arg;
	return worker_progress_wanted(h->ctx);
}

static void hook_progress(void *arg, uint64_t nodes, uint64_t trees_done, uint64_t trees)
{
	const struct hook_arg *h = arg;
	worker_progress(h->ctx, "trees=%llu/%llu nodes=%llu", (unsigned long long)trees_done,
			(unsigned long long)trees, (unsigned long long)nodes);
}

/* --- Algorithm 4 for puzzles of one size --- */

/* The launch of a job's trees; with CPW's split, then the launches of the
 * pieces that trees cut short left (those of puzzles still open), until
 * none is left. --timing reports each launch. Returns 0, or -1 with err. */
static int launch(struct lane *ln, struct gpu_job *job, const struct gpu_hooks *hooks, struct worker_ctx *ctx,
		  double expand_ms, char *err, size_t errsz)
{
	const size_t cells = (size_t)job->cells;
	int out = 0; /* the spill arrays a launch writes; the other side's are its trees */
	int rc = 0;
	for (;;) {
		if (job->split_passes) {
			/* room for a few pieces a tree, up to SPILL_BYTES on either
			 * side; a tree that finds it full goes on to its end */
			long cap = 4L * job->ntrees + 4096;
			if (cap > SPILL_BYTES / (long)(cells * sizeof *job->spill))
				cap = SPILL_BYTES / (long)(cells * sizeof *job->spill);
			job->spill = host_reserve(&ln->spill_memory[out], (size_t)cap * cells * sizeof *job->spill);
			job->spill_puzzle =
				host_reserve(&ln->spill_puzzle_memory[out], (size_t)cap * sizeof *job->spill_puzzle);
			if (!job->spill || !job->spill_puzzle) {
				snprintf(err, errsz, "out of memory");
				rc = -1;
				break;
			}
			job->spill_cap = (int)cap;
		}
		const uint64_t t1 = now_ns();
		rc = emulate ? gpu_emulate(job, hooks, err, errsz) : gpu_cuda_run(job, hooks, err, errsz);
		const double launch_ms = ms_since(t1);
		worker_stage_time("launches", launch_ms);
		if (emulate)
			job->kernel_ms = (float)launch_ms;
		if (worker_timing_wanted()) /* the driver's report channel, as progress is */
			worker_progress(ctx,
					"launch puzzles=%d trees=%ld expand_ms=%.3f launch_ms=%.3f copy_in_ms=%.3f "
					"kernel_ms=%.3f copy_out_ms=%.3f",
					job->npuzzles, (long)job->ntrees, expand_ms, launch_ms, job->copy_in_ms,
					job->kernel_ms, job->copy_out_ms);
		expand_ms = 0;
		/* the runner kept the pieces of puzzles still open */
		const int n = job->nspill;
		if (rc < 0 || job->stopped || n == 0)
			break;
		job->trees = NULL;
		job->tree_masks = job->spill;
		job->tree_puzzle = job->spill_puzzle;
		job->ntrees = n;
		job->resident = true;
		out ^= 1;
	}
	return rc;
}

struct group {
	const struct grid *const *puzzles;
	const int *index; /* into puzzles, res, status */
	int n;
	struct solve_result *const *res;
	enum solve_status *status;
	struct worker_ctx *ctx;
	struct lane *lane;
	int lane_index;
	enum gpu_method method; /* the group's: --method's, or auto's for its size */
	int order;
};

static void give_up(struct group *g, int from, int to, const char *why)
{
	for (int k = from; k < to; k++) {
		int i = g->index[k];
		g->status[i] = SOLVE_GAVEUP;
		snprintf(g->res[i]->reason, sizeof g->res[i]->reason, "%s", why);
	}
}

/* The answer of one puzzle from its launch's control record. */
static void finish_puzzle(struct group *g, int i, const struct gpu_ctl *ctl, const uint8_t *solution,
			  bool stopped)
{
	const uint64_t limit = (uint64_t)worker_count_limit(g->ctx);
	struct solve_result *r = g->res[i];
	r->nodes = ctl->nodes;
	r->count = (long)(ctl->count < limit ? ctl->count : limit);
	if (ctl->count >= limit) {
		g->status[i] = SOLVE_SOLVED;
	} else if (stopped) {
		g->status[i] = SOLVE_STOPPED;
	} else {
		g->status[i] = ctl->count ? SOLVE_SOLVED : SOLVE_UNSAT;
	}
	if (ctl->count) {
		/* the header and the cells used, not all 4096 */
		r->solution.box = g->puzzles[i]->box;
		r->solution.side = g->puzzles[i]->side;
		r->solution.cells = g->puzzles[i]->cells;
		memcpy(r->solution.cell, solution, (size_t)r->solution.cells);
	}
}

static void solve_group(struct group *g)
{
	const struct grid *p0 = g->puzzles[g->index[0]];
	const int cells = p0->cells;
	const long limit = worker_count_limit(g->ctx);
	long s = expand_size ? expand_size : default_trees[g->method] / g->n;
	if (s < 1)
		s = 1;
	if (s > FRONTIER_BYTES / cells)
		s = FRONTIER_BYTES / cells;
	struct frontier *f = &g->lane->frontier;
	if (f->cells != cells) { /* the arrays are another grid size's */
		frontier_free(f);
		f->cells = cells;
	}
	/* a puzzle's solution is read only when counted (not cleared) */
	struct gpu_ctl *ctl = host_reserve(&g->lane->ctl_memory, (size_t)g->n * sizeof *ctl);
	uint8_t *solutions = host_reserve(&g->lane->solutions_memory, (size_t)g->n * (size_t)cells);
	/* the first launch's room at once, not by doublings */
	long room = (long)g->n * s;
	if (room > FRONTIER_BYTES / cells)
		room = FRONTIER_BYTES / cells;
	if (!ctl || !solutions || frontier_reserve(f, room) < 0) {
		give_up(g, 0, g->n, "out of memory");
		return;
	}
	struct hook_arg harg = {g->ctx, g->method, g->order, g->n};
	const struct gpu_hooks hooks = {&harg, hook_stop, hook_progress_due, hook_progress};
	for (int start = 0; start < g->n;) {
		/* the CPU's expansion of as many puzzles as one launch holds */
		frontier_clear(f);
		int k = 0;
		bool stopped = false;
		const uint64_t t0 = now_ns();
		while (start + k < g->n && (k == 0 || (f->n + s) * cells <= FRONTIER_BYTES)) {
			int i = g->index[start + k];
			struct expand_result er;
			enum expand_status es =
				expand_puzzle(g->puzzles[i], k, s, (enum branch_order)g->order, limit, f,
					      &er, solutions + (size_t)k * (size_t)cells, g->ctx);
			memset(&ctl[k], 0, sizeof ctl[k]);
			ctl[k].count = (uint64_t)er.solutions;
			ctl[k].nodes = er.nodes;
			ctl[k].done = er.solutions >= limit;
			k++;
			if (es == EXPAND_NOMEM) {
				give_up(g, start, g->n, "out of memory");
				return;
			}
			if (es == EXPAND_STOPPED) {
				stopped = true;
				break;
			}
		}
		/* the launch: one transfer, the kernel, the results back */
		if (f->n > 0 && !stopped) {
			struct gpu_job job;
			memset(&job, 0, sizeof job);
			job.method = g->method;
			job.lane = g->lane_index;
			job.box = p0->box;
			job.side = p0->side;
			job.cells = cells;
			job.ntrees = (int)f->n;
			job.npuzzles = k;
			job.trees = f->boards;
			job.tree_puzzle = f->puzzle;
			job.ctl = ctl;
			job.solutions = solutions;
			job.count_limit = (uint64_t)limit;
			job.threads = threads_per_block ? threads_per_block : DEFAULT_THREADS;
			job.order = g->order;
			job.split_passes = g->method == GPU_CPW ? split_passes : 0;
			char err[200] = "";
			const double expand_ms = ms_since(t0);
			worker_stage_time("expansion", expand_ms);
			int rc = launch(g->lane, &job, &hooks, g->ctx, expand_ms, err, sizeof err);
			if (rc < 0) {
				char why[128];
				snprintf(why, sizeof why, "%s: %s", emulate ? "emulation" : "CUDA", err);
				give_up(g, start, start + k, why);
				start += k;
				continue;
			}
			stopped = job.stopped;
		}
		for (int j = 0; j < k; j++)
			finish_puzzle(g, g->index[start + j], &ctl[j], solutions + (size_t)j * (size_t)cells,
				      stopped);
		start += k;
		if (stopped) {
			/* the driver said stop: the rest of the batch is not searched */
			for (; start < g->n; start++)
				g->status[g->index[start]] = SOLVE_STOPPED;
		}
	}
}

static void gpu_solve_batch(const struct grid *const *puzzles, int n, struct solve_result *const *res,
			    enum solve_status *status, struct worker_ctx *ctx)
{
	int *index = malloc((size_t)n * sizeof *index);
	for (int i = 0; i < n; i++) {
		/* the fields every status reads (a whole result is 4 KB) */
		res[i]->count = 0;
		res[i]->nodes = 0;
		res[i]->reason[0] = '\0';
		res[i]->solution.cells = 0;
		status[i] = SOLVE_GAVEUP;
	}
	if (!usable || !index) {
		for (int i = 0; i < n; i++)
			snprintf(res[i]->reason, sizeof res[i]->reason, "%s",
				 index ? "no usable device" : "out of memory");
		free(index);
		return;
	}
	/* one group of launches per grid size, in a lane of its own */
	const int k = lane_take();
	for (int box = GRID_MIN_BOX; box <= GRID_MAX_BOX; box++) {
		const enum gpu_method m = method_for(box);
		struct group g = {puzzles, index, 0, res, status, ctx, &lanes[k], k, m, order_for(m)};
		for (int i = 0; i < n; i++)
			if (puzzles[i]->box == box)
				index[g.n++] = i;
		if (g.n)
			solve_group(&g);
	}
	lane_give_back(k);
	free(index);
}

static enum solve_status gpu_solve(const struct grid *puzzle, struct solve_result *res,
				   struct worker_ctx *ctx)
{
	enum solve_status status;
	gpu_solve_batch(&puzzle, 1, &res, &status, ctx);
	return status;
}

static const struct worker_option_alias gpu_aliases[] = {
	/* the old words of both programs: sudoku-dlx's top-left, sudoku-gpu's min */
	{"column", "dlx-column", "top-left=first,min=smallest"},
	{NULL, NULL, NULL},
};

const struct worker_algorithm worker_algorithm = {
	.name = "gpu",
	.summary = "CPU breadth-first expansion + CUDA search: SPBF, OPBF, PDLX, CP, CPW (--method)",
	.source = "seeds/gpu-backtracking-dlx.txt §3 (Algorithms 4 and 5)",
	.kind = WORKER_COMPLETE,
	.min_box = 2,
	.max_box = 8,
	.options = gpu_options,
	.aliases = gpu_aliases,
	.init = gpu_init,
	.solve = gpu_solve,
	.solve_batch = gpu_solve_batch,
	/* a batch a lane: launches of 32768 puzzles each; the split's
	 * relaunches of one overlap the others' first launches */
	.batch_max = 32768,
};
