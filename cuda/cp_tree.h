/* CPT, constraint propagation per thread: not one of the paper's methods
 * (seeds/gpu-backtracking-dlx.txt §3 searches in brute force's order, which
 * the 17-clue puzzles make slow), but the batch method: one thread per tree
 * with a candidate mask per cell, the two rules of seeds/ant-colony-bve.txt
 * §3.1 (a fixed value leaves its peers; a value with one place left in a
 * unit goes there) to a fixpoint, and depth-first search on the cell with
 * the fewest candidates, as sudoku-cp does on the CPU. For 4x4 and 9x9
 * (a 16-bit mask per cell; the search state of every level of one thread
 * is CPT_LEVELS x 81 masks of local memory).
 *
 * The kernel (cuda/kernels.cu) and the emulator (cuda/emulate.c) both run a
 * tree as cpt_begin() then cpt_slice() until it returns 0. */
#ifndef SUDOKU_GPU_CP_TREE_H
#define SUDOKU_GPU_CP_TREE_H

#include "gpu_device.h"

#define CPT_MAX_BOX 3
#define CPT_MAX_CELLS 81
/* a level per branch: at most one per blank cell, and a level 0 */
#define CPT_LEVELS (CPT_MAX_CELLS + 1)
/* branches per slice (each is a propagation to a fixpoint: tens of
 * brute-force steps' work) */
#define CPT_SLICE_NODES 64

struct cpt_frame {
	uint16_t cand[CPT_MAX_CELLS];
	uint16_t rest; /* the digits of cell still to try when this level is back */
	uint8_t cell;  /* the cell branched on at this level */
};

struct cpt_tree {
	struct cpt_frame level[CPT_LEVELS];
	int top; /* the level being searched */
	int box, side, cells;
	int puzzle;
	int polls;
	int state; /* TREE_RUNNING until the tree is solved (once) or exhausted */
	uint64_t nodes;
};

GPU_FN int cpt_popcount(unsigned m)
{
#if defined(__CUDA_ARCH__)
	return __popc(m);
#else
	return __builtin_popcount(m);
#endif
}

GPU_FN int cpt_lowest(unsigned m) /* the index of the lowest set bit */
{
#if defined(__CUDA_ARCH__)
	return __ffs((int)m) - 1;
#else
	return __builtin_ctz(m);
#endif
}

/* Cell i of unit u: units 0..side-1 are rows, then columns, then boxes. */
GPU_FN int cpt_unit_cell(int box, int side, int u, int i)
{
	if (u < side)
		return u * side + i;
	if (u < 2 * side)
		return i * side + (u - side);
	u -= 2 * side;
	return ((u / box) * box + i / box) * side + (u % box) * box + i % box;
}

/* Propagates to a fixpoint. Returns 0 on a contradiction (a cell with no
 * candidate, or a unit missing a digit), else 1. */
GPU_FN int cpt_propagate_size(uint16_t *cand, int box, int side, int cells)
{
	const unsigned all = (1u << side) - 1;
	/* cells whose single value has been taken from its peers (81 bits) */
	uint64_t done_lo = 0, done_hi = 0;
	for (int changed = 1; changed;) {
		changed = 0;
		/* rule 1: a fixed value leaves the cell's row, column and box */
		for (int c = 0; c < cells; c++) {
			unsigned m = cand[c];
			if (!m)
				return 0;
			uint64_t bit = (uint64_t)1 << (c & 63);
			uint64_t *done = c < 64 ? &done_lo : &done_hi;
			if ((m & (m - 1)) || (*done & bit))
				continue;
			*done |= bit;
			int row = c / side, col = c % side;
			int bx = (row / box) * box + col / box;
			for (int i = 0; i < side; i++) {
				const int peers[3] = {row * side + i, i * side + col, cpt_unit_cell(box, side, 2 * side + bx, i)};
				for (int k = 0; k < 3; k++) {
					int p = peers[k];
					if (p == c || !(cand[p] & m))
						continue;
					unsigned left = cand[p] & ~m;
					if (!left)
						return 0;
					cand[p] = (uint16_t)left;
					changed = 1;
				}
			}
		}
		if (changed)
			continue; /* rule 1 to its own fixpoint first: it is the cheaper */
		/* rule 2: a value with one place left in a unit goes there */
		for (int u = 0; u < 3 * side; u++) {
			unsigned once = 0, twice = 0;
			for (int i = 0; i < side; i++) {
				unsigned m = cand[cpt_unit_cell(box, side, u, i)];
				twice |= once & m;
				once |= m;
			}
			if (once != all)
				return 0;
			unsigned only = once & ~twice;
			if (!only)
				continue;
			for (int i = 0; i < side; i++) {
				int c = cpt_unit_cell(box, side, u, i);
				unsigned m = cand[c] & only;
				if (!m)
					continue;
				if (m & (m - 1))
					return 0; /* two values need this one cell */
				if (cand[c] == m)
					continue;
				cand[c] = (uint16_t)m;
				changed = 1;
			}
		}
	}
	return 1;
}

