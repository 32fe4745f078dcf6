/* OPBF, Optimized Parallel Brute Force (seeds/gpu-backtracking-dlx.txt
 * §3.2, Algorithm 5): a block of N×N threads searches one tree, one thread
 * per cell, each holding its cell's digit in a register (board_num). Thread
 * 0, the leader, owns the stack; all threads do the validity check; N+4
 * shared variables (comm) carry what passes between them:
 *
 *   comm[0]      the leader's word for the step: 0 go on, -1 end (the
 *                answer is in elsewhere, or a stop), 1 a solution that this
 *                block writes out, 2 a solution that another tree wrote
 *   comm[1]      the first digit to try at the current cell
 *   comm[2]      the cell whose digit changes (-1: the search is over,
 *                -2: none changes)
 *   comm[3]      its new digit (0 clears it)
 *   comm[4 + k]  digit k+1 is invalid at the current cell (set by any
 *                thread whose cell is a peer holding k+1)
 *
 * One iteration of Algorithm 5 is three phases with a barrier after each:
 *
 *   OPBF_CHECK    all: end on comm[0] = -1; write the solution out on
 *                 comm[0] = 1; else mark the invalid digits (line 18)
 *   OPBF_ADVANCE  leader: the next valid digit, push or pop (lines 20-28)
 *   OPBF_APPLY    all: the changed cell's thread takes comm[3] (line 31);
 *                 end on comm[2] = -1; then the leader prepares the next
 *                 iteration (lines 6-13) before the barrier
 *
 * Algorithm 5 has its barriers at lines 14, 19 and 30; the leader's lines
 * 6-13 come right after line 31 in the same thread, so folding them into
 * OPBF_APPLY keeps three barriers per iteration. (Choice where the paper is
 * silent: the messages above, the cell in comm[2] so that the leader can
 * clear a cell when it backs up, and the stack holding the digit tried at
 * each level, since the leader cannot read the others' registers.)
 *
 * The kernel and the emulator both run opbf_start() for every thread, a
 * barrier, then opbf_phase() for every thread, a barrier, and so on, phase
 * after phase; every thread returns 0 at the same phase, when the team ends. */
#ifndef SUDOKU_GPU_OPBF_TEAM_H
#define SUDOKU_GPU_OPBF_TEAM_H

#include "gpu_device.h"

/* One thread per cell, at most 1024 threads per block: up to 25x25. */
#define OPBF_MAX_BOX 5
#define OPBF_MAX_SIDE (OPBF_MAX_BOX * OPBF_MAX_BOX)
#define OPBF_MAX_CELLS (OPBF_MAX_SIDE * OPBF_MAX_SIDE)
enum opbf_phase { OPBF_CHECK, OPBF_ADVANCE, OPBF_APPLY, OPBF_PHASES };

/* The block's shared memory. */
struct opbf_shared {
	int32_t comm[OPBF_MAX_SIDE + 4];
	int32_t top;                     /* the level being filled */
	int32_t levels;                  /* blank cells of the tree: the stack's height when full */
	uint16_t stack[OPBF_MAX_CELLS];  /* the blank cells, in the order they are filled */
	uint8_t digit[OPBF_MAX_CELLS];   /* the digit written at each level (0: none yet) */
};

/* One thread's registers. */
struct opbf_thread {
	int tid;
	int row, col, box;  /* its cell's */
	int value;          /* board_num: its cell's digit */
	int side;
	int puzzle;
	/* the leader's own */
	int iterations;
	uint64_t nodes;
};

GPU_FN int opbf_peer(const struct opbf_thread *me, int cell, int box_size)
{
	int row = cell / me->side, col = cell % me->side;
	int box = (row / box_size) * box_size + col / box_size;
	return me->tid != cell && (me->row == row || me->col == col || me->box == box);
}

/* The leader before the barrier of line 14 (lines 6-13): the flags (the
 * puzzle's and the host's stop, every iteration, as line 7 does), a full
 * board, or the first digit to try at the current cell. */
