/* Unit tests of sudoku-gpu's search code (cuda/), compiled for the host as
 * the emulator compiles it: the CPU's expansion branches as the kernels'
 * Dancing Links do, its trees partition the search (their solutions add up
 * to the puzzle's count), and each method's per-tree code counts them all. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/bf_tree.h"
#include "cuda/dlx_tree.h"
#include "cuda/expand.h"
#include "cuda/gpu_run.h"
#include "lib/grid.h"
#include "tap.h"

/* expand.c polls the driver; here nothing stops, and nobody watches */
bool worker_should_stop(struct worker_ctx *ctx)
{
	(void)ctx;
	return false;
}

bool worker_progress_wanted(struct worker_ctx *ctx)
{
	(void)ctx;
	return false;
}

void worker_progress(struct worker_ctx *ctx, const char *fmt, ...)
{
	(void)ctx;
	(void)fmt;
}

/* 872 solutions (sudoku-cp --count agrees) */
static const char *multi = "8.........95.......76.........426798...571243...893165......916....3.487....1.532";
static const char *boards[] = {
	"..867.4.24.23...9.37..2.......4...5.89.251.67.1...3.......9..73.3...52.17.5.329..",
	"1....7.9..3..2...8..96..5....53..9...1..8...26....4...3......1..4......7..7...3..",
	"8.........95.......76.........426798...571243...893165......916....3.487....1.532",
	"1...2....3.14...",
	".................1.....2.3......3.2...1.4......5....6..3......4.7..8...962...7...",
};

static void parse(const char *text, struct grid *g)
{
	struct notation nt;
	char err[GRID_ERR_MAX];
	if (grid_parse(text, strlen(text), g, &nt, err, sizeof err) < 0) {
		fprintf(stderr, "bad test puzzle: %s\n", err);
		exit(2);
	}
}

static struct dlx_tree dlx;
static int32_t *dlx_work;

static void dlx_for(int box)
{
	free(dlx_work);
	dlx_work = malloc((size_t)dlx_workspace_words(box) * sizeof *dlx_work);
	if (!dlx_work)
		exit(2);
	dlx_bind(&dlx, dlx_work, box);
}

/* The kernel's branches at a board: its column's rows, top to bottom. */
static int dlx_branches(const struct grid *g, int order, int *cell, int *digit)
{
	dlx_for(g->box);
	dlx.order = order;
	if (dlx_build(&dlx, g->cell) < 0)
		return -2;
	if (dlx.R[0] == 0)
		return -1;
	int c = dlx_choose_column(&dlx), n = 0;
	for (int r = dlx.D[c]; r != c; r = dlx.D[r]) {
		cell[n] = dlx.row[r] / g->side;
		digit[n++] = dlx.row[r] % g->side + 1;
	}
	return n;
}

static void test_branches(void)
{
	for (size_t b = 0; b < sizeof boards / sizeof boards[0]; b++) {
		union grid_room g_room;
		struct grid *g = &g_room.grid;
		parse(boards[b], g);
		for (int order = ORDER_ROWS; order <= ORDER_MIN; order++) {
			int c1[GRID_MAX_SIDE], d1[GRID_MAX_SIDE], c2[GRID_MAX_SIDE], d2[GRID_MAX_SIDE];
			int n1 = expand_branches(g->cell, g->box, (enum branch_order)order, c1, d1);
			int n2 = dlx_branches(g, order, c2, d2);
			bool same = n1 == n2;
			for (int k = 0; same && k < n1; k++)
				same = c1[k] == c2[k] && d1[k] == d2[k];
			ok(same, "board %zu, %s order: the expansion branches as the kernels' DLX (%d, %d)", b,
			   order == ORDER_ROWS ? "first-column" : "smallest-column", n1, n2);
		}
	}
	union grid_room g_room;
	struct grid *g = &g_room.grid;
	parse(boards[0], g);
	int c[GRID_MAX_SIDE], d[GRID_MAX_SIDE];
	int n = expand_branches(g->cell, g->box, ORDER_ROWS, c, d);
	ok(n == 3 && c[0] == 0 && c[2] == 0 && d[0] == 1 && d[1] == 5 && d[2] == 9,
	   "first-column order is §2.1's: the first blank, its valid digits ascending");
	g->cell[1] = g->cell[2]; /* two 8s in row 1 */
	ok(dlx_branches(g, ORDER_ROWS, c, d) == -2, "dlx_build refuses clashing givens");
}

