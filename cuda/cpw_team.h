/* CPW, constraint propagation by a warp: CP's search (cuda/cp_tree.h: the
 * two rules of seeds/ant-colony-bve.txt §3.1 to a fixpoint, depth first on
 * the cell with the fewest candidates) with the 32 threads of a warp sharing
 * each propagation, as OPBF's block shares brute force's validity test
 * (seeds/gpu-backtracking-dlx.txt §3.2). Not one of the paper's methods: it
 * is CP made for the GPU. With a thread per tree (CP) the state of every
 * level lives in local memory, and the launch waits for the one thread that
 * drew the hardest puzzle; here the board is in shared memory, each lane
 * owns cells (c = lane, lane + 32, ...) and units (u = lane, lane + 32,
 * ...), and a propagation pass is two short data-parallel phases.
 *
 * The phases (both rules at once, from the same snapshot):
 *
 *   CPW_UNITS    each unit: the digits fixed in it (a clash: two cells hold
 *                one digit), the digits with a single place left (rule 2),
 *                and a digit with no place (a contradiction)
 *   CPW_CELLS    each open cell: its units' fixed digits go (rule 1); a
 *                digit its units have room for only here is taken (rule 2;
 *                two such digits: a contradiction); no candidate left: a
 *                contradiction. Any lane sets the pass's flags (failed,
 *                changed) and offers its fewest-candidates cell to the
 *                pass's minimum, for the branch when nothing changed
 *   CPW_CHECK    every lane reads the pass's flags: something changed and
 *                nothing failed, the next pass's CPW_UNITS at once; else
 *                lane 0, the leader, decides alone: back up, branch, or a
 *                solution. It owns the stack's bookkeeping (the cell and
 *                the digits left of each level) and the flags' polls
 *   CPW_SAVE     each lane copies its cells' masks to the new level of the
 *                stack (global memory, the warp's own) and the branch cell
 *                takes its digit
 *   CPW_RESTORE  the masks of a level back from the stack, the branch cell
 *                takes its next digit
 *   CPW_WRITE    each lane writes its cells of the solution
 *   CPW_LEADER   after a solution when counting: the leader backs up
 *   CPW_SPILL    (--split) the tree has had its passes in this launch: each
 *                lane writes its cells of the tree's open work out, as
 *                trees of masks for the next launch, and the tree ends
 *
 * A pass is two phases, a node two more. The kernel (cuda/kernels.cu) and
 * the emulator (cuda/emulate.c) both run cpw_start() for every lane, a warp
 * barrier (__syncwarp), then cpw_phase() for every lane, a barrier, and so
 * on; every lane gets the same next phase, and CPW_END ends the tree for
 * all of them at once. A phase reads what the lanes wrote before the
 * barrier and writes only what no lane reads in the same phase, so the
 * lanes' order within a phase cannot matter (the emulator scrambles it).
 * Hence three sets of flags, by pass: UNITS and CELLS set pass p's, CHECK
 * reads them while the leader clears pass p + 2's (the set of pass p - 1,
 * which the check before read), so that pass p + 1 starts from a clear set.
 *
 * Choices where a GPU version of CP has no paper to follow: the passes are
 * Jacobi-style (all cells from one snapshot) where sudoku-cp applies rule 1
 * cell after cell; both reach the same fixpoint, the pass count differs.
 * The branch order is CP's (fewest candidates, the lowest cell on a tie,
 * digits ascending), so the node counts are CP's. Boxes 2 to 4: a 16-bit
 * mask per cell.
 *
 * The split: a launch lasts as long as its longest tree, so a tree that has
 * run split_passes passes stops at its next branch and hands its open work
 * to the host, which launches again with it: the node it was about to
 * branch at, and each digit still to try at each level of its stack (the
 * level's masks, the branch cell holding that digit). These pieces are
 * exactly the tree's unexplored part, so counts add up; each digit piece is
 * counted as the node it would have been, so node counts stay CP's. */
#ifndef SUDOKU_GPU_CPW_TEAM_H
#define SUDOKU_GPU_CPW_TEAM_H

