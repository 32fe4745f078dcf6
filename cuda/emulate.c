/* --emulate: the kernels' launch run on the CPU. The per-tree search is
 * the kernels' own code (bf_tree.h, opbf_team.h, dlx_tree.h, cp_tree.h,
 * cpw_team.h, compiled here by the C compiler); this file plays the GPU
 * around it:
 *
 * - the launch's trees are spread over resident "threads" (SPBF, PDLX, CP),
 *   "blocks" (OPBF) or "warps" (CPW), which take turns a slice of search at
 *   a time, so that trees progress side by side as on the device and the
 *   first answer of any tree ends the others (a tree that never ends cannot
 *   starve them);
 * - an OPBF block's N×N threads, or a CPW warp's 32 lanes, run each phase
 *   one after the other, then the next phase: a barrier. The order of the
 *   threads changes from phase to phase, so that a phase whose result
 *   depended on it (a race on the device) would show; every thread must
 *   end at the same phase;
 * - the host's stop flag is set between slices when the driver says stop,
 *   and the kernel code sees it at its next poll, as on the device. */
#include "config.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bf_tree.h"
#include "cp_tree.h"
#include "cpw_team.h"
#include "dlx_tree.h"
#include "gpu_run.h"
#include "opbf_team.h"

/* Memory for the resident trees' state (boards, stacks, Dancing Links). */
#define EMU_RESIDENT_BYTES (64L << 20)
/* OPBF: iterations of a block's loop between turns; CPW: a warp's phases. */
#define EMU_OPBF_ITERATIONS 64
#define EMU_WARP_PHASES 256

struct emu {
	struct gpu_job *job;
	const struct gpu_hooks *hooks;
	struct gpu_launch L;
	int32_t stop;
	uint64_t trees_done;
};

/* Between two slices: the driver's stop, and progress. */
static void emu_poll(struct emu *e)
{
	const struct gpu_hooks *h = e->hooks;
	if (!e->stop && h->stop_now(h->arg)) {
		e->stop = 1;
		e->job->stopped = true;
	}
	if (h->progress_due(h->arg)) {
		uint64_t nodes = 0;
		for (int p = 0; p < e->job->npuzzles; p++)
			nodes += e->job->ctl[p].nodes;
		h->progress(h->arg, nodes, e->trees_done, (uint64_t)e->job->ntrees);
	}
}

static long resident(long ntrees, long bytes_each)
{
	long n = EMU_RESIDENT_BYTES / bytes_each;
	if (n < 1)
		n = 1;
	return n < ntrees ? n : ntrees;
}

/* SPBF and CP: spbf_kernel's or cpt_kernel's thread body, one resident
 * thread after another (a tree per thread; SPBF's board and stack are the
 * thread's slice of shared memory, CP's levels are in the tree itself). */
