/* sudoku-dlx: Knuth's Algorithm X on Dancing Links, as in Wang, "Parallel
 * Sudoku Solver on GPU" (seeds/gpu-backtracking-dlx.txt, section 2.2,
 * Algorithms 1-3; Knuth, "Dancing links", the paper's reference [6]).
 *
 * The puzzle is an exact-cover matrix with 4N^2 columns, numbered as in
 * section 2.2: cell (r,c) is filled, row r has digit d, column c has digit
 * d, box b has digit d. Each matrix row places one digit in one cell and has
 * a 1 in four columns. Section 2.2 makes one row per given and N per empty
 * cell; here the columns a given fills are left out of the matrix from the
 * start (as if its row had been chosen and covered), and an empty cell gets
 * a row only for the digits its row, column and box givens allow: the same
 * search, without the rows every branch would remove at once.
 *
 * The search is Algorithm 3 with the corrections Knuth's paper has and the
 * printed pseudo-code lacks: the chosen column itself is covered before its
 * rows are tried (Algorithm 3 covers only the other columns of each row, so
 * the chosen column would stay in the header list), columns are uncovered
 * in the reverse order of their covering (Algorithm 2's Restore walks down
 * and right, which corrupts a column when two adjacent nodes were removed
 * together), and column sizes are kept up to date for the S heuristic.
 * The column to branch on is the one with the fewest rows (Knuth's S
 * heuristic, the default) or, with --column=first, the first one in the
 * header list as in Algorithm 3 line 5 ("t <- R[o]"), which makes this the
 * brute force of section 2.1 in exact-cover form: the same tree, node for
 * node. The recursion is an explicit stack, so that 64x64 grids (up to
 * 4096 levels) cannot overflow the C stack. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "worker.h"

enum column_choice {
	CHOOSE_SMALLEST, /* Knuth's S heuristic: the column with the fewest rows */
	CHOOSE_TOP_LEFT, /* Algorithm 3: the first column left in the header list */
};
static int column_choice = CHOOSE_SMALLEST;

static const struct worker_option dlx_options[] = {
	{"column", OPT_CHOICE, &column_choice, 0, 0, "smallest|first",
	 "the column to branch on: the one with the fewest rows (Knuth's S heuristic), "
	 "or the first one left (the paper's Algorithm 3)"},
	{NULL, OPT_FLAG, NULL, 0, 0, NULL, NULL},
};

/* Rows chosen between polls of the stop flag. A row's cost grows with the
 * number of columns (the S heuristic scans those left): about 2^18 column
 * visits between polls, well under a millisecond, and at least every 16
 * rows (64x64: 16384 columns). */
static uint64_t poll_interval(int columns)
{
	int rows = (1 << 18) / columns;
	return rows < 16 ? 16 : (uint64_t)rows;
}

/* One 1 of the matrix, or a column header, or the root (node 0). The
 * column headers are nodes 1..4N^2; the rows follow, four nodes each. */
struct dlx_node {
	int32_t left, right, up, down;
	int32_t column; /* the header of this node's column */
};

struct dlx {
	struct dlx_node *node;
	int32_t *size;      /* [columns + 1] rows left in each column (by header) */
	int32_t *row_cell;  /* [rows] the cell a matrix row fills */
	uint8_t *row_digit; /* [rows] and the digit it writes there */
	int32_t first_row;  /* the node index of row 0's first node */
	int columns, rows;
};

static void dlx_free(struct dlx *x)
{
	free(x->node);
	free(x->size);
	free(x->row_cell);
	free(x->row_digit);
}

/* Algorithm 2, Remove(c), with the sizes kept. */
static void cover(struct dlx_node *restrict n, int32_t *restrict size, int32_t c)
{
	n[n[c].right].left = n[c].left;
	n[n[c].left].right = n[c].right;
	for (int32_t i = n[c].down; i != c; i = n[i].down) {
		for (int32_t j = n[i].right; j != i; j = n[j].right) {
			n[n[j].down].up = n[j].up;
			n[n[j].up].down = n[j].down;
			size[n[j].column]--;
		}
	}
}

/* Algorithm 2, Restore(c), in the exact reverse order of cover(). */
static void uncover(struct dlx_node *restrict n, int32_t *restrict size, int32_t c)
{
	for (int32_t i = n[c].up; i != c; i = n[i].up) {
		for (int32_t j = n[i].left; j != i; j = n[j].left) {
			size[n[j].column]++;
			n[n[j].down].up = j;
			n[n[j].up].down = j;
		}
	}
	n[n[c].right].left = c;
	n[n[c].left].right = c;
}