#include "cp_tree.h"
#include "gpu_device.h"

#define CPW_LANES 32
#define CPW_MAX_BOX 4
#define CPW_MAX_SIDE (CPW_MAX_BOX * CPW_MAX_BOX)
#define CPW_MAX_CELLS (CPW_MAX_SIDE * CPW_MAX_SIDE)
#define CPW_MAX_UNITS (3 * CPW_MAX_SIDE)
/* a level per branch: each fixes one more cell */
#define CPW_LEVELS (CPW_MAX_CELLS + 1)
/* the leader's decisions (about one per node) between two polls of the
 * puzzle's and the host's flags */
#define CPW_POLL_STEPS 16
/* flag sets, by pass (see above) */
#define CPW_FLAG_SETS 3
/* the lanes' minimum before any offer: no open cell */
#define CPW_NO_CHOICE 0x7fffffff

enum cpw_phase {
	CPW_UNITS, CPW_CELLS, CPW_CHECK, CPW_SAVE, CPW_RESTORE, CPW_WRITE, CPW_LEADER, CPW_SPILL,
	CPW_DISPATCH, CPW_END
};

/* What the lanes tell each other about one pass. */
struct cpw_flags {
	int32_t fail, changed; /* set to 1 by any lane */
	int32_t choice;        /* (candidates << 16 | cell), the lanes' minimum */
};

/* A warp's shared memory. */
struct cpw_shared {
	uint16_t cand[CPW_MAX_CELLS];     /* the node's candidates, a bit per digit */
	uint16_t fixed[CPW_MAX_UNITS];    /* per unit: its digits held by a single cell */
	uint16_t only[CPW_MAX_UNITS];     /* per unit: its digits with one place left */
	uint16_t rest[CPW_LEVELS];        /* per level: the digits still to try */
	uint16_t branch_cell[CPW_LEVELS]; /* per level: the cell branched on */
	struct cpw_flags flags[CPW_FLAG_SETS]; /* by pass, in turn */
	int32_t next;                     /* the leader's word: the phase after CPW_DISPATCH */
	int32_t after_write;              /* CPW_END, or CPW_LEADER to go on past a solution */
	int32_t digit;                    /* CPW_SAVE's and CPW_RESTORE's: the top level's
					   * branch cell takes it */
	int32_t spill_at;                 /* CPW_SPILL's first piece */
	int32_t top;                      /* levels on the stack */
};

/* A lane's registers. */
struct cpw_lane {
	int lane;
	int box, side, cells;
	int puzzle;
	uint16_t *stack; /* the warp's levels of cells masks (global memory) */
	int set;         /* the pass's flag set (0 to 2), the same in every lane */
	int pass;        /* passes since the tree started (stops at 2^30) */
	/* the leader's own */
	unsigned steps; /* decisions, wrapping */
	int polls;
	int split_off; /* the spill was full: no split for this tree */
	uint64_t nodes;
};

/* The stack of one warp, in bytes: a level of masks per branch. */
GPU_FN long cpw_stack_bytes(int cells)
{
	return (long)(cells + 1) * cells * (long)sizeof(uint16_t);
}

/* Every lane of the warp, in the cells' phase: its fewest-candidates cell
 * (or CPW_NO_CHOICE) into the pass's minimum. On the device one warp
 * reduction and one store by lane 0 (the only writer of the pass's choice),
 * rather than 32 atomics on one shared word, which would take turns. */
GPU_FN void cpw_offer_choice(struct cpw_flags *flags, int best, int lane)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
	best = __reduce_min_sync(0xffffffffu, best);
	if (lane == 0)
		flags->choice = best;
#elif defined(__CUDA_ARCH__)
	(void)lane;
	if (best != CPW_NO_CHOICE)
		atomicMin((int *)&flags->choice, best);
#else
	(void)lane;
	if (best < flags->choice) /* the emulator runs one lane at a time */
		flags->choice = best;
#endif
}

GPU_FN void cpw_clear_flags(struct cpw_flags *f)
{
	f->fail = 0;
	f->changed = 0;
	f->choice = CPW_NO_CHOICE;
}

