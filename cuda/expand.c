/* The CPU's breadth-first expansion (Algorithm 4 line 2; §3.1 chose BFS
 * over DFS because it bounds the number of trees). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "expand.h"
#include "lib/geometry.h"

void frontier_init(struct frontier *f, int cells)
{
	memset(f, 0, sizeof *f);
	f->cells = cells;
	f->alloc = malloc;
	f->release = free;
}

void frontier_clear(struct frontier *f)
{
	f->n = 0;
}

void frontier_free(struct frontier *f)
{
	f->release(f->boards);
	f->release(f->puzzle);
	f->boards = NULL;
	f->puzzle = NULL;
	f->n = f->cap = 0;
}

int frontier_reserve(struct frontier *f, long more)
{
	if (f->n + more <= f->cap)
		return 0;
	long cap = f->cap ? f->cap : 64;
	while (cap < f->n + more)
		cap *= 2;
	/* no realloc: the allocator may be the device's */
	uint8_t *boards = f->alloc((size_t)cap * (size_t)f->cells);
	int32_t *puzzle = f->alloc((size_t)cap * sizeof *puzzle);
	if (!boards || !puzzle) {
		f->release(boards);
		f->release(puzzle);
		return -1;
	}
	if (f->n) {
		memcpy(boards, f->boards, (size_t)f->n * (size_t)f->cells);
		memcpy(puzzle, f->puzzle, (size_t)f->n * sizeof *puzzle);
	}
	f->release(f->boards);
	f->release(f->puzzle);
	f->boards = boards;
	f->puzzle = puzzle;
	f->cap = cap;
	return 0;
}

static int popcount64(uint64_t x)
{
	return __builtin_popcountll(x);
}

int expand_branches(const uint8_t *board, int box, enum branch_order order, int *cell, int *digit)
{
	const int side = box * box, cells = side * side;
	int first = -1;
	for (int i = 0; i < cells && first < 0; i++)
		if (!board[i])
			first = i;
	if (first < 0)
		return -1;
	if (order == ORDER_ROWS) {
		/* the brute force: the first blank, its valid digits in order */
		uint64_t used = board_peer_digits(board, box, side, first);
		int n = 0;
		for (int d = 1; d <= side; d++)
			if (!(used & digit_bit(d))) {
				cell[n] = first;
				digit[n++] = d;
			}
		return n;
	}
	/* the smallest column of the exact cover matrix, the first of equals in
	 * §2.2's column order, as dlx_choose_column picks it from the links:
	 * a blank cell's column holds its candidates; a unit-digit column not
	 * yet covered holds the unit's blank cells where the digit can go */
	const struct geometry *geo = geometry_get(box);
	uint64_t unit_used[3][GRID_MAX_SIDE];
	memset(unit_used, 0, sizeof unit_used);
	for (int i = 0; i < cells; i++) {
		uint64_t bit = digit_bit(board[i]);
		unit_used[0][geometry_row(geo, i)] |= bit;
		unit_used[1][geometry_col(geo, i)] |= bit;
		unit_used[2][geometry_box(geo, i)] |= bit;
	}
	const uint64_t all = side == 64 ? ~(uint64_t)0 : ((uint64_t)1 << side) - 1;
	uint64_t cand[GRID_MAX_CELLS];
	/* rows left in each unit-digit column: [kind][unit][digit - 1] */
	uint16_t size[3][GRID_MAX_SIDE][GRID_MAX_SIDE];
	memset(size, 0, sizeof size);
	int best_size = side + 1, best_kind = -1, best_unit = 0, best_digit = 0;
	for (int i = 0; i < cells; i++) {
		if (board[i]) {
			cand[i] = 0;
			continue;
		}
		const int r = geometry_row(geo, i), c = geometry_col(geo, i), b = geometry_box(geo, i);
		cand[i] = ~(unit_used[0][r] | unit_used[1][c] | unit_used[2][b]) & all;
		for (uint64_t m = cand[i]; m; m &= m - 1) {
			int k = __builtin_ctzll(m);
			size[0][r][k]++;
			size[1][c][k]++;
			size[2][b][k]++;
		}
		if (popcount64(cand[i]) < best_size) {
			best_size = popcount64(cand[i]);
			best_kind = 3;
			best_unit = i;
		}
	}
	for (int kind = 0; kind < 3 && best_size > 0; kind++)
		for (int u = 0; u < side && best_size > 0; u++)
			for (int d = 1; d <= side && best_size > 0; d++)
				if (!(unit_used[kind][u] & digit_bit(d)) && size[kind][u][d - 1] < best_size) {
					best_size = size[kind][u][d - 1];
					best_kind = kind;
					best_unit = u;
					best_digit = d;
				}
	int n = 0;
	if (best_kind == 3) {
		for (int d = 1; d <= side; d++)
			if (cand[best_unit] & digit_bit(d)) {
				cell[n] = best_unit;
				digit[n++] = d;
			}
	} else {
		/* the unit's cells in increasing order, the order rows enter a
		 * column of the matrix */
		const uint16_t *unit = geometry_unit(geo, best_kind * side + best_unit);
		for (int k = 0; k < side; k++) {
			int i = unit[k];
			if (cand[i] & digit_bit(best_digit)) {
				cell[n] = i;
				digit[n++] = best_digit;
			}
		}
	}
	return n;
}

