/* PDLX, Parallel Dancing Links (seeds/gpu-backtracking-dlx.txt §3.3): each
 * thread searches one tree with its own Dancing Links (§2.2, Algorithms 2
 * and 3), in global memory: shared memory is far too small for them (§3.3).
 *
 * The exact cover matrix is §2.2's: 4N² columns (cell, row-digit,
 * column-digit, box-digit, numbered as in the paper), one row per given and
 * N rows per blank cell. A tree's board is the puzzle plus the placements of
 * the CPU's expansion; the rows of all its filled cells are chosen first
 * (their columns covered), which is Algorithm X started from S = the tree's
 * placements. The search is Algorithm 3 without recursion: a stack of the
 * row chosen at each level.
 *
 * Two fixes to the pseudo code, both from Knuth's paper [6] that §2.2
 * follows: Algorithm 3 covers the columns of the chosen row n except n's own
 * column t, and never covers t itself, so t would stay in the header list;
 * here t is covered before its rows are tried and restored after, as in [6].
 * Column sizes S are kept (Figure 2 shows them) so that --dlx-column=min can
 * pick the smallest column; the default picks t <- R[o] as Algorithm 3 does.
 *
 * The kernel and the emulator run a tree as pdlx_begin() then pdlx_slice()
 * until it returns 0, one tree after another per worker thread. */
#ifndef SUDOKU_GPU_DLX_TREE_H
#define SUDOKU_GPU_DLX_TREE_H

#include "gpu_device.h"

enum { DLX_DESCEND, DLX_NEXT_ROW };

struct dlx_tree {
	/* node 0 is the root o, nodes 1..4N² the column headers, then rows of
	 * four nodes; row[] names a node's row as cell * N + digit - 1 */
	int32_t *L, *R, *U, *D, *C, *row;
	int32_t *S;      /* column sizes */
	int32_t *stack;  /* the row node chosen at each level */
	int level, mode;
	int box, side, cells, ncols, nnodes;
	int order;
	int puzzle;
	int tree;
	int polls;
	uint64_t nodes;
};

/* Nodes of the largest matrix: the root, the headers, N rows of 4 per cell. */
GPU_FN long dlx_max_nodes(int box)
{
	long side = (long)box * box, cells = side * side;
	return 1 + 4 * cells + 4 * cells * side;
}

/* int32 words of one thread's workspace. */
GPU_FN long dlx_workspace_words(int box)
{
	long side = (long)box * box, cells = side * side;
	return 6 * dlx_max_nodes(box) + (1 + 4 * cells) + cells;
}

GPU_FN void dlx_bind(struct dlx_tree *x, int32_t *work, int box)
{
	long n = dlx_max_nodes(box);
	x->box = box;
	x->side = box * box;
	x->cells = x->side * x->side;
	x->ncols = 4 * x->cells;
	x->L = work;
	x->R = work + n;
	x->U = work + 2 * n;
	x->D = work + 3 * n;
	x->C = work + 4 * n;
	x->row = work + 5 * n;
	x->S = work + 6 * n;
	x->stack = x->S + 1 + x->ncols;
}

/* Algorithm 2, Remove(c), with the sizes kept. */
GPU_FN void dlx_cover(struct dlx_tree *x, int c)
{
	x->L[x->R[c]] = x->L[c];
	x->R[x->L[c]] = x->R[c];
	for (int i = x->D[c]; i != c; i = x->D[i])
		for (int j = x->R[i]; j != i; j = x->R[j]) {
			x->U[x->D[j]] = x->U[j];
			x->D[x->U[j]] = x->D[j];
			x->S[x->C[j]]--;
		}
}

/* Algorithm 2, Restore(c), undoing dlx_cover in the reverse order, as [6]
 * does (the pseudo code walks down and right; up and left is what makes
 * the links come back exactly). */
GPU_FN void dlx_uncover(struct dlx_tree *x, int c)
{
	for (int i = x->U[c]; i != c; i = x->U[i])
		for (int j = x->L[i]; j != i; j = x->L[j]) {
			x->S[x->C[j]]++;
			x->U[x->D[j]] = j;
			x->D[x->U[j]] = j;
		}
	x->L[x->R[c]] = c;
	x->R[x->L[c]] = c;
}

/* Covers the columns of row node r other than its own column. */
GPU_FN void dlx_select_row(struct dlx_tree *x, int r)
{
	for (int j = x->R[r]; j != r; j = x->R[j])
		dlx_cover(x, x->C[j]);
}

GPU_FN void dlx_unselect_row(struct dlx_tree *x, int r)
{
	for (int j = x->L[r]; j != r; j = x->L[j])
		dlx_uncover(x, x->C[j]);
}

/* Appends a row for digit d at cell: four nodes, one in each of its
 * columns (§2.2's numbering, from 1), at the bottom. Returns its first node. */
GPU_FN int dlx_add_row(struct dlx_tree *x, int cell, int d)
{
	int N = x->side, r = cell / N, c = cell % N;
	int b = (r / x->box) * x->box + c / x->box;
	int cols[4];
	cols[0] = 1 + cell;
	cols[1] = 1 + x->cells + r * N + d - 1;
	cols[2] = 1 + 2 * x->cells + c * N + d - 1;
	cols[3] = 1 + 3 * x->cells + b * N + d - 1;
	int first = x->nnodes;
	for (int k = 0; k < 4; k++) {
		int n = first + k, col = cols[k];
		x->C[n] = col;
		x->row[n] = cell * N + d - 1;
		x->U[n] = x->U[col];
		x->D[n] = col;
		x->D[x->U[col]] = n;
		x->U[col] = n;
		x->S[col]++;
		x->L[n] = k ? n - 1 : first + 3;
		x->R[n] = k < 3 ? n + 1 : first;
	}
	x->nnodes += 4;
	return first;
}