/* Every lane, first: its cells of tree number tree; the leader clears the
 * stack and the flags. Returns the first phase. */
GPU_FN int cpw_start(struct cpw_shared *sh, struct cpw_lane *me, const struct gpu_launch *L, int tree, int lane,
		     uint16_t *stack)
{
	me->lane = lane;
	me->box = L->box;
	me->side = L->side;
	me->cells = L->cells;
	me->puzzle = L->tree_puzzle[tree];
	me->stack = stack;
	if (L->tree_masks) {
		const uint16_t *masks = L->tree_masks + (size_t)tree * (size_t)L->cells;
		for (int c = lane; c < me->cells; c += CPW_LANES)
			sh->cand[c] = masks[c];
	} else {
		const uint8_t *board = L->trees + (size_t)tree * (size_t)L->cells;
		const unsigned all = (1u << L->side) - 1;
		for (int c = lane; c < me->cells; c += CPW_LANES)
			sh->cand[c] = (uint16_t)(board[c] ? 1u << (board[c] - 1) : all);
	}
	me->set = 0;
	me->pass = 0;
	if (lane == 0) {
		sh->top = 0;
		for (int k = 0; k < CPW_FLAG_SETS; k++)
			cpw_clear_flags(&sh->flags[k]);
		me->steps = 0;
		me->polls = 0;
		me->split_off = 0;
		me->nodes = 0;
	}
	return CPW_UNITS;
}

/* The leader's way back: the deepest level with a digit left, which the
 * branch cell takes once the level's masks are restored. */
GPU_FN int cpw_back_up(struct cpw_shared *sh, struct cpw_lane *me, const struct gpu_launch *L)
{
	while (sh->top > 0) {
		int lv = sh->top - 1;
		unsigned rest = sh->rest[lv];
		if (rest) {
			unsigned d = 1u << cpt_lowest(rest);
			sh->rest[lv] = (uint16_t)(rest & ~d);
			sh->digit = (int32_t)d;
			me->nodes++;
			return CPW_RESTORE;
		}
		sh->top = lv;
	}
	/* exhausted: the tree's nodes go to its puzzle, and it is done */
	gpu_slice_end(L, me->puzzle, &me->nodes, &me->polls, TREE_EXHAUSTED);
	return CPW_END;
}

/* The leader, at a branch past the split: room for the tree's open work
 * (the node, and every digit left on the stack), which then counts as
 * searched. Returns 0 when the pieces do not fit: the tree goes on. */
GPU_FN int cpw_reserve_spill(struct cpw_shared *sh, struct cpw_lane *me, const struct gpu_launch *L)
{
	int pieces = 1;
	for (int lv = 0; lv < sh->top; lv++)
		pieces += cpt_popcount(sh->rest[lv]);
	/* a compare-and-swap, so that the count never passes the cap and the
	 * pieces written are exactly the first spill_count */
	int at = *(volatile int32_t *)L->spill_count;
	for (;;) {
		if (at + pieces > L->spill_cap) {
			me->split_off = 1; /* full: this tree goes on to its end */
			return 0;
		}
#if defined(__CUDA_ARCH__)
		int seen = atomicCAS((int *)L->spill_count, at, at + pieces);
#else
		int seen = *L->spill_count; /* the emulator runs one warp at a time */
		if (seen == at)
			*L->spill_count = at + pieces;
#endif
		if (seen == at)
			break;
		at = seen;
	}
	sh->spill_at = at;
	me->nodes += (uint64_t)(pieces - 1); /* the digits tried, as back_up counts them */
	gpu_slice_end(L, me->puzzle, &me->nodes, &me->polls, TREE_EXHAUSTED);
	return 1;
}

/* Each lane's cells of the open work, piece after piece in the order
 * cpw_reserve_spill counted them: the node, then each level's digits. */