static int emulate_thread_per_tree(struct emu *e, bool cp, char *err, size_t errsz)
{
	const struct gpu_launch *L = &e->L;
	long per = cp ? (long)sizeof(struct cpt_tree) : spbf_thread_bytes(L->cells) + (long)sizeof(struct bf_tree);
	long nslots = resident(L->ntrees, per);
	struct cpt_tree *ct = cp ? calloc((size_t)nslots, sizeof *ct) : NULL;
	struct bf_tree *bt = cp ? NULL : calloc((size_t)nslots, sizeof *bt);
	uint8_t *shared = cp ? NULL : calloc((size_t)nslots, (size_t)spbf_thread_bytes(L->cells));
	char *active = calloc((size_t)nslots, 1);
	if ((cp ? !ct : !bt || !shared) || !active) {
		free(ct);
		free(bt);
		free(shared);
		free(active);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	int next = 0;
	for (long running = 1; running;) {
		running = 0;
		for (long s = 0; s < nslots; s++) {
			if (!active[s]) {
				if (next == L->ntrees)
					continue;
				if (cp)
					cpt_begin(&ct[s], L, next++);
				else
					spbf_begin(&bt[s], shared + s * spbf_thread_bytes(L->cells), L, next++);
				active[s] = 1;
			}
			running = 1;
			if (!(cp ? cpt_slice(&ct[s], L) : spbf_slice(&bt[s], L)))
				active[s] = 0;
			emu_poll(e);
		}
	}
	free(ct);
	free(bt);
	free(shared);
	free(active);
	return 0;
}

static int gcd(int a, int b)
{
	while (b) {
		int r = a % b;
		a = b;
		b = r;
	}
	return a;
}

/* A block of OPBF: its shared memory, its threads' registers, and the
 * phase it is at. */
struct emu_block {
	struct opbf_shared sh;
	struct opbf_thread *th;
	int phase;
	int active;
};

/* The order in which a team's n threads run a phase: a stride coprime
 * with n from a changing offset, a different order every turn. */
struct scramble {
	int n, stride, offset;
};

static struct scramble scramble_next(int n, unsigned *turn)
{
	struct scramble o = {n, 1 + (int)(*turn * 7u % (unsigned)n), (int)(*turn * 13u % (unsigned)n)};
	while (gcd(o.stride, n) != 1)
		o.stride++;
	(*turn)++;
	return o;
}

static int scramble_tid(const struct scramble *o, int i)
{
	return (int)((o->offset + (long)i * o->stride) % o->n);
}

/* Runs one phase for every thread of a block in a scrambled order.
 * Returns 1 (go on) or 0 (the block ended), or -1 if its threads disagreed. */
static int block_phase(struct emu_block *b, const struct gpu_launch *L, unsigned *turn)
{
	struct scramble o = scramble_next(L->cells, turn);
	int result = -2;
	for (int i = 0; i < L->cells; i++) {
		int r = opbf_phase(&b->sh, &b->th[scramble_tid(&o, i)], L, b->phase);
		if (result != -2 && r != result)
			return -1;
		result = r;
	}
	b->phase = (b->phase + 1) % OPBF_PHASES;
	return result;
}

/* OPBF: opbf_kernel's blocks, one resident block after another. */
static int emulate_opbf(struct emu *e, char *err, size_t errsz)
{
	const struct gpu_launch *L = &e->L;
	long each = (long)sizeof(struct emu_block) + (long)L->cells * (long)sizeof(struct opbf_thread);
	long nblocks = resident(L->ntrees, each);
	struct emu_block *blocks = calloc((size_t)nblocks, sizeof *blocks);
	struct opbf_thread *threads = calloc((size_t)(nblocks * L->cells), sizeof *threads);
	if (!blocks || !threads) {
		free(blocks);
		free(threads);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	unsigned turn = 0;
	int next = 0, rc = 0;
	for (long running = 1; running && rc == 0;) {
		running = 0;
		for (long k = 0; k < nblocks && rc == 0; k++) {
			struct emu_block *b = &blocks[k];
			if (!b->active) {
				if (next == L->ntrees)
					continue;
				b->th = threads + k * L->cells;
				for (int tid = L->cells - 1; tid >= 0; tid--)
					opbf_start(&b->sh, &b->th[tid], L, next, tid);
				next++;
				b->phase = 0;
				b->active = 1;
			}
			running = 1;
			for (int it = 0; it < EMU_OPBF_ITERATIONS * OPBF_PHASES && b->active; it++) {
				int r = block_phase(b, L, &turn);
				if (r < 0) {
					snprintf(err, errsz, "OPBF: the threads of a block ended at different phases");
					rc = -1;
					break;
				}
				b->active = r;
			}
			emu_poll(e);
		}
	}
	free(blocks);
	free(threads);
	return rc;
}

/* A warp of CPW: its shared memory, its lanes' registers, its stack, and
 * the phase it is at (CPW_END: idle). */
struct emu_warp {
	struct cpw_shared sh;
	struct cpw_lane lane[CPW_LANES];
	uint16_t *stack;
	int phase;
};

/* CPW: cpw_kernel's warps, one resident warp after another, each running
 * its lanes phase by phase in a scrambled order; a warp that ends a tree
 * takes the next. */
static int emulate_cpw(struct emu *e, char *err, size_t errsz)
{
	const struct gpu_launch *L = &e->L;
	long stack = cpw_stack_bytes(L->cells);
	long nwarps = resident(L->ntrees, (long)sizeof(struct emu_warp) + stack);
	struct emu_warp *warps = calloc((size_t)nwarps, sizeof *warps);
	uint16_t *stacks = malloc((size_t)(nwarps * stack));
	if (!warps || !stacks) {
		free(warps);
		free(stacks);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	unsigned turn = 0;
	int next = 0, rc = 0;
	for (long w = 0; w < nwarps; w++) {
		warps[w].stack = stacks + w * (stack / (long)sizeof *stacks);
		warps[w].phase = CPW_END;
	}
	for (long running = 1; running && rc == 0;) {
		running = 0;
		for (long w = 0; w < nwarps && rc == 0; w++) {
			struct emu_warp *wp = &warps[w];
			if (wp->phase == CPW_END) {
				if (next == L->ntrees)
					continue;
				for (int lane = CPW_LANES - 1; lane >= 0; lane--)
					wp->phase = cpw_start(&wp->sh, &wp->lane[lane], L, next, lane, wp->stack);
				next++;
			}
			running = 1;
			for (int it = 0; it < EMU_WARP_PHASES && wp->phase != CPW_END; it++) {
				struct scramble o = scramble_next(CPW_LANES, &turn);
				int result = -1;
				for (int i = 0; i < CPW_LANES; i++) {
					int r = cpw_phase(&wp->sh, &wp->lane[scramble_tid(&o, i)], L, wp->phase);
					if (i > 0 && r != result) {
						snprintf(err, errsz, "CPW: the lanes of a warp went to different phases");
						rc = -1;
						break;
					}
					result = r;
				}
				wp->phase = result;
			}
			emu_poll(e);
		}
	}
	free(warps);
	free(stacks);
	return rc;
}

/* PDLX: pdlx_kernel's thread body: worker w takes trees w, w + W, ... */
static int emulate_pdlx(struct emu *e, char *err, size_t errsz)
{
	struct gpu_launch *L = &e->L;
	long words = dlx_workspace_words(L->box);
	long nworkers = resident(L->ntrees, words * 4);
	int32_t *work = malloc((size_t)(nworkers * words) * sizeof *work);
	struct dlx_tree *x = calloc((size_t)nworkers, sizeof *x);
	int *tree = calloc((size_t)nworkers, sizeof *tree);
	char *active = calloc((size_t)nworkers, 1);
	if (!work || !x || !tree || !active) {
		free(work);
		free(x);
		free(tree);
		free(active);
		snprintf(err, errsz, "out of memory");
		return -1;
	}
	L->work = work;
	L->work_bytes = words * (long)sizeof *work;
	L->workers = (int)nworkers;
	for (long w = 0; w < nworkers; w++) {
		dlx_bind(&x[w], work + w * words, L->box);
		tree[w] = (int)w - (int)nworkers; /* the first step below takes tree w */
	}
	for (long running = 1; running;) {
		running = 0;
		for (long w = 0; w < nworkers; w++) {
			while (!active[w] && tree[w] + nworkers < L->ntrees) {
				tree[w] += (int)nworkers;
				active[w] = (char)pdlx_begin(&x[w], L, tree[w]);
			}
			if (!active[w])
				continue;
			running = 1;
			if (!pdlx_slice(&x[w], L))
				active[w] = 0;
			emu_poll(e);
		}
	}
	free(work);
	free(x);
	free(tree);
	free(active);
	return 0;
}

int gpu_emulate(struct gpu_job *job, const struct gpu_hooks *hooks, char *err, size_t errsz)
{
	struct emu e;
	memset(&e, 0, sizeof e);
	e.job = job;
	e.hooks = hooks;
	struct gpu_launch *L = &e.L;
	L->box = job->box;
	L->side = job->side;
	L->cells = job->cells;
	L->ntrees = job->ntrees;
	L->trees = job->trees;
	L->tree_puzzle = job->tree_puzzle;
	L->ctl = job->ctl;
	L->solutions = job->solutions;
	L->count_limit = job->count_limit;
	L->stop = &e.stop;
	L->trees_done = &e.trees_done;
	L->poll_steps = GPU_POLL_STEPS;
	L->order = job->order;
	L->tree_masks = job->tree_masks;
	L->split_passes = job->split_passes;
	L->spill = job->spill;
	L->spill_puzzle = job->spill_puzzle;
	L->spill_cap = job->spill_cap;
	int32_t nspill = 0;
	L->spill_count = &nspill;
	job->stopped = false;
	job->nspill = 0;
	struct gpu_limits lim;
	gpu_emulated_limits(&lim);
	switch (job->method) {
	case GPU_SPBF:
		job->threads_used = gpu_spbf_threads(job->threads, job->cells, &lim);
		return emulate_thread_per_tree(&e, false, err, errsz);
	case GPU_OPBF:
		job->threads_used = job->cells;
		return emulate_opbf(&e, err, errsz);
	case GPU_PDLX:
		job->threads_used = job->threads;
		return emulate_pdlx(&e, err, errsz);
	case GPU_CPT:
		job->threads_used = job->threads;
		return emulate_thread_per_tree(&e, true, err, errsz);
	case GPU_CPW: {
		job->threads_used = job->threads < CPW_LANES ? CPW_LANES : job->threads / CPW_LANES * CPW_LANES;
		int rc = emulate_cpw(&e, err, errsz);
		job->nspill = gpu_keep_open_pieces(job, nspill);
		return rc;
	}
	}
	snprintf(err, errsz, "unknown method");
	return -1;
}