/* The column to branch on (see column_choice). */
static int32_t choose_column(const struct dlx_node *n, const int32_t *size)
{
	int32_t c = n[0].right;
	if (column_choice == CHOOSE_TOP_LEFT)
		return c;
	int32_t best = c, best_size = size[c];
	/* a column of size 1 is taken at once: only an empty column would be
	 * better, and the next level meets that one anyway */
	for (c = n[c].right; c != 0 && best_size > 1; c = n[c].right) {
		if (size[c] < best_size) {
			best_size = size[c];
			best = c;
		}
	}
	return best;
}

/* Puts node j, between left and right in its row, at the bottom of the
 * column whose header is head. */
static inline void append_node(struct dlx_node *restrict n, int32_t *restrict size, int32_t j,
			       int32_t head, int32_t left, int32_t right)
{
	n[j] = (struct dlx_node){.left = left, .right = right, .up = n[head].up, .down = head,
				 .column = head};
	n[n[head].up].down = j;
	n[head].up = j;
	size[head]++;
}

/* Builds the matrix of a puzzle whose givens do not clash. */
static int dlx_build(struct dlx *x, const struct grid *g)
{
	const int side = g->side, cells = g->cells;
	const uint64_t all = side == 64 ? ~0ULL : (1ULL << side) - 1;
	uint64_t row_used[GRID_MAX_SIDE] = {0}, col_used[GRID_MAX_SIDE] = {0},
		 box_used[GRID_MAX_SIDE] = {0};
	memset(x, 0, sizeof *x);
	for (int i = 0; i < cells; i++) {
		if (!g->cell[i])
			continue;
		uint64_t bit = 1ULL << (g->cell[i] - 1);
		int r = i / side, c = i % side;
		row_used[r] |= bit;
		col_used[c] |= bit;
		box_used[grid_box_index(g, r, c)] |= bit;
	}
	int rows = 0;
	for (int i = 0; i < cells; i++) {
		int r = i / side, c = i % side;
		if (!g->cell[i])
			rows += __builtin_popcountll(all & ~(row_used[r] | col_used[c] |
							     box_used[grid_box_index(g, r, c)]));
	}
	x->columns = 4 * cells;
	x->rows = rows;
	x->first_row = x->columns + 1;
	size_t nodes = (size_t)x->first_row + 4 * (size_t)rows;
	x->node = malloc(nodes * sizeof *x->node);
	x->size = calloc((size_t)x->columns + 1, sizeof *x->size);
	x->row_cell = malloc(((size_t)rows + 1) * sizeof *x->row_cell);
	x->row_digit = malloc((size_t)rows + 1);
	if (!x->node || !x->size || !x->row_cell || !x->row_digit)
		return -1;
	struct dlx_node *restrict n = x->node;
	int32_t *restrict size = x->size;
	/* The header list: every column a given does not fill, in the order of
	 * section 2.2 (cells, then row-digit, column-digit, box-digit). */
	n[0] = (struct dlx_node){0};
	int32_t last = 0, h = 1;
	for (int kind = 0; kind < 4; kind++) {
		const uint64_t *used = kind == 1 ? row_used : kind == 2 ? col_used : box_used;
		for (int unit = 0; unit < side; unit++) {
			for (int d = 0; d < side; d++, h++) {
				bool filled = kind == 0 ? g->cell[unit * side + d] != 0
							: (used[unit] >> d & 1) != 0;
				n[h] = (struct dlx_node){.up = h, .down = h, .column = h};
				if (filled) {
					/* out of the list: never chosen, never reached by a row */
					n[h].left = n[h].right = h;
					continue;
				}
				n[h].left = last;
				n[last].right = h;
				last = h;
			}
		}
	}
	n[0].left = last;
	n[last].right = 0;
	/* The rows: empty cells in reading order, digits in increasing order,
	 * each appended at the bottom of its four columns. */
	int32_t k = x->first_row, row = 0;
	for (int r = 0, i = 0; r < side; r++) {
		for (int c = 0; c < side; c++, i++) {
			if (g->cell[i])
				continue;
			const int b = grid_box_index(g, r, c);
			uint64_t free_digits = all & ~(row_used[r] | col_used[c] | box_used[b]);
			for (; free_digits; free_digits &= free_digits - 1) {
				const int d = __builtin_ctzll(free_digits);
				/* the row's four nodes, linked in a ring */
				append_node(n, size, k, 1 + i, k + 3, k + 1);
				append_node(n, size, k + 1, 1 + cells + r * side + d, k, k + 2);
				append_node(n, size, k + 2, 1 + 2 * cells + c * side + d, k + 1, k + 3);
				append_node(n, size, k + 3, 1 + 3 * cells + b * side + d, k + 2, k);
				x->row_cell[row] = i;
				x->row_digit[row] = (uint8_t)(d + 1);
				row++;
				k += 4;
			}
		}
	}
	return 0;
}