enum expand_status expand_puzzle(const struct grid *g, int pidx, long s, enum branch_order order,
				 long count_limit, struct frontier *f, struct expand_result *r,
				 uint8_t *first, struct worker_ctx *ctx)
{
	const size_t cells = (size_t)g->cells;
	r->solutions = 0;
	r->nodes = 0;
	if (s <= 1) {
		/* the puzzle is its one tree: no queue (a batch of thousands of
		 * puzzles goes through here, one tree each) */
		if (frontier_reserve(f, 1) < 0)
			return EXPAND_NOMEM;
		memcpy(f->boards + (size_t)f->n * cells, g->cell, cells);
		f->puzzle[f->n++] = pidx;
		return EXPAND_OK;
	}
	/* the queue of open trees: [head, tail) of q */
	long cap = 64, head = 0, tail = 1;
	uint8_t *q = malloc((size_t)cap * cells);
	int cell[GRID_MAX_SIDE], digit[GRID_MAX_SIDE];
	if (!q)
		return EXPAND_NOMEM;
	memcpy(q, g->cell, cells);
	enum expand_status status = EXPAND_OK;
	long pops = 0;
	while (head < tail && tail - head < s) {
		if ((++pops & 63) == 0) {
			if (worker_should_stop(ctx)) {
				status = EXPAND_STOPPED;
				break;
			}
			if (worker_progress_wanted(ctx))
				worker_progress(ctx, "expanding=%ld/%ld nodes=%llu", tail - head, s,
						(unsigned long long)r->nodes);
		}
		const uint8_t *b = q + (size_t)head * cells;
		int n = expand_branches(b, g->box, order, cell, digit);
		if (n < 0) {
			if (r->solutions++ == 0)
				memcpy(first, b, cells);
			head++;
			if (r->solutions >= count_limit) {
				head = tail; /* the puzzle has its answer: no tree to search */
				break;
			}
			continue;
		}
		if (tail + n > cap) {
			if (head > 0) {
				/* slide the open trees down before growing */
				memmove(q, q + (size_t)head * cells, (size_t)(tail - head) * cells);
				tail -= head;
				head = 0;
				b = q;
			}
			if (tail + n > cap) {
				while (tail + n > cap)
					cap *= 2;
				uint8_t *grown = realloc(q, (size_t)cap * cells);
				if (!grown) {
					free(q);
					return EXPAND_NOMEM;
				}
				q = grown;
				b = q;
			}
		}
		for (int k = 0; k < n; k++) {
			uint8_t *child = q + (size_t)tail++ * cells;
			memcpy(child, b, cells);
			child[cell[k]] = (uint8_t)digit[k];
		}
		r->nodes += (uint64_t)n;
		head++;
	}
	if (status == EXPAND_OK && tail > head) {
		if (frontier_reserve(f, tail - head) < 0) {
			free(q);
			return EXPAND_NOMEM;
		}
		memcpy(f->boards + (size_t)f->n * cells, q + (size_t)head * cells,
		       (size_t)(tail - head) * cells);
		for (long k = 0; k < tail - head; k++)
			f->puzzle[f->n + k] = pidx;
		f->n += tail - head;
	}
	free(q);
	return status;
}