GPU_FN void opbf_leader_prepare(struct opbf_shared *sh, struct opbf_thread *me,
				const struct gpu_launch *L)
{
	me->iterations++;
	if (gpu_should_stop(L, me->puzzle)) {
		sh->comm[0] = -1;
	} else if (sh->top == sh->levels) {
		int first;
		gpu_claim_solution(L, me->puzzle, &first);
		sh->comm[0] = first ? 1 : 2;
	} else {
		sh->comm[0] = 0;
		sh->comm[1] = sh->digit[sh->top] + 1;
		for (int k = 0; k < me->side; k++)
			sh->comm[4 + k] = 0;
	}
}

/* Every thread, first: its cell's digit into a register (Algorithm 5 lines
 * 2-3); the leader lays out the stack and prepares the first iteration. */
GPU_FN void opbf_start(struct opbf_shared *sh, struct opbf_thread *me, const struct gpu_launch *L,
		       int tree, int tid)
{
	const uint8_t *board = L->trees + (size_t)tree * (size_t)L->cells;
	me->tid = tid;
	me->side = L->side;
	me->row = tid / L->side;
	me->col = tid % L->side;
	me->box = (me->row / L->box) * L->box + me->col / L->box;
	me->value = board[tid];
	me->puzzle = L->tree_puzzle[tree];
	me->iterations = 0;
	me->nodes = 0;
	if (tid == 0) {
		int n = 0;
		for (int i = 0; i < L->cells; i++)
			if (!board[i]) {
				sh->stack[n] = (uint16_t)i;
				sh->digit[n] = 0;
				n++;
			}
		sh->levels = n;
		sh->top = 0;
		opbf_leader_prepare(sh, me, L);
	}
}

/* Runs one phase for one thread. Returns 0 when the team's search is over
 * (for all its threads at the same phase), else 1. */
GPU_FN int opbf_phase(struct opbf_shared *sh, struct opbf_thread *me, const struct gpu_launch *L,
		      int phase)
{
	int leader = me->tid == 0;
	switch (phase) {
	case OPBF_CHECK: {
		int word = sh->comm[0];
		if (word == -1) {
			if (leader) {
				gpu_add_nodes(L, me->puzzle, &me->nodes);
				gpu_tree_finished(L);
			}
			return 0;
		}
		if (word == 1) {
			/* each thread writes its own cell of the solution */
			L->solutions[(size_t)me->puzzle * (size_t)L->cells + me->tid] = (uint8_t)me->value;
		} else if (word == 0) {
			/* line 18: a peer holding a digit >= comm[1] marks it invalid */
			int cell = sh->stack[sh->top];
			if (me->value >= sh->comm[1] && opbf_peer(me, cell, L->box))
				sh->comm[4 + me->value - 1] = 1;
		}
		return 1;
	}
	case OPBF_ADVANCE:
		if (!leader)
			return 1;
		if (sh->comm[0] != 0) {
			/* after a solution: end, or (counting) go on past it */
			const volatile int32_t *done = &L->ctl[me->puzzle].done;
			if (*done || sh->levels == 0) {
				sh->comm[2] = -1;
			} else {
				sh->top--;
				sh->comm[2] = -2;
			}
		} else {
			int top = sh->top, d = 0;
			for (int k = sh->comm[1]; k <= me->side && !d; k++)
				if (!sh->comm[4 + k - 1])
					d = k;
			sh->comm[2] = sh->stack[top];
			sh->comm[3] = d;
			sh->digit[top] = (uint8_t)d;
			if (d) {
				sh->top = top + 1; /* push */
				me->nodes++;
			} else if (top == 0) {
				sh->comm[2] = -1;  /* every digit of the first cell failed */
			} else {
				sh->top = top - 1; /* pop */
			}
		}
		if (me->iterations % GPU_POLL_STEPS == 0) /* counted by opbf_leader_prepare */
			gpu_add_nodes(L, me->puzzle, &me->nodes);
		return 1;
	case OPBF_APPLY: {
		int cell = sh->comm[2];
		if (cell == -1) {
			if (leader) {
				gpu_add_nodes(L, me->puzzle, &me->nodes);
				gpu_tree_finished(L);
			}
			return 0;
		}
		if (cell == me->tid)
			me->value = sh->comm[3];
		if (leader)
			opbf_leader_prepare(sh, me, L);
		return 1;
	}
	}
	return 0;
}

#endif