/* Builds the Dancing Links of a board and chooses the rows of its filled
 * cells. Returns -1 when two of them clash (not for boards of a launch). */
GPU_FN int dlx_build(struct dlx_tree *x, const uint8_t *board)
{
	int n = x->ncols;
	for (int i = 0; i <= n; i++) {
		x->L[i] = i ? i - 1 : n;
		x->R[i] = i < n ? i + 1 : 0;
		x->U[i] = i;
		x->D[i] = i;
		x->C[i] = i;
		x->row[i] = -1;
		x->S[i] = 0;
	}
	x->nnodes = n + 1;
	for (int cell = 0; cell < x->cells; cell++) {
		if (board[cell])
			dlx_add_row(x, cell, board[cell]);
		else
			for (int d = 1; d <= x->side; d++)
				dlx_add_row(x, cell, d);
	}
	/* choose the filled cells' rows: each is the only row of its cell
	 * column; cover the cell column, then the row's other columns */
	for (int c = 1; c <= x->cells; c++) {
		if (!board[c - 1])
			continue;
		int r = x->D[c];
		if (r == c)
			return -1; /* an earlier given removed it: a clash */
		dlx_cover(x, c);
		dlx_select_row(x, r);
	}
	x->level = 0;
	x->mode = DLX_DESCEND;
	return 0;
}

/* The column to branch on: Algorithm 3's t <- R[o], or the smallest. */
GPU_FN int dlx_choose_column(const struct dlx_tree *x)
{
	int best = x->R[0];
	if (x->order == ORDER_MIN)
		for (int c = x->R[best]; c != 0 && x->S[best] > 0; c = x->R[c])
			if (x->S[c] < x->S[best])
				best = c;
	return best;
}

/* Runs Algorithm 3 for at most budget steps. Returns TREE_SOLVED when the
 * matrix is empty (running it again goes on past the solution),
 * TREE_EXHAUSTED, or TREE_RUNNING. */
GPU_FN int dlx_run(struct dlx_tree *x, int budget)
{
	while (budget-- > 0) {
		if (x->mode == DLX_DESCEND) {
			if (x->R[0] == 0) {
				x->mode = DLX_NEXT_ROW;
				return TREE_SOLVED;
			}
			int c = dlx_choose_column(x);
			dlx_cover(x, c);
			int r = x->D[c];
			if (r == c) {
				/* a column no row can cover: back up */
				dlx_uncover(x, c);
				x->mode = DLX_NEXT_ROW;
				continue;
			}
			x->stack[x->level++] = r;
			dlx_select_row(x, r);
			x->nodes++;
		} else {
			/* restore the row of the level above, try the next one down */
			if (x->level == 0)
				return TREE_EXHAUSTED;
			int r = x->stack[--x->level];
			dlx_unselect_row(x, r);
			int c = x->C[r];
			r = x->D[r];
			if (r == c) {
				dlx_uncover(x, c);
				continue;
			}
			x->stack[x->level++] = r;
			dlx_select_row(x, r);
			x->nodes++;
			x->mode = DLX_DESCEND;
		}
	}
	return TREE_RUNNING;
}

/* Writes the tree's board with the chosen rows filled in. */
GPU_FN void dlx_write_solution(const struct dlx_tree *x, const uint8_t *board, uint8_t *out)
{
	for (int i = 0; i < x->cells; i++)
		out[i] = board[i];
	for (int k = 0; k < x->level; k++) {
		int id = x->row[x->stack[k]];
		out[id / x->side] = (uint8_t)(id % x->side + 1);
	}
}

/* Starts tree number tree in the workspace x is bound to. Returns 1 when it
 * is to be searched, 0 when it is already finished. */
GPU_FN int pdlx_begin(struct dlx_tree *x, const struct gpu_launch *L, int tree)
{
	x->tree = tree;
	x->puzzle = L->tree_puzzle[tree];
	x->order = L->order;
	x->nodes = 0;
	x->polls = 0;
	if (gpu_should_stop(L, x->puzzle) ||
	    dlx_build(x, L->trees + (size_t)tree * (size_t)L->cells) < 0) {
		gpu_tree_finished(L);
		return 0;
	}
	return 1;
}

/* One stretch of the search between two polls of the flags. Returns 1
 * while the tree goes on, 0 once it is finished. */
GPU_FN int pdlx_slice(struct dlx_tree *x, const struct gpu_launch *L)
{
	int state;
	if (gpu_should_stop(L, x->puzzle)) {
		state = TREE_EXHAUSTED;
	} else {
		state = dlx_run(x, L->poll_steps);
		if (state == TREE_SOLVED) {
			int first;
			int enough = gpu_claim_solution(L, x->puzzle, &first);
			if (first)
				dlx_write_solution(x, L->trees + (size_t)x->tree * (size_t)L->cells,
						   L->solutions + (size_t)x->puzzle * (size_t)L->cells);
			if (enough)
				state = TREE_EXHAUSTED;
		}
	}
	return gpu_slice_end(L, x->puzzle, &x->nodes, &x->polls, state);
}

#endif