GPU_FN void cpw_spill(struct cpw_shared *sh, const struct cpw_lane *me, const struct gpu_launch *L, int cells)
{
	int k = sh->spill_at;
	uint16_t *out = L->spill + (size_t)k * (size_t)cells;
	for (int c = me->lane; c < cells; c += CPW_LANES)
		out[c] = sh->cand[c];
	if (me->lane == 0)
		L->spill_puzzle[k] = me->puzzle;
	k++;
	for (int lv = 0; lv < sh->top; lv++) {
		const uint16_t *level = me->stack + (size_t)lv * (size_t)cells;
		for (unsigned rest = sh->rest[lv]; rest; rest &= rest - 1, k++) {
			out = L->spill + (size_t)k * (size_t)cells;
			for (int c = me->lane; c < cells; c += CPW_LANES)
				out[c] = c == sh->branch_cell[lv] ? (uint16_t)(rest & -rest) : level[c];
			if (me->lane == 0)
				L->spill_puzzle[k] = me->puzzle;
		}
	}
}

/* The leader, after a pass that changed nothing or failed: what the warp
 * does next. */
GPU_FN int cpw_lead(struct cpw_shared *sh, struct cpw_lane *me, const struct gpu_launch *L,
		    const struct cpw_flags *pass)
{
	if (me->steps++ % CPW_POLL_STEPS == 0) {
		int state = gpu_should_stop(L, me->puzzle) ? TREE_EXHAUSTED : TREE_RUNNING;
		if (!gpu_slice_end(L, me->puzzle, &me->nodes, &me->polls, state))
			return CPW_END;
	}
	if (pass->fail)
		return cpw_back_up(sh, me, L);
	if (pass->choice == CPW_NO_CHOICE) {
		/* every cell single, every unit whole: a solution */
		int first;
		int enough = gpu_claim_solution(L, me->puzzle, &first);
		if (enough)
			gpu_slice_end(L, me->puzzle, &me->nodes, &me->polls, TREE_EXHAUSTED);
		if (first) {
			/* after the write, the end, or back up past it */
			sh->after_write = enough ? CPW_END : CPW_LEADER;
			return CPW_WRITE;
		}
		return enough ? CPW_END : cpw_back_up(sh, me, L);
	}
	/* (past one branch at least, so that every piece is less than the tree) */
	if (L->split_passes && me->pass >= L->split_passes && sh->top > 0 && !me->split_off &&
	    cpw_reserve_spill(sh, me, L))
		return CPW_SPILL;
	/* branch: the cell's lowest digit now, the others kept for later */
	int c = pass->choice & 0xffff, lv = sh->top;
	unsigned m = sh->cand[c], d = 1u << cpt_lowest(m);
	sh->rest[lv] = (uint16_t)(m & ~d);
	sh->branch_cell[lv] = (uint16_t)c;
	sh->top = lv + 1;
	sh->digit = (int32_t)d;
	me->nodes++;
	return CPW_SAVE;
}

/* Cell c's units: its row, its column, its box. */
GPU_FN void cpw_cell_units(int box, int side, int c, int *row, int *col, int *bx)
{
	int r = c / side, k = c % side;
	*row = r;
	*col = side + k;
	*bx = 2 * side + (r / box) * box + k / box;
}

/* Each of the lane's units: its fixed digits and the digits with one
 * place left, for the cells' phase; a clash or a missing digit fails the
 * pass. */
GPU_FN void cpw_units(struct cpw_shared *sh, const struct cpw_lane *me, struct cpw_flags *flags, int box,
		      int side)
{
	const unsigned all = (1u << side) - 1;
	for (int u = me->lane; u < 3 * side; u += CPW_LANES) {
		unsigned fixed = 0, once = 0, twice = 0;
		int bad = 0;
		for (int i = 0; i < side; i++) {
			unsigned m = sh->cand[cpt_unit_cell(box, side, u, i)];
			if (!(m & (m - 1))) {
				bad |= (fixed & m) != 0; /* two cells hold one digit */
				fixed |= m;
			}
			twice |= once & m;
			once |= m;
		}
		if (bad || once != all)
			flags->fail = 1;
		sh->fixed[u] = (uint16_t)fixed;
		sh->only[u] = (uint16_t)(once & ~twice);
	}
}

/* Runs one phase for one lane, for grids of box size box. Returns the
 * phase after the barrier, the same for every lane of the warp. */