/* Counts the solutions of one tree with the brute force of SPBF. */
static long bf_count(const uint8_t *tree, int box)
{
	static uint8_t mem[3 * GRID_MAX_CELLS + 2];
	struct gpu_launch L;
	int32_t zero = 0;
	memset(&L, 0, sizeof L);
	L.box = box;
	L.side = box * box;
	L.cells = L.side * L.side;
	L.trees = tree;
	L.tree_puzzle = &zero;
	L.ntrees = 1;
	struct bf_tree t;
	spbf_begin(&t, mem, &L, 0);
	if (t.full)
		return 1;
	long n = 0;
	for (int s; (s = bf_tree_run(&t, 1 << 20)) != TREE_EXHAUSTED;)
		n += s == TREE_SOLVED;
	return n;
}

static long dlx_count(const uint8_t *tree, int box, int order)
{
	dlx_for(box);
	dlx.order = order;
	if (dlx_build(&dlx, tree) < 0)
		return -1;
	long n = 0;
	for (int s; (s = dlx_run(&dlx, 1 << 20)) != TREE_EXHAUSTED;)
		n += s == TREE_SOLVED;
	return n;
}

static void test_partition(void)
{
	union grid_room g_room;
	struct grid *g = &g_room.grid;
	parse(multi, g);
	static const long sizes[] = {1, 9, 100, 5000};
	for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
		for (int order = ORDER_ROWS; order <= ORDER_MIN; order++) {
			struct frontier f;
			struct expand_result er;
			uint8_t first[GRID_MAX_CELLS];
			frontier_init(&f, g->cells);
			enum expand_status st = expand_puzzle(g, 0, sizes[k], (enum branch_order)order, 1L << 40,
							      &f, &er, first, NULL);
			/* the trees' solutions, plus those the CPU reached */
			long bf = 0, dl = 0;
			for (long t = 0; t < f.n; t++) {
				bf += bf_count(f.boards + t * g->cells, g->box);
				dl += dlx_count(f.boards + t * g->cells, g->box, order);
			}
			bf += er.solutions;
			dl += er.solutions;
			ok(st == EXPAND_OK && (sizes[k] == 1 || f.n >= sizes[k] || f.n == 0) && bf == 872 &&
				   dl == 872,
			   "s=%ld, %s order: %ld trees, the CPU found %ld; brute force counts %ld, DLX %ld",
			   sizes[k], order == ORDER_ROWS ? "first" : "min", f.n, er.solutions, bf, dl);
			frontier_free(&f);
		}
}

/* A frontier's own allocator: what it takes and gives back. */
static int blocks_held, blocks_taken;

static void *counted_alloc(size_t size)
{
	blocks_taken++;
	blocks_held++;
	return malloc(size);
}

static void counted_release(void *p)
{
	if (p)
		blocks_held--;
	free(p);
}

/* Growing keeps the trees (it copies, since the CUDA worker's allocator
 * has no realloc) and gives back what it replaced. */
