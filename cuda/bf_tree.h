/* SPBF, Simple Parallel Brute Force (seeds/gpu-backtracking-dlx.txt §3.1):
 * one thread searches one tree with the brute force of §2.1 (empty cells
 * from the top left to the bottom right, digits 1..N, the first valid one
 * written, backtrack when none is), without recursion: an explicit stack
 * of the grid locations being filled. Board and stack live in the block's
 * shared memory, spbf_thread_bytes() per thread.
 *
 * The kernel (cuda/kernels.cu) and the emulator (cuda/emulate.c) both run a
 * tree as spbf_begin() then spbf_slice() until it returns 0. */
#ifndef SUDOKU_GPU_BF_TREE_H
#define SUDOKU_GPU_BF_TREE_H

#include "gpu_device.h"

struct bf_tree {
	uint8_t *board;   /* shared memory: the tree's board */
	uint16_t *stack;  /* shared memory: the cell filled at each level */
	int top;          /* the level being filled: stack[top] is its cell */
	int box, side, cells;
	int puzzle;
	int full;         /* the tree's board had no blank: a solution already */
	int polls;
	uint64_t nodes;   /* placements not yet added to the puzzle's count */
};

/* Shared memory of one thread: the board, then the stack (2-byte aligned). */
GPU_FN long spbf_thread_bytes(int cells)
{
	return (long)(cells + (cells & 1)) + 2L * cells;
}

/* The first blank cell at or after cell from (cells when there is none). */
GPU_FN int bf_next_blank(const uint8_t *board, int from, int cells)
{
	while (from < cells && board[from])
		from++;
	return from;
}

/* Runs the brute force for at most budget placement attempts. Returns
 * TREE_SOLVED with the board full (running it again goes on past that
 * solution), TREE_EXHAUSTED when the tree holds nothing more, or
 * TREE_RUNNING when the budget is spent. */
GPU_FN int bf_tree_run(struct bf_tree *t, int budget)
{
	while (budget-- > 0) {
		int cell = t->stack[t->top];
		uint64_t used = board_peer_digits(t->board, t->box, t->side, cell);
		int d = first_free_digit(used, t->board[cell] + 1, t->side);
		if (d) {
			/* a valid digit: write it and go on to the next blank */
			t->board[cell] = (uint8_t)d;
			t->nodes++;
			int next = bf_next_blank(t->board, cell + 1, t->cells);
			if (next == t->cells)
				return TREE_SOLVED;
			t->stack[++t->top] = (uint16_t)next;
		} else {
			/* no digit left here: clear it and back up to the last cell */
			t->board[cell] = 0;
			if (t->top == 0)
				return TREE_EXHAUSTED;
			t->top--;
		}
	}
	return TREE_RUNNING;
}

/* Loads tree number tree of the launch into this thread's shared memory. */
GPU_FN void spbf_begin(struct bf_tree *t, uint8_t *mem, const struct gpu_launch *L, int tree)
{
	t->box = L->box;
	t->side = L->side;
	t->cells = L->cells;
	t->board = mem;
	t->stack = (uint16_t *)(void *)(mem + t->cells + (t->cells & 1));
	const uint8_t *src = L->trees + (size_t)tree * (size_t)t->cells;
	for (int i = 0; i < t->cells; i++)
		t->board[i] = src[i];
	t->puzzle = L->tree_puzzle[tree];
	t->top = 0;
	t->nodes = 0;
	t->polls = 0;
	int first = bf_next_blank(t->board, 0, t->cells);
	t->full = first == t->cells;
	t->stack[0] = (uint16_t)(t->full ? 0 : first);
}

/* One stretch of the search between two polls of the flags (§3.1: the
 * first answer sets a global flag, the other threads see it and end).
 * Returns 1 while the tree goes on, 0 once it is finished. */
GPU_FN int spbf_slice(struct bf_tree *t, const struct gpu_launch *L)
{
	int state;
	if (gpu_should_stop(L, t->puzzle)) {
		state = TREE_EXHAUSTED;
	} else {
		state = t->full ? TREE_SOLVED : bf_tree_run(t, L->poll_steps);
		if (state == TREE_SOLVED) {
			int first;
			int enough = gpu_claim_solution(L, t->puzzle, &first);
			if (first) {
				uint8_t *out = L->solutions + (size_t)t->puzzle * (size_t)t->cells;
				for (int i = 0; i < t->cells; i++)
					out[i] = t->board[i];
			}
			if (enough || t->full)
				state = TREE_EXHAUSTED;
		}
	}
	return gpu_slice_end(L, t->puzzle, &t->nodes, &t->polls, state);
}

#endif