GPU_FN int cpw_phase_size(struct cpw_shared *sh, struct cpw_lane *me, const struct gpu_launch *L, int phase,
			  int box, int side, int cells)
{
	if (phase == CPW_DISPATCH)
		phase = sh->next;
	switch (phase) {
	case CPW_CHECK: {
		const struct cpw_flags *done = &sh->flags[me->set];
		int go_on = done->changed && !done->fail;
		me->set = me->set == CPW_FLAG_SETS - 1 ? 0 : me->set + 1;
		if (me->pass < 1 << 30)
			me->pass++;
		if (me->lane == 0) /* the set after the next pass's: read by the last check */
			cpw_clear_flags(&sh->flags[me->set == CPW_FLAG_SETS - 1 ? 0 : me->set + 1]);
		if (!go_on) {
			if (me->lane == 0)
				sh->next = cpw_lead(sh, me, L, done);
			return CPW_DISPATCH;
		}
	}
		/* fall through - the next pass at once */
	case CPW_UNITS:
		cpw_units(sh, me, &sh->flags[me->set], box, side);
		return CPW_CELLS;
	case CPW_CELLS: {
		struct cpw_flags *flags = &sh->flags[me->set];
		int best = CPW_NO_CHOICE, fail = 0, changed = 0;
		for (int c = me->lane; c < cells; c += CPW_LANES) {
			unsigned m = sh->cand[c];
			if (!(m & (m - 1)))
				continue; /* fixed (or empty: failed when it emptied) */
			int r, k, b;
			cpw_cell_units(box, side, c, &r, &k, &b);
			unsigned left = m & ~(unsigned)(sh->fixed[r] | sh->fixed[k] | sh->fixed[b]);
			unsigned here = left & (unsigned)(sh->only[r] | sh->only[k] | sh->only[b]);
			if (here) {
				if (here & (here - 1))
					fail = 1; /* two digits need this one cell */
				left = here;
			}
			if (!left)
				fail = 1;
			if (left != m) {
				sh->cand[c] = (uint16_t)left;
				changed = 1;
			}
			int n = cpt_popcount(left);
			if (n > 1 && (n << 16 | c) < best)
				best = n << 16 | c;
		}
		if (fail)
			flags->fail = 1;
		if (changed)
			flags->changed = 1;
		cpw_offer_choice(flags, best, me->lane); /* by every lane */
		return CPW_CHECK;
	}
	case CPW_LEADER:
		if (me->lane == 0)
			sh->next = cpw_back_up(sh, me, L);
		return CPW_DISPATCH;
	case CPW_SPILL:
		cpw_spill(sh, me, L, cells);
		return CPW_END;
	case CPW_SAVE:
	case CPW_RESTORE: {
		/* the top level: the one just pushed, or the one backed up to */
		const int lv = sh->top - 1, cell = sh->branch_cell[lv];
		uint16_t *level = me->stack + (size_t)lv * (size_t)cells;
		for (int c = me->lane; c < cells; c += CPW_LANES) {
			if (phase == CPW_SAVE)
				level[c] = sh->cand[c];
			sh->cand[c] = c == cell ? (uint16_t)sh->digit : level[c];
		}
		return CPW_UNITS;
	}
	case CPW_WRITE: {
		uint8_t *out = L->solutions + (size_t)me->puzzle * (size_t)cells;
		for (int c = me->lane; c < cells; c += CPW_LANES)
			out[c] = (uint8_t)(cpt_lowest(sh->cand[c]) + 1);
		return sh->after_write;
	}
	}
	return CPW_END;
}

/* One phase for one lane. 9x9 gets its own copy, with the sizes constant:
 * the divisions by them become multiplications, and the loops unroll. */
GPU_FN int cpw_phase(struct cpw_shared *sh, struct cpw_lane *me, const struct gpu_launch *L, int phase)
{
	if (me->box == 3)
		return cpw_phase_size(sh, me, L, phase, 3, 9, 81);
	return cpw_phase_size(sh, me, L, phase, me->box, me->side, me->cells);
}

#endif