static void test_frontier_allocator(void)
{
	union grid_room g_room;
	struct grid *g = &g_room.grid;
	parse(multi, g);
	struct frontier f;
	frontier_init(&f, g->cells);
	f.alloc = counted_alloc;
	f.release = counted_release;
	struct expand_result er;
	uint8_t first[GRID_MAX_CELLS];
	bool kept = true;
	for (int p = 0; p < 200; p++) {
		expand_puzzle(g, p, 1, ORDER_ROWS, 1, &f, &er, first, NULL);
		for (long t = 0; t < f.n; t++)
			kept = kept && f.puzzle[t] == t && memcmp(f.boards + t * g->cells, g->cell, (size_t)g->cells) == 0;
	}
	ok(f.n == 200 && kept && blocks_taken > 2 && blocks_held == 2,
	   "200 trees through %d allocations: all kept, %d blocks held", blocks_taken, blocks_held);
	frontier_free(&f);
	ok(blocks_held == 0 && f.cap == 0 && frontier_reserve(&f, 1) == 0 && blocks_held == 2,
	   "freed, the frontier reserves again with its allocator");
	frontier_free(&f);
}

static bool never(void *arg)
{
	(void)arg;
	return false;
}

static void no_progress(void *arg, uint64_t nodes, uint64_t done, uint64_t trees)
{
	(void)arg;
	(void)nodes;
	(void)done;
	(void)trees;
}

/* A launch of a frontier's 9x9 trees, as the worker makes it. */
static void job_9x9(struct gpu_job *job, enum gpu_method m, const struct frontier *f, int npuzzles,
		    struct gpu_ctl *ctl, uint8_t *solutions, long limit)
{
	memset(job, 0, sizeof *job);
	job->method = m;
	job->box = 3;
	job->side = 9;
	job->cells = 81;
	job->ntrees = (int)f->n;
	job->npuzzles = npuzzles;
	job->trees = f->boards;
	job->tree_puzzle = f->puzzle;
	job->ctl = ctl;
	job->solutions = solutions;
	job->count_limit = (uint64_t)limit;
	job->threads = 64;
}

/* Each method, emulated, on a frontier of two puzzles: counts to a limit,
 * and finds the unique puzzle's answer. */
static void test_emulated_launch(void)
{
	union grid_room g_room[2];
	struct grid *g[2] = {&g_room[0].grid, &g_room[1].grid};
	parse(multi, g[0]);
	parse(boards[1], g[1]);
	const struct gpu_hooks hooks = {NULL, never, never, no_progress};
	for (int m = GPU_SPBF; m <= GPU_CPW; m++) {
		for (long limit = 1; limit <= 1000; limit *= 1000) {
			struct frontier f;
			struct expand_result er[2];
			struct gpu_ctl ctl[2];
			uint8_t sol[2][81];
			frontier_init(&f, 81);
			memset(ctl, 0, sizeof ctl);
			for (int p = 0; p < 2; p++) {
				if (expand_puzzle(g[p], p, 40, ORDER_ROWS, limit, &f, &er[p], sol[p], NULL) != EXPAND_OK)
					exit(2);
				ctl[p].count = (uint64_t)er[p].solutions;
			}
			struct gpu_job job;
			job_9x9(&job, (enum gpu_method)m, &f, 2, ctl, &sol[0][0], limit);
			char err[128] = "";
			int rc = gpu_emulate(&job, &hooks, err, sizeof err);
			union grid_room a_room, b_room;
			struct grid *a = &a_room.grid, *b = &b_room.grid;
			grid_copy(a, g[0]);
			grid_copy(b, g[1]);
			memcpy(a->cell, sol[0], 81);
			memcpy(b->cell, sol[1], 81);
			uint64_t want = limit == 1 ? 1 : 872;
			ok(rc == 0 && ctl[0].count >= want && (limit == 1 || ctl[0].count == 872) &&
				   ctl[1].count == 1 && grid_verify(g[0], a, NULL, 0) &&
				   grid_verify(g[1], b, NULL, 0),
			   "method %d, count limit %ld: %d trees, counts %llu and %llu %s", m, limit, job.ntrees,
			   (unsigned long long)ctl[0].count, (unsigned long long)ctl[1].count, err);
			frontier_free(&f);
		}
	}
}

/* CPW's split: the pieces of a launch, relaunched until none is left, add
 * up to the whole tree; a spill buffer too small for a tree's pieces makes
 * that tree go on to its end instead. */