static enum solve_status dlx_solve(const struct grid *puzzle, struct solve_result *res,
				   struct worker_ctx *ctx)
{
	const long limit = worker_count_limit(ctx);
	const int open = grid_count_blanks(puzzle), givens = puzzle->cells - open;
	struct dlx x;
	/* per level: the column branched on and the row chosen in it */
	int32_t *chosen_col = malloc(((size_t)open + 1) * sizeof *chosen_col);
	int32_t *chosen_row = malloc(((size_t)open + 1) * sizeof *chosen_row);
	if (dlx_build(&x, puzzle) < 0 || !chosen_col || !chosen_row) {
		dlx_free(&x);
		free(chosen_col);
		free(chosen_row);
		snprintf(res->reason, sizeof res->reason, "out of memory");
		return SOLVE_GAVEUP;
	}
	struct dlx_node *restrict n = x.node;
	int32_t *restrict size = x.size;
	enum solve_status status = SOLVE_UNSAT;
	const uint64_t poll_every = poll_interval(x.columns);
	uint64_t nodes = 0, next_poll = poll_every;
	long found = 0;
	int level = 0;
	bool descend = true; /* entering a new level, or coming back to one */
	for (;;) {
		int32_t r = -1; /* the next row to try at this level; -1: none left */
		if (descend) {
			if (n[0].right == 0) {
				/* every column covered: the chosen rows are a solution */
				if (found++ == 0) {
					grid_copy(&res->solution, puzzle);
					for (int l = 0; l < level; l++) {
						int32_t row = (chosen_row[l] - x.first_row) / 4;
						res->solution.cell[x.row_cell[row]] = x.row_digit[row];
					}
				}
				if (found >= limit)
					break;
			} else {
				int32_t c = choose_column(n, size);
				if (size[c] > 0) {
					cover(n, size, c);
					chosen_col[level] = c;
					r = n[c].down;
				}
			}
		} else {
			/* undo this level's row, then take the one below it */
			int32_t done = chosen_row[level];
			for (int32_t j = n[done].left; j != done; j = n[j].left)
				uncover(n, size, n[j].column);
			r = n[done].down;
			if (r == chosen_col[level]) {
				uncover(n, size, r);
				r = -1;
			}
		}
		if (r < 0) {
			/* this level is done: back up */
			if (level == 0)
				break;
			level--;
			descend = false;
			continue;
		}
		/* choose row r: cover the other columns it fills, one level down */
		chosen_row[level] = r;
		for (int32_t j = n[r].right; j != r; j = n[j].right)
			cover(n, size, n[j].column);
		level++;
		descend = true;
		if (++nodes == next_poll) {
			next_poll += poll_every;
			if (worker_should_stop(ctx)) {
				status = SOLVE_STOPPED;
				break;
			}
			if (worker_progress_wanted(ctx))
				worker_progress(ctx, "depth=%d filled=%d/%d nodes=%llu", level, givens + level,
						puzzle->cells, (unsigned long long)nodes);
		}
	}
	if (status != SOLVE_STOPPED && found)
		status = SOLVE_SOLVED;
	res->count = found;
	res->nodes = nodes;
	dlx_free(&x);
	free(chosen_col);
	free(chosen_row);
	return status;
}

static const struct worker_option_alias dlx_aliases[] = {
	/* the old words of both programs: sudoku-dlx's top-left, sudoku-gpu's min */
	{"column", "dlx-column", "top-left=first,min=smallest"},
	{NULL, NULL, NULL},
};

const struct worker_algorithm worker_algorithm = {
	.name = "dlx",
	.summary = "Algorithm X on Dancing Links (exact cover, 4N^2 columns): a complete solver and counter.",
	.source = "Wang, Parallel Sudoku Solver on GPU, 2.2 (Algorithms 1-3), after Knuth, Dancing links",
	.kind = WORKER_COMPLETE,
	.min_box = 2,
	.max_box = 8,
	.options = dlx_options,
	.aliases = dlx_aliases,
	.solve = dlx_solve,
};