/* 9x9 gets its own copy, with the sizes constants: the divisions by them
 * become multiplications, and the loops unroll. */
GPU_FN int cpt_propagate(uint16_t *cand, int box, int side, int cells)
{
	if (box == 3)
		return cpt_propagate_size(cand, 3, 9, 81);
	return cpt_propagate_size(cand, box, side, cells);
}

/* The unfixed cell with the fewest candidates, or -1 when all are fixed. */
GPU_FN int cpt_choose(const uint16_t *cand, int cells)
{
	int best = -1, best_n = 99;
	for (int c = 0; c < cells; c++) {
		int n = cpt_popcount(cand[c]);
		if (n > 1 && n < best_n) {
			best = c;
			best_n = n;
			if (n == 2)
				break;
		}
	}
	return best;
}

/* Backs up to the deepest level with a digit left and tries it. Returns 0
 * when none is left: the tree is exhausted. */
GPU_FN int cpt_next_branch(struct cpt_tree *t)
{
	for (;;) {
		struct cpt_frame *f = &t->level[t->top];
		if (f->rest) {
			unsigned d = 1u << cpt_lowest(f->rest);
			f->rest = (uint16_t)(f->rest & ~d);
			struct cpt_frame *g = &t->level[t->top + 1];
			for (int i = 0; i < t->cells; i++)
				g->cand[i] = f->cand[i];
			g->cand[f->cell] = (uint16_t)d;
			g->rest = 0;
			t->nodes++;
			if (cpt_propagate(g->cand, t->box, t->side, t->cells)) {
				t->top++;
				return 1;
			}
			continue; /* a contradiction: the next digit of this level */
		}
		if (t->top == 0)
			return 0;
		t->top--;
	}
}

/* Searches for at most budget branches. Returns TREE_SOLVED with the top
 * level's masks all single (running it again goes on past that solution),
 * TREE_EXHAUSTED, or TREE_RUNNING when the budget is spent. */
GPU_FN int cpt_run(struct cpt_tree *t, int budget)
{
	if (t->state == TREE_SOLVED && !cpt_next_branch(t))
		return TREE_EXHAUSTED;
	if (t->state == TREE_EXHAUSTED)
		return TREE_EXHAUSTED;
	while (budget-- > 0) {
		struct cpt_frame *f = &t->level[t->top];
		int c = cpt_choose(f->cand, t->cells);
		if (c < 0)
			return TREE_SOLVED;
		f->cell = (uint8_t)c;
		f->rest = f->cand[c];
		if (!cpt_next_branch(t))
			return TREE_EXHAUSTED;
	}
	return TREE_RUNNING;
}

/* Loads tree number tree of the launch: its board as masks, propagated. */
GPU_FN void cpt_begin(struct cpt_tree *t, const struct gpu_launch *L, int tree)
{
	t->box = L->box;
	t->side = L->side;
	t->cells = L->cells;
	t->puzzle = L->tree_puzzle[tree];
	t->top = 0;
	t->nodes = 0;
	t->polls = 0;
	const uint8_t *src = L->trees + (size_t)tree * (size_t)t->cells;
	uint16_t *cand = t->level[0].cand;
	for (int i = 0; i < t->cells; i++)
		cand[i] = (uint16_t)(src[i] ? 1u << (src[i] - 1) : (1u << t->side) - 1);
	t->level[0].rest = 0;
	t->state = cpt_propagate(cand, t->box, t->side, t->cells) ? TREE_RUNNING : TREE_EXHAUSTED;
}

/* One stretch of the search between two polls of the flags. Returns 1
 * while the tree goes on, 0 once it is finished. */
GPU_FN int cpt_slice(struct cpt_tree *t, const struct gpu_launch *L)
{
	int state;
	if (gpu_should_stop(L, t->puzzle)) {
		state = TREE_EXHAUSTED;
	} else {
		state = t->state = cpt_run(t, CPT_SLICE_NODES);
		if (state == TREE_SOLVED) {
			int first;
			int enough = gpu_claim_solution(L, t->puzzle, &first);
			if (first) {
				uint8_t *out = L->solutions + (size_t)t->puzzle * (size_t)t->cells;
				const uint16_t *cand = t->level[t->top].cand;
				for (int i = 0; i < t->cells; i++)
					out[i] = (uint8_t)(cpt_lowest(cand[i]) + 1);
			}
			if (enough)
				state = TREE_EXHAUSTED;
		}
	}
	return gpu_slice_end(L, t->puzzle, &t->nodes, &t->polls, state);
}

#endif