static void test_cpw_split(void)
{
	union grid_room g_room;
	struct grid *g = &g_room.grid;
	parse(multi, g);
	const struct gpu_hooks hooks = {NULL, never, never, no_progress};
	static const int caps[] = {1 << 16, 40, 3};
	for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
		struct frontier f;
		struct expand_result er;
		struct gpu_ctl ctl;
		uint8_t sol[81];
		frontier_init(&f, 81);
		memset(&ctl, 0, sizeof ctl);
		if (expand_puzzle(g, 0, 1, ORDER_ROWS, 100000, &f, &er, sol, NULL) != EXPAND_OK)
			exit(2);
		ctl.count = (uint64_t)er.solutions;
		struct gpu_job job;
		job_9x9(&job, GPU_CPW, &f, 1, &ctl, sol, 100000);
		job.split_passes = 1;
		job.spill_cap = caps[c];
		uint16_t *in = NULL;
		int32_t *in_puzzle = NULL;
		int launches = 0, most = 0, rc = 0;
		char err[128] = "";
		do {
			job.spill = malloc((size_t)job.spill_cap * 81 * sizeof *job.spill);
			job.spill_puzzle = malloc((size_t)job.spill_cap * sizeof *job.spill_puzzle);
			if (!job.spill || !job.spill_puzzle)
				exit(2);
			rc |= gpu_emulate(&job, &hooks, err, sizeof err);
			launches++;
			most = job.nspill > most ? job.nspill : most;
			free(in);
			free(in_puzzle);
			in = job.spill;
			in_puzzle = job.spill_puzzle;
			job.trees = NULL;
			job.tree_masks = in;
			job.tree_puzzle = in_puzzle;
			job.ntrees = job.nspill;
		} while (job.nspill > 0 && launches < 10000);
		free(in);
		free(in_puzzle);
		ok(rc == 0 && ctl.count == 872 && most <= caps[c] && (caps[c] > 3 || launches > 1),
		   "split after each pass, room for %d pieces: %d launches, at most %d pieces, %llu solutions %s",
		   caps[c], launches, most, (unsigned long long)ctl.count, err);
		frontier_free(&f);
	}
}

/* A relaunch takes only the pieces of puzzles still open, in their order
 * (the runner drops the others before the pieces come back). */
static void test_keep_open_pieces(void)
{
	enum { CELLS = 4, PIECES = 5 };
	struct gpu_ctl ctl[3];
	memset(ctl, 0, sizeof ctl);
	ctl[1].done = 1;
	uint16_t spill[PIECES * CELLS];
	int32_t spill_puzzle[PIECES] = {1, 0, 1, 2, 0};
	for (int k = 0; k < PIECES * CELLS; k++)
		spill[k] = (uint16_t)(k / CELLS); /* each piece's cells hold its index */
	struct gpu_job job;
	memset(&job, 0, sizeof job);
	job.cells = CELLS;
	job.ctl = ctl;
	job.spill = spill;
	job.spill_puzzle = spill_puzzle;
	int n = gpu_keep_open_pieces(&job, PIECES);
	ok(n == 3 && spill_puzzle[0] == 0 && spill_puzzle[1] == 2 && spill_puzzle[2] == 0 && spill[0] == 1 &&
		   spill[CELLS - 1] == 1 && spill[CELLS] == 3 && spill[2 * CELLS] == 4 && spill[3 * CELLS - 1] == 4,
	   "the pieces of a puzzle done are dropped, the others kept in order (%d kept)", n);
	job.ctl[0].done = job.ctl[2].done = 1; /* through the job, as the runner reads them */
	ok(gpu_keep_open_pieces(&job, n) == 0, "none kept when every puzzle is done");
}

int main(void)
{
	test_branches();
	test_partition();
	test_frontier_allocator();
	test_emulated_launch();
	test_cpw_split();
	test_keep_open_pieces();
	free(dlx_work);
	return tap_done();
}
